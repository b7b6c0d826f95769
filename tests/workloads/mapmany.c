// SPDX-License-Identifier: MIT
/*
 * mapmany: a process holding many executable mappings (the hostile tests'
 * t0807 and t0816). It maps the first page of FILE N times, or of DIR/0 ..
 * DIR/N-1 when those exist, writes its pid into READY, and sleeps SECONDS.
 *
 * usage: mapmany SECONDS N FILE|DIR READY
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	char path[4096];
	int n, i, fd;
	FILE *f;

	if (argc != 5)
		return 2;
	n = atoi(argv[2]);
	for (i = 0; i < n; i++) {
		if (snprintf(path, sizeof(path), "%s/%d", argv[3], i) && access(path, R_OK))
			snprintf(path, sizeof(path), "%s", argv[3]);
		fd = open(path, O_RDONLY);
		if (fd < 0 || mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0) == MAP_FAILED)
			return 1;
		close(fd);
	}
	f = fopen(argv[4], "w");
	if (!f)
		return 1;
	fprintf(f, "%d\n", (int)getpid());
	fclose(f);
	sleep((unsigned)atoi(argv[1]));
	return 0;
}
