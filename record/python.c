// SPDX-License-Identifier: MIT
/*
 * record/python.c - CPython interpreters of targets: offsets for the BPF
 * walk, Python frames spliced among native ones, code objects stored.
 *
 * The offsets come from CPython's own headers of each version (3.11: from
 * Include/internal/pycore_{runtime,interp,frame}.h and cpython/code.h,
 * checked with offsetof against a 3.11 build); a version without a row
 * records native frames only and is said once. Everything read from a
 * target is hostile: a pointer may point anywhere, a length may be huge,
 * so each read is one bounded process_vm_readv and every string is cut.
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <linux/types.h>

#include "bpf/events.h"
#include "elf/elf_file.h"
#include "format/recording.h"
#include "record/python.h"
#include "record/budget.h"
#include "util/hash.h"
#include "util/hashmap.h"
#include "util/clock.h"
#include "util/log.h"
#include "util/vec.h"

/* One version's layout: the walk's offsets and what record/ reads of a code object. */
struct py_layout {
	uint32_t version;		/* PY_VERSION_HEX >> 16 */
	struct py_proc walk;		/* runtime left 0 */
	uint16_t co_firstlineno, co_filename, co_name, co_qualname, co_linetable;
	uint16_t ascii_size, compact_size;	/* sizeof(PyASCIIObject), PyCompactUnicodeObject */
	bool debug_offsets;		/* _PyRuntime starts with _Py_DebugOffsets: its values win */
};

/*
 * From each version's headers (offsetof with Py_BUILD_CORE: python.org's
 * 3.11.7, 3.12.1 and 3.13.0 on x86-64). 3.12 has no is_entry (shim frames
 * mark the entries) and 3.13 no _PyCFrame (the thread state points at its
 * frame); 3.13 publishes the same offsets in _PyRuntime, read from there.
 */
static const struct py_layout layouts[] = {
	{
		.version = 0x030b,
		.walk = {
			.rt_interp_head = 40, .interp_threads_head = 16, .ts_next = 8,
			.ts_native_tid = 160, .ts_cframe = 56, .cf_current_frame = 8,
			.fr_code = 32, .fr_previous = 48, .fr_prev_instr = 56,
			.fr_is_entry = 68, .co_code_adaptive = 184, .fr_owner = 69,
		},
		.co_firstlineno = 72, .co_filename = 112, .co_name = 120, .co_qualname = 128,
		.co_linetable = 136, .ascii_size = 48, .compact_size = 72,
	},
	{
		.version = 0x030c,
		.walk = {
			.rt_interp_head = 40, .interp_threads_head = 72, .ts_next = 8,
			.ts_native_tid = 144, .ts_cframe = 56, .cf_current_frame = 0,
			.fr_code = 0, .fr_previous = 8, .fr_prev_instr = 56,
			.fr_is_entry = PY_NO_OFF, .co_code_adaptive = 192, .fr_owner = 70,
		},
		.co_firstlineno = 68, .co_filename = 112, .co_name = 120, .co_qualname = 128,
		.co_linetable = 136, .ascii_size = 40, .compact_size = 56,
	},
	{
		.version = 0x030d,
		.walk = {
			.rt_interp_head = 632, .interp_threads_head = 7344, .ts_next = 8,
			.ts_native_tid = 160, .ts_cframe = 72, .cf_current_frame = PY_NO_OFF,
			.fr_code = 0, .fr_previous = 8, .fr_prev_instr = 56,
			.fr_is_entry = PY_NO_OFF, .co_code_adaptive = 200, .fr_owner = 70,
		},
		.co_firstlineno = 68, .co_filename = 112, .co_name = 120, .co_qualname = 128,
		.co_linetable = 136, .ascii_size = 40, .compact_size = 56, .debug_offsets = true,
	},
};

#define KNOWN_VERSIONS	"3.11, 3.12, 3.13"

/*
 * 3.13's _Py_DebugOffsets (Include/internal/pycore_runtime.h), words of 8
 * bytes from the start of _PyRuntime: the ones read.
 */
enum {
	DO_VERSION = 1, DO_FREE_THREADED = 2, DO_RT_INTERP_HEAD = 5, DO_IS_THREADS_HEAD = 9,
	DO_TS_NEXT = 21, DO_TS_CURRENT_FRAME = 23, DO_TS_NATIVE_TID = 25,
	DO_FR_PREVIOUS = 29, DO_FR_EXECUTABLE = 30, DO_FR_INSTR_PTR = 31, DO_FR_OWNER = 33,
	DO_CO_FILENAME = 35, DO_CO_NAME = 36, DO_CO_QUALNAME = 37, DO_CO_LINETABLE = 38,
	DO_CO_FIRSTLINENO = 39, DO_CO_CODE_ADAPTIVE = 43, DO_BYTES_OB_SIZE = 65,
	DO_BYTES_OB_SVAL = 66, DO_STR_STATE = 68, DO_STR_LENGTH = 69, DO_STR_ASCII_SIZE = 70,
	DO_WORDS = 73,
};

#define PY_LOOKS_MAX	4	/* looks for an interpreter per process (execs, start-up) */
#define PY_LOOK_AGAIN_NS	50000000ull	/* the n-th look again n x 50 ms after the last */
/*
 * The code-object cache's budget: identities kept per process, and in all
 * (about 40 bytes each with the map's slack, PY_CODE_BYTES as it grows),
 * in all at most a sixteenth of the memory budget (record/budget.h), and
 * a process at most half of that. A frame whose code object is not kept
 * is unnamed and counted, the first time warned of; an exited process's
 * are dropped.
 */
#define PY_CODES_MAX	200000
#define PY_CODES_TOTAL_MAX	1000000
#define PY_CODE_BYTES	48
#define PY_IDENT_MAX	128	/* bytes of a code object's identity fields */

struct py_target {
	uint32_t tgid;
	char comm[16];
	unsigned int looks;
	uint64_t looked_ns;		/* sample time of the last look */
	uint64_t exec_ns;		/* its last exec the side-band saw when it was looked at */
	const struct py_layout *layout;	/* NULL: not walked; a row of layouts[] or own */
	struct py_layout *own;		/* malloc'd: read from the process (debug offsets) */
	bool unknown;			/* an interpreter of a version without a layout */
	uint64_t eval_lo, eval_hi;	/* _PyEval_EvalFrameDefault in the process */
	uint64_t code_type;		/* &PyCode_Type in the process, 0: unknown */
	struct u64map codes;		/* identity of a code object -> its key, 0: unreadable */
	uint64_t nr_keys;		/* keys given */
};

struct pyrec {
	int map_fd;
	struct u64map index;		/* tgid -> index + 1 into v */
	struct py_target *v;
	size_t nr, alloc;
	bool said_version;
	bool said_codes;		/* the code-object budget was reached: warned */
	uint64_t codes_kept;		/* identities in every target's codes */
	uint64_t codes_max, codes_total_max;	/* PY_CODES_MAX, PY_CODES_TOTAL_MAX */
	struct pyrec_stats stats;
};

int pyrec__new(int map_fd, struct pyrec **out)
{
	struct pyrec *pr = calloc(1, sizeof(*pr));

	if (!pr)
		return pr_errno(-ENOMEM, "cannot follow Python interpreters");
	pr->map_fd = map_fd;
	pr->codes_total_max = mem_budget__size() / 16 / PY_CODE_BYTES;
	if (pr->codes_total_max > PY_CODES_TOTAL_MAX)
		pr->codes_total_max = PY_CODES_TOTAL_MAX;
	pr->codes_max = pr->codes_total_max / 2 < PY_CODES_MAX ? pr->codes_total_max / 2 :
								 PY_CODES_MAX;
	*out = pr;
	return 0;
}

void pyrec__free(struct pyrec *pr)
{
	size_t i;

	if (!pr)
		return;
	for (i = 0; i < pr->nr; i++) {
		u64map__release(&pr->v[i].codes);
		free(pr->v[i].own);
	}
	free(pr->v);
	u64map__release(&pr->index);
	free(pr);
}

const struct pyrec_stats *pyrec__stats(const struct pyrec *pr)
{
	return &pr->stats;
}

/* len bytes of pid's memory at addr: true when all were read. */
static bool peek(uint32_t pid, uint64_t addr, void *buf, size_t len)
{
	struct iovec local = { buf, len }, remote = { (void *)(uintptr_t)addr, len };

	if (!addr || addr >= (1ull << 47))
		return false;
	return process_vm_readv((pid_t)pid, &local, 1, &remote, 1, 0) == (ssize_t)len;
}

static bool is_python_file(const char *path)
{
	const char *base = strrchr(path, '/');

	base = base ? base + 1 : path;
	return !strncmp(base, "python3", 7) || !strncmp(base, "libpython3", 10);
}

/*
 * PY_VERSION_HEX of an interpreter without Py_Version (before 3.11) from its
 * file's name, "python3.10" or "libpython3.10.so.1.0": 3.N only, 0 unknown.
 */
static uint64_t version_of_name(const char *path)
{
	const char *base = strrchr(path, '/');
	unsigned long minor;
	char *end;

	base = base ? base + 1 : path;
	base += strncmp(base, "lib", 3) ? 0 : 3;
	if (strncmp(base, "python3.", 8))
		return 0;
	minor = strtoul(base + 8, &end, 10);
	return end == base + 8 || minor > 255 ? 0 : 0x03000000ull | (uint64_t)minor << 16;
}

/*
 * An interpreter of a version without a layout (or whose published layout
 * is refused: why): said once, counted.
 */
static void unknown_version(struct pyrec *pr, struct py_target *t, uint64_t version,
			    const char *why)
{
	char v[16] = "unknown";

	if (version)
		snprintf(v, sizeof(v), "%u.%u", (unsigned int)(version >> 24 & 0xff),
			 (unsigned int)(version >> 16 & 0xff));
	t->unknown = true;
	pr->stats.unknown_version++;
	if (pr->said_version)
		return;
	pr->said_version = true;
	snprintf(pr->stats.unknown_first, sizeof(pr->stats.unknown_first),
		 "%s (process %" PRIu32 ")", v, t->tgid);
	if (why)
		pr_warn("process %" PRIu32 " runs Python %s, whose frames eprof cannot read (%s): "
			"its stacks show the interpreter's native frames", t->tgid, v, why);
	else
		pr_warn("process %" PRIu32 " runs Python %s, whose frames eprof cannot read (it "
			"knows %s): its stacks show the interpreter's native frames", t->tgid, v,
			KNOWN_VERSIONS);
}

/* Word k of a _Py_DebugOffsets as a field offset: false when not one (hostile). */
static bool do_off(const uint64_t *w, unsigned int k, uint16_t *out)
{
	if (w[k] >= 0x8000)
		return false;
	*out = (uint16_t)w[k];
	return true;
}

/*
 * The layout of version (full PY_VERSION_HEX) that t's _PyRuntime at rt
 * publishes, over row's: false when it is not a _Py_DebugOffsets of that
 * version, of a free-threaded build, or has a field out of bounds or
 * object layouts the reader does not know (said in *why).
 */
static bool debug_layout(struct py_target *t, uint64_t rt, uint64_t version,
			 const struct py_layout *row, struct py_layout *l, const char **why)
{
	uint64_t w[DO_WORDS];
	uint16_t ascii;

	*l = *row;
	*why = "its _Py_DebugOffsets are unreadable or damaged";
	if (!peek(t->tgid, rt, w, sizeof(w)) || memcmp(w, "xdebugpy", 8) || w[DO_VERSION] != version)
		return false;
	if (w[DO_FREE_THREADED]) {
		*why = "a free-threaded build";
		return false;
	}
	if (!do_off(w, DO_RT_INTERP_HEAD, &l->walk.rt_interp_head) ||
	    !do_off(w, DO_IS_THREADS_HEAD, &l->walk.interp_threads_head) ||
	    !do_off(w, DO_TS_NEXT, &l->walk.ts_next) ||
	    !do_off(w, DO_TS_CURRENT_FRAME, &l->walk.ts_cframe) ||
	    !do_off(w, DO_TS_NATIVE_TID, &l->walk.ts_native_tid) ||
	    !do_off(w, DO_FR_PREVIOUS, &l->walk.fr_previous) ||
	    !do_off(w, DO_FR_EXECUTABLE, &l->walk.fr_code) ||
	    !do_off(w, DO_FR_INSTR_PTR, &l->walk.fr_prev_instr) ||
	    !do_off(w, DO_FR_OWNER, &l->walk.fr_owner) ||
	    !do_off(w, DO_CO_FILENAME, &l->co_filename) || !do_off(w, DO_CO_NAME, &l->co_name) ||
	    !do_off(w, DO_CO_QUALNAME, &l->co_qualname) ||
	    !do_off(w, DO_CO_LINETABLE, &l->co_linetable) ||
	    !do_off(w, DO_CO_FIRSTLINENO, &l->co_firstlineno) ||
	    !do_off(w, DO_CO_CODE_ADAPTIVE, &l->walk.co_code_adaptive) ||
	    !do_off(w, DO_STR_ASCII_SIZE, &ascii))
		return false;
	/* what read_str(), read_code() and code_key() take as given */
	*why = "its objects are laid out otherwise";
	if (w[DO_BYTES_OB_SIZE] != 16 || w[DO_BYTES_OB_SVAL] != 32 || w[DO_STR_LENGTH] != 16 ||
	    w[DO_STR_STATE] != 32 || ascii < 40 || ascii > 48 || l->co_linetable < l->co_firstlineno ||
	    l->co_linetable + 8u - l->co_firstlineno > 128 || l->walk.co_code_adaptive > 256 ||
	    l->co_filename + 8u > l->walk.co_code_adaptive || l->co_name + 8u > l->walk.co_code_adaptive ||
	    l->co_qualname + 8u > l->walk.co_code_adaptive ||
	    l->co_linetable + 8u > l->walk.co_code_adaptive)
		return false;
	l->ascii_size = ascii;
	l->compact_size = ascii + 16;	/* utf8_length, utf8 */
	l->walk.cf_current_frame = PY_NO_OFF;
	l->walk.fr_is_entry = PY_NO_OFF;
	return true;
}

/*
 * The interpreter mapped at [start, end) from pgoff by pid, if path is one
 * with a known layout: fills t and the sampler's map. False otherwise.
 */
static bool try_binary(struct pyrec *pr, struct py_target *t, uint64_t start, uint64_t end,
		       uint64_t pgoff, const char *path)
{
	uint64_t rt, rt_size, ver_at, ver_size, ev, ev_size, ct, ct_size, v0, bias;
	uint64_t version = 0;
	struct elf_file *f = NULL;
	const char *why;
	struct py_proc pp;
	bool ok = false;
	size_t i;
	int fd;

	fd = mapped_file__open(t->tgid, start, end, path);
	if (fd < 0)
		return false;
	if (elf_file__open(fd, NULL, 0, &f))
		return false;
	if (elf_file__dynsym(f, "_PyRuntime", &rt, &rt_size) ||
	    elf_file__dynsym(f, "_PyEval_EvalFrameDefault", &ev, &ev_size) ||
	    elf_segments__offset_to_vaddr(f->segs, f->nr_segs, pgoff, &v0))
		goto out;
	if (elf_file__dynsym(f, "PyCode_Type", &ct, &ct_size))
		ct = 0;
	bias = start - v0;
	if (!elf_file__dynsym(f, "Py_Version", &ver_at, &ver_size)) {
		if (!peek(t->tgid, bias + ver_at, &version, sizeof(version)))
			goto out;
	} else {
		version = version_of_name(path);	/* before 3.11: none has a layout */
	}
	for (i = 0; i < sizeof(layouts) / sizeof(layouts[0]); i++)
		if (layouts[i].version == (version >> 16 & 0xffff))
			t->layout = &layouts[i];
	if (!t->layout) {
		unknown_version(pr, t, version, NULL);
		goto out;
	}
	if (t->layout->debug_offsets) {
		if (!t->own)
			t->own = malloc(sizeof(*t->own));
		if (!t->own || !debug_layout(t, bias + rt, version, t->layout, t->own, &why)) {
			t->layout = NULL;
			unknown_version(pr, t, version, t->own ? why : "no memory");
			goto out;
		}
		t->layout = t->own;
	}
	t->eval_lo = bias + ev;
	t->eval_hi = bias + ev + ev_size;
	t->code_type = ct ? bias + ct : 0;
	pp = t->layout->walk;
	pp.runtime = bias + rt;
	if (pr->map_fd >= 0 && bpf_map_update_elem(pr->map_fd, &t->tgid, &pp, BPF_ANY)) {
		pr_warn("cannot walk the Python frames of process %" PRIu32 ": %s", t->tgid,
			strerror(errno));
		t->layout = NULL;
		goto out;
	}
	pr->stats.procs++;
	ok = true;
out:
	elf_file__close(f);
	return ok;
}

/* Looks through /proc/PID/maps (at most 65536 lines) for an interpreter. */
static void look(struct pyrec *pr, struct py_target *t)
{
	char path[64], line[4096 + 256], perms[8], file[4096];
	uint64_t start, end, pgoff;
	unsigned int lines = 0;
	FILE *fp;

	snprintf(path, sizeof(path), "/proc/%" PRIu32 "/maps", t->tgid);
	fp = fopen(path, "re");
	if (!fp)
		return;
	while (lines++ < 65536 && fgets(line, sizeof(line), fp)) {
		file[0] = '\0';
		if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %7s %" SCNx64 " %*s %*s %4095[^\n]",
			   &start, &end, perms, &pgoff, file) != 5 || !strchr(perms, 'x') ||
		    file[0] != '/' || !is_python_file(file))
			continue;
		if (try_binary(pr, t, start, end, pgoff, file) || t->unknown)
			break;
	}
	fclose(fp);
}

static struct py_target *target_of(struct pyrec *pr, uint32_t tgid)
{
	uint64_t *slot = u64map__find(&pr->index, tgid);

	return slot ? &pr->v[*slot - 1] : NULL;
}

/* A new target tgid: NULL without memory. */
static struct py_target *new_target(struct pyrec *pr, uint32_t tgid)
{
	struct py_target *t;
	uint64_t *slot;
	bool added;

	if (vec__grow(&pr->v, &pr->alloc, pr->nr + 1, sizeof(*pr->v)) ||
	    u64map__upsert(&pr->index, tgid, pr->nr + 1, &slot, &added))
		return NULL;
	t = &pr->v[pr->nr++];
	memset(t, 0, sizeof(*t));
	t->tgid = tgid;
	return t;
}

int pyrec__adopt(struct pyrec *pr, uint32_t tgid, uint32_t version, uint64_t eval_lo,
		 uint64_t eval_hi)
{
	struct py_target *t = target_of(pr, tgid);
	size_t i;

	if (!t)
		t = new_target(pr, tgid);
	if (!t)
		return -ENOMEM;
	for (i = 0; i < sizeof(layouts) / sizeof(layouts[0]); i++)
		if (layouts[i].version == version && !layouts[i].debug_offsets)
			t->layout = &layouts[i];
	if (!t->layout)
		return -EINVAL;
	t->eval_lo = eval_lo;
	t->eval_hi = eval_hi;
	pr->stats.procs++;
	return 0;
}

void pyrec__set_code_budget(struct pyrec *pr, uint64_t per_proc, uint64_t total)
{
	pr->codes_max = per_proc;
	pr->codes_total_max = total;
}

void pyrec__seen(struct pyrec *pr, uint32_t tgid, const char *comm, uint64_t exec_ns,
		 uint64_t now_ns)
{
	struct py_target *t = target_of(pr, tgid);

	/*
	 * A new image: what was found in the old one is void, and the looks
	 * start again. A wrapper that execs the interpreter under the same
	 * name (pyenv's python3 shim, a bash script, execs python3 after
	 * seconds of its own work) changes no name.
	 */
	if (t && exec_ns != t->exec_ns) {
		/* a look at a sample taken after the exec saw the new image */
		if (exec_ns > t->looked_ns)
			pyrec__forget(pr, tgid);
		t->exec_ns = exec_ns;
	}
	/*
	 * Again after an exec (a new name), and a few times while the process
	 * is young: a first sample taken while ld.so still maps libpython
	 * finds no interpreter yet.
	 */
	if (t && (t->layout || t->looks >= PY_LOOKS_MAX ||
		  (!strncmp(t->comm, comm, sizeof(t->comm)) &&
		   (t->unknown || now_ns < t->looked_ns + PY_LOOK_AGAIN_NS * t->looks)))) {
		pr->stats.unknown_samples += t->unknown;
		return;
	}
	if (!t && (t = new_target(pr, tgid)))
		t->exec_ns = exec_ns;
	if (!t)
		return;	/* no memory: native frames only */
	snprintf(t->comm, sizeof(t->comm), "%s", comm);
	t->looks++;
	t->looked_ns = now_ns;
	t->unknown = false;
	look(pr, t);
	pr->stats.unknown_samples += t->unknown;
}

/* pid's name (/proc/PID/comm) into comm[16]: false when it is gone. */
static bool comm_of(uint32_t pid, char *comm)
{
	char path[64];
	size_t n;
	FILE *fp;

	snprintf(path, sizeof(path), "/proc/%" PRIu32 "/comm", pid);
	fp = fopen(path, "re");
	if (!fp)
		return false;
	n = fread(comm, 1, 15, fp);
	fclose(fp);
	comm[n] = '\0';
	if (n && comm[n - 1] == '\n')
		comm[n - 1] = '\0';
	return n > 0;
}

/* Whether pid's program (/proc/PID/exe) is a python3 binary. */
static bool runs_python(uint32_t pid)
{
	char path[64], exe[4096];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%" PRIu32 "/exe", pid);
	n = readlink(path, exe, sizeof(exe) - 1);
	if (n <= 0)
		return false;
	exe[n] = '\0';
	return is_python_file(exe);
}

void pyrec__look_running(struct pyrec *pr, const uint32_t *pids, size_t n)
{
	char comm[16];
	struct dirent *d;
	unsigned long v;
	char *end;
	DIR *dir;
	size_t i;

	for (i = 0; i < n; i++)
		if (comm_of(pids[i], comm))
			pyrec__seen(pr, pids[i], comm, 0, now_ns());
	if (pids)
		return;
	dir = opendir("/proc");
	if (!dir)
		return;
	while ((d = readdir(dir))) {
		v = strtoul(d->d_name, &end, 10);
		if (*end || end == d->d_name || !v || v > UINT32_MAX)
			continue;
		if (runs_python((uint32_t)v) && comm_of((uint32_t)v, comm))
			pyrec__seen(pr, (uint32_t)v, comm, 0, now_ns());
	}
	closedir(dir);
}

/*
 * A str object's text as UTF-8 into out (cut at size - 1 bytes, on a
 * character): compact ASCII, or compact of 1, 2 or 4 bytes a character.
 */
static bool read_str(uint32_t pid, const struct py_layout *l, uint64_t addr, char *out,
		     size_t size)
{
	uint8_t head[80], raw[REC_PY_NAME_MAX * 4];	/* 4 bytes a character at most */
	uint64_t len;
	uint32_t state, kind, c;
	size_t n = 0, i, data;

	if (l->compact_size > sizeof(head) || !peek(pid, addr, head, l->compact_size))
		return false;
	memcpy(&len, head + 16, sizeof(len));
	memcpy(&state, head + 32, sizeof(state));
	kind = state >> 2 & 7;
	if (!(state & (1u << 5)) || (kind != 1 && kind != 2 && kind != 4))
		return false;	/* not compact: a legacy string, not a name */
	data = state & (1u << 6) ? l->ascii_size : l->compact_size;
	if (len > REC_PY_NAME_MAX)
		len = REC_PY_NAME_MAX;
	if (len && !peek(pid, addr + data, raw, len * kind))
		return false;
	for (i = 0; i < len; i++) {
		c = kind == 1 ? raw[i] : kind == 2 ? (uint32_t)raw[2 * i] | (uint32_t)raw[2 * i + 1] << 8
			: (uint32_t)raw[4 * i] | (uint32_t)raw[4 * i + 1] << 8 |
			  (uint32_t)raw[4 * i + 2] << 16 | (uint32_t)raw[4 * i + 3] << 24;
		/*
		 * Not a character: no name holds one, so this is not a str
		 * (a code object freed and its memory reused as we read)
		 */
		if (!c || c > 0x10ffff || (c >= 0xd800 && c < 0xe000))
			return false;
		if (n + 5 > size)
			break;
		if (c < 0x80) {
			out[n++] = (char)c;
		} else if (c < 0x800) {
			out[n++] = (char)(0xc0 | c >> 6);
			out[n++] = (char)(0x80 | (c & 0x3f));
		} else if (c < 0x10000) {
			out[n++] = (char)(0xe0 | c >> 12);
			out[n++] = (char)(0x80 | (c >> 6 & 0x3f));
			out[n++] = (char)(0x80 | (c & 0x3f));
		} else {
			out[n++] = (char)(0xf0 | c >> 18);
			out[n++] = (char)(0x80 | (c >> 12 & 0x3f));
			out[n++] = (char)(0x80 | (c >> 6 & 0x3f));
			out[n++] = (char)(0x80 | (c & 0x3f));
		}
	}
	out[n] = '\0';
	return true;
}

static uint64_t word_at(const uint8_t *p, size_t off)
{
	uint64_t v;

	memcpy(&v, p + off, sizeof(v));
	return v;
}

/* Reads the code object at addr of t and stores it: 1 stored, 2 unreadable, or -errno. */
static int read_code(struct recording *rec, struct py_target *t, uint64_t addr, uint64_t key)
{
	static uint8_t table[REC_PY_LINETABLE_MAX];
	static char name[REC_PY_NAME_BYTES + 1], qual[REC_PY_NAME_BYTES + 1];
	static char file[REC_PY_NAME_BYTES + 1];
	const struct py_layout *l = t->layout;
	uint8_t co[256], bhead[32];
	struct rec_py_code c;
	uint64_t tlen, tab;
	int32_t line;
	int err;

	if (l->walk.co_code_adaptive > sizeof(co) || !peek(t->tgid, addr, co, l->walk.co_code_adaptive) ||
	    (t->code_type && word_at(co, 8) != t->code_type) ||
	    !read_str(t->tgid, l, word_at(co, l->co_name), name, sizeof(name)) ||
	    !read_str(t->tgid, l, word_at(co, l->co_qualname), qual, sizeof(qual)) ||
	    !read_str(t->tgid, l, word_at(co, l->co_filename), file, sizeof(file)))
		return 2;
	memcpy(&line, co + l->co_firstlineno, sizeof(line));
	tab = word_at(co, l->co_linetable);
	if (!peek(t->tgid, tab, bhead, sizeof(bhead)))
		return 2;
	tlen = word_at(bhead, 16);	/* PyBytesObject: ob_size, then the bytes at 32 */
	if (tlen > REC_PY_LINETABLE_MAX)
		tlen = 0;	/* hostile or huge: no lines, the name still */
	if (tlen && !peek(t->tgid, tab + 32, table, tlen))
		return 2;
	memset(&c, 0, sizeof(c));
	c.tgid = t->tgid;
	c.key = key;
	c.addr = addr;
	c.version = l->version;
	c.name = name;
	c.qualname = qual;
	c.filename = file;
	c.first_line = line > 0 ? (uint32_t)line : 0;
	c.linetable = table;
	c.linetable_len = tlen;
	err = recording__add_py_code(rec, &c);
	return err ? err : 1;
}

static uint64_t code_addr(uint64_t w)
{
	return (w >> PY_FRAME_CODE_SHIFT & PY_FRAME_CODE_MASK) << 3;
}

/*
 * The identities of the code objects that the n Python frames w name, into
 * ident (0: unreadable): code objects are freed and their addresses reused,
 * so the fields that tell one from another (first line, the name, file and
 * line table objects) are read again at every sample. One process_vm_readv
 * for them all; past a code object it cannot read, again from the next.
 */
static void code_idents(const struct py_target *t, const uint64_t *w, uint32_t n,
			uint64_t *ident)
{
	static uint8_t buf[EV_PY_MAX_FRAMES][PY_IDENT_MAX];
	struct iovec local[EV_PY_MAX_FRAMES], remote[EV_PY_MAX_FRAMES];
	const struct py_layout *l = t->layout;
	size_t len = (size_t)l->co_linetable + 8 - l->co_firstlineno, j;
	uint32_t at[EV_PY_MAX_FRAMES], nv = 0, i, k, done;
	uint64_t addr, h;
	ssize_t got;

	for (i = 0; i < n; i++) {
		ident[i] = 0;
		addr = code_addr(w[i]);
		if (w[i] == PY_FRAME_EMPTY || len > PY_IDENT_MAX || nv == EV_PY_MAX_FRAMES || !addr ||
		    addr + l->co_firstlineno >= (1ull << 47))
			continue;
		local[nv].iov_base = buf[nv];
		local[nv].iov_len = len;
		remote[nv].iov_base = (void *)(uintptr_t)(addr + l->co_firstlineno);
		remote[nv].iov_len = len;
		at[nv++] = i;
	}
	for (k = 0; k < nv; k += done + 1) {
		got = process_vm_readv((pid_t)t->tgid, local + k, nv - k, remote + k, nv - k, 0);
		/* whole iovecs only (never one split); the next one failed */
		done = got > 0 ? (uint32_t)((size_t)got / len) : 0;
		for (i = 0; i < done; i++) {
			h = hash_mix(t->tgid, code_addr(w[at[k + i]]));
			for (j = 0; j + 8 <= len; j += 8)
				h = hash_mix(h, word_at(buf[k + i], j));
			ident[at[k + i]] = h ? h : 1;
		}
	}
}

/*
 * Python frame w with its code address replaced by the code object's key in
 * this process, the code object's identity ident (code_idents(), 0: not
 * read): a code object not seen before is read whole, stored and numbered.
 * Key 0: unreadable. 0 or -errno.
 */
static int code_key(struct pyrec *pr, struct recording *rec, struct py_target *t, uint64_t w,
		    uint64_t ident, uint64_t *out)
{
	uint64_t key = 0, *slot;
	bool added;
	int r;

	if (ident && rec) {
		slot = u64map__find(&t->codes, ident);
		if (slot) {
			key = *slot;
		} else if (t->codes.nr < pr->codes_max && pr->codes_kept < pr->codes_total_max) {
			r = read_code(rec, t, code_addr(w), t->nr_keys + 1);
			if (r < 0)
				return r;
			if (r == 1) {
				key = ++t->nr_keys;
				pr->stats.codes++;
			} else {
				pr->stats.code_unreadable++;
			}
			if (u64map__upsert(&t->codes, ident, key, &slot, &added))
				key = 0;	/* no memory: not kept, read again next time */
			else
				pr->codes_kept++;
		} else if (!pr->said_codes) {
			pr->said_codes = true;
			pr_warn("Python code objects of process %u over their share of the memory "
				"budget (%llu a process, %llu in all): its frames past it are not "
				"named (`eprof info` counts them)", t->tgid,
				(unsigned long long)pr->codes_max,
				(unsigned long long)pr->codes_total_max);
		}
	}
	pr->stats.frames_unnamed += !key;
	*out = (w & ~(PY_FRAME_CODE_MASK << PY_FRAME_CODE_SHIFT)) | key << PY_FRAME_CODE_SHIFT;
	return 0;
}

void pyrec__forget(struct pyrec *pr, uint32_t tgid)
{
	struct py_target *t = pr ? target_of(pr, tgid) : NULL;

	if (!t)
		return;
	if (t->layout && pr->map_fd >= 0)
		bpf_map_delete_elem(pr->map_fd, &tgid);
	pr->codes_kept -= t->codes.nr;
	u64map__release(&t->codes);
	free(t->own);
	t->own = NULL;
	t->layout = NULL;
	t->unknown = false;
	t->looks = 0;
	t->comm[0] = '\0';
	/* nr_keys stays: a later process of the same id numbers on, no row replaced */
}

int pyrec__key(struct pyrec *pr, struct recording *rec, struct ev_sample *e)
{
	uint64_t *py = (uint64_t *)e->frames + e->nr_kframes + e->nr_uframes;
	uint32_t npy = e->hdr.flags >> EV_SAMPLE_PY_SHIFT, i;
	struct py_target *t = target_of(pr, e->tgid);
	uint64_t ident[EV_PY_MAX_FRAMES];
	int err;

	if (npy > EV_PY_MAX_FRAMES)
		npy = EV_PY_MAX_FRAMES;
	if (t && t->layout)
		code_idents(t, py, npy, ident);
	for (i = 0; i < npy; i++) {
		if (py[i] == PY_FRAME_EMPTY)
			continue;
		if (!t || !t->layout) {
			/* no interpreter known now: key 0, unreadable (the words stay keys) */
			py[i] &= ~(PY_FRAME_CODE_MASK << PY_FRAME_CODE_SHIFT);
			pr->stats.frames_unnamed++;
			continue;
		}
		err = code_key(pr, rec, t, py[i], ident[i], &py[i]);
		if (err)
			return err;
	}
	return 0;
}

/* Python frame j of a sample into *out: its key (keyed: it is one already). 0 or -errno. */
static int put_frame(struct pyrec *pr, struct recording *rec, struct py_target *t, bool keyed,
		     const uint64_t *py, const uint64_t *ident, uint32_t j, uint64_t *out)
{
	if (keyed) {
		*out = py[j];
		return 0;
	}
	return code_key(pr, rec, t, py[j], ident[j], out);
}

int pyrec__splice(struct pyrec *pr, struct recording *rec, const struct ev_sample *e, bool keyed,
		  uint64_t *out, uint32_t *nu)
{
	const uint64_t *f = (const uint64_t *)e->frames;
	uint32_t nk = e->nr_kframes, nuser = e->nr_uframes, npy = e->hdr.flags >> EV_SAMPLE_PY_SHIFT;
	const uint64_t *py = f + nk + nuser;
	struct py_target *t = target_of(pr, e->tgid);
	uint32_t i, j = 0, n = nk, evals = 0, runs = 0;
	uint64_t pc, ident[EV_PY_MAX_FRAMES];
	int err;

	if (npy > EV_PY_MAX_FRAMES)
		npy = EV_PY_MAX_FRAMES;
	/* keyed: read while the process lived; its eval loop's range stays after pyrec__forget */
	if (!t || (!t->layout && !keyed))
		t = NULL;
	if (t && !keyed)
		code_idents(t, py, npy, ident);
	/*
	 * Runs of Python frames (each up to an entry frame) against native
	 * eval-loop frames: a call entering or leaving the loop has its
	 * native frame but no Python frame yet (3.11's entry, or a 3.12+ shim
	 * not pushed yet), so fewer runs than loops leave the innermost loops
	 * native and the runs go to the outer ones, as they ran.
	 */
	for (i = 0; t && i < nuser; i++) {
		pc = i ? f[nk + i] - 1 : f[nk + i];
		evals += pc >= t->eval_lo && pc < t->eval_hi;
	}
	for (i = 0; i < npy; i++)
		runs += (py[i] & PY_FRAME_ENTRY) || i + 1 == npy;
	memcpy(out, f, nk * sizeof(*out));
	for (i = 0; i < nuser; i++) {
		pc = i ? f[nk + i] - 1 : f[nk + i];
		if (t && pc >= t->eval_lo && pc < t->eval_hi && evals-- > runs) {
			out[n++] = f[nk + i];	/* no Python frame for it: native */
			continue;
		}
		if (t && pc >= t->eval_lo && pc < t->eval_hi) {
			/* this eval-loop call ran the frames up to the next entry frame */
			while (j < npy && n < PYREC_MAX_FRAMES - 1) {
				if (py[j] == PY_FRAME_EMPTY) {
					j++;	/* the native frame stands alone */
					break;
				}
				err = put_frame(pr, rec, t, keyed, py, ident, j, &out[n++]);
				if (err)
					return err;
				if (py[j++] & PY_FRAME_ENTRY)
					break;
			}
		}
		out[n++] = f[nk + i];
	}
	/*
	 * Runs left ran in eval loops the native walk did not reach (it
	 * stopped early: a table not built yet, a stack copy over its budget),
	 * so outside every native frame it found: outermost, in their order.
	 */
	for (; t && j < npy && n < PYREC_MAX_FRAMES; j++) {
		if (py[j] == PY_FRAME_EMPTY)
			continue;
		err = put_frame(pr, rec, t, keyed, py, ident, j, &out[n++]);
		if (err)
			return err;
		pr->stats.frames_outer++;
	}
	pr->stats.frames_unplaced += npy - j;
	*nu = n - nk;
	return 0;
}

static int meta_u64(struct recording *rec, const char *key, uint64_t v)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "%" PRIu64, v);
	return recording__set_meta(rec, key, buf);
}

int pyrec__store(const struct pyrec *pr, struct recording *rec, const uint64_t *tot)
{
	const struct pyrec_stats *st = pr ? &pr->stats : NULL;
	int err;

	if (!st || (!st->procs && !st->unknown_version))
		return 0;
	err = meta_u64(rec, REC_META_PY_WALKS, tot[EV_STAT_PY_WALKS]);
	err = err ?: meta_u64(rec, REC_META_PY_SAMPLES, tot[EV_STAT_PY_SAMPLES]);
	err = err ?: meta_u64(rec, REC_META_PY_NO_THREAD, tot[EV_STAT_PY_NO_THREAD]);
	err = err ?: meta_u64(rec, REC_META_PY_UNREADABLE, tot[EV_STAT_PY_UNREADABLE]);
	err = err ?: meta_u64(rec, REC_META_PY_DEPTH, tot[EV_STAT_PY_DEPTH]);
	err = err ?: meta_u64(rec, REC_META_PY_COPY, tot[EV_STAT_PY_RAW]);
	err = err ?: meta_u64(rec, REC_META_PY_UNKNOWN, st->unknown_samples);
	err = err ?: meta_u64(rec, REC_META_PY_CODES, st->codes);
	err = err ?: meta_u64(rec, REC_META_PY_CODE_BAD, st->code_unreadable);
	err = err ?: meta_u64(rec, REC_META_PY_UNNAMED, st->frames_unnamed);
	err = err ?: meta_u64(rec, REC_META_PY_UNPLACED, st->frames_unplaced);
	err = err ?: meta_u64(rec, REC_META_PY_OUTER, st->frames_outer);
	if (!err && st->unknown_first[0])
		err = recording__set_meta(rec, REC_META_PY_VERSIONS, st->unknown_first);
	return err;
}
