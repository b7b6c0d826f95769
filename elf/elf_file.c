// SPDX-License-Identifier: MIT
/*
 * elf/elf_file.c - read build-ids, PT_LOAD segments and function symbols
 * with libelf.
 *
 * Symbols are what a later `eprof report` needs to name sampled addresses
 * on another machine: functions (STT_FUNC, STT_GNU_IFUNC) and STT_NOTYPE
 * symbols in executable sections (hand-written assembly and its labels),
 * from .symtab when the file has one, else from .dynsym and the
 * MiniDebugInfo a distribution may pack in .gnu_debugdata (minidebug.c),
 * and the PLT stubs, which no symbol table names. A symbol of size 0 ends where the next one
 * starts or its section ends, so every stored symbol has a range. Names
 * stay as the file spells them: report/ demangles.
 */
#include <errno.h>
#include <gelf.h>
#include <libelf.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/auxv.h>
#include <stdlib.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "elf/cfi.h"
#include "elf/elf_file.h"
#include "util/bsearch.h"
#include "util/log.h"
#include "util/safe_open.h"

static void libelf_init(void)
{
	static bool done;

	if (!done) {
		elf_version(EV_CURRENT);
		done = true;
	}
}

/* The most bytes of one note section or segment read for a build-id. */
#define ELF_NOTES_MAX	(1u << 20)

/* Looks for NT_GNU_BUILD_ID in the notes of a section or segment's data. */
static int find_build_id_note(Elf_Data *data, uint8_t *out, uint32_t *len)
{
	size_t off = 0, next, name_off, desc_off;
	GElf_Nhdr nh;

	while ((next = gelf_getnote(data, off, &nh, &name_off, &desc_off)) > 0) {
		if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
		    !memcmp((char *)data->d_buf + name_off, "GNU", 4) && nh.n_descsz > 0) {
			*len = nh.n_descsz > REC_BUILD_ID_MAX ? REC_BUILD_ID_MAX : nh.n_descsz;
			memcpy(out, (char *)data->d_buf + desc_off, *len);
			return 1;
		}
		off = next;
	}
	return 0;
}

static int elf_build_id(Elf *elf, uint8_t *out, uint32_t *len)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	size_t i, nph;
	GElf_Phdr ph;

	*len = 0;
	while ((scn = elf_nextscn(elf, scn))) {
		Elf_Data *data;

		/* a build-id note is tens of bytes: a giant note section is not read */
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE || sh.sh_size > ELF_NOTES_MAX)
			continue;
		data = elf_getdata(scn, NULL);
		if (data && find_build_id_note(data, out, len))
			return 0;
	}
	/* No section headers (some images): try PT_NOTE segments. */
	if (elf_getphdrnum(elf, &nph))
		return 0;
	for (i = 0; i < nph; i++) {
		Elf_Data *data;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_NOTE ||
		    ph.p_filesz > ELF_NOTES_MAX)
			continue;
		data = elf_getdata_rawchunk(elf, (int64_t)ph.p_offset, ph.p_filesz, ELF_T_NHDR);
		if (data && find_build_id_note(data, out, len))
			return 0;
	}
	return 0;
}

int elf_file__read_build_id(int fd, uint8_t *out, uint32_t *len)
{
	Elf *elf;
	int err;

	libelf_init();
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf)
		return -ENOEXEC;
	err = elf_kind(elf) == ELF_K_ELF ? elf_build_id(elf, out, len) : -ENOEXEC;
	elf_end(elf);
	return err;
}

/*
 * The PT_LOAD segments of elf. A separate debug file keeps the program
 * headers of its binary but may give a segment no file bytes (its sections
 * are NOBITS): with extent_of_memory, such a segment spans p_memsz, so an
 * offset of the binary still translates through it.
 */
static int read_segments_of(void *elf, bool extent_of_memory, struct rec_segment **out,
			    size_t *nr_out)
{
	struct rec_segment *segs;
	size_t i, nph, nr = 0;
	GElf_Phdr ph;

	*out = NULL;
	*nr_out = 0;
	if (elf_getphdrnum(elf, &nph))
		return 0;
	segs = calloc(nph ? nph : 1, sizeof(*segs));
	if (!segs)
		return -ENOMEM;
	for (i = 0; i < nph; i++) {
		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		segs[nr].offset = ph.p_offset;
		segs[nr].vaddr = ph.p_vaddr;
		segs[nr].filesz = !ph.p_filesz && extent_of_memory ? ph.p_memsz : ph.p_filesz;
		nr++;
	}
	*out = segs;
	*nr_out = nr;
	return 0;
}

int elf_segments__read(void *elf, struct rec_segment **segs, size_t *nr)
{
	return read_segments_of(elf, false, segs, nr);
}

int elf_segments__read_debug(void *elf, struct rec_segment **segs, size_t *nr)
{
	return read_segments_of(elf, true, segs, nr);
}

int elf_segments__offset_to_vaddr(const struct rec_segment *segs, size_t nr, uint64_t off,
				  uint64_t *vaddr)
{
	size_t i;

	for (i = 0; i < nr; i++) {
		const struct rec_segment *s = &segs[i];

		if (off >= s->offset && off - s->offset < s->filesz) {
			*vaddr = off - s->offset + s->vaddr;
			return 0;
		}
	}
	return -ENOENT;
}

int elf_segments__vaddr_to_offset(const struct rec_segment *segs, size_t nr, uint64_t vaddr,
				  uint64_t *off, uint64_t *left)
{
	size_t i;

	for (i = 0; i < nr; i++) {
		const struct rec_segment *s = &segs[i];

		if (vaddr >= s->vaddr && vaddr - s->vaddr < s->filesz) {
			*off = vaddr - s->vaddr + s->offset;
			*left = s->filesz - (vaddr - s->vaddr);
			return 0;
		}
	}
	return -ENOENT;
}

static int read_segments(struct elf_file *f)
{
	return elf_segments__read(f->elf, &f->segs, &f->nr_segs);
}

struct sym_tmp {
	struct rec_symbol s;
	uint64_t sec_end;	/* end of its section: a size-0 symbol stops there */
	int rank;		/* lower wins among aliases at one address */
	uint8_t src;		/* enum elf_sym_src */
};

/* Symbols gathered from one or two tables before sorting. */
struct sym_acc {
	struct sym_tmp *v;
	size_t nr;
};

static int sym_cmp(const void *a, const void *b)
{
	const struct sym_tmp *x = a, *y = b;

	if (x->s.addr != y->s.addr)
		return x->s.addr < y->s.addr ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank - y->rank;
	if (x->src != y->src)
		return x->src - y->src;
	return strcmp(x->s.name, y->s.name);
}

static int sym_rank(const GElf_Sym *sym, const char *name)
{
	return elf_sym__rank(GELF_ST_TYPE(sym->st_info), GELF_ST_BIND(sym->st_info), name);
}

int elf_sym__underscores(const char *name)
{
	int n = 0;

	/*
	 * The vDSO's own names (__vdso_clock_gettime) are the ones that tell
	 * its frame from the libc wrapper of the same public name below it.
	 */
	if (!strncmp(name, "__vdso_", 7))
		return 0;
	/* glibc's hidden internal aliases lose to any other spelling (ld.so has only locals) */
	if (!strncmp(name, "__GI_", 5))
		return 8;

	while (name[n] == '_' && n < 8)
		n++;
	return n;
}

/*
 * The name people search for wins among aliases at one address, as perf
 * picks: a typed symbol over a label, a global or weak one over a local
 * (glibc's __GI_ names), then the fewest leading underscores (malloc over
 * __libc_malloc, fputs over _IO_fputs, mprotect over __mprotect), then
 * global over weak.
 */
int elf_sym__rank(int type, int bind, const char *name)
{
	int r = type == STT_NOTYPE ? 64 : 0;

	if (bind != STB_GLOBAL && bind != STB_WEAK)
		r += 32;
	r += 2 * elf_sym__underscores(name);
	return bind == STB_WEAK ? r + 1 : r;
}

/* The end address of executable section shndx, or 0 when it is not one. */
static uint64_t exec_section_end(Elf *elf, size_t shndx)
{
	Elf_Scn *scn;
	GElf_Shdr sh;

	if (shndx == SHN_UNDEF || shndx >= SHN_LORESERVE)
		return 0;
	scn = elf_getscn(elf, shndx);
	if (!scn || !gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_EXECINSTR))
		return 0;
	return sh.sh_addr + sh.sh_size < sh.sh_addr ? UINT64_MAX : sh.sh_addr + sh.sh_size;
}

/*
 * tmp[0 .. nr) sorted -> f->syms: one symbol per address (the best-ranked
 * alias). A size-0 symbol (an assembly label such as ld.so's _start, or
 * crt's _init) runs to the next symbol or the end of its section,
 * whichever comes first, as perf sizes them; a label inside a sized
 * function is left out, since the function names that code better.
 */
static int finish_symbols(struct elf_file *f, struct sym_tmp *tmp, size_t nr)
{
	uint64_t covered = 0, end;	/* end of the last sized symbol kept */
	size_t i, j, out = 0;

	f->syms = calloc(nr ? nr : 1, sizeof(*f->syms));
	f->srcs = calloc(nr ? nr : 1, sizeof(*f->srcs));
	if (!f->syms || !f->srcs)
		return -ENOMEM;
	for (i = 0; i < nr; i++) {
		struct rec_symbol s = tmp[i].s;

		if (out && f->syms[out - 1].addr == s.addr)
			continue;
		if (!s.size) {
			if (s.addr < covered)
				continue;
			end = tmp[i].sec_end;
			for (j = i + 1; j < nr && tmp[j].s.addr == s.addr; j++)
				;
			if (j < nr && tmp[j].s.addr < end)
				end = tmp[j].s.addr;
			if (end <= s.addr)
				continue;	/* a label at its section's end: nothing to name */
			s.size = end - s.addr;
		} else if (s.addr + s.size > covered) {
			covered = s.addr + s.size;
		}
		f->srcs[out] = tmp[i].src;
		f->syms[out++] = s;
	}
	f->nr_syms = out;
	return 0;
}

/*
 * How many of n entries of symbol table sh of elf fit f's bound on bytes,
 * charged to f: its string table, then per entry the entry, its sorting
 * copy and what is kept.
 */
static size_t charge_symtab(struct elf_file *f, Elf *elf, const GElf_Shdr *sh, size_t n)
{
	uint64_t per = sh->sh_entsize + sizeof(struct sym_tmp) + sizeof(struct rec_symbol) + 2;
	uint64_t strs = 0, left;
	Elf_Scn *link = elf_getscn(elf, sh->sh_link);
	GElf_Shdr lsh;

	if (link && gelf_getshdr(link, &lsh) && lsh.sh_type != SHT_NOBITS)
		strs = lsh.sh_size;
	left = f->max_bytes > f->bytes ? f->max_bytes - f->bytes : 0;
	if (!f->max_bytes)
		left = UINT64_MAX;
	if (strs >= left || (left - strs) / per < n) {
		n = strs >= left ? 0 : (size_t)((left - strs) / per);
		f->syms_cut = f->syms_cut_bytes = true;
	}
	if (n)
		f->bytes += strs + n * per;
	return n;
}

/*
 * Adds the function symbols of symbol table scn of elf (the file itself,
 * or its MiniDebugInfo, whose section headers its symbols refer to).
 */
static int collect_symtab(struct elf_file *f, Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh,
			  uint8_t src, struct sym_acc *acc)
{
	struct sym_tmp *v;
	size_t i, n;
	Elf_Data *data;
	GElf_Sym sym;

	if (!sh->sh_entsize)
		return 0;
	n = sh->sh_size / sh->sh_entsize;
	if (!n)
		return 0;
	if (n > ELF_SYMS_MAX) {
		n = ELF_SYMS_MAX;
		f->syms_cut = true;
	}
	n = charge_symtab(f, elf, sh, n);
	if (!n)
		return 0;
	/* the file is mapped (ELF_C_READ_MMAP): only the entries read cost memory */
	data = elf_getdata(scn, NULL);
	if (!data)
		return 0;
	v = reallocarray(acc->v, acc->nr + n, sizeof(*v));
	if (!v)
		return -ENOMEM;
	acc->v = v;
	for (i = 0; i < n; i++) {
		struct sym_tmp *t = &acc->v[acc->nr];
		uint64_t sec_end;
		const char *name;
		int type;

		if (!gelf_getsym(data, (int)i, &sym))
			continue;
		type = GELF_ST_TYPE(sym.st_info);
		if (type != STT_FUNC && type != STT_GNU_IFUNC && type != STT_NOTYPE)
			continue;
		sec_end = exec_section_end(elf, sym.st_shndx);
		if (!sym.st_value || sym.st_value >= sec_end)
			continue;
		name = elf_strptr(elf, sh->sh_link, sym.st_name);
		if (!name || !*name)
			continue;
		t->s.addr = sym.st_value;
		t->s.size = sym.st_size;
		t->s.name = name;
		t->sec_end = sec_end;
		t->rank = sym_rank(&sym, name);
		t->src = src;
		acc->nr++;
	}
	return 0;
}

/* The first section of that type, or NULL. */
static Elf_Scn *section_of_type(Elf *elf, uint32_t type, GElf_Shdr *sh)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, sh) && sh->sh_type == type)
			return scn;
	return NULL;
}

/*
 * A stripped file's MiniDebugInfo: the .symtab of the ELF file xz-packed
 * in .gnu_debugdata. find-debuginfo keeps there only the functions
 * .dynsym lacks, so both tables are read. A damaged one is not used, and
 * why is kept in f->debugdata_err for the caller to say.
 */
static int collect_debugdata(struct elf_file *f, struct sym_acc *acc)
{
	Elf_Scn *scn;
	GElf_Shdr sh;
	size_t size;
	int err;

	err = elf_minidebug__inflate(f->elf, &f->mini_image, &size);
	if (err == -ENOMEM)
		return err;
	if (err) {
		f->debugdata_err = err == -ENOENT ? 0 : err;
		return 0;
	}
	if (f->max_bytes && (size > f->max_bytes || f->bytes > f->max_bytes - size)) {
		free(f->mini_image);
		f->mini_image = NULL;
		f->syms_cut = f->syms_cut_bytes = true;
		return 0;
	}
	f->bytes += size;
	f->mini_elf = elf_memory(f->mini_image, size);
	scn = f->mini_elf && elf_kind(f->mini_elf) == ELF_K_ELF
	      ? section_of_type(f->mini_elf, SHT_SYMTAB, &sh) : NULL;
	if (!scn) {
		f->debugdata_err = -EBADMSG;
		return 0;
	}
	err = collect_symtab(f, f->mini_elf, scn, &sh, ELF_SYM_DEBUGDATA, acc);
	if (!err)
		f->source = ".gnu_debugdata";
	return err;
}

static int read_symbols(struct elf_file *f)
{
	struct sym_acc acc = { 0 };
	Elf_Scn *scn;
	GElf_Shdr sh;
	int err;

	scn = section_of_type(f->elf, SHT_SYMTAB, &sh);
	if (scn) {
		f->source = ".symtab";
		err = collect_symtab(f, f->elf, scn, &sh, ELF_SYM_SYMTAB, &acc);
	} else {
		scn = section_of_type(f->elf, SHT_DYNSYM, &sh);
		f->source = scn ? ".dynsym" : NULL;
		err = scn ? collect_symtab(f, f->elf, scn, &sh, ELF_SYM_DYNSYM, &acc) : 0;
		if (!err)
			err = collect_debugdata(f, &acc);
	}
	if (!err && acc.nr)
		qsort(acc.v, acc.nr, sizeof(*acc.v), sym_cmp);
	if (!err)
		err = finish_symbols(f, acc.v, acc.nr);
	free(acc.v);
	return err;
}

const char *elf_file__symbol_source(const struct elf_file *f, size_t k)
{
	switch (k < f->nr_syms ? f->srcs[k] : ELF_SYM_PLT) {
	case ELF_SYM_SYMTAB:
		return ".symtab";
	case ELF_SYM_DYNSYM:
		return ".dynsym";
	case ELF_SYM_DEBUGDATA:
		return ".gnu_debugdata";
	default:
		return f->source ? f->source : ".dynsym";
	}
}

/* --- PLT stubs ----------------------------------------------------------- */

/*
 * A call into another object goes through a stub of a few bytes that jumps
 * through a GOT slot: "jmp *slot(%rip)", after an endbr64 and a bnd prefix
 * where the binary was built for CET. The stubs live in .plt (16 bytes each,
 * after a 16-byte header that calls the lazy resolver), or, with IBT, in
 * .plt.sec, whose .plt entries only push the relocation index for the
 * resolver; .plt.got holds 8-byte stubs for functions whose address is also
 * taken (their slot has a GLOB_DAT relocation in .rela.dyn). No symbol
 * table names them, so, as perf and objdump do, we name each one after the
 * symbol of the relocation that fills its slot: "memcpy@plt". The slot is
 * found by decoding the stub's jmp (never by counting entries, which breaks
 * on .plt.got and on layouts with or without a header); the lazy .plt
 * entries of an IBT binary are named by the index they push. An IRELATIVE
 * slot (an IFUNC within the same object, as in libc's own .plt) has no
 * symbol: it is named after the IFUNC symbol at its resolver's address.
 * x86-64 only: other machines' stubs decode differently and stay unnamed.
 */

struct plt_reloc {
	uint64_t slot;		/* r_offset: the GOT slot's address */
	uint64_t addend;	/* IRELATIVE: the resolver's address */
	uint32_t sym;		/* .dynsym index, 0: none */
};

struct plt_ctx {
	struct plt_reloc *rel;	/* every JUMP_SLOT, GLOB_DAT, IRELATIVE, sorted by slot */
	size_t nr_rel;
	struct plt_reloc *jmprel;	/* .rela.plt in file order (the pushed index) */
	size_t nr_jmprel;
	Elf_Data *dynsym;
	size_t dynstr;		/* section index of .dynsym's strings */
	struct rec_symbol *out;	/* names malloc'd until set_plt() */
	size_t nr_out, alloc_out;
	bool cut;		/* a relocation table over ELF_SYMS_MAX was skipped */
};

static int reloc_cmp(const void *a, const void *b)
{
	const struct plt_reloc *x = a, *y = b;

	return x->slot < y->slot ? -1 : x->slot > y->slot;
}

static const char *section_name(Elf *elf, const GElf_Shdr *sh)
{
	size_t shstrndx;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return NULL;
	return elf_strptr(elf, shstrndx, sh->sh_name);
}

/* Collects the relocations that fill PLT and GOT slots from every SHT_RELA section. */
static int read_plt_relocs(struct elf_file *f, Elf *elf, struct plt_ctx *c)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(elf, scn))) {
		const char *name;
		Elf_Data *data;
		GElf_Rela r;
		size_t i, n;
		bool is_jmprel;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_RELA || !sh.sh_entsize)
			continue;
		n = sh.sh_size / sh.sh_entsize;
		if (n > ELF_SYMS_MAX || c->nr_rel > ELF_SYMS_MAX - n) {
			c->cut = true;
			continue;
		}
		/* read whole, and its slots kept: charged to f's bound before */
		if (f->max_bytes && (sh.sh_size > f->max_bytes / 2 ||
				     f->bytes > f->max_bytes - 2 * sh.sh_size)) {
			c->cut = true;
			f->syms_cut_bytes = true;
			continue;
		}
		f->bytes += 2 * sh.sh_size;
		data = elf_getdata(scn, NULL);
		if (!data)
			continue;
		name = section_name(elf, &sh);
		is_jmprel = name && !strcmp(name, ".rela.plt") && !c->jmprel;
		if (is_jmprel) {
			c->jmprel = calloc(n ? n : 1, sizeof(*c->jmprel));
			if (!c->jmprel)
				return -ENOMEM;
			c->nr_jmprel = n;
		}
		for (i = 0; i < n; i++) {
			struct plt_reloc pr;
			uint32_t type;
			struct plt_reloc *p;

			if (!gelf_getrela(data, (int)i, &r))
				continue;
			type = GELF_R_TYPE(r.r_info);
			if (type != R_X86_64_JUMP_SLOT && type != R_X86_64_GLOB_DAT &&
			    type != R_X86_64_IRELATIVE)
				continue;
			pr.slot = r.r_offset;
			pr.addend = (uint64_t)r.r_addend;
			pr.sym = type == R_X86_64_IRELATIVE ? 0 : GELF_R_SYM(r.r_info);
			if (is_jmprel)
				c->jmprel[i] = pr;
			if (c->nr_rel % 256 == 0) {
				p = reallocarray(c->rel, c->nr_rel + 256, sizeof(*p));
				if (!p)
					return -ENOMEM;
				c->rel = p;
			}
			c->rel[c->nr_rel++] = pr;
		}
	}
	if (c->nr_rel)
		qsort(c->rel, c->nr_rel, sizeof(*c->rel), reloc_cmp);
	return 0;
}

/* The name of the function whose slot r fills, or NULL. */
static const char *reloc_name(const struct elf_file *f, const struct plt_ctx *c,
			      const struct plt_reloc *r)
{
	GElf_Sym sym;
	long i;

	if (r->sym) {
		const char *name;

		if (!c->dynsym || !gelf_getsym(c->dynsym, (int)r->sym, &sym))
			return NULL;
		name = elf_strptr(f->elf, c->dynstr, sym.st_name);
		return name && *name ? name : NULL;
	}
	i = r->addend ? elf_file__find_symbol(f, r->addend) : -1;
	return i >= 0 && f->syms[i].addr == r->addend ? f->syms[i].name : NULL;
}

static const struct plt_reloc *reloc_at_slot(const struct plt_ctx *c, uint64_t slot)
{
	struct plt_reloc key = { .slot = slot };

	return c->nr_rel ? bsearch(&key, c->rel, c->nr_rel, sizeof(key), reloc_cmp) : NULL;
}

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* The relocation of the stub p[0 .. len) at addr, or NULL (a header, padding). */
static const struct plt_reloc *stub_reloc(const struct plt_ctx *c, const uint8_t *p, size_t len,
					  uint64_t addr)
{
	static const uint8_t endbr64[] = { 0xf3, 0x0f, 0x1e, 0xfa };
	size_t n = 0;

	if (len >= sizeof(endbr64) && !memcmp(p, endbr64, sizeof(endbr64)))
		n = sizeof(endbr64);
	if (n + 5 <= len && p[n] == 0x68) {		/* push $index: a lazy IBT .plt entry */
		uint32_t idx = le32(p + n + 1);

		return idx < c->nr_jmprel ? &c->jmprel[idx] : NULL;
	}
	if (n < len && p[n] == 0xf2)			/* bnd */
		n++;
	if (n + 6 <= len && p[n] == 0xff && p[n + 1] == 0x25)	/* jmp *disp32(%rip) */
		return reloc_at_slot(c, addr + n + 6 + (uint64_t)(int64_t)(int32_t)le32(p + n + 2));
	return NULL;
}

static int add_stub(struct plt_ctx *c, uint64_t addr, uint64_t size, const char *name)
{
	struct rec_symbol *p;
	char *s;

	if (asprintf(&s, "%s@plt", name) < 0)
		return -ENOMEM;
	if (c->nr_out == c->alloc_out) {
		size_t n = c->alloc_out ? 2 * c->alloc_out : 64;

		p = reallocarray(c->out, n, sizeof(*p));
		if (!p) {
			free(s);
			return -ENOMEM;
		}
		c->out = p;
		c->alloc_out = n;
	}
	c->out[c->nr_out++] = (struct rec_symbol){ .addr = addr, .size = size, .name = s };
	return 0;
}

/* Names every stub of one of .plt, .plt.sec, .plt.got. */
static int read_plt_section(struct elf_file *f, struct plt_ctx *c, Elf_Scn *scn,
			    const GElf_Shdr *sh, uint64_t entsize)
{
	Elf_Data *data;
	const struct plt_reloc *r;
	const char *name;
	size_t off;
	int err;

	if (sh->sh_size / entsize > ELF_SYMS_MAX) {
		c->cut = true;
		return 0;
	}
	data = elf_getdata(scn, NULL);
	if (!data || !data->d_buf || data->d_size < sh->sh_size)
		return 0;
	for (off = 0; off + entsize <= sh->sh_size; off += entsize) {
		r = stub_reloc(c, (const uint8_t *)data->d_buf + off, entsize, sh->sh_addr + off);
		name = r ? reloc_name(f, c, r) : NULL;
		if (!name)
			continue;
		err = add_stub(c, sh->sh_addr + off, entsize, name);
		if (err)
			return err;
	}
	return 0;
}

static int sym_addr_cmp(const void *a, const void *b)
{
	const struct rec_symbol *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/*
 * Makes plt[0 .. nr) (sorted) f's stubs: their names copied into one
 * block f owns, and merged into f->syms where no symbol of f covers them.
 */
static int set_plt(struct elf_file *f, const struct rec_symbol *plt, size_t nr)
{
	struct rec_symbol *syms, *stubs;
	size_t i, j, k, len = 0;
	char *names, *p;
	uint8_t *srcs;

	for (i = 0; i < nr; i++)
		len += strlen(plt[i].name) + 1;
	stubs = calloc(nr ? nr : 1, sizeof(*stubs));
	names = malloc(len ? len : 1);
	syms = calloc(f->nr_syms + nr + 1, sizeof(*syms));
	srcs = calloc(f->nr_syms + nr + 1, sizeof(*srcs));
	if (!stubs || !names || !syms || !srcs) {
		free(stubs);
		free(names);
		free(syms);
		free(srcs);
		return -ENOMEM;
	}
	for (i = 0, p = names; i < nr; i++) {
		stubs[i] = plt[i];
		stubs[i].name = p;
		p = stpcpy(p, plt[i].name) + 1;
	}
	for (i = j = k = 0; i < f->nr_syms || j < nr;) {
		if (j == nr || (i < f->nr_syms && f->syms[i].addr <= stubs[j].addr)) {
			srcs[k] = f->srcs[i];
			syms[k++] = f->syms[i++];
		} else if (elf_file__find_symbol(f, stubs[j].addr) < 0) {
			srcs[k] = ELF_SYM_PLT;
			syms[k++] = stubs[j++];
		} else {
			j++;	/* the symbol table names it already */
		}
	}
	free(f->syms);
	f->syms = syms;
	f->nr_syms = k;
	free(f->srcs);
	f->srcs = srcs;
	free(f->plt);
	f->plt = stubs;
	f->nr_plt = nr;
	free(f->plt_names);
	f->plt_names = names;
	return 0;
}

static int read_plt(struct elf_file *f)
{
	static const struct { const char *name; uint64_t entsize; } secs[] = {
		{ ".plt", 16 }, { ".plt.sec", 16 }, { ".plt.got", 8 },
	};
	struct plt_ctx c = { 0 };
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	GElf_Ehdr eh;
	size_t i;
	int err = 0;

	if (!gelf_getehdr(f->elf, &eh) || eh.e_machine != EM_X86_64)
		return 0;
	scn = section_of_type(f->elf, SHT_DYNSYM, &sh);
	if (scn) {
		c.dynsym = elf_getdata(scn, NULL);
		c.dynstr = sh.sh_link;
	}
	err = read_plt_relocs(f, f->elf, &c);
	for (scn = NULL; !err && (scn = elf_nextscn(f->elf, scn));) {
		const char *name;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS ||
		    !(sh.sh_flags & SHF_EXECINSTR) || !(name = section_name(f->elf, &sh)))
			continue;
		for (i = 0; i < sizeof(secs) / sizeof(secs[0]); i++) {
			if (strcmp(name, secs[i].name))
				continue;
			/* sh_entsize says 8 or 16 where the linker set it (IBT .plt.got: 16) */
			err = read_plt_section(f, &c, scn, &sh,
					       sh.sh_entsize == 8 || sh.sh_entsize == 16
					       ? sh.sh_entsize : secs[i].entsize);
			break;
		}
	}
	if (!err && c.nr_out) {
		qsort(c.out, c.nr_out, sizeof(*c.out), sym_addr_cmp);
		err = set_plt(f, c.out, c.nr_out);
	}
	for (i = 0; i < c.nr_out; i++)
		free((char *)c.out[i].name);
	f->syms_cut |= c.cut;
	free(c.out);
	free(c.rel);
	free(c.jmprel);
	return err;
}

/* --- the entry point ------------------------------------------------------ */

/* Whether elf's dynamic section has a DT_SONAME: a library's. */
static bool has_soname(Elf *elf)
{
	Elf_Scn *scn;
	Elf_Data *data;
	GElf_Shdr sh;
	GElf_Dyn dyn;
	size_t i;

	scn = section_of_type(elf, SHT_DYNAMIC, &sh);
	data = scn ? elf_getdata(scn, NULL) : NULL;
	for (i = 0; data && sh.sh_entsize && i < sh.sh_size / sh.sh_entsize && i < INT_MAX &&
	     gelf_getdyn(data, (int)i, &dyn) && dyn.d_tag != DT_NULL; i++)
		if (dyn.d_tag == DT_SONAME)
			return true;
	return false;
}

/*
 * An executable: ET_EXEC, or ET_DYN with a PT_INTERP and no DT_SONAME (a
 * PIE; libc.so.6 has a PT_INTERP and an entry point too, not crt1's).
 */
static bool is_executable(Elf *elf, const GElf_Ehdr *eh)
{
	size_t i, n;
	GElf_Phdr ph;

	if (eh->e_type == ET_EXEC)
		return true;
	if (eh->e_type != ET_DYN || elf_getphdrnum(elf, &n))
		return false;
	for (i = 0; i < n && i < INT_MAX; i++)
		if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_INTERP)
			return !has_soname(elf);
	return false;
}

/*
 * Names a stripped executable's entry point "_start" (crt1.o's, where every
 * process's first frame is) when no symbol covers it: over the FDE that
 * starts there, cut at the next symbol, so that it covers no other function.
 * Without such an FDE it stays unnamed. 0 or -ENOMEM.
 */
static int add_entry(struct elf_file *f)
{
	struct rec_symbol sym = { .name = "_start" };
	struct rec_symbol *syms;
	struct cfi_fde *fdes;
	uint8_t *srcs;
	size_t nr, i;
	GElf_Ehdr eh;
	uint64_t cfi;
	long k;
	int err;

	if (!gelf_getehdr(f->elf, &eh) || !eh.e_entry || !is_executable(f->elf, &eh) ||
	    elf_file__find_symbol(f, eh.e_entry) >= 0)
		return 0;
	/* the CFI section is read whole for a moment: within f's bound on bytes */
	cfi = elf_file__section_size(f, ".eh_frame");
	if (!cfi)
		cfi = elf_file__section_size(f, ".debug_frame");
	if (f->max_bytes && (f->bytes > f->max_bytes || cfi > f->max_bytes - f->bytes))
		return 0;
	err = cfi_fdes__read(f->elf, &fdes, &nr);
	if (err)
		return err == -ENOMEM ? err : 0;	/* no CFI, or none readable */
	k = cfi_fdes__find(fdes, nr, eh.e_entry);
	if (k >= 0 && fdes[k].start == eh.e_entry)
		sym.addr = fdes[k].start, sym.size = fdes[k].end - fdes[k].start;
	free(fdes);
	if (!sym.size)
		return 0;
	for (i = 0; i < f->nr_syms && f->syms[i].addr < sym.addr; i++)
		;
	if (i < f->nr_syms && f->syms[i].addr - sym.addr < sym.size)
		sym.size = f->syms[i].addr - sym.addr;
	syms = realloc(f->syms, (f->nr_syms + 1) * sizeof(*syms));
	if (!syms)
		return -ENOMEM;
	f->syms = syms;
	srcs = realloc(f->srcs, f->nr_syms + 1);
	if (!srcs)
		return -ENOMEM;
	f->srcs = srcs;
	memmove(syms + i + 1, syms + i, (f->nr_syms - i) * sizeof(*syms));
	memmove(srcs + i + 1, srcs + i, f->nr_syms - i);
	syms[i] = sym;
	srcs[i] = ELF_SYM_ENTRY;
	f->nr_syms++;
	return 0;
}

int elf_file__open(int fd, const void *image, size_t size, struct elf_file **out)
{
	return elf_file__open_max(fd, image, size, 0, out);
}

int elf_file__open_max(int fd, const void *image, size_t size, uint64_t max_bytes,
		       struct elf_file **out)
{
	struct elf_file *f;
	int err;

	libelf_init();
	f = calloc(1, sizeof(*f));
	if (!f) {
		if (fd >= 0)
			close(fd);
		return -ENOMEM;
	}
	f->fd = fd;
	f->max_bytes = max_bytes;
	if (fd >= 0)
		f->elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	else
		f->elf = elf_memory((char *)image, size);
	if (!f->elf || elf_kind(f->elf) != ELF_K_ELF) {
		err = -ENOEXEC;
		goto fail;
	}
	err = elf_build_id(f->elf, f->build_id, &f->build_id_len);
	if (!err)
		err = read_segments(f);
	if (!err)
		err = read_symbols(f);
	if (!err)
		err = read_plt(f);
	if (!err)
		err = add_entry(f);
	if (err)
		goto fail;
	*out = f;
	return 0;
fail:
	elf_file__close(f);
	return err;
}

void elf_file__close(struct elf_file *f)
{
	if (!f)
		return;
	free(f->syms);
	free(f->srcs);
	if (f->mini_elf)
		elf_end(f->mini_elf);
	free(f->mini_image);
	free(f->plt);
	free(f->plt_names);
	free(f->segs);
	if (f->elf)
		elf_end(f->elf);
	if (f->fd >= 0)
		close(f->fd);
	free(f);
}

void elf_file__release_fd(struct elf_file *f)
{
	if (!f || f->fd < 0)
		return;
	/* Whatever libelf has not mapped is read now; then the fd is not needed. */
	if (elf_cntl(f->elf, ELF_C_FDREAD) || elf_cntl(f->elf, ELF_C_FDDONE))
		return;
	close(f->fd);
	f->fd = -1;
}

static bool sym_at_or_below(const void *elem, const void *key)
{
	return ((const struct rec_symbol *)elem)->addr <= *(const uint64_t *)key;
}

long elf_file__find_symbol(const struct elf_file *f, uint64_t vaddr)
{
	/* Last symbol with addr <= vaddr: the one before the first above it. */
	size_t lo = bsearch_lower_bound(&vaddr, f->syms, f->nr_syms, sizeof(*f->syms),
					sym_at_or_below);

	if (!lo)
		return -1;
	lo--;
	if (vaddr - f->syms[lo].addr < f->syms[lo].size)
		return (long)lo;
	return -1;
}

int elf_file__offset_to_vaddr(const struct elf_file *f, uint64_t off, uint64_t *vaddr)
{
	return elf_segments__offset_to_vaddr(f->segs, f->nr_segs, off, vaddr);
}

int vdso__image(const void **image, size_t *size)
{
	unsigned long base = getauxval(AT_SYSINFO_EHDR), start, end;
	char line[512];
	int err = -ENOENT;
	FILE *f;

	if (!base)
		return -ENOENT;
	f = fopen("/proc/self/maps", "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-%lx", &start, &end) != 2 || start != base)
			continue;
		if (!strstr(line, "[vdso]"))
			break;
		*image = (const void *)base;
		*size = end - start;
		err = 0;
		break;
	}
	fclose(f);
	return err;
}

int elf_file__open_fd(const char *path)
{
	return safe_open_regular(path, ELF_FILE_MAX_SIZE, 0, NULL);
}

int mapped_file__open(uint32_t pid, uint64_t start, uint64_t end, const char *path)
{
	char buf[4096 + 64];
	int fd, root;

	snprintf(buf, sizeof(buf), "/proc/%u/map_files/%llx-%llx", pid,
		 (unsigned long long)start, (unsigned long long)end);
	fd = elf_file__open_fd(buf);
	if (fd >= 0 || fd == -EFTYPE_NOT_REGULAR || fd == -EFBIG)
		return fd;
	if (path[0] != '/' || path[1] == '/')
		return -ENOENT;
	/* the process's own view of its files: a container's symlinks stay inside it */
	snprintf(buf, sizeof(buf), "/proc/%u/root", pid);
	root = open(buf, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (root >= 0) {
		fd = safe_open_in_root(root, path, ELF_FILE_MAX_SIZE, NULL);
		close(root);
		if (fd >= 0)
			return fd;
	}
	return elf_file__open_fd(path);
}

/* Opens path as an ELF file if its build-id is f's. */
static int open_if_same(const struct elf_file *f, const char *path, struct elf_file **out)
{
	struct elf_file *d;
	int fd = elf_file__open_fd(path);

	if (fd < 0) {
		if (fd != -ENOENT)
			pr_debug("not reading '%s': %s", path, safe_open_strerror(fd));
		return fd;
	}
	/* it draws from what is left of f's bound */
	if (elf_file__open_max(fd, NULL, 0, !f->max_bytes ? 0 : f->max_bytes > f->bytes ?
			       f->max_bytes - f->bytes : 1, &d))
		return -ENOEXEC;
	if (d->build_id_len != f->build_id_len ||
	    memcmp(d->build_id, f->build_id, f->build_id_len)) {
		elf_file__close(d);
		return -ENOENT;
	}
	*out = d;
	return 0;
}

/* The file name in f's .gnu_debuglink section, or NULL. */
static const char *debuglink(const struct elf_file *f)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	GElf_Shdr sh;

	if (elf_getshdrstrndx(f->elf, &shstrndx))
		return NULL;
	while ((scn = elf_nextscn(f->elf, scn))) {
		const char *name;
		Elf_Data *data;

		if (!gelf_getshdr(scn, &sh))
			continue;
		name = elf_strptr(f->elf, shstrndx, sh.sh_name);
		if (!name || strcmp(name, ".gnu_debuglink"))
			continue;
		data = elf_getdata(scn, NULL);
		if (!data || !data->d_size || !memchr(data->d_buf, '\0', data->d_size))
			return NULL;
		return data->d_buf;
	}
	return NULL;
}

void *elf_section__find(void *elf, const char *name)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	GElf_Shdr sh;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *n;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS || !sh.sh_size)
			continue;
		n = elf_strptr(elf, shstrndx, sh.sh_name);
		if (n && !strcmp(n, name))
			return scn;
	}
	return NULL;
}

bool elf_file__has_section(const struct elf_file *f, const char *name)
{
	return elf_section__find(f->elf, name) != NULL;
}

uint64_t elf_file__section_size(const struct elf_file *f, const char *name)
{
	Elf_Scn *scn = elf_section__find(f->elf, name);
	GElf_Shdr sh;

	return scn && gelf_getshdr(scn, &sh) ? sh.sh_size : 0;
}

const void *elf_file__bytes(const struct elf_file *f, size_t *size)
{
	return elf_rawfile(f->elf, size);
}

int elf_build_id__debug_path(char *buf, size_t size, const char *dir, const uint8_t *id,
			     uint32_t len)
{
	size_t n;
	uint32_t i;
	int w;

	if (!len)
		return -EINVAL;
	w = snprintf(buf, size, "%s/.build-id/%02x/", dir, id[0]);
	if (w < 0 || (size_t)w >= size)
		return -ENAMETOOLONG;
	n = (size_t)w;
	for (i = 1; i < len; i++, n += 2)
		if (n + 2 >= size || snprintf(buf + n, size - n, "%02x", id[i]) != 2)
			return -ENAMETOOLONG;
	w = snprintf(buf + n, size - n, ".debug");
	return w < 0 || (size_t)w >= size - n ? -ENAMETOOLONG : 0;
}

static int find_debug_file(const struct elf_file *f, const char *path, struct elf_file **out)
{
	char buf[4096 + 64], dir[4096];
	const char *link, *slash;

	if (elf_build_id__debug_path(buf, sizeof(buf), "/usr/lib/debug", f->build_id,
				     f->build_id_len))
		return -ENOENT;
	if (!open_if_same(f, buf, out))
		return 0;
	link = debuglink(f);
	slash = strrchr(path, '/');
	if (!link || strchr(link, '/') || path[0] != '/' || !slash)
		return -ENOENT;
	snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path);
	snprintf(buf, sizeof(buf), "%s/%s", dir, link);
	if (strcmp(buf, path) && !open_if_same(f, buf, out))
		goto by_link;
	snprintf(buf, sizeof(buf), "%s/.debug/%s", dir, link);
	if (!open_if_same(f, buf, out))
		goto by_link;
	snprintf(buf, sizeof(buf), "/usr/lib/debug%s/%s", dir, link);
	if (!open_if_same(f, buf, out))
		goto by_link;
	return -ENOENT;
by_link:
	(*out)->by_debuglink = true;
	return 0;
}

int debug_file__open(const struct elf_file *f, const char *path, struct elf_file **out)
{
	int err = find_debug_file(f, path, out);

	/* The debug file keeps no code: the stubs f named are added to its symbols. */
	if (!err && f->nr_plt) {
		err = set_plt(*out, f->plt, f->nr_plt);
		if (err) {
			elf_file__close(*out);
			*out = NULL;
		}
	}
	return err;
}

int elf_file__dynsym(const struct elf_file *f, const char *name, uint64_t *vaddr,
		     uint64_t *size)
{
	Elf_Scn *scn = f->elf ? section_of_type(f->elf, SHT_DYNSYM, &(GElf_Shdr){ 0 }) : NULL;
	Elf_Data *data = scn ? elf_getdata(scn, NULL) : NULL;
	GElf_Shdr sh;
	GElf_Sym sym;
	const char *s;
	size_t i, n;

	if (!data || !gelf_getshdr(scn, &sh) || !sh.sh_entsize)
		return -ENOENT;
	n = sh.sh_size / sh.sh_entsize;
	for (i = 1; i < n; i++) {
		if (!gelf_getsym(data, (int)i, &sym) || sym.st_shndx == SHN_UNDEF)
			continue;
		s = elf_strptr(f->elf, sh.sh_link, sym.st_name);
		if (s && !strcmp(s, name)) {
			*vaddr = sym.st_value;
			*size = sym.st_size;
			return 0;
		}
	}
	return -ENOENT;
}
