// SPDX-License-Identifier: GPL-2.0-only
/*
 * dmf-crashcheck: a direct-I/O checker for dm-fault's volatile write cache.
 *
 *   dmf-crashcheck init   DEV SECTORS
 *   dmf-crashcheck write  DEV SECTORS NWRITES SEED LOG
 *   dmf-crashcheck verify DEV SECTORS LOG LOST [POLICY]
 *
 * init writes write number 0 over the first SECTORS sectors and fsyncs.
 * write issues NWRITES O_DIRECT writes of 1 to 16 sectors at seeded places
 * in that region, some followed by fdatasync() (a flush), some with O_DSYNC
 * (on a block device a FUA write and then a flush); after each it reads back a seeded range and checks that every
 * sector holds the newest write (reads see the cache, also in part).  LOG
 * gets one line per write: number, sector, count, durable (1 once a flush
 * or FUA covering it completed).  Each sector written holds a header (magic,
 * write number, sector) and a seeded filler, so a torn or stray sector is
 * seen.
 *
 * verify reads the region after crash + recover and checks, with LOST (the
 * "lost" message reply: "<write> <sector>+<count>" lines after the totals):
 *   - every sector holds the newest write that covers it and was not lost
 *     there (the durable set, exactly), and nothing else;
 *   - no durable write lost any sector (the cache's contract);
 *   - the totals line agrees with the list;
 *   - POLICY all: every write neither flushed nor FUA lost all its sectors;
 *     none: nothing lost; writes: a write is lost whole or kept.
 * It prints "ok sectors=N lost_writes=N lost_sectors=N" or the first
 * problems, and exits 0 if all is well, 1 if not, 2 on error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SECT		512
#define MAGIC		0x64666372617368ULL	/* "dfcrash" */
#define MAX_LEN		16

struct wr {
	uint64_t sector, nr;
	int durable;
};

static uint64_t mix(uint64_t z)
{
	z += 0x9e3779b97f4a7c15ULL;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static void die(const char *what)
{
	fprintf(stderr, "dmf-crashcheck: %s: %s\n", what, strerror(errno));
	exit(2);
}

static void fill(unsigned char *p, uint64_t w, uint64_t sector)
{
	uint64_t h[3] = { MAGIC, w, sector }, v;
	size_t i;

	memcpy(p, h, sizeof(h));
	for (i = sizeof(h); i < SECT; i += 8) {
		v = mix(w * 1000003 + sector * 7919 + i);
		memcpy(p + i, &v, 8);
	}
}

/* The write a sector holds, or -1 if it is not one of ours whole. */
static int64_t holder(const unsigned char *p, uint64_t sector)
{
	unsigned char ref[SECT];
	uint64_t h[3];

	memcpy(h, p, sizeof(h));
	if (h[0] != MAGIC || h[2] != sector)
		return -1;
	fill(ref, h[1], sector);
	return memcmp(ref, p, SECT) ? -1 : (int64_t)h[1];
}

static void *buf_alloc(size_t len)
{
	void *p;

	if (posix_memalign(&p, 4096, len))
		die("posix_memalign");
	return p;
}

static void pwrite_all(int fd, const void *buf, size_t len, off_t off)
{
	if (pwrite(fd, buf, len, off) != (ssize_t)len)
		die("pwrite");
}

static void pread_all(int fd, void *buf, size_t len, off_t off)
{
	if (pread(fd, buf, len, off) != (ssize_t)len)
		die("pread");
}

static int cmd_init(const char *dev, uint64_t sectors)
{
	unsigned char *buf = buf_alloc(sectors * SECT);
	int fd = open(dev, O_RDWR | O_DIRECT);
	uint64_t s;

	if (fd < 0)
		die(dev);
	for (s = 0; s < sectors; s++)
		fill(buf + s * SECT, 0, s);
	pwrite_all(fd, buf, sectors * SECT, 0);
	if (fsync(fd))
		die("fsync");
	close(fd);
	free(buf);
	return 0;
}

static int cmd_write(const char *dev, uint64_t sectors, uint64_t n, uint64_t seed,
		     const char *logname)
{
	unsigned char *buf = buf_alloc(MAX_LEN * SECT * 4);
	uint64_t *newest = calloc(sectors, sizeof(*newest));
	struct wr *w = calloc(n + 1, sizeof(*w));
	int fd = open(dev, O_RDWR | O_DIRECT);
	int fua = open(dev, O_RDWR | O_DIRECT | O_DSYNC);
	uint64_t i, j, r, s, nr, bad = 0, last_durable = 0;
	FILE *log = fopen(logname, "w");

	if (fd < 0 || fua < 0 || !log || !newest || !w)
		die("open");
	for (i = 1; i <= n; i++) {
		r = mix(seed ^ i);
		nr = 1 + r % MAX_LEN;
		s = (r >> 8) % (sectors - nr + 1);
		for (j = 0; j < nr; j++)
			fill(buf + j * SECT, i, s + j);
		w[i].sector = s;
		w[i].nr = nr;
		switch ((r >> 40) % 12) {
		case 0:	/* O_DSYNC on a block device: FUA, then a flush */
			pwrite_all(fua, buf, nr * SECT, s * SECT);
			for (j = last_durable + 1; j <= i; j++)
				w[j].durable = 1;
			last_durable = i;
			break;
		case 1:	/* then a flush: everything so far is durable */
			pwrite_all(fd, buf, nr * SECT, s * SECT);
			if (fdatasync(fd))
				die("fdatasync");
			for (j = last_durable + 1; j <= i; j++)
				w[j].durable = 1;
			last_durable = i;
			break;
		default:
			pwrite_all(fd, buf, nr * SECT, s * SECT);
			break;
		}
		for (j = 0; j < nr; j++)
			newest[s + j] = i;

		/* read back a range around it: cached, on disk, or both */
		r = mix(r);
		nr = 1 + r % (MAX_LEN * 4);
		s = (r >> 8) % (sectors - nr + 1);
		pread_all(fd, buf, nr * SECT, s * SECT);
		for (j = 0; j < nr; j++) {
			int64_t h = holder(buf + j * SECT, s + j);

			if (h != (int64_t)newest[s + j] && bad++ < 10)
				printf("read after write %" PRIu64 ": sector %" PRIu64
				       " holds %" PRId64 ", expected %" PRIu64 "\n",
				       i, s + j, h, newest[s + j]);
		}
	}
	for (i = 1; i <= n; i++)
		fprintf(log, "%" PRIu64 " %" PRIu64 " %" PRIu64 " %d\n", i, w[i].sector,
			w[i].nr, w[i].durable);
	fclose(log);
	close(fd);
	close(fua);
	printf("%s writes=%" PRIu64 " read_mismatches=%" PRIu64 "\n", bad ? "FAIL" : "ok", n, bad);
	return bad ? 1 : 0;
}

struct lost {
	uint64_t w, sector, nr;
};

static struct lost *read_lost(const char *name, size_t *nlost, uint64_t *tw, uint64_t *ts)
{
	FILE *f = fopen(name, "r");
	struct lost *l = NULL;
	char line[256];
	size_t n = 0, cap = 0;

	if (!f)
		die(name);
	*tw = *ts = UINT64_MAX;
	while (fgets(line, sizeof(line), f)) {
		uint64_t a, b, c;

		if (sscanf(line, "lost_writes=%" SCNu64 " lost_sectors=%" SCNu64, &a, &b) == 2) {
			*tw = a;
			*ts = b;
		} else if (sscanf(line, "%" SCNu64 " %" SCNu64 "+%" SCNu64, &a, &b, &c) == 3) {
			if (n == cap) {
				cap = cap ? cap * 2 : 64;
				l = realloc(l, cap * sizeof(*l));
				if (!l)
					die("realloc");
			}
			l[n].w = a;
			l[n].sector = b;
			l[n++].nr = c;
		}
	}
	fclose(f);
	*nlost = n;
	return l;
}

static struct wr *read_log(const char *name, uint64_t *n)
{
	FILE *f = fopen(name, "r");
	struct wr *w = calloc(1, sizeof(*w));
	uint64_t i, s, nr;
	int d;

	if (!f || !w)
		die(name);
	*n = 0;
	while (fscanf(f, "%" SCNu64 " %" SCNu64 " %" SCNu64 " %d", &i, &s, &nr, &d) == 4) {
		w = realloc(w, (i + 1) * sizeof(*w));
		if (!w || i != *n + 1)
			die("log");
		w[i].sector = s;
		w[i].nr = nr;
		w[i].durable = d;
		*n = i;
	}
	fclose(f);
	return w;
}

#define PROBLEM(...) do { if (bad++ < 10) printf(__VA_ARGS__); } while (0)

static int cmd_verify(const char *dev, uint64_t sectors, const char *logname,
		      const char *lostname, const char *policy)
{
	uint64_t n, i, j, s, tw, ts, sum = 0, bad = 0;
	struct wr *w = read_log(logname, &n);
	size_t nlost, k;
	struct lost *l = read_lost(lostname, &nlost, &tw, &ts);
	/* lostat[w][s]: as a set of (write, sector) pairs, in a bitmap per write */
	unsigned char **lostat = calloc(n + 1, sizeof(*lostat));
	uint64_t *lostcnt = calloc(n + 1, sizeof(*lostcnt));
	unsigned char *buf = buf_alloc(sectors * SECT);
	uint64_t nlw = 0;
	int fd = open(dev, O_RDONLY | O_DIRECT);

	if (fd < 0 || !lostat || !lostcnt)
		die(dev);
	if (tw == UINT64_MAX)
		PROBLEM("no totals line in %s\n", lostname);
	for (k = 0; k < nlost; k++) {
		if (!l[k].w || l[k].w > n) {
			PROBLEM("lost range of unknown write %" PRIu64 "\n", l[k].w);
			continue;
		}
		if (!lostat[l[k].w])
			lostat[l[k].w] = calloc(MAX_LEN, 1);
		for (s = l[k].sector; s < l[k].sector + l[k].nr; s++) {
			j = s - w[l[k].w].sector;
			if (s < w[l[k].w].sector || j >= w[l[k].w].nr) {
				PROBLEM("write %" PRIu64 " lost sector %" PRIu64 " it never wrote\n",
					l[k].w, s);
				continue;
			}
			lostat[l[k].w][j] = 1;
			lostcnt[l[k].w]++;
			sum++;
		}
	}
	for (i = 1; i <= n; i++) {
		if (!lostcnt[i])
			continue;
		nlw++;
		if (w[i].durable)
			PROBLEM("durable write %" PRIu64 " lost %" PRIu64 " sectors\n", i, lostcnt[i]);
		if (policy && !strcmp(policy, "writes") && lostcnt[i] != w[i].nr)
			PROBLEM("lose=writes tore write %" PRIu64 "\n", i);
	}
	if (tw != UINT64_MAX && (tw != nlw || ts != sum))
		PROBLEM("totals say %" PRIu64 " writes %" PRIu64 " sectors, list %" PRIu64
			" writes %" PRIu64 " sectors\n", tw, ts, nlw, sum);
	if (policy && !strcmp(policy, "none") && sum)
		PROBLEM("lose=none lost %" PRIu64 " sectors\n", sum);
	/* a FUA write makes itself durable, not the writes before it */
	for (i = 1; policy && !strcmp(policy, "all") && i <= n; i++)
		if (!w[i].durable && lostcnt[i] != w[i].nr)
			PROBLEM("lose=all kept %" PRIu64 " sectors of unflushed write %" PRIu64 "\n",
				w[i].nr - lostcnt[i], i);

	pread_all(fd, buf, sectors * SECT, 0);
	for (s = 0; s < sectors; s++) {
		int64_t h = holder(buf + s * SECT, s), want = 0;

		for (i = n; i >= 1; i--) {
			if (s < w[i].sector || s >= w[i].sector + w[i].nr)
				continue;
			if (lostat[i] && lostat[i][s - w[i].sector])
				continue;
			want = i;
			break;
		}
		if (h != want)
			PROBLEM("sector %" PRIu64 " holds %" PRId64 ", expected write %" PRId64 "\n",
				s, h, want);
	}
	close(fd);
	if (bad)
		printf("FAIL problems=%" PRIu64 "\n", bad);
	else
		printf("ok sectors=%" PRIu64 " lost_writes=%" PRIu64 " lost_sectors=%" PRIu64 "\n",
		       sectors, nlw, sum);
	return bad ? 1 : 0;
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "init"))
		return cmd_init(argv[2], strtoull(argv[3], NULL, 0));
	if (argc == 7 && !strcmp(argv[1], "write"))
		return cmd_write(argv[2], strtoull(argv[3], NULL, 0), strtoull(argv[4], NULL, 0),
				 strtoull(argv[5], NULL, 0), argv[6]);
	if ((argc == 6 || argc == 7) && !strcmp(argv[1], "verify"))
		return cmd_verify(argv[2], strtoull(argv[3], NULL, 0), argv[4], argv[5],
				  argc == 7 ? argv[6] : NULL);
	fprintf(stderr, "usage: dmf-crashcheck init DEV SECTORS\n"
		"       dmf-crashcheck write DEV SECTORS NWRITES SEED LOG\n"
		"       dmf-crashcheck verify DEV SECTORS LOG LOST [all|none|writes|sectors]\n");
	return 2;
}
