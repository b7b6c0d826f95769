-- SPDX-License-Identifier: MIT
-- eprof recording format v2: what v2 adds to v1.sql. A v2 file is v1.sql
-- followed by this file, with PRAGMA user_version = 2. A v1 file has none of
-- these tables; readers treat them as absent ("not recorded"), never as
-- damage, so every v1 recording still reports exactly as before.

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
