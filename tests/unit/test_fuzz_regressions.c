// SPDX-License-Identifier: MIT
/*
 * tests/unit/test_fuzz_regressions.c - replays saved fuzz inputs through
 * the same drivers the libFuzzer targets use (tests/fuzz/drive.c, and
 * drive_report.c for every report view), in the
 * ordinary gcc ASan+UBSan unit build, so that no clang is needed to keep
 * them fixed.
 *
 * tests/fixtures/fuzz-seeds/reader/ holds recordings written by
 * tests/fuzz/gen_seeds, codec/ the BLOBs taken out of them and tables/
 * their rows (rebuilt into a recording with SQLite, as fuzz_tables does):
 * each must be read with every call returning 0. Files named corpus-* there are inputs
 * the fuzzers found interesting (mostly damaged files), and
 * tests/fixtures/regressions/{reader,codec,tables}-*.bin reproduce bugs the
 * fuzzers found: for those every call must return 0 or a negative errno,
 * nothing more. The fixtures directory is found from this file's path, or
 * from $EPROF_FIXTURES.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tests/fuzz/drive.h"
#include "tests/unit/harness.h"

static char fixtures[4096];

static const char *fixtures_dir(void)
{
	const char *env = getenv("EPROF_FIXTURES");
	const char *slash;

	if (env)
		return env;
	if (!fixtures[0]) {
		/* __FILE__ is .../tests/unit/test_fuzz_regressions.c */
		slash = strstr(__FILE__, "/unit/test_fuzz_regressions.c");
		if (slash)
			snprintf(fixtures, sizeof(fixtures), "%.*s/fixtures",
				 (int)(slash - __FILE__), __FILE__);
		else
			snprintf(fixtures, sizeof(fixtures), "tests/fixtures");
	}
	return fixtures;
}

/* Reads a whole file; NULL on failure (reported). */
static uint8_t *slurp(const char *path, size_t *len)
{
	struct stat sb;
	uint8_t *buf = NULL;
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &sb) || !(buf = malloc((size_t)sb.st_size + 1)))
		goto fail;
	n = read(fd, buf, (size_t)sb.st_size);
	if (n != sb.st_size)
		goto fail;
	close(fd);
	*len = (size_t)n;
	return buf;
fail:
	fprintf(stderr, "  cannot read '%s'\n", path);
	free(buf);
	if (fd >= 0)
		close(fd);
	return NULL;
}

enum kind { READER, CODEC, TABLES };

/* fuzz_tables' starting point: an empty recording, written once. */
static void *template;
static size_t template_len;

/* Runs one input; eprof's own messages are muted, contract violations are not. */
static enum fuzz_result replay(enum kind kind, const char *path)
{
	FILE *saved = stderr, *null = fopen("/dev/null", "w");
	const char *tmp = path_in("input.rec");
	enum fuzz_result res = FUZZ_BROKEN;
	uint8_t *data;
	size_t len;

	data = slurp(path, &len);
	if (!data)
		goto out;
	fuzz_report = saved;
	if (null)
		stderr = null;
	if (kind == CODEC) {
		res = fuzz_drive_codec(data, len);
	} else if (kind == TABLES) {
		if ((template || fuzz_make_template(path_in("template.rec"), &template,
						     &template_len) == 0) &&
		    fuzz_build_tables(tmp, template, template_len, data, len) == 0)
			res = fuzz_drive_reader(tmp, true);
		if (res == FUZZ_ACCEPTED)	/* as fuzz_tables.c does */
			res = fuzz_drive_report(tmp);
		unlink(tmp);
	} else if (fuzz_write_file(tmp, data, len) == 0) {
		fuzz_remove_sidecars(tmp);
		res = fuzz_drive_reader(tmp, false);
		if (res != FUZZ_BROKEN)	/* as fuzz_report.c does */
			res = fuzz_drive_report(tmp) == FUZZ_BROKEN ? FUZZ_BROKEN : res;
		fuzz_remove_sidecars(tmp);
		unlink(tmp);
	}
	stderr = saved;
	free(data);
out:
	if (null)
		fclose(null);
	return res;
}

/*
 * Replays every file of DIR/sub whose name starts with prefix (all when
 * prefix is NULL; "corpus-" files are skipped then). want_accepted: every
 * call must return 0, else only "no violation". Returns the file count.
 */
static size_t replay_dir(const char *sub, const char *prefix, enum kind kind, bool want_accepted)
{
	char dir[4200], path[8400];
	struct dirent **names = NULL;
	enum fuzz_result res;
	size_t done = 0;
	int i, nr;

	snprintf(dir, sizeof(dir), "%s/%s", fixtures_dir(), sub);
	nr = scandir(dir, &names, NULL, alphasort);
	if (nr < 0)
		return 0;	/* no such directory: nothing saved there yet */
	for (i = 0; i < nr; i++) {
		const char *name = names[i]->d_name;
		bool corpus = !strncmp(name, "corpus-", 7);

		if (name[0] == '.' || (prefix ? strncmp(name, prefix, strlen(prefix)) :
				       corpus))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, name);
		res = replay(kind, path);
		if (res == FUZZ_BROKEN || (want_accepted && res != FUZZ_ACCEPTED)) {
			fprintf(stderr, "  %s: %s\n", path, res == FUZZ_BROKEN ?
				"crash-free, but broke a contract (or unreadable)" :
				"a valid input was rejected");
			harness_failures++;
		}
		done++;
	}
	for (i = 0; i < nr; i++)
		free(names[i]);
	free(names);
	return done;
}

static void seed_recordings(void)
{
	size_t n = replay_dir("fuzz-seeds/reader", NULL, READER, true);

	printf("  %zu seed recordings read back whole\n", n);
	CHECK(n >= 4);
}

static void seed_blobs(void)
{
	size_t n = replay_dir("fuzz-seeds/codec", NULL, CODEC, true);

	printf("  %zu seed BLOBs decoded\n", n);
	CHECK(n >= 10);
}

static void seed_tables(void)
{
	size_t n = replay_dir("fuzz-seeds/tables", NULL, TABLES, true);

	printf("  %zu seed row lists rebuilt and read back whole\n", n);
	CHECK(n >= 4);
}

static void corpus_inputs(void)
{
	size_t n = replay_dir("fuzz-seeds/reader", "corpus-", READER, false);

	n += replay_dir("fuzz-seeds/codec", "corpus-", CODEC, false);
	n += replay_dir("fuzz-seeds/tables", "corpus-", TABLES, false);
	printf("  %zu saved fuzz corpus inputs replayed\n", n);
	CHECK(n >= 1);
}

static void regressions(void)
{
	size_t n = replay_dir("regressions", "reader-", READER, false);

	n += replay_dir("regressions", "codec-", CODEC, false);
	n += replay_dir("regressions", "tables-", TABLES, false);
	printf("  %zu crash reproducers replayed\n", n);
}

/* The drivers must fail on what they exist to catch, or the rest proves nothing. */
static void drivers_can_fail(void)
{
	/* a stack chunk whose only stack claims 4097 frames: rejected, not broken */
	static const uint8_t too_deep[] = {
		FUZZ_CODEC_STACKS, 1, 0, 0, 0, 0, 0, 0, 0, 5, 0, 0, 0, 5, 0, 0, 0,
		0, 0x81, 0x20, 0,
	};
	/* a sample chunk of one sample, CPU 0, at first_time 7 */
	static const uint8_t one_sample[] = {
		FUZZ_CODEC_SAMPLES, 7, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0,
		0, 0, 0, 0, 0, 0,
	};
	FILE *saved = stderr, *null = fopen("/dev/null", "w");
	enum fuzz_result deep, one, not_rec;
	const char *tmp = path_in("garbage.rec");

	if (null)
		stderr = null;
	deep = fuzz_drive_codec(too_deep, sizeof(too_deep));
	one = fuzz_drive_codec(one_sample, sizeof(one_sample));
	fuzz_write_file(tmp, "not a recording", 15);
	not_rec = fuzz_drive_reader(tmp, false);
	stderr = saved;
	if (null)
		fclose(null);
	CHECK(deep == FUZZ_REJECTED);
	CHECK(one == FUZZ_ACCEPTED);
	CHECK(not_rec == FUZZ_REJECTED);
}

int main(void)
{
	static const struct test tests[] = {
		{ "drivers_can_fail", drivers_can_fail },
		{ "seed_recordings", seed_recordings },
		{ "seed_blobs", seed_blobs },
		{ "seed_tables", seed_tables },
		{ "corpus_inputs", corpus_inputs },
		{ "regressions", regressions },
	};

	int rc = run_tests(tests, ARRAY_SIZE(tests));

	free(template);
	return rc;
}
