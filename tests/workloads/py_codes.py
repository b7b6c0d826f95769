# SPDX-License-Identifier: MIT
# Many distinct code objects: argv[1] functions (default 50000) made with
# compile() and exec(), in chains argv[2] deep (default 80) where each
# function calls the next and the last spins argv[3] rounds (default 40000
# additions), so every sample of a chain's spin names a whole chain of
# distinct code objects. Each chain runs once. bench/python.sh measures the
# recorder's memory on it.
import sys

n = int(sys.argv[1]) if len(sys.argv) > 1 else 50000
depth = int(sys.argv[2]) if len(sys.argv) > 2 else 80
rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 40000

src = []
for i in range(n):
    if (i + 1) % depth and i + 1 < n:
        src.append("def f%d():\n    return f%d()\n" % (i, i + 1))
    else:
        src.append("def f%d():\n    x = 0\n    for i in range(%d):\n        x += i\n"
                   "    return x\n" % (i, rounds))
g = {}
exec(compile("".join(src), "py_codes_gen.py", "exec"), g)
for start in range(0, n, depth):
    g["f%d" % start]()
