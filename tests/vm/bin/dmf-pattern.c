// SPDX-License-Identifier: GPL-2.0-only
/*
 * dmf-pattern: write and verify a seeded data pattern on a block device, with
 * O_DIRECT, and report exactly how the data read back differs.
 *
 *   dmf-pattern write  DEV OFFSET LEN SEED [BS]
 *   dmf-pattern verify DEV OFFSET LEN SEED [BS]
 *   dmf-pattern cmp    DEV1 DEV2 OFFSET LEN
 *
 * OFFSET and LEN in bytes (multiples of 512); BS is the I/O size (default
 * 4096).  verify and cmp print "bytes=N bits=N first=OFF" (first is -1 when
 * equal) and exit 0 when equal, 1 when not, 2 on error.  write exits 0 when
 * every write succeeded, else prints the errno of the first failure and
 * exits 1.  DMF_PATTERN_BASE=B in the environment makes the pattern at
 * offset OFF the one written at OFF - B (to find data written through a
 * remapping at its place on the disk below).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static uint64_t mix(uint64_t z)
{
	z += 0x9e3779b97f4a7c15ULL;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* The pattern byte at absolute device offset @off. */
static void fill(unsigned char *buf, uint64_t off, size_t len, uint64_t seed)
{
	size_t i;

	for (i = 0; i < len; i += 8) {
		uint64_t v = mix(seed ^ ((off + i) / 8));

		memcpy(buf + i, &v, 8);
	}
}

struct diff {
	uint64_t bytes, bits;
	int64_t first;
};

static void compare(const unsigned char *a, const unsigned char *b, size_t len,
		    uint64_t off, struct diff *d)
{
	size_t i;

	for (i = 0; i < len; i++) {
		if (a[i] == b[i])
			continue;
		d->bytes++;
		d->bits += __builtin_popcount(a[i] ^ b[i]);
		if (d->first < 0)
			d->first = off + i;
	}
}

static int opendev(const char *path, int flags)
{
	int fd = open(path, flags | O_DIRECT);

	if (fd < 0) {
		fprintf(stderr, "dmf-pattern: %s: %s\n", path, strerror(errno));
		exit(2);
	}
	return fd;
}

int main(int argc, char **argv)
{
	struct diff d = { 0, 0, -1 };
	unsigned char *buf, *ref;
	uint64_t off, len, seed = 0, pos, base = 0;
	size_t bs = 4096;
	int fd, fd2 = -1;
	ssize_t n;

	if (argc < 6) {
		fprintf(stderr, "usage: see the comment at the top of dmf-pattern.c\n");
		return 2;
	}
	if (!strcmp(argv[1], "cmp")) {
		off = strtoull(argv[4], NULL, 0);
		len = strtoull(argv[5], NULL, 0);
	} else {
		off = strtoull(argv[3], NULL, 0);
		len = strtoull(argv[4], NULL, 0);
		seed = strtoull(argv[5], NULL, 0);
		if (argc > 6)
			bs = strtoull(argv[6], NULL, 0);
	}
	if (getenv("DMF_PATTERN_BASE"))
		base = strtoull(getenv("DMF_PATTERN_BASE"), NULL, 0);
	if (!bs || bs % 512 || off % 512 || len % 512) {
		fprintf(stderr, "dmf-pattern: offsets and sizes must be multiples of 512\n");
		return 2;
	}
	if (posix_memalign((void **)&buf, 4096, bs) || posix_memalign((void **)&ref, 4096, bs))
		return 2;

	if (!strcmp(argv[1], "write")) {
		fd = opendev(argv[2], O_WRONLY);
		for (pos = off; pos < off + len; pos += bs) {
			size_t l = off + len - pos < bs ? off + len - pos : bs;

			fill(buf, pos, l, seed);
			n = pwrite(fd, buf, l, pos);
			if (n != (ssize_t)l) {
				printf("error=%d (%s) at=%llu\n", n < 0 ? errno : EIO,
				       n < 0 ? strerror(errno) : "short write",
				       (unsigned long long)pos);
				return 1;
			}
		}
		return fsync(fd) ? 1 : 0;
	}

	fd = opendev(argv[2], O_RDONLY);
	if (!strcmp(argv[1], "cmp"))
		fd2 = opendev(argv[3], O_RDONLY);
	else if (strcmp(argv[1], "verify"))
		return 2;
	for (pos = off; pos < off + len; pos += bs) {
		size_t l = off + len - pos < bs ? off + len - pos : bs;

		n = pread(fd, buf, l, pos);
		if (n != (ssize_t)l) {
			printf("error=%d (%s) at=%llu\n", n < 0 ? errno : EIO,
			       n < 0 ? strerror(errno) : "short read", (unsigned long long)pos);
			return 2;
		}
		if (fd2 >= 0) {
			if (pread(fd2, ref, l, pos) != (ssize_t)l)
				return 2;
		} else {
			fill(ref, pos - base, l, seed);
		}
		compare(ref, buf, l, pos, &d);
	}
	printf("bytes=%llu bits=%llu first=%lld\n", (unsigned long long)d.bytes,
	       (unsigned long long)d.bits, (long long)d.first);
	return d.bytes ? 1 : 0;
}
