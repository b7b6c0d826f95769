// SPDX-License-Identifier: MIT
/*
 * elf/debuginfo.c - local symbol and DWARF files, through libdw's dwfl.
 *
 * The recording holds only the symbols that covered sampled addresses when
 * it was made; a report elsewhere may still find a richer file locally (a
 * separate debug file, the binary itself) and that is what this file does,
 * with one rule above all: a file is used only if its build-id is the one
 * recorded, so a rebuilt or replaced binary can never lend its names.
 *
 * Each file gets a Dwfl of its own, reported at bias 0 where possible, so
 * a dwfl address is the ELF virtual address plus the module's bias. libdw
 * finds the symbols (.symtab, else .dynsym, and MiniDebugInfo where it was
 * built with xz) and the DWARF of the file itself; it is told to look for
 * no other debug file, since the search order here is eprof's own.
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "elf/debuginfo.h"
#include "elf/elf_file.h"
#include "util/bsearch.h"
#include "util/safe_open.h"

struct dbg_file {
	Dwfl *dwfl;
	Dwfl_Module *mod;
	GElf_Addr bias;		/* dwfl address = ELF vaddr + bias */
	char *path;
	void *image;		/* owned memory image, or NULL */
	int has_dwarf;		/* -1: not yet known */
	struct dbg_sym *syms;	/* function symbols sorted by address, built on first use */
	size_t nr_syms;
	bool syms_loaded;
	struct rec_segment *segs;	/* PT_LOAD segments, read on first use */
	size_t nr_segs;
	bool segs_loaded;
	enum dbg_found found;
};

/* A function symbol in dwfl addresses; name points into the Dwfl's ELF. */
struct dbg_sym {
	uint64_t addr;
	uint64_t end;		/* addr + size, or the next symbol's address when sizeless */
	const char *name;
	int rank;		/* elf_sym__rank: the lower wins among aliases */
};

static int no_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname,
			Dwarf_Addr base, const char *file_name, const char *debuglink_file,
			GElf_Word debuglink_crc, char **debuginfo_file_name)
{
	(void)mod, (void)userdata, (void)modname, (void)base, (void)file_name;
	(void)debuglink_file, (void)debuglink_crc, (void)debuginfo_file_name;
	return -1;
}

static const Dwfl_Callbacks callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = no_debuginfo,
	.section_address = dwfl_offline_section_address,
};

void dbg_file__close(struct dbg_file *f)
{
	if (!f)
		return;
	if (f->dwfl)
		dwfl_end(f->dwfl);
	free(f->syms);
	free(f->segs);
	free(f->image);
	free(f->path);
	free(f);
}

/*
 * Reports the file open at fd (taken: closed here on failure, by libdwfl
 * once reported) or the image as the one module of a new Dwfl. libdwfl is
 * never given a path to open itself: elf/ opens every local file.
 */
static int dbg_open(const char *path, int fd, void *image, size_t size, struct dbg_file **out)
{
	struct dbg_file *f = calloc(1, sizeof(*f));

	if (!f) {
		if (fd >= 0)
			close(fd);
		return -ENOMEM;
	}
	f->has_dwarf = -1;
	f->path = strdup(path);
	f->dwfl = dwfl_begin(&callbacks);
	if (!f->path || !f->dwfl) {
		if (fd >= 0)
			close(fd);
		dbg_file__close(f);
		return -ENOMEM;
	}
	dwfl_report_begin(f->dwfl);
	if (image) {
		f->mod = dwfl_report_offline_memory(f->dwfl, path, path, image, size);
		if (f->mod)
			f->image = image;
	} else {
		f->mod = dwfl_report_elf(f->dwfl, path, path, fd, 0, false);
		if (!f->mod)
			close(fd);	/* consumed only on success */
	}
	if (dwfl_report_end(f->dwfl, NULL, NULL) || !f->mod ||
	    !dwfl_module_getelf(f->mod, &f->bias)) {
		if (image && !f->image)
			f->image = image;	/* ours to free either way */
		dbg_file__close(f);
		return -ENOEXEC;
	}
	*out = f;
	return 0;
}

int dbg_file__open_memory(void *data, size_t size, const char *name, struct dbg_file **out)
{
	return dbg_open(name, -1, data, size, out);
}

enum dbg_found dbg_file__found(const struct dbg_file *f)
{
	return f->found;
}

const char *dbg_file__path(const struct dbg_file *f)
{
	return f->path;
}

/*
 * 1: same build-id, 0: another one (or none), -errno: not there, not a
 * regular file (-ENODEV), or not an ELF file.
 */
static int try_candidate(const char *path, const uint8_t *id, uint32_t len,
			 struct dbg_file **out)
{
	const unsigned char *bits;
	struct dbg_file *f;
	GElf_Addr vaddr;
	int n, err, fd;

	fd = elf_file__open_fd(path);	/* never a FIFO or a device, never blocks */
	if (fd < 0)
		return fd;
	err = dbg_open(path, fd, NULL, 0, &f);
	if (err)
		return err;
	n = dwfl_module_build_id(f->mod, &bits, &vaddr);
	if (len ? (n != (int)len || memcmp(bits, id, len)) : n > 0) {
		dbg_file__close(f);
		return 0;
	}
	*out = f;
	return 1;
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

/* Keeps in why[] the first candidate skipped for a reason worth a warning. */
static void note_skipped(char *why, size_t why_len, const char *path, int r)
{
	if (why[0])
		return;
	if (r == 0)
		snprintf(why, why_len, "'%s' has another build-id", path);
	else if (r == -EFTYPE_NOT_REGULAR || r == -EFBIG)
		snprintf(why, why_len, "'%s': %s", path, safe_open_strerror(r));
}

int dbg_file__find(const char *const *dirs, size_t nr_dirs, const uint8_t *build_id,
		   uint32_t build_id_len, const char *path, struct dbg_file **out, char *why,
		   size_t why_len)
{
	char buf[4096 + 128];
	const char *base = base_name(path);
	bool real = path[0] == '/' && path[1] != '/';
	size_t i;
	int r, k;

	why[0] = '\0';
	for (i = 0; i <= nr_dirs && build_id_len; i++) {
		const char *dir = i < nr_dirs ? dirs[i] : "/usr/lib/debug";

		for (k = 0; k < 3; k++) {
			if (k == 0) {
				if (elf_build_id__debug_path(buf, sizeof(buf), dir, build_id,
							     build_id_len))
					continue;	/* no such path: a --debug-dir too long */
			} else if (i == nr_dirs || !real) {
				break;	/* basenames only in the --debug-dir dirs */
			} else {
				snprintf(buf, sizeof(buf), "%s/%s%s", dir, base, k == 2 ? ".debug" : "");
			}
			r = try_candidate(buf, build_id, build_id_len, out);
			if (r == -ENOMEM)
				return r;
			if (r == 1) {
				(*out)->found = k ? DBG_FOUND_NAME : DBG_FOUND_BUILD_ID;
				return 0;
			}
			note_skipped(why, why_len, buf, r);
		}
	}
	r = real ? try_candidate(path, build_id, build_id_len, out) : -ENOENT;
	if (r == -ENOMEM)
		return r;
	if (r == 1) {
		(*out)->found = DBG_FOUND_BINARY;
		return 0;
	}
	note_skipped(why, why_len, path, r);
	if (!why[0])
		snprintf(why, why_len, "no local file");
	return -ENOENT;
}

int dbg_file__open_checked(const char *path, const uint8_t *build_id, uint32_t len,
			   struct dbg_file **out)
{
	int r = try_candidate(path, build_id, len, out);

	return r == 1 ? 0 : r == 0 ? -ENOENT : r;
}

bool dbg_file__has_dwarf(struct dbg_file *f)
{
	Dwarf_Addr bias;

	if (f->has_dwarf < 0)
		f->has_dwarf = dwfl_module_getdwarf(f->mod, &bias) != NULL;
	return f->has_dwarf;
}

bool dbg_file__offset_to_vaddr(struct dbg_file *f, uint64_t off, uint64_t *vaddr)
{
	GElf_Addr bias;
	Elf *elf;

	if (!f->segs_loaded) {
		elf = dwfl_module_getelf(f->mod, &bias);
		if (!elf || elf_segments__read_debug(elf, &f->segs, &f->nr_segs))
			return false;	/* asked again next time */
		f->segs_loaded = true;
	}
	return !elf_segments__offset_to_vaddr(f->segs, f->nr_segs, off, vaddr);
}

static int cmp_dbg_sym(const void *a, const void *b)
{
	const struct dbg_sym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	/* at one address prefer the sized symbol, then the public name */
	if (x->end != y->end)
		return x->end > y->end ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return strcmp(x->name, y->name);
}

/*
 * libdw 0.188 scans every symbol on each dwfl_module_addrinfo() call, which
 * made reports of busy machines spend most of their time there; one sorted
 * table per file, searched by bisection, costs a single scan.
 */
static void load_symbols(struct dbg_file *f)
{
	int i, n = dwfl_module_getsymtab(f->mod);
	size_t nr = 0, j, k;
	struct dbg_sym *v;

	f->syms_loaded = true;
	if (n <= 0)
		return;
	v = calloc((size_t)n, sizeof(*v));
	if (!v)
		return;
	for (i = 1; i < n; i++) {
		GElf_Sym sym;
		GElf_Addr addr;
		const char *name = dwfl_module_getsym_info(f->mod, i, &sym, &addr, NULL, NULL, NULL);
		int type = GELF_ST_TYPE(sym.st_info);

		if (!name || !*name || sym.st_shndx == SHN_UNDEF || !addr)
			continue;
		if (type != STT_FUNC && type != STT_GNU_IFUNC && !(type == STT_NOTYPE && sym.st_size))
			continue;
		v[nr].addr = addr;
		v[nr].end = addr + sym.st_size;
		v[nr].name = name;
		v[nr].rank = elf_sym__rank(type, GELF_ST_BIND(sym.st_info), name);
		nr++;
	}
	qsort(v, nr, sizeof(*v), cmp_dbg_sym);
	/* one symbol per address (aliases share it); sizeless ones end at the next */
	for (j = 0, k = 0; j < nr; j++) {
		if (k && v[k - 1].addr == v[j].addr)
			continue;
		v[k++] = v[j];
	}
	for (j = 0; j < k; j++)
		if (v[j].end == v[j].addr)
			v[j].end = j + 1 < k ? v[j + 1].addr : v[j].addr + 1;
	f->syms = v;
	f->nr_syms = k;
}

static bool dbg_sym_at_or_below(const void *elem, const void *key)
{
	return ((const struct dbg_sym *)elem)->addr <= *(const uint64_t *)key;
}

const char *dbg_file__symbol(struct dbg_file *f, uint64_t vaddr)
{
	uint64_t addr = vaddr + f->bias;
	size_t lo;

	if (!f->syms_loaded)
		load_symbols(f);
	/* first symbol starting after addr */
	lo = bsearch_lower_bound(&addr, f->syms, f->nr_syms, sizeof(*f->syms), dbg_sym_at_or_below);
	if (!lo || addr >= f->syms[lo - 1].end)
		return NULL;
	return f->syms[lo - 1].name;
}

static const char *call_file(Dwarf_Die *cu, Dwarf_Die *die)
{
	Dwarf_Attribute a;
	Dwarf_Files *files;
	Dwarf_Word idx;
	size_t nr;

	if (dwarf_formudata(dwarf_attr(die, DW_AT_call_file, &a), &idx) ||
	    dwarf_getsrcfiles(cu, &files, &nr) || idx >= nr)
		return NULL;
	return dwarf_filesrc(files, idx, NULL, NULL);
}

/*
 * The linkage (mangled) name of a function DIE, from its abstract origin
 * for an inlined copy, so that a C++ or Rust function comes out qualified
 * once the symbolizer demangles it (DW_AT_name is "spin", the linkage name
 * says "ns::Worker<int>::spin(int)"); DW_AT_name where there is none (C).
 */
static const char *die_function_name(Dwarf_Die *die)
{
	Dwarf_Attribute a;
	const char *s;

	s = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_linkage_name, &a));
	if (!s)
		s = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &a));
	return s && *s ? s : dwarf_diename(die);
}

int dbg_file__frames(struct dbg_file *f, uint64_t vaddr, struct dbg_frame *out, int max)
{
	Dwarf_Addr addr = vaddr + f->bias, cu_bias;
	Dwarf_Die *cu, *scopes = NULL;
	Dwarf_Attribute a;
	Dwarf_Word w;
	Dwfl_Line *l;
	const char *file = NULL;
	int line = 0, n, i, nr = 0;

	if (!dbg_file__has_dwarf(f))
		return 0;
	cu = dwfl_module_addrdie(f->mod, addr, &cu_bias);
	if (!cu)
		return 0;
	l = dwfl_module_getsrc(f->mod, addr);
	if (l)
		file = dwfl_lineinfo(l, NULL, &line, NULL, NULL, NULL);
	/*
	 * dwarf_getscopes() continues past an inlined instance with the scopes
	 * of its abstract definition, so the caller is found by asking again
	 * for the scopes that contain the concrete instance.
	 */
	n = dwarf_getscopes(cu, addr - cu_bias, &scopes);
	for (i = 0; i < n && nr < max; i++) {
		int tag = dwarf_tag(&scopes[i]);
		Dwarf_Die *parents = NULL;
		int np;

		if (tag != DW_TAG_inlined_subroutine && tag != DW_TAG_subprogram)
			continue;
		out[nr].func = die_function_name(&scopes[i]);
		out[nr].file = file;
		out[nr].line = line;
		nr++;
		if (tag == DW_TAG_subprogram)
			break;
		/* the caller continues at the call site of this inlined copy */
		file = call_file(cu, &scopes[i]);
		line = dwarf_formudata(dwarf_attr(&scopes[i], DW_AT_call_line, &a), &w) ? 0 : (int)w;
		np = dwarf_getscopes_die(&scopes[i], &parents);
		if (np <= 0)
			break;
		free(scopes);
		scopes = parents;
		n = np;
		i = 0;		/* parents[0] is the instance itself */
	}
	free(scopes);
	if (!nr && max > 0 && file) {	/* a line table without scopes */
		out[0].func = NULL;
		out[0].file = file;
		out[0].line = line;
		nr = 1;
	}
	return nr;
}
