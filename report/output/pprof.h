/* SPDX-License-Identifier: MIT */
/*
 * report/output/pprof.h - writes a gzip-compressed profile.proto (the format of
 * `go tool pprof`); zlib compresses it.
 *
 * Feed it symbolized stacks with pprof__add_sample(), then pprof__write()
 * once. Strings, functions, locations, mappings and samples are deduplicated
 * inside the builder, so callers may add the same stack many times. Every
 * string handed in is copied: frames and labels are borrowed only for the
 * duration of the call.
 */
#ifndef EPROF_REPORT_OUT_PPROF_H
#define EPROF_REPORT_OUT_PPROF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct pprof_builder;

struct pprof_frame {
	/*
	 * NULL: unknown; the location then has its address and mapping only,
	 * and the mapping says it lacks functions, so pprof symbolizes it
	 */
	const char *function;
	const char *file;	/* source file or NULL */
	uint32_t line;		/* 0: unknown */
	/*
	 * As sampled: in [map_start, map_end) of the process. Mappings of one
	 * binary (path, build-id, offset and size) at different starts are
	 * one mapping, the first one's: the address moves into it.
	 */
	uint64_t address;
	const char *binary;	/* path; NULL: no mapping (ignored for kernel frames) */
	const char *build_id;	/* hex or NULL */
	uint64_t map_start, map_end, map_offset;	/* map_offset: file offset of map_start */
	bool kernel;		/* mapping "[kernel.kallsyms]", spanning every kernel address added */
	/*
	 * The mangled name (Function.system_name); NULL: function; "": none,
	 * for a name pprof must not take for a C++ one and simplify (a
	 * Python qualname such as "<module>": pprof demangles, or strips
	 * "(...)" and "<...>" from, a name equal to its system name)
	 */
	const char *system_name;
	uint32_t start_line;	/* the function's first line (Function.start_line); 0: unknown */
};

struct pprof_labels {
	uint32_t pid, tid, cpu;	/* num labels "pid", "tid", "cpu" */
	const char *comm;	/* str label "comm"; NULL: none */
	const char *cgroup;	/* str label "cgroup" (its path); NULL: none */
};

/*
 * A new, empty profile of CPU samples: sample types {samples, count} and
 * {cpu, nanoseconds}, period_type {cpu, nanoseconds}. time_ns is the start
 * (nanoseconds since the Unix epoch), duration_ns its length; 0 leaves
 * either out. Returns NULL on ENOMEM. Free with pprof__free().
 */
struct pprof_builder *pprof__new(uint64_t period_ns, uint64_t time_ns, uint64_t duration_ns);
/* Frees the builder and everything it copied. Accepts NULL. */
void pprof__free(struct pprof_builder *b);

/*
 * Adds count samples of one stack. frames[0] is the leaf (innermost frame),
 * frames[nr - 1] the outermost, which is the order profile.proto wants.
 * labels may be NULL (no labels). A sample with the same frames and labels
 * as an earlier one is merged into it: its count is added. The cpu value is
 * count * period_ns, computed at write time.
 * Returns 0, -EINVAL (b NULL, or frames NULL with nr > 0), -ENOMEM or
 * -EOVERFLOW (the merged count no longer fits in 64 bits); prints nothing.
 * A failed call adds no sample and changes no count, so the builder stays
 * usable; it may keep strings or locations that nothing refers to, which
 * pprof readers accept.
 */
int pprof__add_sample(struct pprof_builder *b, const struct pprof_frame *frames, size_t nr,
		      uint64_t count, const struct pprof_labels *labels);

/*
 * The same for nanoseconds a thread spent off the CPU at this stack (report
 * --off-cpu, --wall): the profile then has a third sample type,
 * {off_cpu, nanoseconds}, and this sample's other values are 0.
 */
int pprof__add_off_cpu(struct pprof_builder *b, const struct pprof_frame *frames, size_t nr,
		       uint64_t ns, const struct pprof_labels *labels);

/* Gives the profile the off_cpu sample type even if no sample has off-CPU time. */
void pprof__set_off_cpu(struct pprof_builder *b);

/*
 * Makes the mapping of frame f (added now if new) mapping 1 of the output,
 * the others keeping their first-seen order: pprof names a profile after
 * mapping 1, and which process is the profiled one may be known only once
 * every recording is in. NULL: first-seen order. 0, -EINVAL or -ENOMEM.
 */
int pprof__set_main_mapping(struct pprof_builder *b, const struct pprof_frame *f);

/*
 * Encodes and compresses the samples added so far, keeping their bytes in
 * memory (a tenth of their size, or less) and freeing them: several
 * recordings go through the builder one at a time, and their samples are
 * most of a profile. A sample added afterwards is not merged with one
 * sent, which pprof's readers do themselves. pprof__set_off_cpu() must come
 * before the first call. 0, -EINVAL, -ENOMEM or -EOVERFLOW; after an
 * error pprof__write() fails too.
 */
int pprof__send_samples(struct pprof_builder *b);

/*
 * Writes gzip(profile.proto) to out. The output is deterministic: objects
 * appear in the order they were first added. Returns 0, -ENOMEM, -EOVERFLOW
 * (a value does not fit in int64) or -EIO (a write to out failed). Prints
 * nothing: the caller knows the output's name and says what failed. It does
 * not flush or close out, and it leaves the builder as it was.
 */
int pprof__write(struct pprof_builder *b, FILE *out);

/*
 * The gzip layer, exposed for unit tests: one complete gzip member holding
 * data[0 .. len), compressed by zlib. 0, -ENOMEM or -EIO.
 */
int pprof__gzip_write(const void *data, size_t len, FILE *out);

#endif
