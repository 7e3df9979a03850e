/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * dmf-seqfuzz: random operation sequences against the live fault target.
 *
 * A sequence is a list of text lines, one operation each (the language is
 * in README).  gen.c makes the lines from a seed alone, with a model of
 * what it asked for and never of what happened, so a seed gives the same
 * lines on every run and every kernel.  exec.c runs a line and keeps what
 * did happen: the devices that exist and their tables, the data each disk
 * sector must hold (shadow.c), the I/O in flight.  main.c runs sequences,
 * checks the oracles after every line (oracle.c) and writes out and
 * minimises a failing sequence.  Calls go main -> exec -> shadow, main ->
 * gen, and everything -> the tool's base/ (libdevmapper, the kernel log,
 * the target's own message parser, its status parser).
 */
#ifndef _DMF_SEQFUZZ_H
#define _DMF_SEQFUZZ_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/base.h"

#define SF_DEVS		4	/* dm devices a sequence uses: dmfz0..dmfz3 */
#define SF_DISKS	4	/* disks below them, given on the command line */
#define SF_LINE		768	/* the longest operation line */
#define SF_IOS		6	/* I/Os in flight at once */
#define SF_MAX_IO	(4u << 20)	/* the largest I/O */

/* splitmix64: a stream of 64-bit draws from a seed */
struct sf_rng {
	uint64_t s;
};

static inline uint64_t sf_next(struct sf_rng *r)
{
	uint64_t z = (r->s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* a draw in [0, n); 0 if n is 0 */
static inline uint64_t sf_below(struct sf_rng *r, uint64_t n)
{
	uint64_t v = sf_next(r);

	return n ? v % n : 0;
}

/* true with probability pct/100 */
static inline bool sf_chance(struct sf_rng *r, unsigned int pct)
{
	return sf_below(r, 100) < pct;
}

/* A disk below the devices: its size, logical block and what it holds. */
struct sf_disk {
	char path[128];
	uint64_t sectors;
	unsigned int lbs;		/* logical block, bytes */
	uint32_t *shadow;		/* a tag a sector: 0 unknown, 1 zeroes, else a write's */
};

/* The target types a device can have, in the order gen.c and exec.c name them. */
enum sf_type { SF_FAULT, SF_FLAKEY, SF_DELAY, SF_ERROR, SF_DUST, SF_NR_TYPES };

extern const char *const sf_type_names[SF_NR_TYPES];

/* ---- gen.c ---------------------------------------------------------------- */

/* What the generator asked of a device (its prediction, not the outcome). */
struct sf_gdev {
	bool exists, suspended;
	enum sf_type type;
	int below;			/* a disk index, SF_DISKS + a device index, -1: none */
	uint64_t off, len;		/* sectors */
	unsigned int lbs;		/* the largest logical block on its path at its load */
	unsigned int next_id;		/* the id the next "rule add" gets */
	uint64_t wr_off, wr_len;	/* the last write's bytes, 0: none since the table */
};

struct sf_gen {
	struct sf_rng rng;
	struct sf_gdev dev[SF_DEVS];
	const struct sf_disk *disks;
	unsigned int nr_disks;
	bool alloc;			/* emit allocator knob operations */
	unsigned int n;			/* lines made */
};

void sf_gen_init(struct sf_gen *g, uint64_t seed, const struct sf_disk *disks,
		 unsigned int nr_disks, bool alloc);
void sf_gen_line(struct sf_gen *g, char *line, size_t len);

/* ---- shadow.c ------------------------------------------------------------- */

void sf_pattern(unsigned char *buf, uint64_t disk_byte, size_t len, uint32_t tag);
void sf_shadow_set(struct sf_disk *d, uint64_t first, uint64_t nr, uint32_t tag);
int sf_shadow_check(const struct sf_disk *d, uint64_t first, const unsigned char *buf,
		    uint64_t nr, uint64_t *bad_sector, uint32_t *tag);

/* ---- exec.c --------------------------------------------------------------- */

/* A table of a device, as exec.c loaded it. */
struct sf_table {
	enum sf_type type;
	int below;			/* as in struct sf_gdev; -1: none (error) */
	uint64_t off, len;
	char params[SF_LINE];
};

struct sf_edev {
	bool exists, suspended, has_next;
	struct sf_table live, next;	/* next: loaded, not yet resumed */
};

/* An I/O a worker thread runs. */
struct sf_io {
	pthread_t thread;
	bool busy, done;
	struct sf_exec *x;
	char dev[32];
	int kind;			/* SF_IO_* */
	uint64_t off, len;		/* bytes, in the device */
	bool nowait, uring, verify;
	uint32_t tag;
	int disk;			/* the disk it lands on, -1: none known */
	uint64_t disk_sector;
	long res;			/* bytes, or -errno */
	char why[256];			/* a data mismatch */
};

enum { SF_IO_READ, SF_IO_WRITE, SF_IO_FUA, SF_IO_FLUSH, SF_IO_DISCARD, SF_IO_ZEROES,
       SF_NR_IO };

struct sf_exec {
	struct sf_disk *disks;
	unsigned int nr_disks;
	struct sf_edev dev[SF_DEVS];
	struct sf_io io[SF_IOS];
	pthread_mutex_t lock;		/* the shadows and io[].done */
	struct dft_kmsg kmsg;
	pthread_t watchdog;		/* ctl_watchdog(): a line that does not return */
	uint64_t ctl_line;		/* the line or end step running, 0: none */
	uint64_t ctl_seq;		/* lines and end steps so far */
	char ctl_text[SF_LINE];
	bool ctl_stop;
	unsigned int unstuck_cleared;	/* dmfzN bits: loaded table dropped (resume_anyway()) */
	unsigned int unstuck_resumed;	/* dmfzN bits: resumed */
	bool alloc_armed;		/* allocation faults may fail anything */
	int verbose;
	const char *problem;		/* a kernel log text that is a finding too */
	unsigned int hung_ms;		/* a line helped this long ago still running: a finding */
	/* counts of what ran */
	uint64_t ops, msgs, refused, ios, uring_ios, io_errors, verified_sectors, skipped;
	char fail[1024];		/* an oracle's finding; "" while none */
};

/* ---- uring.c: one I/O through an io_uring ---- */

long sf_uring_io(int fd, int op, void *buf, uint64_t len, uint64_t off, int rw_flags);

int sf_exec_init(struct sf_exec *x, struct sf_disk *disks, unsigned int nr_disks, int verbose,
		 const char *problem, unsigned int hung_secs);
int sf_exec_line(struct sf_exec *x, const char *line);
int sf_exec_end(struct sf_exec *x);
void sf_exec_stop(struct sf_exec *x);
void sf_exec_free(struct sf_exec *x);

#endif /* _DMF_SEQFUZZ_H */
