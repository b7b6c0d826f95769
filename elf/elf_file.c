// SPDX-License-Identifier: MIT
/*
 * elf/elf_file.c - read build-ids, PT_LOAD segments and function symbols
 * with libelf.
 *
 * Symbols are what a later `eprof report` needs to name sampled addresses
 * on another machine: functions (STT_FUNC, STT_GNU_IFUNC) and sized
 * STT_NOTYPE symbols in executable sections (hand-written assembly), from
 * .symtab when the file has one, else from .dynsym. A symbol of size 0
 * ends where the next one starts, so every stored symbol has a range.
 */
#include <errno.h>
#include <gelf.h>
#include <libelf.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/auxv.h>
#include <stdlib.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "elf/elf_file.h"

static void libelf_init(void)
{
	static bool done;

	if (!done) {
		elf_version(EV_CURRENT);
		done = true;
	}
}

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

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
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

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_NOTE)
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

int elf_segments__read(void *elf, struct rec_segment **out, size_t *nr_out)
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
		segs[nr].filesz = ph.p_filesz;
		nr++;
	}
	*out = segs;
	*nr_out = nr;
	return 0;
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
	int rank;		/* lower wins among aliases at one address */
};

static int sym_cmp(const void *a, const void *b)
{
	const struct sym_tmp *x = a, *y = b;

	if (x->s.addr != y->s.addr)
		return x->s.addr < y->s.addr ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank - y->rank;
	return strcmp(x->s.name, y->s.name);
}

static int sym_rank(const GElf_Sym *sym)
{
	int r = GELF_ST_TYPE(sym->st_info) == STT_NOTYPE ? 4 : 0;

	switch (GELF_ST_BIND(sym->st_info)) {
	case STB_GLOBAL:
		return r;
	case STB_WEAK:
		return r + 1;
	default:
		return r + 2;
	}
}

static bool exec_section(Elf *elf, size_t shndx)
{
	Elf_Scn *scn;
	GElf_Shdr sh;

	if (shndx == SHN_UNDEF || shndx >= SHN_LORESERVE)
		return false;
	scn = elf_getscn(elf, shndx);
	return scn && gelf_getshdr(scn, &sh) && (sh.sh_flags & SHF_EXECINSTR);
}

static int read_symtab(struct elf_file *f, Elf_Scn *scn, const GElf_Shdr *sh)
{
	struct sym_tmp *tmp = NULL;
	size_t i, n, nr = 0, out;
	Elf_Data *data;
	GElf_Sym sym;

	data = elf_getdata(scn, NULL);
	if (!data || !sh->sh_entsize)
		return 0;
	n = sh->sh_size / sh->sh_entsize;
	tmp = calloc(n ? n : 1, sizeof(*tmp));
	if (!tmp)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		int type;
		const char *name;

		if (!gelf_getsym(data, (int)i, &sym))
			continue;
		type = GELF_ST_TYPE(sym.st_info);
		if (type != STT_FUNC && type != STT_GNU_IFUNC &&
		    !(type == STT_NOTYPE && sym.st_size))
			continue;
		if (!sym.st_value || !exec_section(f->elf, sym.st_shndx))
			continue;
		name = elf_strptr(f->elf, sh->sh_link, sym.st_name);
		if (!name || !*name)
			continue;
		tmp[nr].s.addr = sym.st_value;
		tmp[nr].s.size = sym.st_size;
		tmp[nr].s.name = name;
		tmp[nr].rank = sym_rank(&sym);
		nr++;
	}
	if (nr)
		qsort(tmp, nr, sizeof(*tmp), sym_cmp);
	f->syms = calloc(nr ? nr : 1, sizeof(*f->syms));
	if (!f->syms) {
		free(tmp);
		return -ENOMEM;
	}
	/* One symbol per address (the best-ranked alias); size 0 runs to the next. */
	for (i = 0, out = 0; i < nr; i++) {
		if (out && f->syms[out - 1].addr == tmp[i].s.addr)
			continue;
		f->syms[out++] = tmp[i].s;
	}
	for (i = 0; i < out; i++) {
		if (f->syms[i].size)
			continue;
		if (i + 1 < out)
			f->syms[i].size = f->syms[i + 1].addr - f->syms[i].addr;
	}
	/* A size-0 last symbol has no known end: keep it out. */
	if (out && !f->syms[out - 1].size)
		out--;
	f->nr_syms = out;
	free(tmp);
	return 0;
}

static int read_symbols(struct elf_file *f)
{
	Elf_Scn *scn = NULL, *symtab = NULL, *dynsym = NULL;
	GElf_Shdr sh, sym_sh;

	while ((scn = elf_nextscn(f->elf, scn))) {
		if (!gelf_getshdr(scn, &sh))
			continue;
		if (sh.sh_type == SHT_SYMTAB && !symtab)
			symtab = scn;
		else if (sh.sh_type == SHT_DYNSYM && !dynsym)
			dynsym = scn;
	}
	scn = symtab ? symtab : dynsym;
	if (!scn || !gelf_getshdr(scn, &sym_sh))
		return 0;
	f->source = symtab ? ".symtab" : ".dynsym";
	return read_symtab(f, scn, &sym_sh);
}

int elf_file__open(int fd, const void *image, size_t size, struct elf_file **out)
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

long elf_file__find_symbol(const struct elf_file *f, uint64_t vaddr)
{
	size_t lo = 0, hi = f->nr_syms;

	/* Last symbol with addr <= vaddr. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (f->syms[mid].addr <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return -1;
	lo--;
	if (vaddr - f->syms[lo].addr < f->syms[lo].size)
		return (long)lo;
	return -1;
}

int elf_file__offset_to_vaddr(const struct elf_file *f, uint64_t off, uint64_t *vaddr)
{
	size_t i;

	for (i = 0; i < f->nr_segs; i++) {
		const struct rec_segment *s = &f->segs[i];

		if (off >= s->offset && off - s->offset < s->filesz) {
			*vaddr = off - s->offset + s->vaddr;
			return 0;
		}
	}
	return -ENOENT;
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

int mapped_file__open(uint32_t pid, uint64_t start, uint64_t end, const char *path)
{
	char buf[4096 + 64];
	int fd;

	snprintf(buf, sizeof(buf), "/proc/%u/map_files/%llx-%llx", pid,
		 (unsigned long long)start, (unsigned long long)end);
	fd = open(buf, O_RDONLY | O_CLOEXEC);
	if (fd >= 0)
		return fd;
	if (path[0] != '/' || path[1] == '/')
		return -ENOENT;
	if ((size_t)snprintf(buf, sizeof(buf), "/proc/%u/root%s", pid, path) < sizeof(buf)) {
		fd = open(buf, O_RDONLY | O_CLOEXEC);
		if (fd >= 0)
			return fd;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	return fd >= 0 ? fd : -errno;
}

/* Opens path as an ELF file if its build-id is f's. */
static int open_if_same(const struct elf_file *f, const char *path, struct elf_file **out)
{
	struct elf_file *d;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	if (elf_file__open(fd, NULL, 0, &d))
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

bool elf_file__has_section(const struct elf_file *f, const char *name)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	GElf_Shdr sh;

	if (elf_getshdrstrndx(f->elf, &shstrndx))
		return false;
	while ((scn = elf_nextscn(f->elf, scn))) {
		const char *n;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS || !sh.sh_size)
			continue;
		n = elf_strptr(f->elf, shstrndx, sh.sh_name);
		if (n && !strcmp(n, name))
			return true;
	}
	return false;
}

const void *elf_file__bytes(const struct elf_file *f, size_t *size)
{
	return elf_rawfile(f->elf, size);
}

int debug_file__open(const struct elf_file *f, const char *path, struct elf_file **out)
{
	char buf[4096 + 64], dir[4096];
	const char *link, *slash;
	size_t n;
	uint32_t i;

	if (!f->build_id_len)
		return -ENOENT;
	n = (size_t)snprintf(buf, sizeof(buf), "/usr/lib/debug/.build-id/%02x/", f->build_id[0]);
	for (i = 1; i < f->build_id_len; i++)
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%02x", f->build_id[i]);
	snprintf(buf + n, sizeof(buf) - n, ".debug");
	if (!open_if_same(f, buf, out))
		return 0;
	link = debuglink(f);
	slash = strrchr(path, '/');
	if (!link || strchr(link, '/') || path[0] != '/' || !slash)
		return -ENOENT;
	snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path);
	snprintf(buf, sizeof(buf), "%s/%s", dir, link);
	if (strcmp(buf, path) && !open_if_same(f, buf, out))
		return 0;
	snprintf(buf, sizeof(buf), "%s/.debug/%s", dir, link);
	if (!open_if_same(f, buf, out))
		return 0;
	snprintf(buf, sizeof(buf), "/usr/lib/debug%s/%s", dir, link);
	if (!open_if_same(f, buf, out))
		return 0;
	return -ENOENT;
}
