-- SPDX-License-Identifier: MIT
-- eprof recording format v2: what v2 adds to v1.sql. A v2 file is v1.sql
-- followed by this file, with PRAGMA user_version = 2. A v1 file has none of
-- these tables; readers treat them as absent ("not recorded"), never as
-- damage, so every v1 recording still reports exactly as before.

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
