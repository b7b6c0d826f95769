-- SPDX-License-Identifier: MIT
-- eprof recording format v2: what v2 adds to v1.sql. A v2 file is v1.sql
-- followed by this file, with PRAGMA user_version = 2. A v1 file has none of
-- these tables; readers treat them as absent ("not recorded"), never as
-- damage, so every v1 recording still reports exactly as before.

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
