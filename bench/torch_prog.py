# A PyTorch program with a known shape: CPU matmuls (OpenMP workers),
# a pure-Python loop, and GPU work waited on with synchronize.
import time, torch

def cpu_matmul(n):
    a = torch.randn(384, 384); b = torch.randn(384, 384)
    for _ in range(n):
        c = a @ b
    return c

def python_loop(n):
    s = 0
    for i in range(n):
        s += i * i
    return s

def gpu_wait(n):
    if not torch.cuda.is_available():
        return
    x = torch.randn(4096, 4096, device="cuda")
    for _ in range(n):
        y = x @ x
        torch.cuda.synchronize()

t = time.time()
while time.time() - t < 6:
    cpu_matmul(40)
    python_loop(150000)
    gpu_wait(4)
