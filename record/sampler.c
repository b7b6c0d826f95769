// SPDX-License-Identifier: MIT
/*
 * record/sampler.c - the BPF sampler's life and its ring-buffer consumer.
 *
 * Ticks: each CPU's clock keeps its own account (record/perf_events.h) and
 * the BPF program counts the ticks it ran; sampler__account_ticks() turns
 * both into one row per CPU per commit (format's `ticks` table).
 *
 * Lifecycle: open the skeleton, set the read-only configuration and the
 * ring-buffer size, load, attach the fork follower; later the CPU clock on
 * each selected CPU gets the perf_event program (the link then owns the
 * perf fd). At the end the links go first, so nothing new arrives while
 * the ring buffer is drained.
 *
 * Consumer: sampler__consume() takes at most a budget of records, so the
 * record loop commits on its own schedule between two consumes; nothing
 * slower than keeping a record happens in libbpf's callback. Each record is
 * validated (its own size against the size libbpf reports, frame counts
 * against EV_MAX_FRAMES, off-CPU intervals for a duration and a known
 * state) and malformed ones are counted, never trusted; a valid one goes to
 * the sink the caller gave (record/session.c), which keeps it. The sampler
 * knows nothing of the session: it is a stage with a config in and records
 * out.
 */
#include <errno.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/types.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "events.h"
#include "sampler.skel.h"
#include "format/tablecache.h"
#include "record/perf_events.h"
#include "record/sampler.h"
#include "record/unwind.h"
#include "util/hash.h"
#include "util/log.h"

_Static_assert(sizeof(struct ev_hdr) == 8, "ev_hdr changed: bump EV_ABI_VERSION");
_Static_assert(sizeof(struct ev_sample) == 56, "ev_sample changed: bump EV_ABI_VERSION");
_Static_assert(__builtin_offsetof(struct ev_sample, frames) == 56, "ev_sample frames moved");
_Static_assert(__builtin_offsetof(struct ev_sample, comm) == 40, "ev_sample comm moved");
_Static_assert(sizeof(struct ev_cgroup) == 32, "ev_cgroup changed: bump EV_ABI_VERSION");
_Static_assert(EV_ABI_VERSION == 6, "record/ reads ABI v6");
_Static_assert(sizeof(struct ev_raw) == 48 + EV_RAW_VMAS * 48, "ev_raw changed: bump EV_ABI_VERSION");
_Static_assert(sizeof(struct unw_key) == 24 && sizeof(struct unw_miss) == 32, "unwind maps changed");

/* on_record's return when the consumer's budget is spent: stops libbpf's loop. */
#define SAMPLER_PAUSE	(-EINTR)

struct sampler {
	struct sampler_config cfg;
	struct sampler_sink sink;
	uint64_t nr_malformed;		/* records that failed validation */
	int err;			/* the first error the sink returned */
	struct sampler_bpf *skel;
	struct bpf_link *fork_link;
	struct bpf_link *mmap_link, *exec_link;	/* --call-graph dwarf: mappings learned */
	struct bpf_link *switch_link;	/* --off-cpu */
	struct bpf_link *wakeup_link;	/* --off-cpu: when a blocked thread was woken */
	bool unwinds;			/* the table walker is loaded */
	struct bpf_link **links;
	size_t nr_links;
	struct cpu_clock *clocks;	/* one per attached CPU, outliving the links */
	size_t nr_clocks;
	uint64_t period_ns;
	uint64_t *prev_ticks;		/* per possible CPU, at the last account (TICK_FIRED) */
	int hook;			/* enum mmap_hook loaded */
	uint64_t *percpu;		/* scratch: one value per possible CPU */
	struct ring_buffer *rb;
	size_t budget, taken;		/* records this sampler__consume() may take, took */
	bool paused;			/* on_record stopped at the budget */
	bool filter;
	bool follow;			/* the targets' new processes become targets */
};

static uint64_t roundup_pow2(uint64_t x)
{
	uint64_t r = 1;

	while (r < x)
		r <<= 1;
	return r;
}

/* About a second of samples at freq on every CPU, 1 KiB each. */
static uint64_t ringbuf_size(uint64_t freq, size_t nr_cpus)
{
	uint64_t bytes = roundup_pow2(freq * nr_cpus * 1024);

	if (bytes < (1ull << 20))
		bytes = 1ull << 20;
	if (bytes > (256ull << 20))
		bytes = 256ull << 20;
	return bytes;
}

/* A stack of ev_sample's layout: nr frames fit their limits and fill size. */
static bool frames_fit(size_t size, size_t head, unsigned int nk, unsigned int nu)
{
	return nk <= EV_MAX_FRAMES && nu <= EV_MAX_UFRAMES &&
	       size == head + ((size_t)nk + nu) * sizeof(__u64);
}

/*
 * A sample's layout: its frames and Python frames fill size, or with
 * EV_SAMPLE_F_RAW are followed by an ev_raw that names one of its user
 * frames, and the stack bytes the ev_raw counts.
 */
static bool sample_fits(const struct ev_sample *e, size_t size)
{
	unsigned int npy = e->hdr.flags >> EV_SAMPLE_PY_SHIFT;
	size_t head = sizeof(*e) + ((size_t)e->nr_kframes + e->nr_uframes + npy) * sizeof(__u64);
	const struct ev_raw *r;

	if ((e->hdr.flags & ((1u << EV_SAMPLE_PY_SHIFT) - 1) & ~EV_SAMPLE_F_RAW) ||
	    npy > EV_PY_MAX_FRAMES)
		return false;
	if (!(e->hdr.flags & EV_SAMPLE_F_RAW))
		return size >= npy * sizeof(__u64) &&
		       frames_fit(size - npy * sizeof(__u64), sizeof(*e), e->nr_kframes,
				  e->nr_uframes);
	if (e->nr_kframes > EV_MAX_FRAMES || e->nr_uframes > EV_MAX_UFRAMES ||
	    size < head + sizeof(*r))
		return false;
	r = (const struct ev_raw *)((const char *)e + head);
	return r->stack_len <= EV_RAW_STACK_MAX && size == head + sizeof(*r) + r->stack_len &&
	       r->nr_vmas <= EV_RAW_VMAS && r->frame < e->nr_uframes;
}

/* Validates one record and keeps it; a negative return is a write failure. */
static int take_record(struct sampler *sp, const void *data, size_t size)
{
	const struct sampler_sink *k = &sp->sink;
	const struct ev_hdr *h = data;
	const struct ev_sample *e = data;
	const struct ev_offcpu_stack *os = data;
	const struct ev_offcpu *oi = data;
	bool off_cpu = sp->cfg.off_cpu;
	int err = 0;

	if (size < sizeof(*h) || h->size != size) {
		sp->nr_malformed++;
		return 0;
	}
	if (h->type == EV_SAMPLE && size >= sizeof(*e) && sample_fits(e, size))
		err = k->sample(k->ctx, e);
	else if (h->type == EV_OFFCPU_STACK && off_cpu && size >= sizeof(*os) && os->hash &&
		 frames_fit(size, sizeof(*os), os->nr_kframes, os->nr_uframes))
		err = k->offcpu_stack(k->ctx, os);
	else if (h->type == EV_OFFCPU && off_cpu && size == sizeof(*oi) && oi->duration_ns &&
		 oi->state < EV_OFFCPU_STATES)
		err = k->offcpu(k->ctx, oi);
	else if (h->type == EV_CGROUP && k->cgroup && size == sizeof(struct ev_cgroup) &&
		 ((const struct ev_cgroup *)data)->tid <= REC_MAX_PID &&
		 ((const struct ev_cgroup *)data)->tgid <= REC_MAX_PID)
		err = k->cgroup(k->ctx, data);
	else
		sp->nr_malformed++;
	if (err && !sp->err)
		sp->err = err;
	return err;
}

/*
 * libbpf's callback: checks one record and hands it on, nothing slower
 * (commits are the record loop's, between two consumes). A negative return
 * stops ring_buffer__consume() after this record: for write failures, and
 * when the consume's budget is spent.
 */
static int on_record(void *ctx, void *data, size_t size)
{
	struct sampler *sp = ctx;
	int err = take_record(sp, data, size);

	if (!err && ++sp->taken >= sp->budget) {
		sp->paused = true;
		return SAMPLER_PAUSE;
	}
	return err;
}

/* How the walker hears of new mappings (see on_mmap_exit in sampler.bpf.c). */
enum mmap_hook { MMAP_HOOK_NONE, MMAP_HOOK_FEXIT, MMAP_HOOK_KRETPROBE };

/* Opens, configures and loads the skeleton; quiet (the caller says why). */
/*
 * Linux 6.1 and later let any program use a hash map that allocates its
 * entries as they come (BPF_F_NO_PREALLOC, bpf_mem_alloc); before, a
 * perf_event program refused one.
 */
static bool allocates_as_filled(void)
{
	unsigned int major, minor;
	struct utsname u;

	return !uname(&u) && sscanf(u.release, "%u.%u", &major, &minor) == 2 &&
	       (major > 6 || (major == 6 && minor >= 1));
}

/*
 * The maps this mode never reads, at one entry: each preallocated entry
 * costs start-up time (an LRU hash's most: 65536 `targets` were 6% of
 * `record -- true`'s CPU). -a samples every process, so `targets` is not
 * read; frame pointers (--call-graph fp, or a kernel without the walker)
 * leave the walker's maps unused. The hashes user space fills, and
 * unw_bins (one entry per binary, added once), allocate as they fill where
 * the kernel allows it, and the walker's cache of mappings holds 1024
 * processes (128 per CPU on a larger machine, up to its 4096) when only
 * the targets are sampled: preallocated, they were 15-28 ms and 23 ms of
 * `record -- true` here.
 */
static void shrink_unused(struct sampler *sp)
{
	struct bpf_map *grow[] = {
		sp->skel->maps.unw_tables, sp->skel->maps.unw_bins, sp->skel->maps.py_procs,
	};
	struct bpf_map *unused[] = {
		sp->skel->maps.unw_tables, sp->skel->maps.unw_missing,
		sp->skel->maps.unw_absent, sp->skel->maps.unw_bins,
		sp->skel->maps.unw_vmas, sp->skel->maps.unw_row_cache,
	};
	/* an LRU keeps up to 128 free entries per CPU aside: not fewer than that per CPU */
	uint32_t vmas = 128 * (uint32_t)sp->cfg.nr_possible_cpus;
	size_t i;

	if (vmas < 1024)
		vmas = 1024;

	if (!sp->filter)
		bpf_map__set_max_entries(sp->skel->maps.targets, 1);
	for (i = 0; !sp->unwinds && i < sizeof(unused) / sizeof(unused[0]); i++)
		bpf_map__set_max_entries(unused[i], 1);
	for (i = 0; allocates_as_filled() && i < sizeof(grow) / sizeof(grow[0]); i++)
		bpf_map__set_map_flags(grow[i], bpf_map__map_flags(grow[i]) | BPF_F_NO_PREALLOC);
	if (sp->unwinds && sp->filter && bpf_map__max_entries(sp->skel->maps.unw_vmas) > vmas)
		bpf_map__set_max_entries(sp->skel->maps.unw_vmas, vmas);
}

static int load_skel(struct sampler *sp, uint64_t rb_bytes, enum mmap_hook hook)
{
	int err;

	sp->skel = sampler_bpf__open();
	if (!sp->skel)
		return -errno;
	sp->skel->rodata->filter_tgids = sp->filter;
	sp->skel->rodata->follow_forks = sp->follow;
	sp->skel->rodata->wakeup_bytes = rb_bytes / 4;
	sp->skel->rodata->unwind_tables = sp->unwinds;
	sp->skel->rodata->raw_budget_bytes = sp->unwinds ? sp->cfg.raw_budget : 0;
	bpf_program__set_autoload(sp->skel->progs.on_mmap_exit,
				  sp->unwinds && hook == MMAP_HOOK_FEXIT);
	bpf_program__set_autoload(sp->skel->progs.on_mmap,
				  sp->unwinds && hook == MMAP_HOOK_KRETPROBE);
	bpf_program__set_autoload(sp->skel->progs.on_exec, sp->unwinds);
	bpf_program__set_autoload(sp->skel->progs.on_switch, sp->cfg.off_cpu);
	bpf_program__set_autoload(sp->skel->progs.on_wakeup, sp->cfg.off_cpu);
	sp->skel->rodata->offcpu_thresh_ns = sp->cfg.off_cpu_thresh_ns;
	sp->skel->rodata->gate_parent = sp->cfg.gate_parent;
	if (!sp->cfg.off_cpu) {
		/* unused without --off-cpu: no kernel memory for them (about 10 MB) */
		bpf_map__set_max_entries(sp->skel->maps.offcpu_start, 1);
		bpf_map__set_max_entries(sp->skel->maps.offcpu_sums, 1);
		bpf_map__set_max_entries(sp->skel->maps.offcpu_known, 1);
	}
	shrink_unused(sp);
	/*
	 * -- CMD and -p follow children unless --no-inherit; with -a everything
	 * is sampled anyway.
	 */
	bpf_program__set_autoload(sp->skel->progs.on_fork, sp->follow);
	/* one sample with a stack copy per CPU (unused without the walker) */
	err = bpf_map__set_max_entries(sp->skel->maps.raw_scratch,
				       sp->unwinds && sp->cfg.raw_budget ?
				       (uint32_t)sp->cfg.nr_possible_cpus : 1);
	if (!err)
		err = bpf_map__set_max_entries(sp->skel->maps.events, (uint32_t)rb_bytes);
	if (!err)
		err = sampler_bpf__load(sp->skel);
	if (err) {
		sampler_bpf__destroy(sp->skel);
		sp->skel = NULL;
	}
	return err;
}

/*
 * Whether this kernel takes the mmap hook: the hook's program loaded alone
 * (a few ms, maps at their smallest). A failed load of the whole object
 * costs a full verification of the sampler first (13 ms of CPU here, where
 * fexit is refused), paid again by the next try.
 */
static bool hook_loads(enum mmap_hook hook)
{
	struct bpf_program *prog, *want;
	struct sampler_bpf *skel;
	struct bpf_map *map;
	bool ok = false;

	skel = sampler_bpf__open();
	if (!skel)
		return false;
	want = hook == MMAP_HOOK_FEXIT ? skel->progs.on_mmap_exit : skel->progs.on_mmap;
	bpf_object__for_each_program(prog, skel->obj)
		bpf_program__set_autoload(prog, prog == want);
	bpf_object__for_each_map(map, skel->obj)
		if (bpf_map__type(map) != BPF_MAP_TYPE_RINGBUF && bpf_map__max_entries(map) > 1 &&
		    bpf_map__type(map) != BPF_MAP_TYPE_ARRAY && bpf_map__type(map) != BPF_MAP_TYPE_PERCPU_ARRAY)
			bpf_map__set_max_entries(map, 1);
	ok = !sampler_bpf__load(skel);
	sampler_bpf__destroy(skel);
	return ok;
}

/*
 * The key under which the table cache keeps the hook this boot's kernel
 * took: the boot's id and the object's bytes, so that a new kernel, a new
 * boot or another eprof probes again. No file has device ~0, so the key
 * cannot meet a binary's.
 */
static bool hook_key(struct table_cache_key *key)
{
	const void *elf;
	size_t sz, i;
	uint64_t h;
	char id[64];
	FILE *f;
	bool ok;

	memset(key, 0, sizeof(*key));
	f = fopen("/proc/sys/kernel/random/boot_id", "re");
	if (!f)
		return false;
	ok = fgets(id, sizeof(id), f) != NULL;
	fclose(f);
	for (i = 0; ok && id[i] && id[i] != '\n' && key->build_id_len < 16; i++) {
		unsigned int hi, lo;

		if (id[i] == '-')
			continue;
		if (sscanf(id + i, "%1x%1x", &hi, &lo) != 2)
			return false;
		key->build_id[key->build_id_len++] = (uint8_t)(hi << 4 | lo);
		i++;
	}
	if (!ok || key->build_id_len != 16)
		return false;
	elf = sampler_bpf__elf_bytes(&sz);
	h = hash_bytes(elf, sz);
	memcpy(key->build_id + 16, &h, 4);
	key->build_id_len = 20;
	key->dev = UINT64_MAX;
	key->ino = h;
	key->size = sz;
	return true;
}

/*
 * The hook this boot's kernel took last time, or -1. Probing costs two
 * more loads of the object, each parsing the kernel's BTF again (about 50
 * ms of a 0.3 s start here).
 */
static int hook_cached(struct table_cache *cache, const struct table_cache_key *key)
{
	uint32_t *rows = NULL;
	size_t nr = 0;
	int hook = -1;

	if (cache && !table_cache__get(cache, key, sizeof(*rows), 1, (void **)&rows, &nr) &&
	    nr == 1 && rows[0] <= MMAP_HOOK_KRETPROBE)
		hook = (int)rows[0];
	free(rows);
	return hook;
}

/* Loads with the best mmap hook this kernel takes; libbpf's complaints about the others are noise. */
static int load_best(struct sampler *sp, uint64_t rb_bytes)
{
	static const enum mmap_hook order[] = {
		MMAP_HOOK_FEXIT, MMAP_HOOK_KRETPROBE, MMAP_HOOK_NONE,
	};
	struct table_cache *cache = NULL;
	struct table_cache_key key;
	size_t i;
	int err = 0, hook;

	if (!sp->unwinds)
		return load_skel(sp, rb_bytes, MMAP_HOOK_NONE);
	if (sp->cfg.table_cache && hook_key(&key) &&
	    table_cache__open(sp->cfg.table_cache, 0, &cache))
		cache = NULL;	/* the unwinder says why */
	hook = hook_cached(cache, &key);
	if (hook >= 0) {
		int saved = log_quiet_libbpf(true);

		err = load_skel(sp, rb_bytes, (enum mmap_hook)hook);
		log_quiet_libbpf(saved);
		if (!err) {
			pr_debug("mmap hook %d as the table cache says, not probed", hook);
			sp->hook = hook;
			table_cache__close(cache);
			return 0;
		}
	}
	for (i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
		bool last = i + 1 == sizeof(order) / sizeof(order[0]);
		int saved = log_quiet_libbpf(!last);

		err = last || hook_loads(order[i]) ? load_skel(sp, rb_bytes, order[i]) : -EPERM;
		log_quiet_libbpf(saved);
		if (!err) {
			uint32_t took = order[i];

			sp->hook = order[i];
			if (cache)
				table_cache__put(cache, &key, &took, 1, sizeof(took));
			break;
		}
	}
	table_cache__close(cache);
	return err;
}

/*
 * Loads the BPF objects, the table unwinder's if it can (else frame
 * pointers, with a warning). 0, or -errno after one line.
 */
static int load_sampler(struct sampler *sp, uint64_t rb_bytes)
{
	int err;

	err = load_best(sp, rb_bytes);
	if (err && sp->unwinds) {
		/* the walker needs Linux 5.17 (bpf_loop, bpf_find_vma): still record */
		int walker_err = err;

		sp->unwinds = false;
		err = load_skel(sp, rb_bytes, MMAP_HOOK_NONE);
		if (!err)
			pr_warn("the table unwinder cannot load on this kernel (%s): user stacks "
				"follow frame pointers", strerror(-walker_err));
	}
	if (err)
		pr_errno(err, "cannot load the BPF sampler (is the kernel built with BTF? "
			 "run as root, or grant CAP_BPF and CAP_PERFMON)");
	return err;
}

/* The fork follower and, with the table unwinder, the mmap and exec hooks. 0 or -errno. */
static int attach_followers(struct sampler *sp)
{
	if (sp->follow) {
		sp->fork_link = bpf_program__attach(sp->skel->progs.on_fork);
		if (!sp->fork_link)
			return pr_errno(-errno, "cannot attach the fork follower");
	}
#if defined(__x86_64__)
	if (sp->unwinds) {
		/* without them the walker learns mappings from samples alone: slower */
		int saved = log_quiet_libbpf(true);

		if (sp->hook == MMAP_HOOK_FEXIT)
			sp->mmap_link = bpf_program__attach(sp->skel->progs.on_mmap_exit);
		else if (sp->hook == MMAP_HOOK_KRETPROBE)	/* fails without CONFIG_KPROBES */
			sp->mmap_link = bpf_program__attach(sp->skel->progs.on_mmap);
		if (!sp->mmap_link)
			pr_debug("new mappings are learned from samples only: %s",
				 sp->hook == MMAP_HOOK_NONE ? "no mmap hook loads" : strerror(errno));
		sp->exec_link = bpf_program__attach(sp->skel->progs.on_exec);
		if (!sp->exec_link)
			pr_debug("exec'd programs are learned from samples only: %s",
				 strerror(errno));
		log_quiet_libbpf(saved);
	}
#endif
	return 0;
}

/* The sampler program's id, for bench/unwind.sh (with -v -v). */
static void debug_prog_id(const struct sampler *sp)
{
	struct bpf_prog_info info;
	__u32 len = sizeof(info);

	memset(&info, 0, sizeof(info));
	if (!bpf_obj_get_info_by_fd(bpf_program__fd(sp->skel->progs.on_cpu_clock), &info,
				     &len))
		pr_debug("sampler program id %u (bench/unwind.sh reads its run time)",
			 info.id);
}

int sampler__open(const struct sampler_config *cfg, const struct sampler_sink *sink,
		  struct sampler **out)
{
	struct sampler *sp;
	uint64_t rb_bytes;
	int err;

	sp = calloc(1, sizeof(*sp));
	if (!sp)
		return pr_errno(-ENOMEM, "cannot set up the sampler");
	sp->cfg = *cfg;
	sp->sink = *sink;
	sp->filter = cfg->filter;

	rb_bytes = ringbuf_size(cfg->freq, cfg->nr_cpus);
	/*
	 * and a quarter second of stack copies: the buffer is mapped twice in
	 * the recorder, so a whole second (128 MiB on 16 CPUs) made a 288 MiB
	 * base of the 512M ceiling, and libtorch's tables were refused; half
	 * a second of the 32 MiB floor took 32 MiB from a 128M ceiling's
	 * budget on 2 CPUs. The recorder drains it as it fills.
	 */
	if (cfg->dwarf && cfg->raw_budget)
		rb_bytes = roundup_pow2(rb_bytes + (cfg->raw_budget < (256ull << 20) ?
						    cfg->raw_budget : 256ull << 20) / 4);
	sp->follow = cfg->follow;
#if defined(__x86_64__)
	sp->unwinds = cfg->dwarf;
#else
	if (cfg->dwarf)
		pr_warn("no table unwinder for this architecture: user stacks follow frame pointers");
#endif
	err = load_sampler(sp, rb_bytes);
	if (!err)
		err = attach_followers(sp);
	if (err)
		goto fail;
	sp->rb = ring_buffer__new(bpf_map__fd(sp->skel->maps.events), on_record, sp, NULL);
	if (!sp->rb) {
		err = pr_errno(-errno, "cannot set up the BPF ring buffer");
		goto fail;
	}
	pr_debug("ring buffer %llu KiB", (unsigned long long)(rb_bytes >> 10));
	debug_prog_id(sp);
	*out = sp;
	return 0;
fail:
	sampler__close(sp);
	return err;
}

int sampler__py_map_fd(struct sampler *sp)
{
	return bpf_map__fd(sp->skel->maps.py_procs);
}

int sampler__add_target(struct sampler *sp, uint32_t tgid)
{
	__u8 one = 1;

	if (!sp->filter)
		return 0;
	if (bpf_map_update_elem(bpf_map__fd(sp->skel->maps.targets), &tgid, &one, BPF_ANY))
		return pr_errno(-errno, "cannot add process %u to the targets", tgid);
	return 0;
}

bool sampler__is_target(struct sampler *sp, uint32_t tgid)
{
	__u8 v;

	if (!sp->filter)
		return true;
	return !bpf_map_lookup_elem(bpf_map__fd(sp->skel->maps.targets), &tgid, &v);
}

int sampler__attach(struct sampler *sp, const uint32_t *cpus, size_t nr, uint64_t freq)
{
	size_t ncpu = (size_t)sp->cfg.nr_possible_cpus;
	struct bpf_link *link;
	size_t i;
	int fd, err;

	sp->links = calloc(nr, sizeof(*sp->links));
	sp->clocks = calloc(nr, sizeof(*sp->clocks));
	sp->prev_ticks = calloc(ncpu, sizeof(*sp->prev_ticks));
	sp->percpu = calloc(ncpu, sizeof(*sp->percpu));
	if (!sp->links || !sp->clocks || !sp->prev_ticks || !sp->percpu)
		return pr_errno(-ENOMEM, "cannot attach the sampler");
	sp->period_ns = cpu_clock__period_ns(freq);
	for (i = 0; i < nr; i++) {
		if (cpus[i] >= ncpu)
			return pr_errno(-EINVAL, "CPU %u is not a possible CPU", cpus[i]);
		err = cpu_clock__open(&sp->clocks[i], cpus[i], freq, &fd);
		if (err)
			return err;
		sp->nr_clocks++;
		link = bpf_program__attach_perf_event(sp->skel->progs.on_cpu_clock, fd);
		if (!link) {
			err = -errno;
			close(fd);		/* attach failed: the fd is still ours */
			return pr_errno(err, "cannot attach the sampler on CPU %u", cpus[i]);
		}
		sp->links[sp->nr_links++] = link;	/* the link owns fd from here on */
	}
	if (sp->cfg.off_cpu) {
		/*
		 * every CPU, whatever --cpu says: a thread sleeps on one and wakes
		 * on another; the wake-up hook first, so that no switch out it
		 * follows misses its wake-up
		 */
		sp->wakeup_link = bpf_program__attach(sp->skel->progs.on_wakeup);
		if (!sp->wakeup_link)
			return pr_errno(-errno, "cannot attach the off-CPU hook (sched_wakeup)");
		sp->switch_link = bpf_program__attach(sp->skel->progs.on_switch);
		if (!sp->switch_link)
			return pr_errno(-errno, "cannot attach the off-CPU hook (sched_switch)");
	}
	return 0;
}

void sampler__detach(struct sampler *sp)
{
	size_t i;

	if (!sp)
		return;
	for (i = 0; i < sp->nr_links; i++)
		bpf_link__destroy(sp->links[i]);
	sp->nr_links = 0;
	bpf_link__destroy(sp->switch_link);
	sp->switch_link = NULL;
	bpf_link__destroy(sp->wakeup_link);
	sp->wakeup_link = NULL;
	bpf_link__destroy(sp->fork_link);
	sp->fork_link = NULL;
	bpf_link__destroy(sp->mmap_link);
	bpf_link__destroy(sp->exec_link);
	sp->mmap_link = sp->exec_link = NULL;
}

int sampler__epoll_fd(struct sampler *sp)
{
	return ring_buffer__epoll_fd(sp->rb);
}

int sampler__consume(struct sampler *sp, size_t budget, bool *more)
{
	int n;

	sp->budget = budget ? budget : 1;
	sp->taken = 0;
	sp->paused = false;
	n = ring_buffer__consume(sp->rb);
	*more = sp->paused;
	if (n < 0 && sp->err)
		return sp->err;	/* already said */
	if (n < 0 && !sp->paused)
		return pr_errno(n, "cannot read the BPF ring buffer");
	return 0;
}

uint64_t sampler__nr_malformed(const struct sampler *sp)
{
	return sp ? sp->nr_malformed : 0;
}

bool sampler__unwinds(const struct sampler *sp)
{
	return sp->unwinds;
}

void sampler__unwind_fds(struct sampler *sp, struct unwind_maps *out)
{
	out->tables = bpf_map__fd(sp->skel->maps.unw_tables);
	out->missing = bpf_map__fd(sp->skel->maps.unw_missing);
	out->absent = bpf_map__fd(sp->skel->maps.unw_absent);
	out->bins = bpf_map__fd(sp->skel->maps.unw_bins);
}

void sampler__offcpu_fds(struct sampler *sp, int *start, int *sums)
{
	*start = bpf_map__fd(sp->skel->maps.offcpu_start);
	*sums = bpf_map__fd(sp->skel->maps.offcpu_sums);
}

int sampler__sideband_map_fd(struct sampler *sp)
{
	return bpf_map__fd(sp->skel->maps.sideband);
}

/* The per-CPU values of one key of a per-CPU array into sp->percpu. */
static int read_percpu(struct sampler *sp, struct bpf_map *map, __u32 key)
{
	if (bpf_map_lookup_elem(bpf_map__fd(map), &key, sp->percpu))
		return pr_errno(-errno, "cannot read the sampler's counters");
	return 0;
}

int sampler__account_ticks(struct sampler *sp, uint64_t now, struct rec_ticks *rows,
			   size_t *nr)
{
	struct clock_account a;
	size_t i;
	int err;

	*nr = 0;
	for (i = 0; i < sp->nr_clocks; i++) {
		struct rec_ticks *t = &rows[i];

		err = cpu_clock__account(&sp->clocks[i], now, &a);
		if (err)
			return err;
		memset(t, 0, sizeof(*t));
		t->time_ns = now;
		t->cpu = sp->clocks[i].cpu;
		t->period_ns = sp->period_ns;
		t->enabled_ns = a.enabled_ns;
		t->throttled_ns = a.throttled_ns;
		t->throttles = a.throttles;
		if (a.lost_records)
			pr_warn("CPU %u: %llu throttle records lost: its throttled time is short",
				t->cpu, (unsigned long long)a.lost_records);
	}
	/*
	 * The counters after the clocks, fired and kept from one word per CPU
	 * (TICK_FIRED): every row, and so every file after a switch, keeps
	 * no more than it fired.
	 */
	err = read_percpu(sp, sp->skel->maps.ticks, 0);
	for (i = 0; !err && i < sp->nr_clocks; i++) {
		uint32_t c = sp->clocks[i].cpu;
		uint64_t d = sp->percpu[c] - sp->prev_ticks[c];

		rows[i].fired = d / TICK_FIRED;
		rows[i].kept = d % TICK_FIRED;
		sp->prev_ticks[c] = sp->percpu[c];
	}
	if (!err)
		*nr = sp->nr_clocks;
	return err;
}

size_t sampler__nr_cpus(const struct sampler *sp)
{
	return sp->nr_clocks;
}

int sampler__read_stats(struct sampler *sp, uint64_t *vals)
{
	int ncpu = sp->cfg.nr_possible_cpus, fd = bpf_map__fd(sp->skel->maps.stats);
	uint64_t *buf;
	__u32 k;
	int c;

	buf = calloc((size_t)ncpu, sizeof(*buf));
	if (!buf)
		return pr_errno(-ENOMEM, "cannot read the sampler's counters");
	for (k = 0; k < EV_STAT_MAX; k++) {
		if (bpf_map_lookup_elem(fd, &k, buf)) {
			int err = -errno;

			free(buf);
			return pr_errno(err, "cannot read the sampler's counters");
		}
		for (c = 0; c < ncpu; c++)
			vals[(size_t)c * EV_STAT_MAX + k] = buf[c];
	}
	free(buf);
	return 0;
}

void sampler__close(struct sampler *sp)
{
	size_t i;

	if (!sp)
		return;
	sampler__detach(sp);
	for (i = 0; i < sp->nr_clocks; i++)
		cpu_clock__close(&sp->clocks[i]);
	free(sp->clocks);
	free(sp->prev_ticks);
	free(sp->percpu);
	ring_buffer__free(sp->rb);
	sampler_bpf__destroy(sp->skel);
	free(sp->links);
	free(sp);
}
