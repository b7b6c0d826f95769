-- SPDX-License-Identifier: MIT
-- eprof recording format v2: what v2 adds to v1.sql. A v2 file is v1.sql
-- followed by this file, with PRAGMA user_version = 2. A v1 file has none of
-- these tables; readers treat them as absent ("not recorded"), never as
-- damage, so every v1 recording still reports exactly as before.
-- v2 writers write v1's stack_chunk with encoding 2 (README.md: coded by
-- the commit's mappings, compressed after the chunk before), leave its
-- mapping and comm tables empty for mapping_chunk and comm_chunk below.

-- How user stacks were unwound (record --call-graph dwarf): one row with the
-- recording's totals (path ''), then one row per binary that walks ended in
-- or first left their unwind tables in. Written when the recording ends; a
-- recording without rows here walked no stacks with tables (fp mode, or v1).
CREATE TABLE unwind (
    build_id      BLOB,              -- the binary's GNU build-id; NULL for the totals row or when unknown
    path          TEXT NOT NULL,     -- the binary as mapped; '' totals; '[anonymous]' code outside files
    walks         INTEGER NOT NULL,  -- user stacks walked (per binary: walks that ended in it)
    frames_table  INTEGER NOT NULL,  -- totals row: frames found through a table row
    frames_fp     INTEGER NOT NULL,  -- totals row: frames found by a frame-pointer step
    fb_no_table   INTEGER NOT NULL,  -- walks whose first frame-pointer step was for want of a table (not built yet)
    fb_no_cfi     INTEGER NOT NULL,  -- ... for want of CFI (JIT or anonymous code, no .eh_frame, unsupported rule)
    fb_no_vma     INTEGER NOT NULL,  -- ... because the PC was in no mapping
    stop_end      INTEGER NOT NULL,  -- walks complete: a row marked the outermost frame
    stop_zero     INTEGER NOT NULL,  -- walks ended by a zero return address or frame pointer
    stop_depth    INTEGER NOT NULL,  -- walks cut at the depth limit (127 frames): truncated
    stop_unreadable INTEGER NOT NULL, -- walks stopped by unreadable stack memory
    stop_bad_sp   INTEGER NOT NULL,  -- walks stopped by a stack pointer that did not grow
    stop_no_table INTEGER NOT NULL,  -- walks stopped after a frame-pointer step made for want of a table
    stop_no_cfi   INTEGER NOT NULL,  -- walks stopped after a frame-pointer step made for want of CFI
    stop_no_regs  INTEGER NOT NULL,  -- walks with no user registers to start from
    table_rows    INTEGER NOT NULL,  -- rows of its unwind table (totals: all tables built), 0 if none
    table_bytes   INTEGER NOT NULL,  -- kernel memory of its table (totals: the peak of all tables held)
    build_ns      INTEGER NOT NULL   -- time to build and load its table (totals: all tables)
);

-- A JIT symbol map (/tmp/perf-PID.map) the recorder read only in part: the
-- process wrote more than the recorder reads from one map (a bound on its
-- memory and time, record/jitmap.c), so the symbols of the lines past the
-- cut are not in the recording. One row per process and map, the latest
-- cut; `eprof info` lists them. A map read whole has no row.
CREATE TABLE jit_map_cut (
    tgid                INTEGER NOT NULL,  -- the process that wrote the map
    path                TEXT NOT NULL,     -- the map, e.g. /tmp/perf-1234.map
    kept_bytes          INTEGER NOT NULL,  -- bytes read and parsed, up to the cut (a line boundary)
    kept_symbols        INTEGER NOT NULL,  -- symbols parsed from those bytes
    dropped_bytes       INTEGER NOT NULL,  -- bytes past the cut, not parsed
    dropped_lines       INTEGER NOT NULL,  -- lines past the cut (a partial last line counts)
    dropped_lines_exact INTEGER NOT NULL,  -- 1; 0 when the recorder stopped counting them and
                                           -- dropped_lines is a lower bound
    PRIMARY KEY (tgid, path)
);

-- The sampling clock's own account, per CPU: how many ticks it should have
-- fired and why some did not, so that no recording says "0 lost" when
-- samples went missing. One row per sampled CPU per commit, counting since
-- the previous row of that CPU. Expected ticks = enabled_ns / period_ns;
-- throttled = throttled_ns / period_ns; missed (late timer) = expected -
-- throttled - fired; fired - kept were other processes' ticks.
CREATE TABLE ticks (
	time		INTEGER NOT NULL,	-- CLOCK_MONOTONIC ns the clock was read
	cpu		INTEGER NOT NULL,	-- CPU number
	period_ns	INTEGER NOT NULL,	-- the clock's period (1e9 / frequency), >= 1
	enabled_ns	INTEGER NOT NULL,	-- ns the clock was enabled on this CPU
	throttled_ns	INTEGER NOT NULL,	-- of which the kernel held it throttled
	throttles	INTEGER NOT NULL,	-- PERF_RECORD_THROTTLE events
	fired		INTEGER NOT NULL,	-- ticks that ran the BPF sampler
	kept		INTEGER NOT NULL	-- of which samples of a target (all with -a); a
						-- tick in progress may be kept in one row and
						-- fired in the next: only a CPU's sums are exact
);

-- Off-CPU intervals (record --off-cpu): a target thread left the CPU at
-- time and ran again duration ns later (or the recording ended). Intervals
-- at least off_cpu_thresh_ns long (meta) are rows here, with their times;
-- shorter ones are summed in offcpu_sum. Intervals of one thread never
-- overlap. Files recorded without --off-cpu have no rows.
CREATE TABLE offcpu (
	time		INTEGER NOT NULL,	-- CLOCK_MONOTONIC ns the thread left the CPU
	duration	INTEGER NOT NULL,	-- ns until it ran again (>= 1)
	tgid		INTEGER NOT NULL,	-- process id
	tid		INTEGER NOT NULL,	-- thread id
	cpu		INTEGER NOT NULL,	-- the CPU it left
	state		INTEGER NOT NULL,	-- 0: blocked (slept: waited for I/O, a lock,
						-- a timer); 1: runnable (waited for a CPU:
						-- preempted, or woken from a sleep; a sleep
						-- woken before it ran again is two rows,
						-- blocked until the wake-up, runnable after)
	stack_id	INTEGER NOT NULL	-- where it left (stack_chunk ids, shared with
						-- samples); its kernel half says why
);

-- Off-CPU intervals shorter than off_cpu_thresh_ns, summed per thread,
-- stack, state and CPU left. Each row counts the intervals that ended after the
-- previous flush and before time (the recorder flushes at each commit), so
-- a thread's totals are the sums of its rows.
CREATE TABLE offcpu_sum (
	time		INTEGER NOT NULL,	-- CLOCK_MONOTONIC ns of the flush
	tgid		INTEGER NOT NULL,	-- process id
	tid		INTEGER NOT NULL,	-- thread id
	state		INTEGER NOT NULL,	-- as in offcpu
	cpu		INTEGER NOT NULL,	-- the CPU they left
	stack_id	INTEGER NOT NULL,	-- as in offcpu
	count		INTEGER NOT NULL,	-- intervals; 0 only when the row carries the
						-- rest of the time of an earlier row's ones
	total_ns	INTEGER NOT NULL	-- their summed duration
);

-- Off-CPU intervals that could not be kept, per CPU since its previous
-- row: the totals of offcpu and offcpu_sum miss exactly these.
CREATE TABLE offcpu_loss (
	time		INTEGER NOT NULL,	-- CLOCK_MONOTONIC ns the counters were read
	cpu		INTEGER NOT NULL,	-- CPU number
	lost		INTEGER NOT NULL,	-- intervals lost (no ring-buffer room and the
						-- in-kernel sums full)
	lost_ns		INTEGER NOT NULL,	-- their summed duration
	untracked	INTEGER NOT NULL,	-- switches out not followed (too many threads
						-- off the CPU at once): duration unknown
	lost_stacks	INTEGER NOT NULL	-- stacks not delivered: intervals kept, charged
						-- to an empty stack
);

-- The files that mappings refer to, each (path, build-id) stored once: a
-- busy machine maps the same few binaries into thousands of processes.
-- v2 writers leave v1's mapping table empty and store mappings here and in
-- mapping_chunk; readers read the mapping rows first, then the chunks. v2
-- files written before these two tables existed lack both.
CREATE TABLE mapped_file (
	id		INTEGER PRIMARY KEY,	-- referred to by mapping_chunk, 1, 2, ... in write order
	path		TEXT NOT NULL,		-- file path, or "[vdso]", "//anon", ...
	build_id	BLOB			-- GNU build-id (1..20 bytes), NULL: unknown
);

-- Mappings, one chunk per commit, columnar (README.md). The recorder writes
-- only the mappings some sample fell in, at the commit of that sample's
-- chunk (or a later one, when the mapping reached it late); a mapping of a
-- process never sampled is never written.
CREATE TABLE mapping_chunk (
	id		INTEGER PRIMARY KEY,	-- chunk number, in write order
	nr_mappings	INTEGER NOT NULL,	-- mappings in data (>= 1)
	encoding	INTEGER NOT NULL,	-- 1: zstd of six varint columns (README.md)
	data		BLOB NOT NULL		-- the encoded mappings
);

-- Thread names, one chunk per commit, columnar (README.md). v2 writers
-- leave v1's comm table empty and store names here; readers read the comm
-- rows first, then the chunks in id order. v2 files written before this
-- table existed lack it and keep their names in comm rows.
CREATE TABLE comm_chunk (
	id		INTEGER PRIMARY KEY,	-- chunk number, in write order
	nr_comms	INTEGER NOT NULL,	-- names in data (>= 1)
	encoding	INTEGER NOT NULL,	-- 1: zstd of four columns (README.md)
	data		BLOB NOT NULL		-- the encoded names
);

-- The cgroups (v2) samples and off-CPU intervals ran in, named when the
-- recorder first met them (a cgroup is gone once its tasks are, so the
-- name cannot be looked up later). A cgroup that vanished before the
-- recorder looked has no row: reports call it "cgroup:ID". v2 files
-- written before these two tables existed lack both: no cgroup data.
CREATE TABLE cgroup (
	id		INTEGER PRIMARY KEY,	-- the cgroup v2 id (the inode number of its directory)
	path		TEXT NOT NULL		-- from the cgroup2 mount: "/" the root,
						-- "/system.slice/ssh.service"
);

-- Which cgroup each thread was in, as a change log: a row when a thread
-- is first seen in a file and when it moves, never per sample. A sample
-- or interval of thread tid at time t was in the cgroup of tid's latest
-- row at or before t. One chunk per commit, columnar (README.md).
CREATE TABLE thread_cgroup_chunk (
	id		INTEGER PRIMARY KEY,	-- chunk number, in write order
	nr_rows		INTEGER NOT NULL,	-- rows in data (>= 1)
	encoding	INTEGER NOT NULL,	-- 1: zstd of four varint columns (README.md)
	data		BLOB NOT NULL		-- the encoded rows
);

-- Symbol data of the sampled binaries as v2 writers store it: v1's binary
-- rows, each naming its binary by mapped_file id, so that a binary's path
-- and build-id are stored once however many commits add symbols of it.
-- v2 writers leave v1's binary table empty; readers read its rows, then
-- these in id order. v2 files written before this table existed lack it.
CREATE TABLE binary_chunk (
	id		INTEGER PRIMARY KEY,	-- row number, in write order
	file		INTEGER NOT NULL,	-- mapped_file.id: the binary's path and build-id
	source		TEXT NOT NULL,		-- symbol source: ".symtab", ".dynsym", ...
	encoding	INTEGER NOT NULL,	-- 1: zstd of segments then symbols (README.md)
	data		BLOB NOT NULL		-- the encoded segments and symbols
);

-- Python code objects named by samples' Python frames (record/python.c):
-- each read once per process from the interpreter's memory, so a report
-- names Python functions and lines without Python. A Python frame in a
-- stack (a user frame whose top three bits are set: bit 60 marks an entry
-- frame, bits 16-59 the code key, bits 0-15 the code unit) names its row
-- by the sample's tgid and the key. The recorder numbers the code objects
-- of a process it reads (keys 1, 2, ...): an address freed and reused by
-- another code object gets a key of its own. A file without the table has
-- no Python frames.
CREATE TABLE python_code (
    tgid        INTEGER NOT NULL,  -- the process
    code_key    INTEGER NOT NULL,  -- the frames' key of the code object (above)
    addr        INTEGER NOT NULL,  -- its address in the process when read
    version     INTEGER NOT NULL,  -- the interpreter, PY_VERSION_HEX >> 16 (0x030b: 3.11)
    name        TEXT NOT NULL,     -- co_name
    qualname    TEXT NOT NULL,     -- co_qualname
    filename    TEXT NOT NULL,     -- co_filename
    first_line  INTEGER NOT NULL,  -- co_firstlineno
    linetable   BLOB NOT NULL,     -- co_linetable, the version's location table
    PRIMARY KEY (tgid, code_key)
);
