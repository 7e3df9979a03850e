// SPDX-License-Identifier: GPL-2.0-only
/*
 * dmf-fsops: a seeded stream of filesystem operations, for crash-state
 * exploration in the manner of fstests' fsstress.
 *
 *   dmf-fsops DIR FIRST COUNT SEED
 *
 * Operations FIRST to FIRST+COUNT-1 of the stream that SEED defines, in a
 * tree of at most 8 directories of 8 files under DIR: create, write at an
 * offset, append, truncate, rename, hard link, unlink, mkdir, rmdir,
 * symlink, fallocate, and fsync or fdatasync of the file the last write
 * went to, as a program syncs what it wrote.  Operation i depends only on
 * SEED and i, so a run in slices gives the same stream as one run.  An
 * operation that fails because of the tree's state (ENOENT, EEXIST,
 * ENOTEMPTY...) is skipped; any other error ends the run with status 1.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define NDIRS	8
#define NFILES	8

static uint64_t mix(uint64_t z)
{
	z += 0x9e3779b97f4a7c15ULL;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* A path in the tree: d<k>/f<n>, or f<n> at the top, picked by @r. */
static void pick(char *buf, size_t len, const char *top, uint64_t r, int dir)
{
	unsigned int d = r % (NDIRS + 1), f = (r >> 8) % NFILES;

	if (dir)
		snprintf(buf, len, "%s/d%u", top, 1 + d % NDIRS);
	else if (d == NDIRS)
		snprintf(buf, len, "%s/f%u", top, f);
	else
		snprintf(buf, len, "%s/d%u/f%u", top, d + 1, f);
}

/* Errors the tree's state explains: the operation did not apply. */
static int expected(int e)
{
	return e == ENOENT || e == EEXIST || e == ENOTEMPTY || e == EISDIR || e == ENOTDIR ||
	       e == EMLINK || e == EOPNOTSUPP;
}

static int with_fd(const char *path, int flags, uint64_t r, int op)
{
	static char buf[65536];
	size_t n = 1 + (r >> 16) % sizeof(buf);
	off_t off = (r >> 32) % (1 << 20);
	int fd = open(path, flags, 0644), rc = 0;

	if (fd < 0)
		return -1;
	memset(buf, 'a' + r % 26, n);
	switch (op) {
	case 0:
		rc = pwrite(fd, buf, n, off) < 0;
		break;
	case 1:
		rc = write(fd, buf, n) < 0;
		break;
	case 2:
		rc = ftruncate(fd, off);
		break;
	case 3:
		rc = fsync(fd);
		break;
	case 4:
		rc = fdatasync(fd);
		break;
	default:
		rc = fallocate(fd, 0, off, n);
		break;
	}
	if (rc) {
		rc = errno;
		close(fd);
		errno = rc;
		return -1;
	}
	return close(fd);
}

static int one(const char *top, uint64_t r)
{
	static char last[4096];
	char a[4096], b[4096];
	int rc;

	pick(a, sizeof(a), top, mix(r), 0);
	if (r % 16 >= 11 && r % 16 <= 13 && last[0])
		memcpy(a, last, sizeof(a));
	pick(b, sizeof(b), top, mix(r + 1), 0);
	switch (r % 16) {
	case 0:
	case 1:
		rc = with_fd(a, O_WRONLY | O_CREAT, r, 0);
		break;
	case 2:
	case 3:
		rc = with_fd(a, O_WRONLY | O_APPEND | O_CREAT, r, 1);
		break;
	case 4:
		rc = with_fd(a, O_WRONLY, r, 2);
		break;
	case 5:
		return rename(a, b);
	case 6:
		return link(a, b);
	case 7:
		return unlink(a);
	case 8:
		pick(a, sizeof(a), top, mix(r), 1);
		return mkdir(a, 0755);
	case 9:
		pick(a, sizeof(a), top, mix(r), 1);
		return rmdir(a);
	case 10:
		return symlink(a, b);
	case 11:
	case 12:
		return with_fd(a, O_WRONLY, r, 3);
	case 13:
		return with_fd(a, O_WRONLY, r, 4);
	default:
		rc = with_fd(a, O_WRONLY | O_CREAT, r, 5);
		break;
	}
	if (!rc)
		memcpy(last, a, sizeof(last));
	return rc;
}

int main(int argc, char **argv)
{
	uint64_t first, count, seed, i;

	if (argc != 5) {
		fprintf(stderr, "usage: dmf-fsops DIR FIRST COUNT SEED\n");
		return 2;
	}
	first = strtoull(argv[2], NULL, 0);
	count = strtoull(argv[3], NULL, 0);
	seed = strtoull(argv[4], NULL, 0);
	for (i = first; i < first + count; i++) {
		if (one(argv[1], mix(seed ^ mix(i))) && !expected(errno)) {
			fprintf(stderr, "dmf-fsops: operation %llu: %s\n", (unsigned long long)i,
				strerror(errno));
			return 1;
		}
	}
	return 0;
}
