// SPDX-License-Identifier: MIT
/*
 * record/cmd_record.c - `eprof record`: options, the order in which things
 * are switched on and off, the loop, and the one summary line.
 *
 * The order matters. The BPF object is loaded and the command forked (held
 * at its gate) first; the command's pid goes in the target set; the
 * side-band comes up before the sampler, so no mapping can be missed; then
 * the sampler is attached on every CPU and only then the command may exec.
 * At the end the sampler goes first, the ring buffer and the side-band are
 * drained, and the symbol data is captured while the binaries are still
 * where they were.
 *
 * One epoll set waits for everything: the ring buffer (woken by BPF only
 * when it fills up), the side-band, and a pidfd per target process, so a
 * short command ends the recording the moment it exits. SIGINT, SIGTERM and
 * SIGHUP are caught without SA_RESTART and end the recording cleanly.
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <glob.h>
#include <bpf/libbpf.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <spawn.h>
#include <time.h>
#include <unistd.h>
#include <linux/types.h>
#include <stdarg.h>

#include "events.h"
#include "record/capture.h"
#include "record/cgroup.h"
#include "format/tablecache.h"
#include "record/jitmap.h"
#include "record/offcpu.h"
#include "record/python.h"
#include "record/rawstack.h"
#include "record/perf_events.h"
#include "record/budget.h"
#include "record/record.h"
#include "record/sampler.h"
#include "record/session.h"
#include "record/sideband.h"
#include "record/target.h"
#include "record/unwind.h"
#include "util/clock.h"
#include "util/log.h"
#include "util/parse.h"
#include "util/status.h"
#include "util/strbuf.h"

#define COMMIT_INTERVAL_NS	1000000000ull
#define POLL_MS			100
#define PENDING_COMMIT		65536	/* samples buffered before an early commit */
#define CONSUME_BUDGET		4096	/* records per consume, so commits keep their pace */
#define STATUS_INTERVAL_NS	1000000000ull
#define RECORD_NICE		(-20)
#define POLL_MS_UNWIND		5	/* a new process's mmaps reach the unwinder soon */
#define UNWIND_WORK_NS		20000000ull	/* table building per loop turn */
/*
 * Most a command waits for its tables (builds take 5-20 ms of CPU for most
 * programs; a loaded machine stretches that tenfold) and -p waits for the
 * running processes'. A run of -d SECONDS waits at most a quarter of it.
 */
#define UNWIND_PREPARE_NS	1000000000ull
#define UNWIND_PREPARE_PID_NS	600000000ull
#define SYSTEM_LD_SO		"/lib64/ld-linux-x86-64.so.2"

static volatile sig_atomic_t stop_signal;

static void on_stop_signal(int sig)
{
	stop_signal = sig;
}

static const char usage_line[] =
	"usage: eprof record [-F HZ] [-o FILE] [-d SECONDS] [-C|--cpu LIST] [-e cpu-clock] [-g] "
	"[--call-graph dwarf|fp] [-G|--cgroup PATH] [--switch-output SIZE|TIME] [--no-inherit] [--no-python] [--debuginfo] [--off-cpu [--off-cpu-thresh USEC]] [--table-cache DIR|none] [--unwind-budget SIZE] "
	"[--mem-limit SIZE] [-q] [-v] "
	"(-a | -p PID[,PID...] | -- CMD [ARGS...])";

static void print_help(FILE *f)
{
	fprintf(f, "%s\n\n"
		   "Samples the CPU stacks of a command, of processes or of the whole system\n"
		   "into a recording that `eprof report` reads.\n\n"
		   "    -F HZ            samples per second per CPU (1..100000, default 99)\n"
		   "    -o FILE          the recording to write (default eprof.data)\n"
		   "    -d SECONDS       stop after this long (fractions allowed)\n"
		   "    -C, --cpu LIST   sample only these CPUs, e.g. 0-3,8\n"
		   "    -e, --event cpu-clock  the event to sample: the CPU clock, the only one\n"
		   "    -g               record stacks (always done; accepted as perf does)\n"
		   "    --no-inherit     not the processes that CMD or -p PID start\n"
		   "    --no-python      no Python frames: the interpreters' native frames only\n"
		   "    --call-graph M   how user stacks are walked: dwarf (default) follows\n"
		   "                     unwind tables built from each binary's CFI, so code\n"
		   "                     built without frame pointers has whole stacks; fp\n"
		   "                     follows frame pointers only (kernel stacks: always\n"
		   "                     the kernel's own unwinder)\n"
		   "    --table-cache DIR|none  keep the unwind tables built here, so the next\n"
		   "                     recording of the same files starts with them (default\n"
		   "                     " TABLE_CACHE_DIR_DEFAULT ", 256 MiB at most; a\n"
		   "                     directory only root can change)\n"
		   "    --unwind-budget SIZE  kernel memory for unwind tables (default 1/128 of\n"
		   "                     the machine's, 64M to 512M; `info` states it): a\n"
		   "                     binary whose table is over an eighth of it has only\n"
		   "                     the code its samples run loaded, by 64 KiB windows\n"
		   "    --mem-limit SIZE the recorder's memory ceiling (e.g. 256M, 1G; default\n"
		   "                     512M): what it holds once started, plus what unwind\n"
		   "                     tables and symbols may take; a binary that does not\n"
		   "                     fit is unwound with frame pointers, and named\n"
		   "    --debuginfo      also embed the DWARF of each sampled binary (its debug\n"
		   "                     file, or the binary itself when it has .debug_info), so\n"
		   "                     `report --inline --lines` works without the files;\n"
		   "                     costs the compressed size of those files (Debian's\n"
		   "                     libc: 3.9 MB)\n"
		   "    --off-cpu        also record where and how long threads wait off the\n"
		   "                     CPU (blocked or preempted), with their stacks, for\n"
		   "                     `report --off-cpu` and `report --wall`\n"
		   "    --off-cpu-thresh USEC  off-CPU intervals at least this long keep their\n"
		   "                     times (timeline views); shorter ones are summed\n"
		   "                     exactly per thread and stack (default 1000)\n"
		   "    --switch-output SIZE|TIME  close the file when it reaches SIZE (e.g.\n"
		   "                     100M, 2G) or after TIME (30s, 10m, 1h) and go on\n"
		   "                     in FILE.0001, FILE.0002, ...: each reports on its own,\n"
		   "                     several -i merge them (--off-cpu: an interval goes\n"
		   "                     whole into the file it ends in)\n"
		   "    -a               every process on every CPU, kernel included\n"
		   "    -G, --cgroup PATH  only the tasks of this cgroup v2 directory and the\n"
		   "                     cgroups below it, on every CPU (absolute, or relative\n"
		   "                     to the cgroup2 mount)\n"
		   "    -p PID[,PID...]  these existing processes and all their threads\n"
		   "    -- CMD [ARGS]    run CMD and follow its threads and children\n"
		   "    -q, --quiet      no status line and no summary line\n"
		   "    -v               tell more\n"
		   "    -h, --help       this help\n",
		   usage_line);
}

static int usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* One line, as every failure; the synopsis is --help's (report does the same). */
static int usage_error(const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	pr_err("%s", msg);
	return EXIT_USAGE;
}

static char *join_args(const char *prefix, char **argv, int argc)
{
	struct strbuf sb = STRBUF_INIT;
	int i;

	strbuf_addstr(&sb, prefix);
	for (i = 0; i < argc; i++) {
		if (sb.len)
			strbuf_addch(&sb, ' ');
		strbuf_addstr(&sb, argv[i]);
	}
	return strbuf_detach(&sb);
}

static char *pid_list_desc(const uint32_t *pids, size_t nr)
{
	struct strbuf sb = STRBUF_INIT;
	size_t i;

	strbuf_addstr(&sb, "-p ");
	for (i = 0; i < nr; i++)
		strbuf_addf(&sb, "%s%u", i ? "," : "", pids[i]);
	return strbuf_detach(&sb);
}

/*
 * A quantity as perf spells --switch-output's: a size with B, K, M or G
 * into *v in bytes, or a time with s, m, h or d into *v in ns (*time set).
 * -EINVAL for anything else.
 */
static int parse_quantity(const char *arg, uint64_t *v, bool *time)
{
	static const struct {
		char suffix;
		uint64_t unit;
		bool time;
	} units[] = {
		{ 'B', 1, false }, { 'K', 1ull << 10, false }, { 'M', 1ull << 20, false },
		{ 'G', 1ull << 30, false }, { 's', 1000000000ull, true },
		{ 'm', 60000000000ull, true }, { 'h', 3600000000000ull, true },
		{ 'd', 86400000000000ull, true },
	};
	size_t len = strlen(arg), i;
	char num[32];

	if (len < 2 || len >= sizeof(num))
		return -EINVAL;
	memcpy(num, arg, len - 1);
	num[len - 1] = '\0';
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (units[i].suffix != arg[len - 1])	/* 'm' is minutes, 'M' MiB */
			continue;
		if (parse_u64(num, 1, UINT64_MAX / units[i].unit, v))
			return -EINVAL;
		*v *= units[i].unit;
		*time = units[i].time;
		return 0;
	}
	return -EINVAL;
}

static int parse_switch_output(const char *arg, struct record_opts *o)
{
	uint64_t v;
	bool time;

	if (parse_quantity(arg, &v, &time))
		return -EINVAL;
	if (time)
		o->switch_ns = v;
	else
		o->switch_bytes = v;
	return 0;
}

/* What parse_options() learns along the way, beside struct record_opts. */
struct option_state {
	const char *cpu_list;		/* -C, --cpu */
	bool all;			/* -a */
	bool thresh_given;		/* --off-cpu-thresh */
};

/*
 * How stacks are taken and the options after them: c with its value arg.
 * 0, -1 after --help, or EXIT_USAGE after the message.
 */
static int take_stack_option(struct record_opts *o, struct option_state *st, int c,
			     const char *arg)
{
	uint64_t thresh_us;
	bool time;

	switch (c) {
	case 'K':
		if (!strcmp(arg, "dwarf"))
			o->call_graph = CALL_GRAPH_DWARF;
		else if (!strcmp(arg, "fp"))
			o->call_graph = CALL_GRAPH_FP;
		else
			return usage_error("invalid call-graph mode '%s' (expected dwarf or fp)",
					   arg);
		break;
	case 'e':
		/*
		 * perf's spelling, for its users. Modifiers (:u, :k) are refused
		 * rather than half-honoured: report's --user-only and
		 * --kernel-only keep one half of each stack.
		 */
		if (strcmp(arg, "cpu-clock"))
			return usage_error("event '%s' is not supported: eprof samples 'cpu-clock' "
					   "only (user and kernel stacks; report --user-only keeps "
					   "the user half)", arg);
		break;
	case 'g':
		break;		/* perf's "record stacks": eprof always does */
	case 'I':
		o->no_inherit = true;
		break;
	case 'Y':
		o->no_python = true;
		break;
	case 'B':
		if (parse_quantity(arg, &o->unwind_budget, &time) || time ||
		    o->unwind_budget < (1ull << 20) || o->unwind_budget > UNWIND_BUDGET_LIMIT)
			return usage_error("invalid --unwind-budget '%s' (expected a size from 1M "
					   "to 4G, such as 64M)", arg);
		break;
	case 'U':
		if (!strcmp(arg, "none"))
			o->table_cache = NULL;
		else if (arg[0] == '/')
			o->table_cache = arg;
		else
			return usage_error("--table-cache wants an absolute directory or 'none', not "
					   "'%s'", arg);
		break;
	case 'L':
		if (mem_limit__parse(arg, &o->mem_limit) || o->mem_limit < MEM_BUDGET_MIN)
			return usage_error("invalid --mem-limit '%s' (expected a size of at least "
					   "16M, such as 256M or 1G)", arg);
		o->mem_limit_given = true;
		break;
	case 'q':
		/* errors and warnings only: notices such as "kept the previous recording" too */
		o->quiet = true;
		if (log_get_level() == LOG_NOTICE)
			log_set_level(LOG_WARN);
		break;
	case 'O':
		o->off_cpu = true;
		break;
	case 'T':
		if (parse_u64(arg, 1, 3600000000ull, &thresh_us))
			return usage_error("invalid off-CPU threshold '%s' (expected 1 to "
					   "3600000000 microseconds)", arg);
		o->off_cpu_thresh_ns = thresh_us * 1000;
		st->thresh_given = true;
		break;
	case 'h':
		print_help(stdout);
		return -1;
	default:
		return usage_error("unknown option '%s' (see 'eprof record --help')", arg);
	}
	return 0;
}

/* One option c with its value arg. 0, -1 after --help, or EXIT_USAGE after the message. */
static int take_option(struct record_opts *o, struct option_state *st, int c, const char *arg)
{
	switch (c) {
	case 'F':
		if (parse_u64(arg, 1, 100000, &o->freq))
			return usage_error("invalid frequency '%s' (expected 1 to 100000 Hz)", arg);
		break;
	case 'o':
		if (!*arg)
			return usage_error("the output file name is empty");
		o->output = arg;
		break;
	case 'd':
		if (parse_seconds_ns(arg, &o->duration_ns) || !o->duration_ns)
			return usage_error("invalid duration '%s' (expected seconds, e.g. 2.5)", arg);
		break;
	case 'p':
		free(o->pids);
		o->pids = NULL;
		if (parse_u32_list(arg, 0x3fffffff, &o->pids, &o->nr_pids) || !o->nr_pids ||
		    o->pids[0] == 0)
			return usage_error("invalid pid list '%s' (expected PID[,PID...])", arg);
		break;
	case 'a':
		st->all = true;
		break;
	case 'v':
		log_set_level(log_get_level() < LOG_INFO ? LOG_INFO : LOG_DEBUG);
		break;
	case 'C':
		st->cpu_list = arg;
		break;
	case 'D':
		o->debuginfo = true;
		break;
	case 'G':
		if (!*arg)
			return usage_error("the cgroup path is empty");
		o->cgroup = arg;
		break;
	case 'W':
		if (parse_switch_output(arg, o))
			return usage_error("invalid --switch-output '%s' (expected a size such as "
					   "100M or 2G, or a time such as 30s, 10m or 1h)", arg);
		break;
	default:
		return take_stack_option(o, st, c, arg);
	}
	return 0;
}

/* -a, -p or -- CMD (argv[first ..]), exactly one. 0, or EXIT_USAGE after the message. */
static int pick_target(struct record_opts *o, const struct option_state *st, char **argv,
		       int first, int argc)
{
	bool all = st->all || o->cgroup;
	int nmodes;

	if (st->thresh_given && !o->off_cpu)
		return usage_error("--off-cpu-thresh needs --off-cpu");
	if (o->cgroup && (o->pids || first < argc))
		return usage_error("--cgroup samples a cgroup's tasks on every CPU: give it alone "
				   "or with -a, not with -p or a command");
	nmodes = all + (o->pids != NULL) + (first < argc);
	if (nmodes == 0)
		return usage_error("nothing to record: give -a, -p PID or -- CMD");
	if (nmodes > 1)
		return usage_error("give only one of -a, -p PID and -- CMD");
	if (all) {
		o->mode = TARGET_ALL;
		o->target_desc = o->cgroup ? join_args("--cgroup", (char **)&o->cgroup, 1)
					   : strdup("-a");
	} else if (o->pids) {
		o->mode = TARGET_PIDS;
		o->target_desc = pid_list_desc(o->pids, o->nr_pids);
	} else {
		o->mode = TARGET_CMD;
		o->cmd = argv + first;
		o->target_desc = join_args("--", argv + first, argc - first);
	}
	return 0;
}

/* --cpu LIST, each CPU online, or every online CPU. 0, or EXIT_USAGE after the message. */
static int pick_cpus(struct record_opts *o, const char *cpu_list, const uint32_t *online,
		     size_t nr_online)
{
	size_t i, j;

	if (!cpu_list) {
		o->cpus = malloc(nr_online * sizeof(*o->cpus));
		if (!o->cpus)
			return usage_error("out of memory");
		memcpy(o->cpus, online, nr_online * sizeof(*o->cpus));
		o->nr_cpus = nr_online;
		return 0;
	}
	if (parse_u32_list(cpu_list, 65535, &o->cpus, &o->nr_cpus) || !o->nr_cpus)
		return usage_error("invalid CPU list '%s' (expected e.g. 0-3,8)", cpu_list);
	for (i = 0; i < o->nr_cpus; i++) {
		for (j = 0; j < nr_online && online[j] != o->cpus[i]; j++)
			;
		if (j == nr_online)
			return usage_error("CPU %u is not online", o->cpus[i]);
	}
	return 0;
}

/* Returns 0, -1 after --help, or EXIT_USAGE after the message. */
static int parse_options(int argc, char **argv, struct record_opts *o, const uint32_t *online,
			 size_t nr_online)
{
	static const struct option longopts[] = {
		{ "cpu", required_argument, NULL, 'C' },
		{ "debuginfo", no_argument, NULL, 'D' },
		{ "event", required_argument, NULL, 'e' },
		{ "call-graph", required_argument, NULL, 'K' },
		{ "cgroup", required_argument, NULL, 'G' },
		{ "switch-output", required_argument, NULL, 'W' },
		{ "help", no_argument, NULL, 'h' },
		{ "no-inherit", no_argument, NULL, 'I' },
		{ "no-python", no_argument, NULL, 'Y' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "off-cpu", no_argument, NULL, 'O' },
		{ "off-cpu-thresh", required_argument, NULL, 'T' },
		{ "table-cache", required_argument, NULL, 'U' },
		{ "unwind-budget", required_argument, NULL, 'B' },
		{ "mem-limit", required_argument, NULL, 'L' },
		{ NULL, 0, NULL, 0 },
	};
	struct option_state st = { NULL, false, false };
	int c, err;

	o->freq = 99;
	o->call_graph = CALL_GRAPH_DWARF;
	o->unwind_budget = unwind_budget_default();
	o->mem_limit = MEM_CEILING_DEFAULT;
	o->table_cache = TABLE_CACHE_DIR_DEFAULT;
	o->output = "eprof.data";
	o->off_cpu_thresh_ns = OFFCPU_THRESH_DEFAULT_NS;
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "+:F:o:d:p:avhC:e:gqG:", longopts, NULL)) != -1) {
		if (c == ':')
			return usage_error("option '%s' needs a value (see 'eprof record --help')",
					   argv[optind - 1]);
		err = take_option(o, &st, c, c == '?' ? argv[optind - 1] : optarg);
		if (err)
			return err;
	}
	err = pick_target(o, &st, argv, optind, argc);
	mem_budget__hold_allocator();
	mem_budget__set_ceiling(o->mem_limit);
	return err ? err : pick_cpus(o, st.cpu_list, online, nr_online);
}

/* CAP_PERFMON (38) and CAP_BPF (39) in the effective set, or root. */
static bool has_privileges(void)
{
	unsigned long long eff = 0;
	char line[256];
	bool ok = false;
	FILE *f;

	if (geteuid() == 0)
		return true;
	f = fopen("/proc/self/status", "re");
	if (!f)
		return false;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "CapEff: %llx", &eff) == 1)
			ok = (eff & (1ull << 38)) && (eff & (1ull << 39));
	fclose(f);
	return ok;
}

/*
 * On a saturated machine a recorder at the same priority as the load gets
 * a sliver of a CPU: its start-up (BPF load, /proc scan) stretches to
 * minutes, -d is not kept and the ring buffer overflows. Measured with 50
 * busy loops on 2 CPUs, even nice -20 left it waiting for a CPU 3 s of a
 * 3.8 s run (other sessions' autogroups share the CPUs equally whatever
 * the nice value inside them). So it runs SCHED_FIFO at the lowest real-time
 * priority: it needs about a tenth of one CPU at -F 9999 -a, and the
 * kernel's RT throttling still leaves others 5%. SCHED_RESET_ON_FORK keeps
 * the recorded command out of it. Without the privilege (CAP_SYS_NICE) it
 * tries nice RECORD_NICE, then carries on as it is. Returns the old nice.
 */
static int raise_priority(void)
{
	struct sched_param sp = { .sched_priority = 1 };
	int old;

	errno = 0;
	old = getpriority(PRIO_PROCESS, 0);
	if (errno)
		old = 0;
	if (old > RECORD_NICE && setpriority(PRIO_PROCESS, 0, RECORD_NICE))
		pr_debug("cannot raise the recorder's nice value: %s", strerror(errno));
	if (sched_setscheduler(0, SCHED_FIFO | SCHED_RESET_ON_FORK, &sp))
		pr_debug("cannot make the recorder real-time: %s", strerror(errno));
	return old;
}

/* -v -v: how long the recorder ran and how long it waited for a CPU. */
static void debug_schedstat(void)
{
	unsigned long long run = 0, wait = 0;
	FILE *f;

	if (log_get_level() < LOG_DEBUG)
		return;
	f = fopen("/proc/self/schedstat", "re");
	if (f && fscanf(f, "%llu %llu", &run, &wait) == 2)
		pr_debug("on a CPU %.3f s, waiting for one %.3f s", run / 1e9, wait / 1e9);
	if (f)
		fclose(f);
}

/*
 * Nanoseconds since this process was exec'd (field 22 of /proc/self/stat,
 * in clock ticks since boot), 0 when unknown. On a saturated machine the
 * dynamic loader alone may take seconds before main() runs.
 */
static uint64_t exec_age_ns(void)
{
	unsigned long long start = 0;
	struct timespec ts;
	char buf[1024], *p;
	double age;
	size_t n;
	FILE *f;

	f = fopen("/proc/self/stat", "re");
	if (!f)
		return 0;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	p = strrchr(buf, ')');
	if (!p || sscanf(p + 1, " %*c %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s "
			 "%*s %*s %*s %*s %llu", &start) != 1)
		return 0;
	clock_gettime(CLOCK_BOOTTIME, &ts);
	age = ts.tv_sec + ts.tv_nsec / 1e9 - (double)start / (double)sysconf(_SC_CLK_TCK);
	return age > 0 && age < 86400 ? (uint64_t)(age * 1e9) : 0;
}

static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));

static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	return log_libbpf_print((int)level, fmt, ap);
}

/*
 * First thing: a SIGINT sent a few milliseconds after start is never lost,
 * not even when the parent left it ignored (a background job of a script)
 * or blocked; an exec'd command gets SIG_DFL back for handled signals.
 * SIGHUP left ignored (nohup) stays so.
 */
static int install_signals(void)
{
	struct sigaction sa, old;
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop_signal;		/* no SA_RESTART: epoll_wait returns EINTR */
	sigemptyset(&sa.sa_mask);
	/* SIGHUP too: a closed terminal ends the recording cleanly, not the process */
	if (sigaction(SIGINT, &sa, NULL) || sigaction(SIGTERM, &sa, NULL) ||
	    sigaction(SIGHUP, NULL, &old) || sigprocmask(SIG_UNBLOCK, &set, NULL))
		return pr_errno(-errno, "cannot install signal handlers");
	/* under nohup, a closed terminal goes on recording */
	if (old.sa_handler != SIG_IGN && sigaction(SIGHUP, &sa, NULL))
		return pr_errno(-errno, "cannot install signal handlers");
	return 0;
}

/*
 * The soft limit on open files up to the hard one: the recorder holds a
 * descriptor per CPU and event and a few per table being built, never one
 * per user mapping, but a 1,024 soft limit is small on a big machine.
 */
static void raise_nofile(struct target *t)
{
	struct rlimit rl;

	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur < rl.rlim_max) {
		t->child_nofile = rl.rlim_cur;	/* what -- CMD runs with */
		rl.rlim_cur = rl.rlim_max;
		if (setrlimit(RLIMIT_NOFILE, &rl))
			pr_debug("cannot raise the open-file limit: %s", strerror(errno));
	}
}

/* "cpu:node,..." for the online CPUs, node 0 where sysfs says nothing. */
static char *numa_map(const uint32_t *online, size_t nr_online)
{
	struct strbuf sb = STRBUF_INIT;
	uint32_t *node_of, max = 0;
	glob_t g;
	size_t i, j;

	for (i = 0; i < nr_online; i++)
		if (online[i] > max)
			max = online[i];
	node_of = calloc((size_t)max + 1, sizeof(*node_of));
	if (!node_of)
		return NULL;
	if (!glob("/sys/devices/system/node/node[0-9]*/cpulist", 0, NULL, &g)) {
		for (i = 0; i < g.gl_pathc; i++) {
			unsigned int node;
			uint32_t *cpus = NULL;
			size_t nr = 0, len;
			char buf[4096];
			FILE *f;

			if (sscanf(g.gl_pathv[i], "/sys/devices/system/node/node%u/", &node) != 1)
				continue;
			f = fopen(g.gl_pathv[i], "re");
			if (!f)
				continue;
			len = fread(buf, 1, sizeof(buf) - 1, f);
			fclose(f);
			buf[len] = '\0';
			while (len && (buf[len - 1] == '\n' || buf[len - 1] == ' '))
				buf[--len] = '\0';
			if (!len || parse_u32_list(buf, 65535, &cpus, &nr))
				continue;
			for (j = 0; j < nr; j++)
				if (cpus[j] <= max)
					node_of[cpus[j]] = node;
			free(cpus);
		}
		globfree(&g);
	}
	for (i = 0; i < nr_online; i++)
		strbuf_addf(&sb, "%s%u:%u", i ? "," : "", online[i], node_of[online[i]]);
	free(node_of);
	return strbuf_detach(&sb);
}

static int set_meta_u64(struct recording *rec, const char *key, uint64_t v)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)v);
	return recording__set_meta(rec, key, buf);
}

static int write_start_meta(struct session *s, const uint32_t *online, size_t nr_online,
			    uint64_t start_ns)
{
	const struct record_opts *o = s->opts;
	struct recording *rec = s->rec;
	struct utsname u;
	char host[256];
	char *numa;
	int err;

	if (gethostname(host, sizeof(host)))
		snprintf(host, sizeof(host), "unknown");
	host[sizeof(host) - 1] = '\0';
	if (uname(&u))
		memset(&u, 0, sizeof(u));
	numa = numa_map(online, nr_online);
	if (!numa)
		return pr_errno(-ENOMEM, "cannot describe the NUMA nodes");
	err = recording__set_meta(rec, REC_META_EPROF_VERSION, EPROF_VERSION);
	if (!err)
		err = recording__set_meta(rec, REC_META_HOSTNAME, host);
	if (!err)
		err = recording__set_meta(rec, REC_META_KERNEL, u.release);
	if (!err)
		err = recording__set_meta(rec, REC_META_ARCH, u.machine);
	if (!err)
		err = set_meta_u64(rec, REC_META_NR_CPUS, online[nr_online - 1] + 1ull);
	if (!err)
		err = recording__set_meta(rec, REC_META_NUMA_MAP, numa);
	if (!err)
		err = set_meta_u64(rec, REC_META_FREQ_HZ, o->freq);
	if (!err)
		err = recording__set_meta(rec, REC_META_EVENT, "cpu-clock");
	if (!err)
		err = recording__set_meta(rec, REC_META_CLOCK, "CLOCK_MONOTONIC");
	if (!err)
		err = set_meta_u64(rec, REC_META_START_NS, start_ns);
	if (!err)
		err = set_meta_u64(rec, REC_META_START_REALTIME, (uint64_t)time(NULL));
	if (!err)
		err = recording__set_meta(rec, REC_META_COMMAND, o->command_line);
	if (!err)
		err = recording__set_meta(rec, REC_META_TARGET, o->target_desc);
	if (!err)
		err = recording__set_meta(rec, REC_META_CALL_GRAPH, s->unwinder ? "dwarf" : "fp");
	if (!err && s->unwinder)
		err = set_meta_u64(rec, REC_META_UNWIND_BUDGET, unwinder__budget(s->unwinder));
	if (!err && unwinder__caches(s->unwinder) && o->table_cache)
		err = recording__set_meta(rec, REC_META_TABLE_CACHE, o->table_cache);
	if (!err)
		err = set_meta_u64(rec, REC_META_MEM_CEILING, mem_budget__ceiling());
	if (!err)
		err = set_meta_u64(rec, REC_META_MEM_BASE, mem_budget__base());
	if (!err && o->off_cpu)
		err = set_meta_u64(rec, REC_META_OFF_CPU_THRESH, o->off_cpu_thresh_ns);
	free(numa);
	return err;
}

/* The peak resident set so far into the recording; over the ceiling, said once. */
static int set_peak_rss(struct recording *rec)
{
	static bool said;
	struct rusage ru;
	uint64_t peak;

	if (getrusage(RUSAGE_SELF, &ru))
		return 0;
	peak = (uint64_t)ru.ru_maxrss << 10;	/* KiB */
	pr_debug("memory: peak %llu MiB resident, %llu MiB of the budget taken at most",
		 (unsigned long long)(peak >> 20), (unsigned long long)(mem_budget__peak() >> 20));
	if (peak > mem_budget__ceiling() && !said) {
		said = true;
		pr_warn("the recorder's memory peaked at %llu MiB, over its ceiling of %llu MiB",
			(unsigned long long)(peak >> 20),
			(unsigned long long)(mem_budget__ceiling() >> 20));
	}
	return set_meta_u64(rec, REC_META_PEAK_RSS, peak);
}

static int epoll_add(int epfd, int fd, uint64_t tag)
{
	struct epoll_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.events = EPOLLIN;
	ev.data.u64 = tag;
	if (epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &ev))
		return pr_errno(-errno, "cannot wait for events");
	return 0;
}

/* The capture at the end of a file: every symbol its samples still need. */
static int capture_all(struct session *s, struct capture_stats *st)
{
	struct capture_source src;

	session__capture_source(s, &src);
	return capture__run(s->capture, &src, st);
}

/*
 * A commit is due a second after the last one, or earlier when many samples
 * wait: it runs here, between two consumes, never inside the ring buffer's
 * callback, and the ring buffer (about a second of samples) holds what
 * arrives meanwhile.
 */
static bool commit_due(struct session *s)
{
	uint64_t since = now_ns() - s->last_commit_ns;

	return (since >= COMMIT_INTERVAL_NS ||
		recording__pending_samples(s->rec) >= PENDING_COMMIT ||
		stack_table__forget_due(&s->stacks)) &&	/* it forgets the stack table */
	       /*
		* a bounded wait for stack copies (RAWSTACK_HOLD_NS each), but
		* not for a stream of them: a commit at least every other
		* second, or a side-band loss is repaired only at the end
		* (t0405), the copies still waiting kept for the next commit
		*/
	       (!session__raw_waiting(s) || since >= 2 * COMMIT_INTERVAL_NS);
}

static void format_size(char *buf, size_t len, off_t size)
{
	if (size < 1024)
		snprintf(buf, len, "%lld B", (long long)size);
	else if (size < 1024 * 1024)
		snprintf(buf, len, "%.1f KiB", size / 1024.0);
	else
		snprintf(buf, len, "%.1f MiB", size / (1024.0 * 1024.0));
}

/*
 * The status line: on a terminal, about once a second, stderr's last line
 * is rewritten in place (\r, then "erase to the end of the line") with the
 * elapsed time, samples, losses and the file's size, so a long recording
 * shows that it is alive. Nothing when stderr is a file or a pipe (logs
 * stay clean) or with -q. Cleared before anything else is printed.
 */
struct status_line {
	bool on;
	uint64_t start_ns;
	uint64_t next_ns;		/* when to redraw */
	bool drawn;			/* something is on the line now */
};

static void status_line__init(struct status_line *sl, const struct record_opts *o,
			      uint64_t start_ns)
{
	sl->on = !o->quiet && isatty(STDERR_FILENO);
	sl->start_ns = start_ns;
	sl->next_ns = start_ns + STATUS_INTERVAL_NS;
	sl->drawn = false;
}

/* Called from the record loop; redraws when a second has passed. */
static void status_line__tick(struct status_line *sl, const struct session *s)
{
	uint64_t now = now_ns();
	char size[32] = "?";
	struct stat st;

	if (!sl->on || now < sl->next_ns)
		return;
	sl->next_ns = now + STATUS_INTERVAL_NS;
	if (!stat(s->opts->output, &st))
		format_size(size, sizeof(size), st.st_size);
	fprintf(stderr, "\reprof: recording %.0f s, %llu samples, %llu lost, %s\033[K",
		(now - sl->start_ns) / 1e9, (unsigned long long)s->nr_samples,
		(unsigned long long)(s->total_lost + sampler__nr_malformed(s->sampler)), size);
	fflush(stderr);
	sl->drawn = true;
}

static void status_line__clear(struct status_line *sl)
{
	if (!sl->drawn)
		return;
	fputs("\r\033[K", stderr);
	fflush(stderr);
	sl->drawn = false;
}

/*
 * A commit: the sampler's counters (losses, ticks) and the off-CPU sums are
 * read here and handed to the session: the stages are wired here, and the
 * session only asks the sampler whether a process is a target.
 */
static int commit(struct session *s)
{
	struct session_counters c = { .time_ns = now_ns() };
	struct rec_ticks *ticks = NULL;
	uint64_t *stats = NULL;
	size_t nr;
	int err = 0;

	if (!s->sampler)
		return session__commit(s, NULL);
	nr = sampler__nr_cpus(s->sampler);
	stats = calloc((size_t)s->nr_possible_cpus * EV_STAT_MAX, sizeof(*stats));
	ticks = calloc(nr ? nr : 1, sizeof(*ticks));
	if (!stats || !ticks) {
		err = pr_errno(-ENOMEM, "cannot read the sampler's counters");
		goto out;
	}
	err = sampler__read_stats(s->sampler, stats);
	if (!err && nr)
		err = sampler__account_ticks(s->sampler, c.time_ns, ticks, &nr);
	if (!err && s->offcpu)
		err = offcpu__flush(s->offcpu, s->rec, s->final_ns ? s->final_ns : c.time_ns,
				    stats);
	if (err)
		goto out;
	c.stats = stats;
	c.ticks = ticks;
	c.nr_ticks = nr;
	err = session__commit(s, &c);
out:
	free(ticks);
	free(stats);
	return err;
}

/*
 * Reads the side-band, and notes how far it is surely complete: the
 * session writes a name or mapping that no earlier one of its thread or
 * address can still follow with time 0 (session.h, sideband_past_ns).
 */
static int read_sideband(struct session *s)
{
	int err = sideband__consume(s->sideband);

	s->sideband_past_ns = sideband__read_past(s->sideband);
	return err;
}

/* --switch-output: the file being written and what the next one needs. */
struct rotation {
	struct record_opts *opts;	/* opts->output names the current file */
	const uint32_t *online;
	size_t nr_online;
	const char *base;		/* FILE, as given */
	unsigned int seq;		/* files closed so far */
	uint64_t file_start_ns;
	uint64_t file_first_sample;	/* session.nr_samples when the file began */
	char *name;			/* FILE.NNNN (owned), once switched */
};

/*
 * How far before the switch the next file's span starts: the ring buffer
 * delivers samples up to a few microseconds out of time order (the reader
 * allows chunks to overlap by 10 ms, format/internal.h).
 */
#define SWITCH_OVERLAP_NS	10000000ull

/* Never a file without samples: a SIZE below an empty file's would switch on every commit. */
static bool switch_due(const struct session *s, const struct rotation *r)
{
	const struct record_opts *o = r->opts;
	struct stat st;

	if (s->nr_samples == r->file_first_sample || recording__pending_samples(s->rec))
		return false;
	if (o->switch_ns && now_ns() - r->file_start_ns >= o->switch_ns)
		return true;
	return o->switch_bytes && !stat(o->output, &st) && (uint64_t)st.st_size >= o->switch_bytes;
}

/*
 * Finishes the current file with everything queued so far and goes on in
 * FILE.NNNN, which gets again all that its own samples need (stacks,
 * mappings, names, symbols). The sampler runs on: what it queues meanwhile
 * is read into the new file. The new file's span starts the ring buffer's
 * reordering bound before the switch began (before its last read of the
 * ring buffer, not after: reading the side-band can take tens of ms on a
 * busy machine), so that a sample taken just before it but read after it
 * still lies within its file's span. The spans overlap by that much.
 */
/* Whether path is free or a regular file of ours: the recorder may move it aside. */
static bool ours_or_free(const char *path)
{
	struct stat st;

	return lstat(path, &st) ? errno == ENOENT : S_ISREG(st.st_mode) && st.st_uid == geteuid();
}

/*
 * The next file's name, BASE.NNNN after the current one. A name that some
 * other user took (in /tmp, say), or that is not a regular file (a
 * directory), or whose ".old" or journal is such, is skipped: the
 * recording goes on in the next free one instead of stopping there.
 */
static char *next_name(struct rotation *r)
{
	static const char *const side[] = { "", ".old", "-journal", "-wal", "-shm" };
	char *name = NULL, *other;
	unsigned int n;
	size_t i;
	bool ok;

	for (n = r->seq + 1; n <= 99999; n++) {
		free(name);
		if (asprintf(&name, "%s.%04u", r->base, n) < 0)
			break;
		for (i = 0, ok = true; ok && i < sizeof(side) / sizeof(side[0]); i++) {
			if (asprintf(&other, "%s%s", name, side[i]) < 0) {
				free(name);
				name = NULL;
				break;
			}
			ok = ours_or_free(other);
			free(other);
		}
		if (!name)
			break;
		if (ok) {
			r->seq = n - 1;
			return name;
		}
		pr_warn("'%s' (or its .old or journal) is taken by another user or is not a file: "
			"skipped", name);
	}
	if (!name)
		pr_errno(-ENOMEM, "cannot name the next file");
	else
		pr_err("no free name after '%s' for --switch-output (choose another -o)", name);
	free(name);
	return NULL;
}

static int switch_output(struct session *s, struct rotation *r)
{
	struct capture_stats cst;
	uint64_t t, since;
	bool more;
	char *name;
	int err;

	/*
	 * A sample taken before since may still be read after the consume,
	 * into the next file (the ring buffer's reordering; a busy machine
	 * can also keep this thread off the CPU): that file's span starts
	 * there. Every sample read by t is in this one.
	 */
	since = now_ns() - SWITCH_OVERLAP_NS;
	err = sampler__consume(s->sampler, SIZE_MAX, &more);
	err = err ?: read_sideband(s);
	t = now_ns();
	err = err ?: set_meta_u64(s->rec, REC_META_END_NS, t);
	err = err ?: set_peak_rss(s->rec);
	/* the sums read now are flushed at t, within the file's span, as at the end */
	s->final_ns = t;
	s->raw_final = true;
	err = err ?: commit(s);
	s->raw_final = false;
	s->final_ns = 0;
	err = err ?: capture_all(s, &cst);
	err = err ?: jitmaps__after_commit(s->jitmaps, s->rec);
	err = err ?: recording__finish(s->rec);
	if (err)
		return err;
	name = next_name(r);
	if (!name)
		return -ENOMEM;
	err = session__start_file(s, name);
	if (!err)
		offcpu__start_file(s->offcpu, since);
	if (err) {
		free(name);
		return err;
	}
	pr_info("switched to '%s'", name);
	r->seq++;
	r->file_start_ns = t;
	r->file_first_sample = s->nr_samples;
	r->opts->output = name;
	free(r->name);
	r->name = name;
	err = write_start_meta(s, r->online, r->nr_online, since);
	return err ?: commit(s);
}

/*
 * Runs until the targets are gone, the duration (from since_ns) is over, or
 * a signal.
 */
static int record_loop(struct session *s, struct target *t, uint64_t since_ns,
		       struct status_line *sl, struct rotation *rot)
{
	struct epoll_event evs[16];
	uint64_t deadline = s->opts->duration_ns ? since_ns + s->opts->duration_ns : 0, now;
	bool more = false;
	bool more_work = false;
	size_t i;
	int epfd, n, timeout, err;

	epfd = epoll_create1(EPOLL_CLOEXEC);
	if (epfd < 0)
		return pr_errno(-errno, "cannot wait for events");
	err = epoll_add(epfd, sampler__epoll_fd(s->sampler), 0);
	if (!err)
		err = epoll_add(epfd, sideband__epoll_fd(s->sideband), 1);
	if (!err && s->unwinder)
		err = epoll_add(epfd, unwinder__event_fd(s->unwinder), 1);
	for (i = 0; i < t->nr && !err; i++)
		if (t->pidfds[i] >= 0)
			err = epoll_add(epfd, t->pidfds[i], 2 + i);
	while (!err && !stop_signal) {
		if (t->nr && !t->nr_alive)
			break;
		now = now_ns();
		timeout = more ? 0 : s->unwinder ? (more_work ? 1 : POLL_MS_UNWIND) : POLL_MS;
		if (deadline) {
			if (now >= deadline)
				break;
			if (deadline - now < (uint64_t)timeout * 1000000ull)
				timeout = (int)((deadline - now + 999999) / 1000000);
		}
		n = epoll_wait(epfd, evs, 16, timeout);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			err = pr_errno(-errno, "cannot wait for events");
			break;
		}
		for (i = 0; i < (size_t)n; i++) {
			if (evs[i].data.u64 >= 2) {
				size_t k = (size_t)evs[i].data.u64 - 2;

				if (k < t->nr && t->pidfds[k] >= 0) {
					epoll_ctl(epfd, EPOLL_CTL_DEL, t->pidfds[k], NULL);
					target__on_exit(t, k);
				}
			}
		}
		err = sampler__consume(s->sampler, CONSUME_BUDGET, &more);
		if (!err)
			err = read_sideband(s);
		if (!err)
			err = session__repair(s);
		if (!err)
			err = unwinder__work(s->unwinder, UNWIND_WORK_NS, &more_work);
		if (!err && commit_due(s))
			err = commit(s);
		if (!err && switch_due(s, rot))
			err = switch_output(s, rot);
		status_line__tick(sl, s);
	}
	status_line__clear(sl);
	close(epfd);
	return err;
}

/*
 * "; user stacks: 99.2% complete, 0.3% frame-pointer fallback, 0 truncated",
 * before the tick breakdown, which ends the line (t0901 reads it there)
 */
static void unwind_summary(const struct session *s, char *buf, size_t len)
{
	const uint64_t *t = s->stats_total;
	uint64_t walks, complete, fb = 0;
	size_t i;

	buf[0] = '\0';
	if (!s->unwinder || !t || !(walks = t[EV_STAT_UNW_STACKS]))
		return;
	complete = t[EV_STAT_UNW_STOP + UNW_STOP_END] + t[EV_STAT_UNW_STOP + UNW_STOP_ZERO];
	for (i = 0; i < UNW_FB_MAX; i++)
		fb += t[EV_STAT_UNW_FB + i];
	snprintf(buf, len, "; user stacks: %.1f%% complete, %.1f%% with frame-pointer fallback, "
		 "%llu truncated", 100.0 * (double)complete / (double)walks,
		 100.0 * (double)fb / (double)walks,
		 (unsigned long long)t[EV_STAT_UNW_STOP + UNW_STOP_DEPTH]);
}

/*
 * With -a every tick is a sample, so throttled ticks are lost samples; with
 * a target filter they are ticks of any task, the targets' part estimated.
 * A tick that neither fired nor was throttled is no lost sample: a CPU with
 * nothing to run stops its timer (tickless idle), and a late timer is the
 * rest; said apart, at the end of the line (t0901, t0902 read it there).
 */
static void print_summary(const struct session *s, uint64_t elapsed_ns)
{
	char size[32] = "?", why[320] = "", unw[160], mem[224] = "";
	const struct stack_stats *ss = &s->stacks.total;
	uint64_t lost = s->total_lost + sampler__nr_malformed(s->sampler), gone;
	struct tick_breakdown tb;
	struct stat st;
	size_t n;

	if (!stat(s->opts->output, &st))
		format_size(size, sizeof(size), st.st_size);
	unwind_summary(s, unw, sizeof(unw));
	if (session__ticks(s, &tb)) {
		gone = tb.throttled;
		if (tb.kept == tb.fired)
			lost += gone;
		if ((gone || lost) && tb.kept == tb.fired)
			snprintf(why, sizeof(why), "; %llu ticks expected: %llu throttled, %llu ring "
				 "buffer full", (unsigned long long)tb.expected,
				 (unsigned long long)tb.throttled, (unsigned long long)s->total_lost);
		else if (gone || lost)
			/* which task a throttled tick would have hit is unknown: estimated */
			snprintf(why, sizeof(why), "; any task: %llu ticks expected: %llu throttled, "
				 "about %llu of them this recording's; %llu ring buffer full",
				 (unsigned long long)tb.expected, (unsigned long long)tb.throttled,
				 (unsigned long long)(tb.fired ? ((unsigned __int128)gone * tb.kept +
								  tb.fired / 2) / tb.fired : gone),
				 (unsigned long long)s->total_lost);
		n = strlen(why);
		if (tb.missed)
			snprintf(why + n, sizeof(why) - n, "; %llu ticks did not fire (idle CPUs stop "
				 "their timer; else a late timer)", (unsigned long long)tb.missed);
	} else {
		snprintf(why, sizeof(why), "; ticks not counted");
	}
	if (s->offcpu) {
		uint64_t kept, olost;

		offcpu__totals(s->offcpu, &kept, &olost);
		fprintf(stderr, "eprof: recorded %llu off-CPU intervals (%llu lost)\n",
			(unsigned long long)kept, (unsigned long long)olost);
	}
	if (ss->forgets || ss->refused || s->maps.nr_refused)
		snprintf(mem, sizeof(mem), "; memory budget: stack table forgotten %llu times (%llu "
			 "stacks, stored again when met again), %llu stacks recorded empty, %llu "
			 "mappings not kept", (unsigned long long)ss->forgets,
			 (unsigned long long)ss->forgotten, (unsigned long long)ss->refused,
			 (unsigned long long)s->maps.nr_refused);
	fprintf(stderr,
		"eprof: recorded %llu samples (%llu lost, %llu stacks not captured, %llu side-band "
		"records lost%s) in %.2f s, %llu process%s, %s %s%s%s%s\n",
		(unsigned long long)s->nr_samples, (unsigned long long)lost,
		(unsigned long long)(s->total_ustack_fail + s->total_kstack_fail),
		(unsigned long long)s->total_lost_sideband,
		s->total_lost_sideband ? ": `eprof report` counts the samples they touched" : "",
		elapsed_ns / 1e9, (unsigned long long)s->nr_procs, s->nr_procs == 1 ? "" : "es", s->opts->output,
		size, unw, mem, why);
}

/* The pipeline stages first (the sampler's links before anything else goes), then the session. */
static void close_all(struct session *s)
{
	unwinder__close(s->unwinder);
	sampler__close(s->sampler);
	sideband__close(s->sideband);
	offcpu__free(s->offcpu);
	s->unwinder = NULL;
	s->sampler = NULL;
	s->sideband = NULL;
	s->offcpu = NULL;
	session__release(s);
}

/*
 * The C library and dynamic loader eprof itself runs with are, almost
 * always, the ones the command will map first.
 */
static void prepare_own_libc(struct session *s)
{
	char line[4096 + 256], *name, *base;
	FILE *f = fopen("/proc/self/maps", "re");

	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		name = strchr(line, '/');
		if (!name || !strstr(line, " r-xp "))
			continue;
		name[strcspn(name, "\n")] = '\0';
		base = strrchr(name, '/') + 1;
		if (!strncmp(base, "libc.so", 7) || !strncmp(base, "ld-linux", 8))
			unwinder__prepare_path(s->unwinder, name);
	}
	fclose(f);
}

/*
 * The libraries exe will load, as the system's dynamic loader lists them
 * (`ld.so --list`, what ldd runs: it maps them, runs none of their code).
 * Lines: "\tname => /path (0x...)" and "\t/path (0x...)".
 */
static void prepare_libraries(struct session *s, const char *exe)
{
	char *argv[] = { (char *)SYSTEM_LD_SO, (char *)"--list", (char *)exe, NULL };
	posix_spawn_file_actions_t fa;
	char line[4096], *p, *end;
	int pipefd[2], status;
	pid_t pid;
	FILE *f;

	if (access(SYSTEM_LD_SO, X_OK) || pipe2(pipefd, O_CLOEXEC))
		return;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, pipefd[1], STDOUT_FILENO);
	posix_spawn_file_actions_addopen(&fa, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
	if (posix_spawn(&pid, SYSTEM_LD_SO, &fa, NULL, argv, environ)) {
		posix_spawn_file_actions_destroy(&fa);
		close(pipefd[0]);
		close(pipefd[1]);
		return;
	}
	posix_spawn_file_actions_destroy(&fa);
	close(pipefd[1]);
	f = fdopen(pipefd[0], "re");
	while (f && fgets(line, sizeof(line), f)) {
		p = strstr(line, "=> ");
		p = p ? p + 3 : line + strspn(line, " \t");
		if (*p != '/')
			continue;
		end = strstr(p, " (0x");
		if (!end)
			continue;
		*end = '\0';
		unwinder__prepare_path(s->unwinder, p);
	}
	if (f)
		fclose(f);
	else
		close(pipefd[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
}

/* The command's executable, found the way execvp() finds it, and its libraries. */
static void prepare_executable(struct session *s, const char *cmd)
{
	const char *path = getenv("PATH"), *p, *end;
	char buf[4096];

	if (strchr(cmd, '/')) {
		/* ./app: the unwinder takes absolute paths only */
		if (cmd[0] != '/' && realpath(cmd, buf))
			cmd = buf;
		unwinder__prepare_path(s->unwinder, cmd);
		prepare_libraries(s, cmd);
		return;
	}
	for (p = path ? path : "/usr/local/bin:/usr/bin:/bin"; *p; p = *end ? end + 1 : end) {
		end = strchrnul(p, ':');
		if (end == p ||
		    snprintf(buf, sizeof(buf), "%.*s/%s", (int)(end - p), p, cmd) >= (int)sizeof(buf))
			continue;
		if (!access(buf, X_OK)) {
			unwinder__prepare_path(s->unwinder, buf);
			prepare_libraries(s, buf);
			return;
		}
	}
}

/*
 * The command's executable, its libraries and the C library get their
 * unwind tables before the command runs, waiting at most UNWIND_PREPARE_NS
 * for those built (the side-band brings anything else it maps a few
 * milliseconds later); those in the table cache are not waited for.
 */
static void prepare_command(struct session *s, const char *cmd)
{
	uint64_t wait = UNWIND_PREPARE_NS;

	if (!s->unwinder)
		return;
	if (s->opts->duration_ns && s->opts->duration_ns / 4 < wait)
		wait = s->opts->duration_ns / 4;
	prepare_own_libc(s);
	prepare_executable(s, cmd);
	if (unwinder__drain_builds(s->unwinder, wait))
		pr_debug("the command's unwind tables are not all ready");
}

static int child_exit_status(const struct target *t)
{
	if (WIFEXITED(t->child_status))
		return WEXITSTATUS(t->child_status);
	if (WIFSIGNALED(t->child_status))
		return 128 + WTERMSIG(t->child_status);
	return EXIT_FAIL;
}

/*
 * The memory budget: the ceiling less what the recorder holds now, with
 * its ring buffers mapped. A --mem-limit that leaves too little is
 * refused; the default only says so with -v and goes on.
 */
static int set_mem_base(const struct record_opts *o)
{
	uint64_t base;

	if (!mem_budget__set_base(&base)) {
		pr_debug("memory: %llu MiB held once started, %llu MiB of budget under the "
			 "%llu MiB ceiling", (unsigned long long)(base >> 20),
			 (unsigned long long)(mem_budget__size() >> 20),
			 (unsigned long long)(mem_budget__ceiling() >> 20));
		return 0;
	}
	if (!o->mem_limit_given) {
		pr_debug("memory: %llu MiB held once started leaves under %llu MiB of the "
			 "%llu MiB ceiling", (unsigned long long)(base >> 20),
			 MEM_BUDGET_MIN >> 20, (unsigned long long)(mem_budget__ceiling() >> 20));
		return 0;
	}
	pr_err("--mem-limit %lluM leaves too little: the recorder holds %llu MiB "
			"once started (its ring buffers grow with -F and the CPUs); give at least "
			"%lluM", (unsigned long long)(o->mem_limit >> 20),
			(unsigned long long)(base >> 20),
			(unsigned long long)((base + MEM_BUDGET_MIN) >> 20) + 1);
	return -ENOSPC;
}

/*
 * The BPF sampler, its off-CPU reader and, when it unwinds, the unwinder
 * with its table cache (NULL: none). Prints; -errno.
 */
static int open_sampler(struct session *s, const char *cache, uint64_t entry_ns)
{
	const struct record_opts *o = s->opts;
	struct sampler_config scfg = {
		.freq = o->freq,
		.nr_cpus = o->nr_cpus,
		.nr_possible_cpus = s->nr_possible_cpus,
		.filter = o->mode != TARGET_ALL,
		/* -- CMD and -p follow children unless --no-inherit; -a samples everything */
		.follow = o->mode != TARGET_ALL && !o->no_inherit,
		.dwarf = o->call_graph == CALL_GRAPH_DWARF,
		.off_cpu = o->off_cpu,
		.off_cpu_thresh_ns = o->off_cpu_thresh_ns,
		/* its child's wait at the gate is eprof's start-up, not the command's */
		.gate_parent = o->mode == TARGET_CMD ? (uint32_t)getpid() : 0,
		.raw_budget = rawstack_budget_default(o->nr_cpus),
		.table_cache = cache,
	};
	struct sampler_sink ssink;
	int err;

	session__sampler_sink(s, &ssink);
	err = sampler__open(&scfg, &ssink, &s->sampler);
	if (!err && o->off_cpu) {
		struct offcpu_config ocfg;
		int start_fd, sums_fd;

		sampler__offcpu_fds(s->sampler, &start_fd, &sums_fd);
		session__offcpu_config(s, start_fd, sums_fd, &ocfg);
		err = offcpu__new(&ocfg, &s->offcpu);
	}
	if (err)
		return err;
	pr_debug("BPF sampler loaded at %.3f s", (now_ns() - entry_ns) / 1e9);
	err = set_mem_base(o);
	if (err)
		return err;
	if (sampler__unwinds(s->sampler)) {
		struct unwind_maps maps;

		sampler__unwind_fds(s->sampler, &maps);
		err = unwinder__open(&maps, o->unwind_budget, cache, &s->unwinder);
		if (err)
			return err;
		s->rawstack = rawstack__new(s->unwinder, session__find_vma, s);
		if (!s->rawstack)
			return pr_errno(-ENOMEM, "cannot set up the stack unwinder");
	}
	return 0;
}

/* The command forked to its gate, or the -p processes, told to the sampler. Prints; -errno. */
static int add_targets(struct session *s, struct target *t, int old_nice)
{
	const struct record_opts *o = s->opts;
	size_t i;
	int err;

	if (o->mode == TARGET_CMD) {
		err = target__fork(t, o->cmd);
		if (!err)
			err = sampler__add_target(s->sampler, (uint32_t)t->child);
		if (err)
			return err;
		/* still at its gate: it runs at the priority eprof was started with */
		if (setpriority(PRIO_PROCESS, (id_t)t->child, old_nice))
			pr_debug("cannot reset the command's priority: %s", strerror(errno));
		signal(SIGPIPE, SIG_IGN);	/* a child killed at its gate must not kill us */
	}
	for (i = 0; i < o->nr_pids && o->mode == TARGET_PIDS; i++) {
		err = sampler__add_target(s->sampler, o->pids[i]);
		if (err)
			return err;
	}
	return 0;
}

/*
 * Opens the pipeline in order: the sampler (and its off-CPU reader and
 * unwinder), the command at its gate or the -p targets, the side-band and,
 * without a command, the processes already running. Nothing samples yet.
 * Prints; -errno.
 */
static int open_stages(struct session *s, struct target *t, int old_nice, uint64_t entry_ns)
{
	const struct record_opts *o = s->opts;
	/*
	 * The default cache is root's: a recorder run with capabilities
	 * only does without it, quietly (an explicit DIR still warns).
	 */
	const char *cache = o->table_cache && geteuid() &&
			    !strcmp(o->table_cache, TABLE_CACHE_DIR_DEFAULT) ? NULL : o->table_cache;
	struct sideband_sink bsink;
	int err;

	err = open_sampler(s, cache, entry_ns);
	if (!err)
		err = add_targets(s, t, old_nice);
	if (err)
		return err;
	session__sideband_sink(s, &bsink);
	/* -- CMD, -p: the side-band follows the targets and what they start, nothing else */
	err = sideband__open(sampler__sideband_map_fd(s->sampler),
			     o->mode == TARGET_CMD ? (uint32_t)t->child : 0, o->pids,
			     o->mode == TARGET_PIDS ? o->nr_pids : 0, &bsink, &s->sideband);
	if (!err && o->mode != TARGET_CMD)
		err = sideband__scan_proc(s->sideband, o->pids, o->nr_pids, o->mode == TARGET_ALL);
	/*
	 * -- CMD: until its exec the child runs the recorder's code, mapped
	 * before its events were opened (its fork is the recorder's, which no
	 * event follows): read from /proc while it waits at its gate. Its
	 * ticks before the exec are not kept (bpf/sampler.bpf.c); the scan
	 * names it from the start, CMD (target__fork), for its off-CPU sums.
	 */
	if (!err && o->mode == TARGET_CMD) {
		uint32_t child = (uint32_t)t->child;

		s->gate_scan = true;
		err = sideband__scan_proc(s->sideband, &child, 1, false);
		s->gate_scan = false;
	}
	if (err)
		return err;
	pr_debug("processes scanned at %.3f s", (now_ns() - entry_ns) / 1e9);
	/* -p: the running processes' tables are ready before the first sample */
	if (o->mode == TARGET_PIDS)
		err = unwinder__drain(s->unwinder, UNWIND_PREPARE_PID_NS);
	return err;
}

/*
 * Stops sampling, keeps everything already queued, makes the last commit
 * and completes the file: symbols, unwind counts, JIT maps, the "closed
 * cleanly" flag. err is the record loop's: on an error the file is left as
 * its last commit made it. *end_ns is when sampling stopped.
 */
static int stop_and_finish(struct session *s, int err, uint64_t entry_ns, uint64_t *end_ns,
			   struct capture_stats *cst)
{
	bool more;

	sampler__detach(s->sampler);
	*end_ns = now_ns();
	pr_debug("sampler detached at %.3f s", (now_ns() - entry_ns) / 1e9);
	if (!err)
		err = sampler__consume(s->sampler, SIZE_MAX, &more);
	if (!err)
		err = read_sideband(s);
	if (!err)
		err = sideband__end_batch(s->sideband);	/* nothing more comes */
	s->sideband_past_ns = sideband__read_past(s->sideband);
	if (!err && s->offcpu) {
		err = offcpu__close_open(s->offcpu, s->rec, *end_ns);
		s->final_ns = *end_ns;	/* the last sums are flushed at the end */
	}
	if (!err)
		err = set_meta_u64(s->rec, REC_META_END_NS, *end_ns);
	if (!err)
		err = set_peak_rss(s->rec);
	s->raw_final = true;
	if (!err)
		err = commit(s);
	pr_debug("last samples committed at %.3f s", (now_ns() - entry_ns) / 1e9);
	if (!err)
		err = capture_all(s, cst);
	rawstack__adjust_stats(s->rawstack, s->stats_total);	/* as the stacks are stored */
	if (!err)
		err = unwinder__store(s->unwinder, s->rec, s->stats_total);
	if (!err && s->rawstack)
		err = rawstack__store(s->rawstack, s->rec, s->stats_total,
					     rawstack_budget_default(s->opts->nr_cpus));
	if (!err)
		err = pyrec__store(s->python, s->rec, s->stats_total);
	if (!err)
		err = jitmaps__after_commit(s->jitmaps, s->rec);
	if (!err)
		err = recording__finish(s->rec);
	pr_debug("symbols captured, file finished at %.3f s", (now_ns() - entry_ns) / 1e9);
	debug_schedstat();
	return err;
}

/*
 * What can fail before anything is created, so that a failure changes
 * nothing: privileges, BTF, and -- CMD runnable (a typo in it must not move
 * an old recording aside). EXIT_OK, or the exit status after the message.
 */
static int preflight(const struct record_opts *o)
{
	int err;

	if (!has_privileges()) {
		pr_err("recording needs BPF and perf privileges (run as root, or grant CAP_BPF and "
		       "CAP_PERFMON)");
		return EXIT_FAIL;
	}
	if (access("/sys/kernel/btf/vmlinux", R_OK)) {
		pr_err("this kernel has no BTF ('/sys/kernel/btf/vmlinux' is missing): eprof needs "
		       "a kernel built with CONFIG_DEBUG_INFO_BTF=y");
		return EXIT_FAIL;
	}
	if (o->mode == TARGET_CMD) {
		err = target__check_cmd(o->cmd[0]);
		if (err)
			return err == -ENOENT ? 127 : 126;	/* the shell's statuses */
	}
	return EXIT_OK;
}

/* The -v lines about what was stored, then the summary line (not with -q). */
static void print_end(const struct session *s, const struct capture_stats *cst,
		      uint64_t elapsed_ns)
{
	pr_info("captured symbols of %zu binaries (%zu symbols, %zu unreadable), %zu kernel "
		"symbols; %zu stacks, %llu mappings stored (%llu of ended processes forgotten "
		"while recording), %llu truncated stacks, %llu side-band records lost", cst->binaries,
		cst->symbols, cst->missing, cst->ksyms, (size_t)s->stacks.first + s->stacks.nr,
		(unsigned long long)s->maps.nr_written, (unsigned long long)s->nr_maps_dropped,
		(unsigned long long)s->total_truncated,
		(unsigned long long)s->total_lost_sideband);
	if (s->opts->debuginfo)
		pr_info("embedded the DWARF of %zu binaries (%.1f MB before compression)",
			cst->dwarf_files, (double)cst->dwarf_bytes / 1e6);
	if (!s->opts->quiet)
		print_summary(s, elapsed_ns);
}

/*
 * -- CMD at the end: killed at its gate if it never started; else, stopped
 * by a signal or -d, ended too, as perf does. Returns the exit status: the
 * command's own when the recording went well.
 */
static int end_command(struct target *t, bool started, int status)
{
	if (!started) {
		target__abort_child(t);
		return status;
	}
	target__try_reap(t);
	target__stop_child(t);
	if (status == EXIT_OK && t->child_reaped)
		return child_exit_status(t);
	if (status == EXIT_OK && stop_signal)
		return 128 + stop_signal;
	return status;
}

/* What one `eprof record` holds from its options to its release. */
struct record_run {
	struct record_opts opts;
	struct session s;
	struct target t;
	struct rotation rot;
	uint32_t *online;
	size_t nr_online;
	uint64_t entry_ns;		/* eprof's exec, once known */
	uint64_t start_ns;		/* sampling attached */
	int old_nice;
	int cgroup_fd;
	bool started;			/* the command was released */
};

/*
 * Before anything is loaded: signals, the options, the cgroup, the
 * priority, the preflight checks, -p's processes watched. True to go on;
 * false with *status the exit status (EXIT_OK after --help).
 */
static bool prepare_run(struct record_run *r, int argc, char **argv, int *status)
{
	struct record_opts *opts = &r->opts;
	int err;

	*status = EXIT_FAIL;
	if (install_signals())
		return false;
	raise_nofile(&r->t);

	if (cpus__online(&r->online, &r->nr_online))
		return false;
	err = parse_options(argc, argv, opts, r->online, r->nr_online);
	if (err) {
		*status = err < 0 ? EXIT_OK : EXIT_USAGE;	/* -1: --help */
		return false;
	}
	if (opts->cgroup) {	/* before anything is created: a wrong path changes nothing */
		r->cgroup_fd = cgroup__open(opts->cgroup);
		if (r->cgroup_fd < 0)
			return false;
		cpu_clock__set_cgroup(r->cgroup_fd);
	}
	r->old_nice = raise_priority();	/* first: a saturated machine slows every step */
	r->entry_ns = now_ns() - exec_age_ns();	/* -d counts from eprof's exec */
	pr_debug("%.3f s since eprof's exec", (now_ns() - r->entry_ns) / 1e9);
	opts->command_line = join_args("eprof", argv, argc);
	if (!opts->command_line || !opts->target_desc) {
		pr_errno(-ENOMEM, "cannot start recording");
		return false;
	}
	*status = preflight(opts);
	if (*status != EXIT_OK)
		return false;
	*status = EXIT_FAIL;
	libbpf_set_print(libbpf_print);
	if (opts->mode == TARGET_PIDS && target__watch_pids(&r->t, opts->pids, opts->nr_pids))
		return false;
	*status = EXIT_OK;
	return true;
}

/*
 * From BPF loaded to the command released: the session, the file (a valid
 * recording once committed), the stages, sampling attached. EXIT_OK once
 * started; else the exit status (127 or 126: the command never ran, and
 * its file is discarded).
 */
static int start_run(struct record_run *r)
{
	struct record_opts *opts = &r->opts;
	struct session *s = &r->s;
	int err;

	err = libbpf_num_possible_cpus();
	if (err <= 0) {
		pr_errno(err, "cannot count the possible CPUs");
		return EXIT_FAIL;
	}
	if (session__init(s, opts, err))
		return EXIT_FAIL;
	if (recording__create(opts->output, &s->rec))
		return EXIT_FAIL;
	if (open_stages(s, &r->t, r->old_nice, r->entry_ns) || session__look_python(s))
		return EXIT_FAIL;
	r->start_ns = now_ns();
	if (write_start_meta(s, r->online, r->nr_online, r->start_ns))
		return EXIT_FAIL;
	if (sampler__attach(s->sampler, opts->cpus, opts->nr_cpus, opts->freq))
		return EXIT_FAIL;
	if (commit(s))	/* the file is a valid recording from here on */
		return EXIT_FAIL;
	if (opts->mode == TARGET_CMD)
		prepare_command(s, opts->cmd[0]);
	err = target__release(&r->t);
	if (err) {
		/* CMD never ran: leave things as they were before eprof started */
		if (r->t.child_reaped) {
			recording__discard(s->rec);
			s->rec = NULL;
			return err == -ENOENT ? 127 : 126;
		}
		return EXIT_FAIL;
	}
	r->started = true;
	return EXIT_OK;
}

/* The start line, and a warning when starting ate much of -d. */
static void announce_start(const struct record_opts *opts, uint64_t entry_ns, uint64_t start_ns)
{
	pr_info("recording %s at %llu Hz on %zu CPU%s into '%s'", opts->target_desc,
		(unsigned long long)opts->freq, opts->nr_cpus, opts->nr_cpus == 1 ? "" : "s",
		opts->output);

	pr_debug("started in %.3f s", (start_ns - entry_ns) / 1e9);
	if (opts->duration_ns && start_ns - entry_ns > opts->duration_ns / 2)
		pr_warn("eprof took %.1f s to start (loading BPF, preparing unwind tables): it "
			"samples %.1f s of the %.1f s asked (give a longer -d)",
			(start_ns - entry_ns) / 1e9,
			start_ns - entry_ns < opts->duration_ns ?
			(opts->duration_ns - (start_ns - entry_ns)) / 1e9 : 0.0,
			opts->duration_ns / 1e9);
}

/* Samples until the end, then completes the file and says so. The exit status. */
static int record_and_finish(struct record_run *r)
{
	struct record_opts *opts = &r->opts;
	struct session *s = &r->s;
	struct rotation *rot = &r->rot;
	struct capture_stats cst;
	struct status_line sl;
	uint64_t end_ns = 0;
	int err;

	announce_start(opts, r->entry_ns, r->start_ns);
	status_line__init(&sl, opts, r->start_ns);
	rot->opts = opts;
	rot->online = r->online;
	rot->nr_online = r->nr_online;
	rot->base = opts->output;
	rot->file_start_ns = r->start_ns;
	err = record_loop(s, &r->t, r->entry_ns, &sl, rot);

	err = stop_and_finish(s, err, r->entry_ns, &end_ns, &cst);
	if (err)
		return EXIT_FAIL;
	/*
	 * --switch-output never leaves a file without samples: the end came
	 * right after a switch (one with off-CPU time only is kept). Discarded
	 * while open, with its journal: an unlink before the close left
	 * FILE.NNNN-journal behind.
	 */
	if (rot->seq && s->nr_samples == rot->file_first_sample && !offcpu__file_rows(s->offcpu)) {
		pr_info("'%s' got no samples before the end: removed", opts->output);
		recording__discard(s->rec);
		s->rec = NULL;
	}
	print_end(s, &cst, end_ns - r->start_ns);
	return EXIT_OK;
}

/* What parsing the options allocated. */
static void release_opts(struct record_opts *opts)
{
	free(opts->pids);
	free(opts->cpus);
	free(opts->command_line);
	free(opts->target_desc);
}

/* Ends the command (its status may become eprof's), closes and frees everything. */
static int release_run(struct record_run *r, int status)
{
	struct record_opts *opts = &r->opts;

	if (opts->mode == TARGET_CMD && r->t.child)
		status = end_command(&r->t, r->started, status);
	close_all(&r->s);
	pr_debug("released at %.3f s", (now_ns() - r->entry_ns) / 1e9);
	free(r->rot.name);		/* opts->output points to it */
	if (r->cgroup_fd >= 0)
		close(r->cgroup_fd);
	target__release_fds(&r->t);
	release_opts(opts);
	free(r->online);
	return status;
}

int cmd_record(int argc, char **argv)
{
	struct record_run r;
	int status;

	memset(&r, 0, sizeof(r));
	target__init(&r.t);
	r.entry_ns = now_ns();
	r.cgroup_fd = -1;
	if (prepare_run(&r, argc, argv, &status)) {
		status = start_run(&r);
		if (status == EXIT_OK)
			status = record_and_finish(&r);
	}
	return release_run(&r, status);
}
