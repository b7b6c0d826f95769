/* SPDX-License-Identifier: MIT */
/*
 * record/capture.h - at the end of a recording, store the symbol data a
 * report needs elsewhere: for every binary with sampled user addresses its
 * PT_LOAD segments and the symbols covering them, and the kernel symbols
 * covering sampled kernel addresses.
 */
#ifndef EPROF_RECORD_CAPTURE_H
#define EPROF_RECORD_CAPTURE_H

#include "record/session.h"

struct capture_stats {
	size_t binaries;	/* binaries stored */
	size_t missing;		/* binaries that could not be read (or had changed) */
	size_t symbols;		/* user symbols stored */
	size_t ksyms;		/* kernel symbols stored */
	size_t debug_files;	/* binaries whose symbols came from a separate debug file */
	size_t jit_maps;	/* /tmp/perf-PID.map files stored */
};

/* Adds binaries and kernel symbols to s->rec. Sorts s->maps. */
int capture__run(struct session *s, struct capture_stats *st);

#endif
