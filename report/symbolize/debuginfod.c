// SPDX-License-Identifier: MIT
/*
 * report/symbolize/debuginfod.c - debug files from debuginfod servers, by
 * build-id, for binaries no local file names: Debian's xz, gzip, sqlite3
 * and cc1 are stripped, and the distribution serves their DWARF at
 * https://debuginfod.debian.net.
 *
 * Opt-in as perf and gdb do it: when DEBUGINFOD_URLS names servers, or
 * report --debuginfod[=URLS] asks; --no-debuginfod turns it off whatever
 * the environment says.
 * The fetching, the cache (DEBUGINFOD_CACHE_PATH, else
 * $XDG_CACHE_HOME/debuginfod_client, cleaned as debuginfod clients do) and
 * the timeouts are libdebuginfod's, elfutils' own client beside libdw. The
 * file it leaves in the cache is opened like any local candidate
 * (debuginfo.c): through elf/, and only if its build-id is the recorded
 * one, since a server is no more trusted than a directory.
 */
#include <dlfcn.h>
#include <elfutils/debuginfod.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report/symbolize/internal.h"
#include "util/log.h"

/*
 * libdebuginfod is opened when a report first asks a server, not linked:
 * it pulls in libcurl and some 25 more libraries, whose loading and
 * relocation every start of eprof (record included) would otherwise pay.
 */
static struct {
	void *handle;
	debuginfod_client *(*begin)(void);
	int (*find_debuginfo)(debuginfod_client *, const unsigned char *, int, char **);
	void (*end)(debuginfod_client *);
} lib;

static bool lib_open(void)
{
	if (lib.handle)
		return true;
	lib.handle = dlopen("libdebuginfod.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!lib.handle)
		return false;
	*(void **)&lib.begin = dlsym(lib.handle, "debuginfod_begin");
	*(void **)&lib.find_debuginfo = dlsym(lib.handle, "debuginfod_find_debuginfo");
	*(void **)&lib.end = dlsym(lib.handle, "debuginfod_end");
	if (lib.begin && lib.find_debuginfo && lib.end)
		return true;
	dlclose(lib.handle);
	memset(&lib, 0, sizeof(lib));
	return false;
}

static bool debuginfod_enabled(const struct symbolizer *sym)
{
	const char *urls = getenv("DEBUGINFOD_URLS");

	if (sym->opts.debuginfod < 0)
		return false;
	if (sym->opts.debuginfod_urls && *sym->opts.debuginfod_urls)
		return true;
	return urls && *urls;
}

int debuginfod__find(struct symbolizer *sym, const uint8_t *id, uint32_t len,
		     struct dbg_file **out)
{
	char *path = NULL;
	int fd, err;

	if (!len || sym->dic_failed || !debuginfod_enabled(sym))
		return -ENOENT;
	if (!sym->dic) {
		/* libdebuginfod reads its servers from the environment only */
		if (sym->opts.debuginfod_urls && *sym->opts.debuginfod_urls &&
		    setenv("DEBUGINFOD_URLS", sym->opts.debuginfod_urls, 1)) {
			sym->dic_failed = true;
			pr_warn("cannot pass --debuginfod's servers to libdebuginfod");
			return -ENOENT;
		}
		if (!lib_open()) {
			sym->dic_failed = true;
			pr_warn("cannot load libdebuginfod.so.1: no debug file fetched (install "
				"libdebuginfod1, or pass --no-debuginfod)");
			return -ENOENT;
		}
		sym->dic = lib.begin();
		if (!sym->dic) {
			sym->dic_failed = true;
			pr_warn("cannot start a debuginfod client: no debug file fetched");
			return -ENOENT;
		}
	}
	fd = lib.find_debuginfo(sym->dic, id, (int)len, &path);
	if (fd < 0) {
		pr_debug("debuginfod has no debug file for this build-id: %s", strerror(-fd));
		return -ENOENT;
	}
	close(fd);	/* opened again through elf/, with its checks */
	err = dbg_file__open_checked(path, id, len, out);
	if (!err) {
		sym->stats.debuginfod_files++;
		pr_debug("debug file '%s' from debuginfod", path);
	} else if (err != -ENOMEM) {
		pr_warn("skipped '%s' from debuginfod: not an ELF file with the recorded build-id",
			path);
		err = -ENOENT;
	}
	free(path);
	return err;
}

void debuginfod__end(struct symbolizer *sym)
{
	if (sym->dic)
		lib.end(sym->dic);
	sym->dic = NULL;
}
