// SPDX-License-Identifier: GPL-2.0-only
/*
 * dmfault crashtest: crash-state exploration with the target's volatile
 * write cache.
 *
 * A fault device with the cache goes on DEV.  A control run does setup and
 * workload, counts the flushes the workload issued (its epochs), unmounts
 * with the power on and runs the check, which must pass.  Then, for
 * each chosen point (after the n-th flush, or at the end of the workload)
 * and each seed: setup, mark, arm the crash at the point, workload, unmount
 * what is still mounted from the device, recover, check.  A check that
 * fails is a finding, printed with the one command that repeats it.
 *
 * The commands run with sh -c, with DMF_DEV (the fault device), DMF_MNT (an
 * empty directory), DMF_POINT and DMF_SEED in the environment.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/fs.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "dmfault.h"
#include "rule.h"

#define DFT_CT_NAME	"dmfault-crashtest"
#define DFT_CT_TAIL	2048		/* bytes of a failed check's output kept */

/* The summary table: one row a point. */
struct dft_ct_row {
	uint64_t point;
	unsigned int runs, failed;
	uint64_t lost_writes, lost_sectors;	/* over its runs */
};

struct dft_ct {
	const struct dft_opts *o;
	const char *disk;
	char dev[64];
	char mnt[64];
	char out[80];			/* the commands' output, one run at a time */
	char hung[700];			/* this run: what hung past --step-timeout, or "" */
	unsigned int major, minor;
	uint64_t flushes;		/* epochs the control run counted */
	unsigned int runs, failed;
	struct dft_ct_row *rows;
	unsigned int nr_rows;
	struct dft_json j;
};

/* A point: 0 the end of the workload, n after the n-th flush. */
static void dft_ct_point_str(uint64_t point, char *buf, size_t len)
{
	if (point)
		snprintf(buf, len, "flush:%llu", (unsigned long long)point);
	else
		snprintf(buf, len, "end");
}

/*
 * Run "sh -c @cmd" (the @what line) with the environment: its exit status,
 * or -1.  Past --step-timeout it is killed (with what it started), @ct->hung
 * says where it hung and the status is 124, as timeout(1) gives; a task that
 * SIGKILL does not end is an error (-1): the next runs would pile up on it.
 */
static int dft_ct_sh(struct dft_ct *ct, const char *what, const char *cmd, uint64_t point,
		     uint64_t seed)
{
	char dev[80], mnt[80], p[48], s[32], hung[600];
	char *env[] = { dev, mnt, p, s, NULL };
	int status, fd, r;

	snprintf(dev, sizeof(dev), "DMF_DEV=%s", ct->dev);
	snprintf(mnt, sizeof(mnt), "DMF_MNT=%s", ct->mnt);
	strcpy(p, "DMF_POINT=");
	dft_ct_point_str(point, p + strlen(p), sizeof(p) - strlen(p));
	snprintf(s, sizeof(s), "DMF_SEED=%llu", (unsigned long long)seed);
	r = dft_sh_timeout(cmd, ct->o->verbose ? NULL : ct->out, env, ct->o->step_timeout,
			   &status, hung, sizeof(hung));
	if (*hung) {
		snprintf(ct->hung, sizeof(ct->hung), "the %s hung: %s", what, hung);
		fd = open(ct->out, O_WRONLY | O_CREAT | O_APPEND, 0600);
		if (fd >= 0) {
			dprintf(fd, "dmfault: %s\n", ct->hung);
			close(fd);
		}
	}
	if (r == -ETIMEDOUT)
		return 124;
	if (r) {
		dft_err("%s: %s", what, *hung ? ct->hung : strerror(-r));
		return -1;
	}
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static int dft_ct_msg(const char *fmt, ...) __printf(1, 2);

static int dft_ct_msg(const char *fmt, ...)
{
	char msg[128], *reply;
	va_list ap;
	int r;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	r = dft_dm_message(DFT_CT_NAME, 0, msg, &reply);
	free(reply);
	if (r)
		dft_err("%s: message '%s': %s", DFT_CT_NAME, msg, dft_dm_last_error());
	return r;
}

/* The cache's counters from the INFO status. */
static int dft_ct_cache(struct dft_cache_stat *c)
{
	struct dft_stats st;
	struct dft_dev dev;
	const char *err = "no cache word";
	int r;

	r = dft_dm_get(DFT_CT_NAME, false, &dev);
	if (r)
		return r;
	r = dev.fault < 0 ? -EPROTO : dft_parse_info(dev.segs[dev.fault].params, &st, &err);
	if (!r && (!st.cache || dft_parse_cache(st.cache, c)))
		r = -EPROTO;
	if (r)
		dft_err("%s: cannot read the cache's status: %s", DFT_CT_NAME, err);
	dft_stats_free(&st);
	dft_dm_put(&dev);
	return r;
}

/* Unmount everything mounted from the device, innermost first. */
static void dft_ct_unmount(struct dft_ct *ct)
{
	char line[4096], mnt[2][1024], *m;
	unsigned int maj, min, n, i;
	FILE *f;

	for (n = 0; n < 16; n++) {
		f = fopen("/proc/self/mountinfo", "r");
		if (!f)
			return;
		i = 0;
		while (fgets(line, sizeof(line), f)) {
			if (sscanf(line, "%*u %*u %u:%u %*s %1023s", &maj, &min, mnt[i & 1]) != 3 ||
			    maj != ct->major || min != ct->minor)
				continue;
			i++;
		}
		fclose(f);
		if (!i)
			return;
		m = mnt[(i - 1) & 1];
		if (umount2(m, 0) && umount2(m, MNT_DETACH)) {
			dft_err("cannot unmount %s: %s", m, strerror(errno));
			return;
		}
	}
}

/* After recover: nothing cached above the device from before the crash. */
static void dft_ct_drop_caches(struct dft_ct *ct)
{
	int fd = open(ct->dev, O_RDONLY);

	if (fd >= 0) {
		ioctl(fd, BLKFLSBUF, 0);
		close(fd);
	}
}

static void dft_ct_print_tail(struct dft_ct *ct)
{
	char buf[DFT_CT_TAIL + 1];

	if (dft_file_tail(ct->out, buf, sizeof(buf)))
		fprintf(stderr, "%s", buf);
}

static void dft_ct_repro(struct dft_ct *ct, uint64_t point, uint64_t seed, FILE *f)
{
	const struct dft_opts *o = ct->o;
	char p[32];

	dft_ct_point_str(point, p, sizeof(p));
	fprintf(f, "  dmfault crashtest --setup '%s' --workload '%s' --check '%s' --lose %s "
		"--at %s --seed %llu %s\n", o->ct_setup, o->ct_workload, o->ct_check,
		o->ct_lose ? o->ct_lose : "sectors", p, (unsigned long long)seed, ct->disk);
}

/*
 * One run: setup, mark, arm (point > 0), workload, crash (at the end if
 * the trigger did not fire, or point 0), unmount, recover, check.  Return:
 * the check's exit status, or -1 on an error of our own.
 */
static int dft_ct_run(struct dft_ct *ct, uint64_t point, uint64_t seed,
		      struct dft_cache_stat *after)
{
	const struct dft_opts *o = ct->o;
	const char *lose = o->ct_lose ? o->ct_lose : "sectors";
	struct dft_cache_stat c;
	int r;

	unlink(ct->out);
	ct->hung[0] = '\0';
	r = dft_ct_sh(ct, "setup", o->ct_setup, point, seed);
	if (r) {
		dft_err("setup exited %d", r);
		dft_ct_print_tail(ct);
		return -1;
	}
	if (dft_ct_msg("mark"))
		return -1;
	if (point && dft_ct_msg("crash after=flush:%llu lose=%s seed=%llu",
				(unsigned long long)point, lose, (unsigned long long)seed))
		return -1;
	/* its status means nothing after the power cut; a hang does */
	if (dft_ct_sh(ct, "workload", o->ct_workload, point, seed) < 0)
		return -1;
	if (dft_ct_cache(&c))
		return -1;
	if (strcmp(c.state, "crashed") &&
	    (dft_ct_msg("crash after=none") ||
	     dft_ct_msg("crash lose=%s seed=%llu", lose, (unsigned long long)seed)))
		return -1;
	dft_ct_unmount(ct);
	if (dft_ct_msg("recover") || dft_ct_cache(after))
		return -1;
	dft_ct_drop_caches(ct);
	r = dft_ct_sh(ct, "check", o->ct_check, point, seed);
	dft_ct_unmount(ct);
	return r < 0 || !*ct->hung ? r : 124;
}

/* The control run: count the epochs, and the check must pass uncrashed. */
static int dft_ct_control(struct dft_ct *ct)
{
	const struct dft_opts *o = ct->o;
	struct dft_cache_stat a, b;
	int r;

	unlink(ct->out);
	ct->hung[0] = '\0';
	if (dft_ct_sh(ct, "setup", o->ct_setup, 0, 0)) {
		dft_err("setup failed in the control run");
		dft_ct_print_tail(ct);
		return -1;
	}
	if (dft_ct_msg("mark") || dft_ct_cache(&a))
		return -1;
	r = dft_ct_sh(ct, "workload", o->ct_workload, 0, 0);
	if (r) {
		dft_err("the workload exited %d without a crash", r);
		dft_ct_print_tail(ct);
		return -1;
	}
	if (dft_ct_cache(&b))
		return -1;
	ct->flushes = b.v[DFT_C_FLUSHES] - a.v[DFT_C_FLUSHES];
	/* a clean shutdown: unmount with the power on */
	dft_ct_unmount(ct);
	r = dft_ct_sh(ct, "check", o->ct_check, 0, 0);
	dft_ct_unmount(ct);
	if (r) {
		dft_err("the check fails without a crash (exit %d): it cannot judge crashes", r);
		dft_ct_print_tail(ct);
		return -1;
	}
	return 0;
}

static void dft_ct_report(struct dft_ct *ct, uint64_t point, uint64_t seed, int r,
			  const struct dft_cache_stat *c)
{
	char p[32];

	dft_ct_point_str(point, p, sizeof(p));
	ct->runs++;
	if (r)
		ct->failed++;
	if (ct->o->json) {
		dft_json_begin(&ct->j, NULL, '{');
		dft_json_str(&ct->j, "point", p);
		dft_json_u64(&ct->j, "seed", seed);
		dft_json_bool(&ct->j, "ok", !r);
		dft_json_u64(&ct->j, "check_exit", r);
		if (*ct->hung)
			dft_json_str(&ct->j, "hung", ct->hung);
		dft_json_u64(&ct->j, "lost_writes", c->v[DFT_C_LOST_WRITES]);
		dft_json_u64(&ct->j, "lost_sectors", c->v[DFT_C_LOST_SECTORS]);
		dft_json_end(&ct->j, '}');
		return;
	}
	if (dft_tty(stderr))
		fprintf(stderr, "\r%u runs, %u failed ", ct->runs, ct->failed);
	if (!r && !ct->o->verbose)
		return;
	printf("%s%s %s seed=%llu: lost %llu writes, %llu sectors; ", dft_tty(stderr) ? "\n" : "",
	       r ? "FAIL" : "ok", p, (unsigned long long)seed,
	       (unsigned long long)c->v[DFT_C_LOST_WRITES],
	       (unsigned long long)c->v[DFT_C_LOST_SECTORS]);
	if (*ct->hung)
		printf("%s\n", ct->hung);
	else
		printf("check exited %d\n", r);
	if (r) {
		dft_ct_print_tail(ct);
		dft_ct_repro(ct, point, seed, stdout);
	}
}

/* Points to explore: --at, or every flush and the end, or --points of them. */
static unsigned int dft_ct_points(struct dft_ct *ct, uint64_t *pts, unsigned int max)
{
	const struct dft_opts *o = ct->o;
	uint64_t all = ct->flushes + 1, want = o->ct_points ? (uint64_t)o->ct_points : all, i;
	unsigned int n = 0;

	if (want > all)
		want = all;
	if (want > max)
		want = max;
	/* evenly spread over 1..flushes, the end (0) last */
	for (i = 0; i + 1 < want; i++)
		pts[n++] = 1 + i * ct->flushes / (want - 1);
	pts[n++] = 0;
	return n;
}

static void dft_ct_summary(const struct dft_ct *ct)
{
	const struct dft_ct_row *row;
	char p[32];
	unsigned int i;

	printf("%-16s %6s %7s %12s %13s\n", "POINT", "RUNS", "FAILED", "LOST_WRITES",
	       "LOST_SECTORS");
	for (i = 0; i < ct->nr_rows; i++) {
		row = &ct->rows[i];
		dft_ct_point_str(row->point, p, sizeof(p));
		printf("%-16s %6u %7u %12llu %13llu\n", p, row->runs, row->failed,
		       (unsigned long long)row->lost_writes,
		       (unsigned long long)row->lost_sectors);
	}
}

static int dft_ct_explore(struct dft_ct *ct)
{
	const struct dft_opts *o = ct->o;
	uint64_t pts[4096], seed, first = o->ct_have_seed ? o->ct_seed : 1;
	uint64_t nseeds = o->ct_have_seed ? 1 : (o->ct_seeds ? (uint64_t)o->ct_seeds : 2);
	struct dft_cache_stat c;
	unsigned int np, i;
	int r;

	if (o->ct_at) {
		np = 1;
		pts[0] = strcmp(o->ct_at, "end") ? strtoull(o->ct_at + 6, NULL, 10) : 0;
	} else {
		if (dft_ct_control(ct))
			return -1;
		np = dft_ct_points(ct, pts, ARRAY_SIZE(pts));
	}
	if (o->json) {
		dft_json_u64(&ct->j, "epochs", ct->flushes);
		dft_json_begin(&ct->j, "runs", '[');
	} else if (!o->ct_at) {
		printf("%s: %llu flush epochs; %u points x %llu seeds\n", ct->disk,
		       (unsigned long long)ct->flushes, np, (unsigned long long)nseeds);
	}
	ct->rows = calloc(np, sizeof(*ct->rows));
	if (!ct->rows) {
		dft_err("out of memory");
		return -1;
	}
	for (i = 0; i < np; i++) {
		ct->rows[ct->nr_rows++].point = pts[i];
		for (seed = first; seed < first + nseeds; seed++) {
			r = dft_ct_run(ct, pts[i], seed, &c);
			if (r < 0)
				return -1;
			dft_ct_report(ct, pts[i], seed, r, &c);
			ct->rows[i].runs++;
			ct->rows[i].failed += !!r;
			ct->rows[i].lost_writes += c.v[DFT_C_LOST_WRITES];
			ct->rows[i].lost_sectors += c.v[DFT_C_LOST_SECTORS];
		}
	}
	if (o->json)
		dft_json_end(&ct->j, ']');
	return 0;
}

static int dft_ct_check_opts(const struct dft_cmd *cmd, const struct dft_opts *o)
{
	const char *why;
	char word[64];
	char *end;

	if (!o->ct_setup || !o->ct_workload || !o->ct_check)
		return dft_usage_err(cmd, "--setup, --workload and --check are needed");
	/* the policy as the target's own parser reads it */
	snprintf(word, sizeof(word), "lose=%s", o->ct_lose ? o->ct_lose : "sectors");
	if (dft_cache_option_check(word, &why))
		return dft_usage_err(cmd, "--lose %s: %s", o->ct_lose, why);
	if (o->ct_at && strcmp(o->ct_at, "end") &&
	    (strncmp(o->ct_at, "flush:", 6) || !isdigit(o->ct_at[6]) ||
	     !strtoull(o->ct_at + 6, &end, 10) || *end))
		return dft_usage_err(cmd, "--at: '%s' is not flush:N (N >= 1) or end", o->ct_at);
	if (o->ct_at && !o->ct_have_seed)
		return dft_usage_err(cmd, "--at needs --seed");
	return 0;
}

/* Create the fault device with the cache on @disk. */
static int dft_ct_create(struct dft_ct *ct)
{
	char params[256];
	uint64_t bytes;
	struct stat stt;
	struct dft_dev dev;
	int fd, r;

	fd = open(ct->disk, O_RDONLY);
	if (fd < 0 || fstat(fd, &stt) || !S_ISBLK(stt.st_mode) ||
	    ioctl(fd, BLKGETSIZE64, &bytes)) {
		r = dft_err("%s: not a block device I can open: %s", ct->disk, strerror(errno));
		if (fd >= 0)
			close(fd);
		return r;
	}
	close(fd);
	if (ct->o->ct_have_limit)
		snprintf(params, sizeof(params), "%u:%u 0 0 2 cache limit=%llu",
			 major(stt.st_rdev), minor(stt.st_rdev),
			 (unsigned long long)ct->o->ct_limit);
	else
		snprintf(params, sizeof(params), "%u:%u 0 0 1 cache", major(stt.st_rdev),
			 minor(stt.st_rdev));
	r = dft_dm_create(DFT_CT_NAME, bytes >> 9, params);
	if (r)
		return dft_dev_err(DFT_CT_NAME, r);
	r = dft_dm_get(DFT_CT_NAME, false, &dev);
	if (r) {
		dft_dm_remove(DFT_CT_NAME, true);
		return dft_dev_err(DFT_CT_NAME, r);
	}
	ct->major = dev.major;
	ct->minor = dev.minor;
	dft_dm_put(&dev);
	snprintf(ct->dev, sizeof(ct->dev), "/dev/mapper/%s", DFT_CT_NAME);
	return 0;
}

DFT_HANDLER(dft_cmd_crashtest)
{
	struct dft_ct ct = { .o = o, .disk = argv[0] };
	int r;

	(void)argc;
	r = dft_ct_check_opts(cmd, o);
	if (r)
		return r;
	snprintf(ct.mnt, sizeof(ct.mnt), "/tmp/dmfault-crashtest.XXXXXX");
	if (!mkdtemp(ct.mnt))
		return dft_err("mkdtemp: %s", strerror(errno));
	snprintf(ct.out, sizeof(ct.out), "%s.out", ct.mnt);
	r = dft_ct_create(&ct);
	if (r) {
		rmdir(ct.mnt);
		return r;
	}
	if (o->json) {
		dft_json_init(&ct.j, stdout, false);
		dft_json_begin(&ct.j, NULL, '{');
		dft_json_str(&ct.j, "disk", ct.disk);
	}
	r = dft_ct_explore(&ct);
	dft_ct_unmount(&ct);
	if (dft_dm_remove(DFT_CT_NAME, true))
		dft_err("%s: cannot remove: %s", DFT_CT_NAME, dft_dm_last_error());
	rmdir(ct.mnt);
	unlink(ct.out);
	if (o->json) {
		dft_json_u64(&ct.j, "total", ct.runs);
		dft_json_u64(&ct.j, "failed", ct.failed);
		dft_json_end(&ct.j, '}');
		dft_json_finish(&ct.j);
	} else if (r == 0) {
		if (dft_tty(stderr))
			fputc('\n', stderr);
		if (!o->ct_at)
			dft_ct_summary(&ct);
		printf("%u runs, %u failed\n", ct.runs, ct.failed);
	}
	free(ct.rows);
	if (r)
		return DFT_EXIT_USAGE;
	return ct.failed ? DFT_EXIT_FAIL : DFT_EXIT_OK;
}
