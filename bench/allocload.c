// SPDX-License-Identifier: GPL-2.0-only
/*
 * An allocation-heavy workload for the allocator-hook benchmark
 * (bench/alloc.sh, in the guest).
 *
 * Each operation creates a file in DIR (a tmpfs: dentry, inode, file,
 * shmem structures from the slab), makes a pipe (pipe_inode_info, two
 * files, a page for the buffer), writes one byte through it, and frees it
 * all.  Failed system calls (an injected ENOMEM) are counted, and the loop
 * goes on.  Prints "ops=N ns=T failures=F" with T from CLOCK_MONOTONIC,
 * which under QEMU -icount is the guest's instruction count.
 *
 * usage: allocload DIR N [MARKFILE]
 *
 * With MARKFILE, after the warm-up the program writes its own PID to it
 * (the injector's task filter: only this process may fail), so that no
 * fault lands in the execve that started it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static int one_op(const char *path)
{
	int failures = 0, fd, p[2];
	char c = 'x';

	fd = open(path, O_CREAT | O_RDWR | O_TRUNC, 0600);
	if (fd < 0) {
		failures++;
	} else {
		if (write(fd, &c, 1) != 1)
			failures++;
		close(fd);
		if (unlink(path))
			failures++;
	}
	if (pipe(p)) {
		failures++;
	} else {
		if (write(p[1], &c, 1) != 1 || read(p[0], &c, 1) != 1)
			failures++;
		close(p[0]);
		close(p[1]);
	}
	return failures;
}

int main(int argc, char **argv)
{
	unsigned long long t0, t1;
	unsigned long n, i, failures = 0;
	char path[4096];

	n = argc >= 3 ? strtoul(argv[2], NULL, 0) : 0;
	if (argc < 3 || argc > 4 || !n) {
		fprintf(stderr, "usage: %s DIR N [MARKFILE]\n", argv[0]);
		return 2;
	}
	snprintf(path, sizeof(path), "%s/f", argv[1]);
	for (i = 0; i < 64; i++)	/* warm up */
		one_op(path);
	if (argc == 4) {
		FILE *f = fopen(argv[3], "w");

		if (!f || fprintf(f, "%d\n", (int)getpid()) < 0 || fclose(f)) {
			fprintf(stderr, "allocload: cannot mark itself in %s: %s\n", argv[3],
				strerror(errno));
			return 1;
		}
	}
	t0 = now_ns();
	for (i = 0; i < n; i++)
		failures += one_op(path);
	t1 = now_ns();
	printf("ops=%lu ns=%llu failures=%lu\n", n, t1 - t0, failures);
	return 0;
}
