// SPDX-License-Identifier: GPL-2.0-only
/*
 * dmf-seqfuzz: run one line, and the oracles after it.
 *
 * exec.c keeps what did happen (the generator only knows what it asked):
 * the devices that exist, their live and loaded tables, which are
 * suspended, the I/O in flight.  After every line it checks:
 *   - the kernel log: no WARN, BUG, oops, KASAN, UBSAN, lockdep, hung task
 *     (dft_kernel_problem());
 *   - a message the target's own parser (built on the host) refuses is
 *     refused by the kernel too, and every refusal of a device that exists
 *     logs its reason (but dm-dust's words, and on fault-dust what neither
 *     parser knows, refused as dm-dust refuses them: some without a word);
 *   - every fault device's status parses (dft_parse_info());
 *   - data read back where nothing may have changed it is what was written
 *     (shadow.c), through any device, offset and stacking;
 *   - no I/O hangs: an I/O that has not completed in 5 s is released
 *     (release, then suspend and resume of its path), and one still held
 *     30 s later is a finding.
 * A device's path is clean when every device on it is a fault target with
 * no rules, no bad-block map and no write cache in use; only I/O on a clean
 * path, to disk sectors no cache in use covers, updates or checks the
 * shadow.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/fs.h>
#include <linux/io_uring.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "base/rule.h"
#include "seqfuzz.h"

#define SF_DEBUGFS	"/sys/kernel/debug/dm-fault"
#define SF_IO_WAIT_MS	5000
#define SF_IO_HUNG_MS	30000

static void __printf(2, 3) finding(struct sf_exec *x, const char *fmt, ...)
{
	va_list ap;

	if (x->fail[0])
		return;		/* the first finding is the one to minimise */
	va_start(ap, fmt);
	vsnprintf(x->fail, sizeof(x->fail), fmt, ap);
	va_end(ap);
}

static int dev_index(const char *name)
{
	if (strncmp(name, "dmfz", 4) || name[4] < '0' || name[4] >= '0' + SF_DEVS || name[5])
		return -1;
	return name[4] - '0';
}

/* "dN" or "mN": the index as struct sf_table's below has it, or -1. */
static int below_index(const struct sf_exec *x, const char *w)
{
	if ((w[0] != 'd' && w[0] != 'm') || w[1] < '0' || w[1] > '9' || w[2])
		return -1;
	if (w[0] == 'd')
		return w[1] - '0' < (int)x->nr_disks ? w[1] - '0' : -1;
	return w[1] - '0' < SF_DEVS ? SF_DISKS + w[1] - '0' : -1;
}

static void below_path(const struct sf_exec *x, int below, char *buf, size_t len)
{
	if (below < SF_DISKS)
		snprintf(buf, len, "%s", x->disks[below].path);
	else
		snprintf(buf, len, "/dev/mapper/dmfz%d", below - SF_DISKS);
}

/*
 * A table from the words after "<op> dmfzD": "<type> <len> <params>".  The
 * first word of the params that names a disk or a device is the one below
 * (fault-error has none), and the word after it is the offset.
 */
static int parse_table(const struct sf_exec *x, char *words, struct sf_table *t)
{
	char *save = NULL, *type = strtok_r(words, " ", &save), *len = strtok_r(NULL, " ", &save);
	char *w, path[128];
	size_t at = 0;
	bool off_next = false;
	int i;

	if (!type || !len || dft_parse_u64(len, &t->len))
		return -EINVAL;
	for (i = 0; i < SF_NR_TYPES; i++)
		if (!strcmp(type, sf_type_names[i]))
			break;
	if (i == SF_NR_TYPES)
		return -EINVAL;
	t->type = i;
	t->below = -1;
	t->off = 0;
	t->params[0] = '\0';
	while ((w = strtok_r(NULL, " ", &save))) {
		int b = below_index(x, w);

		if (b >= 0) {
			below_path(x, b, path, sizeof(path));
			if (t->below < 0) {
				t->below = b;
				off_next = true;
			}
			w = path;
		} else if (off_next) {
			dft_parse_u64(w, &t->off);
			off_next = false;
		}
		at += (size_t)snprintf(t->params + at, at < sizeof(t->params) ?
				       sizeof(t->params) - at : 0, "%s%s", at ? " " : "", w);
	}
	return at < sizeof(t->params) ? 0 : -E2BIG;
}

/* ---- the state of a device's path ------------------------------------------ */

/* Is the fault device @name free of rules, bad blocks and a cache in use? */
static bool fault_clean(const char *name, bool *cache_in_use)
{
	struct dft_dev dev;
	struct dft_stats st;
	const char *err;
	bool clean = false;

	*cache_in_use = true;
	if (dft_dm_get(name, false, &dev))
		return false;
	if (dev.nr_segs == 1 && !dft_parse_info(dev.segs[0].params, &st, &err)) {
		struct dft_bad_stat b;

		*cache_in_use = strcmp(st.cache, "-") && strncmp(st.cache, "off:", 4);
		clean = !st.nr_rules && !*cache_in_use &&
			(!strcmp(st.bad, "-") ||
			 (!dft_parse_bad(st.bad, &b) && !b.v[DFT_B_RANGES]));
		dft_stats_free(&st);
	}
	dft_dm_put(&dev);
	return clean;
}

/*
 * Follow device @d's live tables to its disk: the disk index, or -1 (none,
 * as below fault-error, or a device that does not exist), with *@sector
 * the disk sector of the device's sector 0.
 */
static int dev_disk(const struct sf_exec *x, int d, uint64_t *sector)
{
	*sector = 0;
	while (1) {
		const struct sf_edev *e = &x->dev[d];

		if (!e->exists || e->live.below < 0)
			return -1;
		*sector += e->live.off;
		if (e->live.below < SF_DISKS)
			return e->live.below;
		d = e->live.below - SF_DISKS;
	}
}

/* Is every device on @d's path clean (its status asked), and is one suspended? */
static void path_state(const struct sf_exec *x, int d, bool *clean, bool *suspended)
{
	bool cache;

	*clean = true;
	*suspended = false;
	while (1) {
		const struct sf_edev *e = &x->dev[d];
		char name[16];

		if (!e->exists) {
			*clean = false;
			return;
		}
		if (e->suspended)
			*suspended = true;
		snprintf(name, sizeof(name), "dmfz%d", d);
		if (e->live.type != SF_FAULT || !fault_clean(name, &cache))
			*clean = false;
		if (e->live.below < SF_DISKS)
			return;
		d = e->live.below - SF_DISKS;
	}
}

/* Does a device with a cache in use cover sectors @first..+@nr of disk @disk? */
static bool volatile_range(const struct sf_exec *x, int disk, uint64_t first, uint64_t nr)
{
	int d;

	for (d = 0; d < SF_DEVS; d++) {
		const struct sf_edev *e = &x->dev[d];
		char name[16];
		uint64_t at;
		bool cache;

		if (!e->exists || e->live.type != SF_FAULT || dev_disk(x, d, &at) != disk ||
		    first >= at + e->live.len || at >= first + nr)
			continue;
		snprintf(name, sizeof(name), "dmfz%d", d);
		fault_clean(name, &cache);
		if (cache)
			return true;
	}
	return false;
}

/* Is a write in flight to sectors @first..+@nr of disk @disk? */
static bool write_in_flight(const struct sf_exec *x, int disk, uint64_t first, uint64_t nr)
{
	unsigned int i;

	for (i = 0; i < SF_IOS; i++) {
		const struct sf_io *io = &x->io[i];

		if (io->busy && io->disk == disk && io->kind != SF_IO_READ &&
		    io->kind != SF_IO_FLUSH && first < io->disk_sector + (io->len >> 9) + 1 &&
		    io->disk_sector < first + nr)
			return true;
	}
	return false;
}

/* ---- I/O ------------------------------------------------------------------- */

static const char *const io_names[SF_NR_IO] = {
	[SF_IO_READ] = "read", [SF_IO_WRITE] = "write", [SF_IO_FUA] = "fua",
	[SF_IO_FLUSH] = "flush", [SF_IO_DISCARD] = "discard", [SF_IO_ZEROES] = "zeroes",
};

static long io_run(struct sf_io *io, int fd, void *buf)
{
	uint64_t range[2] = { io->off, io->len };
	struct iovec iov = { buf, io->len };
	int fl = io->nowait ? RWF_NOWAIT : 0;
	ssize_t n;

	if (io->uring && io->kind <= SF_IO_FLUSH) {
		static const int ops[] = {
			[SF_IO_READ] = IORING_OP_READV, [SF_IO_WRITE] = IORING_OP_WRITEV,
			[SF_IO_FUA] = IORING_OP_WRITEV, [SF_IO_FLUSH] = IORING_OP_FSYNC,
		};

		return sf_uring_io(fd, ops[io->kind], buf, io->len, io->off,
				   io->kind == SF_IO_FUA ? fl | RWF_DSYNC : fl);
	}
	switch (io->kind) {
	case SF_IO_READ:
		n = preadv2(fd, &iov, 1, (off_t)io->off, fl);
		break;
	case SF_IO_WRITE:
		n = pwritev2(fd, &iov, 1, (off_t)io->off, fl);
		break;
	case SF_IO_FUA:
		n = pwritev2(fd, &iov, 1, (off_t)io->off, fl | RWF_DSYNC);
		break;
	case SF_IO_FLUSH:
		n = fsync(fd);
		break;
	case SF_IO_DISCARD:
		n = ioctl(fd, BLKDISCARD, range);
		break;
	default:
		n = ioctl(fd, BLKZEROOUT, range);
		break;
	}
	return n < 0 ? -errno : n;
}

/*
 * A buffer for O_DIRECT; from 2 MiB on, huge-page aligned and advised, so
 * that large I/O comes as bios of few multi-page segments, as it does from
 * programs whose memory transparent huge pages back.  The data starts at
 * @disk_byte's place in a page (a multiple of 512 bytes), so that every
 * byte sits at its disk offset's place in a page.
 *
 * An I/O that is not whole blocks of a larger block below (on a device
 * loaded before the device below it was reloaded onto 4 KiB blocks) is
 * split by dm at a dust block or a table's end, and the fault target
 * refuses the pieces that are not whole blocks; the others go to the
 * disk.  The block layer asks of their memory only dma_alignment, 511,
 * but null_blk (6.1, 6.12) copies a segment in whole blocks from its
 * sector's place in null_blk's page: from a buffer placed otherwise, a
 * segment that starts inside a block is copied past that page's end,
 * over other kernel memory.
 */
static int io_buffer(void **base, void **buf, size_t len, uint64_t disk_byte)
{
	size_t align = len >= (2u << 20) ? 2u << 20 : 4096, skew = disk_byte & 4095;

	if (posix_memalign(base, align, len + skew))
		return -ENOMEM;
	if (align > 4096)
		madvise(*base, len + skew, MADV_HUGEPAGE);
	*buf = (char *)*base + skew;
	return 0;
}

static void *io_thread(void *arg)
{
	struct sf_io *io = arg;
	struct sf_exec *x = io->x;
	bool data = io->kind <= SF_IO_FUA;
	void *base = NULL, *buf = NULL;
	char path[64];
	long res;
	int fd;

	snprintf(path, sizeof(path), "/dev/mapper/%s", io->dev);
	fd = open(path, O_RDWR | O_DIRECT | O_CLOEXEC);
	if (fd < 0) {
		res = -errno;
	} else if (data && io_buffer(&base, &buf, io->len, io->disk_sector << 9)) {
		res = -ENOMEM;
	} else {
		if (io->kind != SF_IO_READ && data)
			sf_pattern(buf, io->disk_sector << 9, io->len, io->tag);
		res = io_run(io, fd, buf);
	}
	if (fd >= 0)
		close(fd);

	pthread_mutex_lock(&x->lock);
	if (io->verify && res == (long)io->len) {
		struct sf_disk *d = &x->disks[io->disk];
		uint64_t bad;
		uint32_t tag;
		int n;

		if (io->kind == SF_IO_READ) {
			n = sf_shadow_check(d, io->disk_sector, buf, io->len >> 9, &bad, &tag);
			if (n < 0)
				snprintf(io->why, sizeof(io->why),
					 "read %s %" PRIu64 "+%" PRIu64 ": disk %s sector %" PRIu64
					 " is not write %u's data", io->dev, io->off, io->len,
					 d->path, bad, tag);
			else
				x->verified_sectors += (uint64_t)n;
		} else {
			sf_shadow_set(d, io->disk_sector, io->len >> 9,
				      io->kind == SF_IO_ZEROES ? 1 : io->tag);
		}
	} else if (io->verify && io->kind == SF_IO_ZEROES && !res) {
		sf_shadow_set(&x->disks[io->disk], io->disk_sector, io->len >> 9, 1);
	}
	io->res = res;
	io->done = true;
	pthread_mutex_unlock(&x->lock);
	free(base);
	return NULL;
}

static bool io_done(struct sf_exec *x, struct sf_io *io)
{
	bool done;

	pthread_mutex_lock(&x->lock);
	done = io->done;
	pthread_mutex_unlock(&x->lock);
	return done;
}

/* Collect a finished I/O: its errors counted, its mismatch a finding. */
static void io_reap(struct sf_exec *x, struct sf_io *io)
{
	pthread_join(io->thread, NULL);
	io->busy = false;
	if (io->res < 0)
		x->io_errors++;
	if (io->why[0])
		finding(x, "%s", io->why);
	if (x->verbose > 1)
		printf("#   io %s %s %" PRIu64 "+%" PRIu64 ": %ld\n", io->dev,
		       io_names[io->kind], io->off, io->len, io->res);
}

static void reap_done(struct sf_exec *x)
{
	unsigned int i;

	for (i = 0; i < SF_IOS; i++)
		if (x->io[i].busy && io_done(x, &x->io[i]))
			io_reap(x, &x->io[i]);
}

static void msg_quiet(const char *dev, const char *msg)
{
	char *reply = NULL;

	dft_dm_message(dev, 0, msg, &reply);
	free(reply);
}

/*
 * Resume device @d, as a user would to free what waits on it.  A loaded
 * table can fail to go live where it loaded (dm checks that its devices
 * below are long enough only as it goes live), and the device then stays
 * suspended: the loaded table is dropped (*@cleared) and the live one
 * resumed.
 */
static int resume_anyway(int d, bool *cleared)
{
	char name[16];
	int r;

	snprintf(name, sizeof(name), "dmfz%d", d);
	*cleared = false;
	r = dft_dm_resume(name);
	if (r && !dft_dm_clear(name)) {
		*cleared = true;
		r = dft_dm_resume(name);
	}
	return r;
}

/* The view of a device after resume_anyway() returned @r: which table is live. */
static void resumed_view(struct sf_edev *e, int r, bool cleared)
{
	if (!r && !cleared && e->has_next)
		e->live = e->next;
	if (!r || cleared)
		e->has_next = false;
	e->suspended = r != 0;
}

/* resume_anyway() from the line's own thread, which owns the view. */
static void resume_dev(struct sf_exec *x, int d)
{
	bool cleared;
	int r = resume_anyway(d, &cleared);

	resumed_view(&x->dev[d], r, cleared);
}

/*
 * Wait for @io up to @ms; then let held bios go: "release" to every
 * device, then a suspend and resume of each (presuspend releases what
 * delay and stall rules hold).  Returns false if it is still held.
 */
static bool io_wait(struct sf_exec *x, struct sf_io *io, unsigned int ms)
{
	unsigned int waited = 0, step;
	int d;

	for (step = 0; step < 3; step++) {
		unsigned int limit = step == 0 ? ms : step == 1 ? SF_IO_WAIT_MS : SF_IO_HUNG_MS;

		for (waited = 0; waited < limit; waited += 10) {
			if (io_done(x, io))
				return true;
			dft_sleep_ms(10);
		}
		for (d = 0; d < SF_DEVS; d++) {
			char name[16];

			if (!x->dev[d].exists)
				continue;
			snprintf(name, sizeof(name), "dmfz%d", d);
			if (step == 0) {
				msg_quiet(name, "release");
			} else if (step == 1 && !x->dev[d].suspended) {
				dft_dm_suspend(name, true);
				resume_dev(x, d);
			}
		}
		if (x->verbose)
			printf("#   %s %s held: %s\n", io->dev, io_names[io->kind],
			       step == 0 ? "released" : "suspended and resumed");
	}
	return io_done(x, io);
}

/* "io dmfzD <kind> <offset> <length> <flags> <tag>" */
static int do_io(struct sf_exec *x, int d, char *rest)
{
	char kind[16], flags[32];
	uint64_t off, len, sector, tag;
	struct sf_io *io = NULL;
	bool clean, susp, async;
	unsigned int i;
	int disk;

	if (sscanf(rest, "%15s %" SCNu64 " %" SCNu64 " %31s %" SCNu64, kind, &off, &len, flags,
		   &tag) != 5 || !len || len > SF_MAX_IO || tag < 2 || tag > UINT32_MAX)
		return -EINVAL;
	for (i = 0; i < SF_NR_IO; i++)
		if (!strcmp(kind, io_names[i]))
			break;
	if (i == SF_NR_IO)
		return -EINVAL;
	async = strstr(flags, "async");

	disk = dev_disk(x, d, &sector);
	path_state(x, d, &clean, &susp);
	if (susp || !x->dev[d].exists) {
		x->skipped++;		/* it would wait for a resume */
		return 0;
	}
	reap_done(x);
	while (!io) {
		unsigned int j;

		for (j = 0; j < SF_IOS && !io; j++)
			if (!x->io[j].busy)
				io = &x->io[j];
		if (!io) {
			/* all busy: wait for the oldest */
			if (!io_wait(x, &x->io[0], SF_IO_WAIT_MS)) {
				finding(x, "I/O %s %s held for %u s", x->io[0].dev,
					io_names[x->io[0].kind], SF_IO_HUNG_MS / 1000);
				return 0;
			}
			io_reap(x, &x->io[0]);
		}
	}
	memset(io, 0, sizeof(*io));
	io->x = x;
	snprintf(io->dev, sizeof(io->dev), "dmfz%d", d);
	io->kind = (int)i;
	io->off = off;
	io->len = len;
	io->nowait = strstr(flags, "nowait");
	io->uring = strstr(flags, "uring");
	io->tag = (uint32_t)tag;
	io->disk = disk;
	io->disk_sector = disk >= 0 ? sector + (off >> 9) : 0;

	if (disk >= 0 && !(off & 511) && !(len & 511) &&
	    io->disk_sector + (len >> 9) <= x->disks[disk].sectors) {
		bool writes = i != SF_IO_READ && i != SF_IO_FLUSH;

		/* async I/O never checks; writes forget what they may change */
		io->verify = clean && !async && (off + len) >> 9 <= x->dev[d].live.len &&
			     !volatile_range(x, disk, io->disk_sector, len >> 9) &&
			     !write_in_flight(x, disk, io->disk_sector, len >> 9);
		if (writes) {
			pthread_mutex_lock(&x->lock);
			sf_shadow_set(&x->disks[disk], io->disk_sector, len >> 9, 0);
			pthread_mutex_unlock(&x->lock);
		}
	} else if (disk >= 0 && i != SF_IO_READ && i != SF_IO_FLUSH) {
		/* unaligned or past the end: it may still write what it can */
		uint64_t first = sector + (off >> 9);

		if (first < x->disks[disk].sectors) {
			pthread_mutex_lock(&x->lock);
			sf_shadow_set(&x->disks[disk], first, (len >> 9) + 1, 0);
			pthread_mutex_unlock(&x->lock);
		}
	}
	x->ios++;
	x->uring_ios += io->uring;
	io->busy = true;
	if (pthread_create(&io->thread, NULL, io_thread, io)) {
		io->busy = false;
		return -errno;
	}
	if (async)
		return 0;
	if (!io_wait(x, io, SF_IO_WAIT_MS)) {
		finding(x, "I/O %s %s %" PRIu64 "+%" PRIu64 " held for %u s", io->dev,
			io_names[io->kind], off, len, SF_IO_HUNG_MS / 1000);
		return 0;
	}
	io_reap(x, io);
	return 0;
}

/* ---- allocator knobs -------------------------------------------------------- */

/* "alloc <hook|top> <knob> <value...>"; "self" in the value is this process. */
static int do_alloc(struct sf_exec *x, char *rest)
{
	char path[256], val[128], *save = NULL, *hook, *knob, *v, *self;
	int fd, r = 0;
	ssize_t n;

	hook = strtok_r(rest, " ", &save);
	knob = strtok_r(NULL, " ", &save);
	v = strtok_r(NULL, "", &save);
	if (!hook || !knob)
		return -EINVAL;
	if (!v)
		v = "";
	self = strstr(v, "self");
	if (self)
		snprintf(val, sizeof(val), "%.*s%d%s\n", (int)(self - v), v, (int)getpid(),
			 self + 4);
	else
		snprintf(val, sizeof(val), "%s\n", v);
	if (!strcmp(hook, "top"))
		snprintf(path, sizeof(path), SF_DEBUGFS "/%s", knob);
	else
		snprintf(path, sizeof(path), SF_DEBUGFS "/%s/%s", hook, knob);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0) {
		x->skipped++;		/* dmf_alloc is not loaded, or has no such knob */
		return 0;
	}
	n = write(fd, val, strlen(val));
	if (n < 0)
		r = -errno;
	close(fd);
	if (!r && (!strcmp(knob, "probability") || !strcmp(knob, "fail-nth")))
		x->alloc_armed = true;
	return r;
}

/* Every knob the fuzzer writes back to where dmf_alloc starts. */
static void alloc_reset(struct sf_exec *x)
{
	static const char *const lines[] = {
		"failslab probability 0", "fail_page_alloc probability 0",
		"failslab require-module", "fail_page_alloc require-module",
		"failslab task-filter N", "fail_page_alloc task-filter N",
		"failslab times 1", "fail_page_alloc times 1", "top fail-nth -self",
		"top unmark self",
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(lines); i++) {
		char l[64];

		snprintf(l, sizeof(l), "%s", lines[i]);
		do_alloc(x, l);
	}
	x->alloc_armed = false;
}

/* ---- the control watchdog ---------------------------------------------------- */

/*
 * A dm ioctl can wait for I/O: a suspend that flushes, "cache off" and
 * the other messages that write back, a remove whose write-back goes to a
 * device below, while that device is suspended or its stall rule holds
 * every bio.  That is how device-mapper works (a user who suspends the
 * lower device first waits the same way), not a finding: after
 * SF_CTL_STUCK_MS the watchdog resumes every suspended device and then
 * releases every device's held bios once a second (a stall rule holds the
 * next bio of a write-back again), as that user would from another shell.
 * A line still running --hung-seconds later is a finding: the watchdog
 * prints the blocked tasks' stacks, the devices and the I/O in flight and
 * the finding and ends the process, since the stuck thread can neither be
 * stopped nor waited for.
 */
#define SF_CTL_STUCK_MS	10000

/*
 * The watchdog's resume_anyway() runs beside the line's thread, which owns
 * the view of the devices: what it did waits in x->unstuck_* until that
 * thread takes it (take_unstuck()).
 */
static void ctl_resume(struct sf_exec *x, int d)
{
	bool cleared;
	int r = resume_anyway(d, &cleared);

	pthread_mutex_lock(&x->lock);
	if (cleared)
		x->unstuck_cleared |= 1U << d;
	if (!r)
		x->unstuck_resumed |= 1U << d;
	pthread_mutex_unlock(&x->lock);
}

static void take_unstuck(struct sf_exec *x)
{
	unsigned int cleared, resumed;
	int d;

	pthread_mutex_lock(&x->lock);
	cleared = x->unstuck_cleared;
	resumed = x->unstuck_resumed;
	x->unstuck_cleared = 0;
	x->unstuck_resumed = 0;
	pthread_mutex_unlock(&x->lock);
	for (d = 0; d < SF_DEVS; d++)
		if ((cleared | resumed) & (1U << d))
			resumed_view(&x->dev[d], resumed & (1U << d) ? 0 : -EIO,
				     cleared & (1U << d));
}

static void ctl_unstick(struct sf_exec *x, bool resume)
{
	char name[16];
	int d;

	for (d = 0; d < SF_DEVS; d++) {
		if (!x->dev[d].exists)
			continue;
		snprintf(name, sizeof(name), "dmfz%d", d);
		if (resume && x->dev[d].suspended)
			ctl_resume(x, d);
		msg_quiet(name, "release");
	}
}

/*
 * The kernel's view of a hang, printed before the finding: every blocked
 * task's stack (sysrq w, which the kernel takes from root whatever
 * kernel.sysrq says), as the hung-task detector would print it much later.
 */
static void ctl_dump_blocked(void)
{
	unsigned int lines = 0;
	struct dft_kmsg k;
	const char *text;
	char buf[1024];
	int fd;

	dft_kmsg_mark(&k);
	fd = open("/proc/sysrq-trigger", O_WRONLY | O_CLOEXEC);
	if (fd < 0 || write(fd, "w", 1) != 1)
		printf("#   blocked: no sysrq-trigger: %s\n", strerror(errno));
	if (fd >= 0)
		close(fd);
	dft_sleep_ms(1000);
	while (lines++ < 1000 && dft_kmsg_next(&k, buf, sizeof(buf), &text) > 0)
		printf("#   blocked: %s\n", text);
	dft_kmsg_close(&k);
}

/* The first line of /sys/block/@disk/@file in @buf ("" if none). */
static void sys_block_read(const char *disk, const char *file, char *buf, size_t len)
{
	char path[300];
	FILE *f;

	snprintf(path, sizeof(path), "/sys/block/%s/%s", disk, file);
	buf[0] = 0;
	f = fopen(path, "re");
	if (f && !fgets(buf, (int)len, f))
		buf[0] = 0;
	if (f)
		fclose(f);
	buf[strcspn(buf, "\n")] = 0;
}

/*
 * Where the bios of a hang are: each fuzzer device's table and status,
 * every dm device (its name, whether suspended: dm holds the bios of a
 * suspended device before it counts them in flight) and every other block
 * device with I/O in flight (reads, writes).
 */
static void ctl_dump_devices(const struct sf_exec *x)
{
	struct dirent *de;
	DIR *dir;
	int d;

	for (d = 0; d < SF_DEVS; d++) {
		static const bool table[] = { true, false };
		char name[16];
		unsigned int i;

		if (!x->dev[d].exists)
			continue;
		snprintf(name, sizeof(name), "dmfz%d", d);
		for (i = 0; i < ARRAY_SIZE(table); i++) {
			struct dft_dev dev;

			if (dft_dm_get(name, table[i], &dev)) {
				printf("#   device: %s: %s\n", name, dft_dm_last_error());
				break;
			}
			printf("#   device: %s (%u:%u)%s %s: %s %.300s\n", name, dev.major,
			       dev.minor, dev.suspended ? " suspended" : "",
			       table[i] ? "table" : "status", dev.nr_segs ? dev.segs[0].type : "-",
			       dev.nr_segs ? dev.segs[0].params : "");
			dft_dm_put(&dev);
		}
	}
	dir = opendir("/sys/block");
	while (dir && (de = readdir(dir))) {
		char inflight[64], name[130], suspended[8];
		unsigned long r = 0, w = 0;

		if (de->d_name[0] == '.')
			continue;
		sys_block_read(de->d_name, "inflight", inflight, sizeof(inflight));
		sys_block_read(de->d_name, "dm/name", name, sizeof(name));
		sys_block_read(de->d_name, "dm/suspended", suspended, sizeof(suspended));
		if (sscanf(inflight, "%lu %lu", &r, &w) != 2)
			r = w = 0;
		if (name[0])
			printf("#   block: %s (%s)%s, in flight %lu %lu\n", de->d_name, name,
			       strcmp(suspended, "1") ? "" : " suspended", r, w);
		else if (r || w)
			printf("#   block: %s, in flight %lu %lu\n", de->d_name, r, w);
	}
	if (dir)
		closedir(dir);
}

static void *ctl_watchdog(void *arg)
{
	struct sf_exec *x = arg;
	uint64_t seen = 0, waited = 0;

	while (1) {
		uint64_t line;

		dft_sleep_ms(100);
		pthread_mutex_lock(&x->lock);
		line = x->ctl_line;
		if (x->ctl_stop) {
			pthread_mutex_unlock(&x->lock);
			return NULL;
		}
		pthread_mutex_unlock(&x->lock);
		if (!line || line != seen) {
			seen = line;
			waited = 0;
			continue;
		}
		waited += 100;
		if (waited == SF_CTL_STUCK_MS) {
			ctl_unstick(x, true);
			printf("#   watchdog: '%s' waited %u s: suspended devices resumed, held bios released\n",
			       x->ctl_text, SF_CTL_STUCK_MS / 1000);
		} else if (waited > SF_CTL_STUCK_MS && waited % 1000 == 0) {
			ctl_unstick(x, false);
		}
		if (waited >= SF_CTL_STUCK_MS + x->hung_ms) {
			ctl_dump_blocked();
			ctl_dump_devices(x);
			printf("not ok - hung: '%s' has not returned in %u s\n", x->ctl_text,
			       (SF_CTL_STUCK_MS + x->hung_ms) / 1000);
			fflush(stdout);
			_exit(1);
		}
	}
}

/* What the watchdog watches: a line, or a step of the end (NULL: nothing). */
static void ctl_running(struct sf_exec *x, const char *text)
{
	pthread_mutex_lock(&x->lock);
	if (text) {
		snprintf(x->ctl_text, sizeof(x->ctl_text), "%s", text);
		x->ctl_line = ++x->ctl_seq;
	} else {
		x->ctl_line = 0;
	}
	pthread_mutex_unlock(&x->lock);
}

/* ---- the oracles' own tests ------------------------------------------------ */

/*
 * "kmsg <text>": a line in the kernel log, as if the kernel had logged it.
 * With its newline: a record without one stays open for a continuation,
 * and /dev/kmsg readers see it only when the next one starts.
 */
static int do_kmsg(const char *text)
{
	int fd = open("/dev/kmsg", O_WRONLY | O_CLOEXEC), r = 0;
	char line[SF_LINE + 2];

	if (fd < 0)
		return -errno;
	snprintf(line, sizeof(line), "%s\n", text);
	if (write(fd, line, strlen(line)) < 0)
		r = -errno;
	close(fd);
	return r;
}

/*
 * "disk-write dN <sector> <count>": write sectors of a disk directly, as
 * something other than the devices would, leaving the shadow as it was.
 */
static int do_disk_write(struct sf_exec *x, const char *args)
{
	unsigned char buf[512];
	uint64_t sector, nr, i;
	char disk[8];
	int d, fd, r = 0;

	if (sscanf(args, "%7s %" SCNu64 " %" SCNu64, disk, &sector, &nr) != 3)
		return -EINVAL;
	d = below_index(x, disk);
	if (d < 0 || d >= SF_DISKS || !nr)
		return -EINVAL;
	fd = open(x->disks[d].path, O_WRONLY | O_SYNC | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	for (i = 0; i < nr && !r; i++) {
		sf_pattern(buf, (sector + i) << 9, sizeof(buf), 0xdeadbeef);
		if (pwrite(fd, buf, sizeof(buf), (off_t)((sector + i) << 9)) != sizeof(buf))
			r = -errno;
	}
	if (!r && ioctl(fd, BLKFLSBUF, 0))
		r = -errno;
	close(fd);
	return r;
}

/* ---- dm operations ----------------------------------------------------------- */

/* The first word of a dust message (dm-dust's words are not the fault parser's). */
static bool dust_word(const char *msg)
{
	static const char *const w[] = {
		"addbadblock", "removebadblock", "queryblock", "enable", "disable",
		"countbadblocks", "clearbadblocks", "quiet", "listbadblocks",
	};
	size_t n = strcspn(msg, " ");
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(w); i++)
		if (strlen(w[i]) == n && !strncmp(msg, w[i], n))
			return true;
	return false;
}

/* The kernel log since the last line: trouble is a finding; did dm log a reason? */
static bool drain_kmsg(struct sf_exec *x, bool *reason)
{
	char buf[1024];
	const char *text;
	bool any = false;

	while (dft_kmsg_next(&x->kmsg, buf, sizeof(buf), &text) > 0) {
		const char *p = dft_kernel_problem(text);

		any = true;
		/* a stack dump alone is a verbose=2 rule's or a failed allocation's */
		if (p && strcmp(p, "Call Trace"))
			finding(x, "kernel: %s", text);
		else if (x->problem && strstr(text, x->problem))
			finding(x, "kernel: %s", text);
		if (strstr(text, "device-mapper: "))
			*reason = true;
		if (x->verbose > 1)
			printf("#   kernel: %s\n", text);
	}
	return any;
}

static int do_msg(struct sf_exec *x, int d, const char *name, const char *msg)
{
	char word[128], *reply = NULL;
	const char *why = NULL;
	bool reason = false, dust = dust_word(msg);
	int host, r;

	/* on fault-dust, what neither parser knows is refused as dm-dust refuses it */
	if (x->dev[d].exists && x->dev[d].live.type == SF_DUST && !dft_msg_name(msg))
		dust = true;

	host = dust ? 0 : dft_msg_check(msg, word, sizeof(word), &why);
	drain_kmsg(x, &reason);
	reason = false;
	r = dft_dm_message(name, 0, msg, &reply);
	x->msgs++;
	if (x->verbose > 1 && reply && *reply)
		printf("#   reply: %.200s\n", reply);
	free(reply);
	if (!x->dev[d].exists)
		return r;
	if (!r && host == -EINVAL)
		finding(x, "%s: the kernel accepts '%s', the target's parser refuses it: %s",
			name, msg, why);
	if (r) {
		x->refused++;
		drain_kmsg(x, &reason);
		/* dm-dust's words are refused as dm-dust refuses them, some silently */
		if (!reason && !dust && !(r == -ENOMEM && x->alloc_armed))
			finding(x, "%s: '%s' refused (%s) with no reason in the kernel log", name,
				msg, strerror(-r));
	}
	return r;
}

static void check_status(struct sf_exec *x)
{
	int d;

	for (d = 0; d < SF_DEVS; d++) {
		struct dft_dev dev;
		struct dft_stats st;
		const char *err = NULL;
		char name[16];

		if (!x->dev[d].exists || x->dev[d].live.type != SF_FAULT)
			continue;
		snprintf(name, sizeof(name), "dmfz%d", d);
		if (dft_dm_get(name, false, &dev))
			continue;
		if (dev.nr_segs == 1 && !strcmp(dev.segs[0].type, "fault")) {
			if (dft_parse_info(dev.segs[0].params, &st, &err))
				finding(x, "%s: status does not parse (%s): %.300s", name, err,
					dev.segs[0].params);
			else
				dft_stats_free(&st);
		}
		dft_dm_put(&dev);
	}
}

/* reload-self: load the live table as the kernel prints it, then resume. */
static int reload_self(struct sf_exec *x, int d, const char *name)
{
	struct dft_dev dev;
	int r;

	r = dft_dm_get(name, true, &dev);
	if (r)
		return r;
	if (dev.nr_segs != 1) {
		dft_dm_put(&dev);
		return 0;
	}
	r = dft_dm_load(name, dev.segs[0].len, dev.segs[0].type, dev.segs[0].params);
	if (r)
		finding(x, "%s: its own table is refused (%s): %s %.300s", name, strerror(-r),
			dev.segs[0].type, dev.segs[0].params);
	dft_dm_put(&dev);
	/* the inactive slot holds the live table now, in place of any loaded one */
	if (!r)
		x->dev[d].has_next = false;
	if (!r && !x->dev[d].suspended)
		r = dft_dm_resume(name);
	return r;
}

/*
 * The operation of one line: 0 with its result (whatever the kernel
 * answered) in *@res, or -EINVAL if the line does not parse.
 */
static int run_op(struct sf_exec *x, const char *line, int *res)
{
	char buf[SF_LINE], *save = NULL, *op, *dev, *rest;
	struct sf_edev *e;
	struct sf_table t;
	int d, r = 0;

	snprintf(buf, sizeof(buf), "%s", line);
	op = strtok_r(buf, " ", &save);
	dev = strtok_r(NULL, " ", &save);
	rest = strtok_r(NULL, "", &save);
	if (!op || !dev)
		return -EINVAL;
	x->ops++;
	if (!strcmp(op, "kmsg") || !strcmp(op, "disk-write")) {
		char a[SF_LINE];

		snprintf(a, sizeof(a), "%s%s%s", dev, rest ? " " : "", rest ? rest : "");
		r = op[0] == 'k' ? do_kmsg(a) : do_disk_write(x, a);
		if (r == -EINVAL)
			return r;
		*res = r;
		return 0;
	}
	if (!strcmp(op, "alloc")) {
		char a[SF_LINE];

		snprintf(a, sizeof(a), "%s%s%s", dev, rest ? " " : "", rest ? rest : "");
		*res = do_alloc(x, a);
		return 0;
	}
	d = dev_index(dev);
	if (d < 0)
		return -EINVAL;
	e = &x->dev[d];

	if (!strcmp(op, "create") || !strcmp(op, "load")) {
		if (!rest || parse_table(x, rest, &t))
			return -EINVAL;
		if (op[0] == 'c') {
			r = dft_dm_create_as(dev, t.len, sf_type_names[t.type], t.params);
			if (!r) {
				e->exists = true;
				e->suspended = false;
				e->has_next = false;
				e->live = t;
			}
		} else {
			r = dft_dm_load(dev, t.len, sf_type_names[t.type], t.params);
			if (!r) {
				e->has_next = true;
				e->next = t;
			}
		}
	} else if (!strcmp(op, "resume")) {
		r = dft_dm_resume(dev);
		if (!r) {
			if (e->has_next)
				e->live = e->next;
			e->has_next = false;
			e->suspended = false;
		}
	} else if (!strcmp(op, "suspend")) {
		r = dft_dm_suspend(dev, rest && !strcmp(rest, "noflush"));
		if (!r)
			e->suspended = true;
	} else if (!strcmp(op, "remove")) {
		r = dft_dm_remove(dev, false);
		if (!r)
			memset(e, 0, sizeof(*e));
	} else if (!strcmp(op, "reload-self")) {
		r = reload_self(x, d, dev);
	} else if (!strcmp(op, "msg")) {
		if (!rest)
			return -EINVAL;
		r = do_msg(x, d, dev, rest);
	} else if (!strcmp(op, "io")) {
		if (!rest)
			return -EINVAL;
		r = do_io(x, d, rest);
		if (r == -EINVAL)
			return r;
	} else {
		return -EINVAL;
	}
	*res = r;
	return 0;
}

/**
 * sf_exec_line - run one line of a sequence, then the oracles
 * @x: the executor
 * @line: the line (see README)
 *
 * The watchdog watches the line and its oracles, which may wait on the
 * devices too (reaping I/O, asking status).
 *
 * Return: 0 if it ran (whatever the kernel answered), -EINVAL if the line
 * does not parse.  A finding is in @x->fail.
 */
int sf_exec_line(struct sf_exec *x, const char *line)
{
	bool reason = false;
	int r = 0;

	ctl_running(x, line);
	if (run_op(x, line, &r)) {
		ctl_running(x, NULL);
		return -EINVAL;
	}
	take_unstuck(x);
	if (x->verbose)
		printf("# %s -> %d\n", line, r);
	reap_done(x);
	drain_kmsg(x, &reason);
	check_status(x);
	ctl_running(x, NULL);
	take_unstuck(x);
	return 0;
}

int sf_exec_init(struct sf_exec *x, struct sf_disk *disks, unsigned int nr_disks, int verbose,
		 const char *problem, unsigned int hung_secs)
{
	unsigned int i;

	memset(x, 0, sizeof(*x));
	x->disks = disks;
	x->nr_disks = nr_disks;
	x->verbose = verbose;
	x->problem = problem;
	x->hung_ms = hung_secs * 1000;
	pthread_mutex_init(&x->lock, NULL);
	for (i = 0; i < nr_disks; i++)
		memset(disks[i].shadow, 0, disks[i].sectors * sizeof(uint32_t));
	dft_kmsg_mark(&x->kmsg);
	if (x->kmsg.fd < 0)
		return -errno;
	return -pthread_create(&x->watchdog, NULL, ctl_watchdog, x);
}

/**
 * sf_exec_end - end a sequence: let every I/O finish, remove every device
 * @x: the executor
 *
 * Suspended devices are resumed and held bios released first; a device
 * that no I/O holds open and no device is stacked on must then remove.
 * The watchdog watches these steps as it does lines: a remove whose
 * write-back a stall rule below holds is released, not a hang.
 *
 * Return: 0, or -1 with a finding in @x->fail.
 */
int sf_exec_end(struct sf_exec *x)
{
	unsigned int i, pass;
	char step[SF_LINE];
	bool reason = false;
	int d, r;

	for (d = 0; d < SF_DEVS; d++) {
		char name[16];

		if (!x->dev[d].exists)
			continue;
		snprintf(name, sizeof(name), "dmfz%d", d);
		snprintf(step, sizeof(step), "end: resume, release and recover %s", name);
		ctl_running(x, step);
		if (x->dev[d].suspended)
			resume_dev(x, d);
		msg_quiet(name, "release");
		msg_quiet(name, "recover");
		ctl_running(x, NULL);
		take_unstuck(x);
	}
	for (i = 0; i < SF_IOS; i++) {
		if (!x->io[i].busy)
			continue;
		if (!io_wait(x, &x->io[i], SF_IO_WAIT_MS)) {
			finding(x, "I/O %s %s held for %u s at the end", x->io[i].dev,
				io_names[x->io[i].kind], SF_IO_HUNG_MS / 1000);
			return -1;	/* its thread still runs: nothing is freed */
		}
		io_reap(x, &x->io[i]);
	}
	alloc_reset(x);
	/* upper devices first: a pass removes what nothing is stacked on */
	for (pass = 0; pass < SF_DEVS; pass++) {
		for (d = SF_DEVS - 1; d >= 0; d--) {
			char name[16];

			if (!x->dev[d].exists)
				continue;
			snprintf(name, sizeof(name), "dmfz%d", d);
			snprintf(step, sizeof(step), "end: remove %s", name);
			ctl_running(x, step);
			r = dft_dm_remove(name, true);
			ctl_running(x, NULL);
			if (!r)
				memset(&x->dev[d], 0, sizeof(x->dev[d]));
			else if (pass == SF_DEVS - 1)
				finding(x, "%s: cannot be removed at the end: %s", name,
					dft_dm_last_error());
		}
	}
	drain_kmsg(x, &reason);
	return x->fail[0] ? -1 : 0;
}

/* Stop the watchdog: no line runs any more. */
void sf_exec_stop(struct sf_exec *x)
{
	pthread_mutex_lock(&x->lock);
	x->ctl_stop = true;
	pthread_mutex_unlock(&x->lock);
	pthread_join(x->watchdog, NULL);
}

void sf_exec_free(struct sf_exec *x)
{
	sf_exec_stop(x);
	dft_kmsg_close(&x->kmsg);
	pthread_mutex_destroy(&x->lock);
}
