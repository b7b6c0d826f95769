-- SPDX-License-Identifier: MIT
-- eprof recording format v1 (PRAGMA user_version = 1,
-- PRAGMA application_id = 0x45505246 "EPRF").
--
-- Small, rarely read things are plain rows. Bulk data (samples, stacks,
-- symbol tables) is stored in zstd-compressed BLOBs whose byte layout is
-- described in schema/README.md. Every 64-bit unsigned value (addresses,
-- nanoseconds) is stored in an INTEGER column as its two's complement
-- signed 64-bit reinterpretation, so kernel addresses appear negative.
-- Rows are only ever inserted, one transaction per recorder commit.

-- Text key/value metadata: eprof_version, hostname, kernel_release, arch,
-- nr_cpus, numa_map, freq_hz, event, clock, start_ns, end_ns,
-- start_realtime, command, target; "finished" = '1' is written last, by the
-- recorder's final commit.
CREATE TABLE meta (
	key	TEXT PRIMARY KEY NOT NULL,	-- metadata name
	value	TEXT NOT NULL			-- its value; numbers in decimal
);

-- Samples, in chunks of up to 262144 samples sorted by time.
CREATE TABLE sample_chunk (
	id		INTEGER PRIMARY KEY,	-- chunk number, in write order
	first_time	INTEGER NOT NULL,	-- CLOCK_MONOTONIC ns of the first sample
	last_time	INTEGER NOT NULL,	-- CLOCK_MONOTONIC ns of the last sample
	nr_samples	INTEGER NOT NULL,	-- samples in data (>= 1)
	encoding	INTEGER NOT NULL,	-- 1: zstd of five varint columns (README.md)
	data		BLOB NOT NULL		-- the encoded samples
);

-- Distinct stacks, each stored once, several per chunk sorted by id.
CREATE TABLE stack_chunk (
	id		INTEGER PRIMARY KEY,	-- chunk number, in write order
	first_id	INTEGER NOT NULL,	-- smallest stack id in data
	last_id		INTEGER NOT NULL,	-- largest stack id in data
	nr_stacks	INTEGER NOT NULL,	-- stacks in data (>= 1)
	encoding	INTEGER NOT NULL,	-- 1: zstd of varint-coded stacks (README.md)
	data		BLOB NOT NULL		-- the encoded stacks
);

-- Thread names: thread tid of process tgid is called comm from time on.
CREATE TABLE comm (
	time	INTEGER NOT NULL,	-- CLOCK_MONOTONIC ns; 0: named so when recording started
	tgid	INTEGER NOT NULL,	-- process id
	tid	INTEGER NOT NULL,	-- thread id
	comm	TEXT NOT NULL		-- at most 15 bytes, the kernel's task comm
);

-- Memory mappings of the sampled processes.
CREATE TABLE mapping (
	time		INTEGER NOT NULL,	-- CLOCK_MONOTONIC ns it appeared; 0: existed at start
	tgid		INTEGER NOT NULL,	-- process id
	start_addr	INTEGER NOT NULL,	-- first address mapped
	end_addr	INTEGER NOT NULL,	-- first address past the mapping
	pgoff		INTEGER NOT NULL,	-- file offset of start_addr
	path		TEXT NOT NULL,		-- file path, or "[vdso]", "//anon", ...
	build_id	BLOB			-- GNU build-id (1..20 bytes), NULL: unknown
);

-- Symbol data of the sampled binaries (executables, libraries, vDSO).
CREATE TABLE binary (
	id		INTEGER PRIMARY KEY,	-- row number, in write order
	build_id	BLOB,			-- GNU build-id (1..20 bytes); NULL: matched by path
	path		TEXT NOT NULL,		-- where the recorder found it
	source		TEXT NOT NULL,		-- symbol source: ".symtab", ".dynsym", ...
	encoding	INTEGER NOT NULL,	-- 1: zstd of segments then symbols (README.md)
	data		BLOB NOT NULL		-- the encoded segments and symbols
);

-- Kernel symbols (core kernel and modules), in chunks.
CREATE TABLE ksym_chunk (
	id		INTEGER PRIMARY KEY,	-- chunk number, in write order
	nr_syms		INTEGER NOT NULL,	-- symbols in data (>= 1)
	encoding	INTEGER NOT NULL,	-- 1: zstd of varint-coded symbols (README.md)
	data		BLOB NOT NULL		-- the encoded symbols
);

-- DWARF embedded by `eprof record --debuginfo`: per binary, the whole ELF
-- file that carries it (its separate debug file, else the binary itself).
-- At most one row per build-id. Files written before this table existed
-- lack it; readers treat that as no rows.
CREATE TABLE debuginfo (
	build_id	BLOB NOT NULL,		-- GNU build-id (1..20 bytes) of the binary
	path		TEXT,			-- the binary's path when it was recorded
	encoding	INTEGER,		-- 1: one zstd frame of the file (README.md)
	size		INTEGER,		-- bytes of the file before compression
	data		BLOB			-- the compressed file
);

-- Losses counted on one CPU since its previous row, up to time.
CREATE TABLE loss (
	time			INTEGER NOT NULL,	-- CLOCK_MONOTONIC ns the counters were read
	cpu			INTEGER NOT NULL,	-- CPU number
	lost_samples		INTEGER NOT NULL,	-- samples dropped: ring buffer full
	lost_ustacks		INTEGER NOT NULL,	-- user stacks that could not be read
	lost_kstacks		INTEGER NOT NULL,	-- kernel stacks that could not be read
	truncated_stacks	INTEGER NOT NULL,	-- stacks deeper than the capture limit
	lost_sideband		INTEGER NOT NULL	-- mmap/comm events the kernel dropped
);
