// SPDX-License-Identifier: GPL-2.0-only
/*
 * dmfault crashtest's run on its fault device: the steps that the
 * exploration (cmd_crash.c) and the crash during recovery (recovery.c)
 * both take, the second on a device stacked on the first.
 *
 * A fault device with the volatile write cache goes on DEV.  --setup runs
 * (mkfs, mount); the "record" message writes the cache back and from then on
 * keeps every completed write in memory, numbered, with the flushes between
 * them, while nothing reaches DEV; --workload runs; --settle seconds pass
 * (what the kernel writes after the program returned: journal commits,
 * writeback); "mark dmfault-end" ends it; what is mounted is unmounted
 * cleanly (recorded too); "crash" cuts the power.  The recording is read
 * with "record list" (record.c).  A state is shown with "view" (DEV plus
 * the writes the state keeps; the check's own writes go to a scratch
 * overlay), the page cache of the device is dropped so that nothing of
 * another state is read, and --check judges it.
 *
 * The commands run with sh -c, with DMF_DEV (the fault device) and DMF_MNT
 * (an empty directory) in the environment, and for --entry DMF_FS and
 * DMF_LIB (entry.c); the check also gets DMF_STATE (the state's view
 * spec), DMF_STEP and DMF_MARKS (the last mark the workload made before
 * the crash, and how many it made): the workload ran once, so this is how
 * a check knows what it had acknowledged by then.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "crash/crash.h"

/*
 * Run "sh -c @cmd" (the @what line) with the environment, and @more
 * ("NAME=value" strings, up to 3, NULL-terminated) if not NULL.  Its exit
 * status, or -1.  Past --step-timeout it is
 * killed (with what it started), @ct->hung says where it hung and the status
 * is 124, as timeout(1) gives; a task that SIGKILL does not end is an error
 * (-1): the next checks would pile up on it.
 */
int dft_ct_sh(struct dft_ct *ct, const char *what, const char *cmd, char *const *more)
{
	char dev[80], mnt[80], fs[48], lib[4096 + 8], hung[600];
	char *env[8] = { dev, mnt };
	int status, fd, r, i, n = 2;

	snprintf(dev, sizeof(dev), "DMF_DEV=%s", ct->dev);
	snprintf(mnt, sizeof(mnt), "DMF_MNT=%s", ct->mnt);
	if (*ct->fs) {
		snprintf(fs, sizeof(fs), "DMF_FS=%s", ct->fs);
		snprintf(lib, sizeof(lib), "DMF_LIB=%s", ct->lib);
		env[n++] = fs;
		env[n++] = lib;
	}
	for (i = 0; more && more[i] && i < 3; i++)
		env[n++] = more[i];
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
	return dft_exit_code(status);
}

/* The cache's state and counters from the INFO status. */
static int dft_ct_cache(const struct dft_ct *ct, struct dft_cache_stat *c)
{
	struct dft_stats st = { .cache = NULL };
	struct dft_dev dev;
	const char *err = "the cache is off";
	int r;

	r = dft_dm_get(ct->name, false, &dev);
	if (r)
		return r;
	r = dev.fault < 0 ? -EPROTO : dft_parse_info(dev.segs[dev.fault].params, &st, &err);
	if (!r && dft_parse_cache(st.cache, c))
		r = -EPROTO;
	if (r)
		dft_err("%s: cannot read the cache's status: %s", ct->name, err);
	dft_stats_free(&st);
	dft_dm_put(&dev);
	return r;
}

/* A recording that passed the cache's limit holds too little to explore: -1, said why. */
int dft_ct_overflow(const struct dft_ct *ct, bool known)
{
	struct dft_cache_stat c;

	if (dft_ct_cache(ct, &c))
		return -1;
	if (!known && strcmp(c.state, "overflow"))
		return 0;
	dft_err("the recording passed the cache limit (%llu bytes): raise --limit",
		(unsigned long long)c.v[DFT_C_LIMIT]);
	return -1;
}

/* Unmount everything mounted from the device, innermost first. */
void dft_ct_unmount(struct dft_ct *ct)
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

/* After a view: nothing the page cache holds from another state may be read. */
int dft_ct_drop_caches(struct dft_ct *ct)
{
	int fd = open(ct->dev, O_RDONLY);

	if (fd < 0 || ioctl(fd, BLKFLSBUF, 0)) {
		dft_err("%s: cannot drop its page cache (BLKFLSBUF): %s", ct->dev, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	close(fd);
	return 0;
}

void dft_ct_print_tail(struct dft_ct *ct)
{
	char buf[DFT_CT_TAIL + 1];

	if (dft_file_tail(ct->out, buf, sizeof(buf)))
		fprintf(stderr, "%s", buf);
}

/* The setup or the workload failed or hung: -1, said why with its output. */
int dft_ct_step_failed(struct dft_ct *ct, const char *what, int r)
{
	if (r < 0)
		return -1;
	if (*ct->hung)
		dft_err("%s", ct->hung);
	else
		dft_err("the %s exited %d", what, r);
	dft_ct_print_tail(ct);
	return -1;
}

/* Every page of "record list", checked, and the epochs. */
int dft_ct_read(struct dft_ct *ct)
{
	uint64_t from = 1, next = 0;
	const char *err = "out of memory";
	char *reply;
	int r;

	do {
		if (dft_ct_send(ct, &reply, "record list %llu", (unsigned long long)from))
			return -1;
		r = dft_record_page(&ct->rec, reply, from, &next, &err);
		free(reply);
		if (r)
			return dft_ct_err("%s: record list %llu: %s", ct->name,
				       (unsigned long long)from, err);
		from = next;
	} while (next);
	if (ct->rec.overflow)
		return dft_ct_overflow(ct, true);
	if (dft_record_done(&ct->rec, &err))
		return dft_ct_err("%s: record list: %s", ct->name, err);
	return 0;
}

/*
 * Wait @secs with the recording on: ext4 commits its journal every 5 s and
 * the flusher writes data back after 30 s, so what a program left in the
 * page cache reaches the disk after it exits, metadata before data.
 */
static void dft_ct_settle(unsigned int secs)
{
	while (secs)
		secs = sleep(secs);
}

/*
 * Setup, record, workload, the settle time, the end mark, a clean unmount,
 * the crash; then read it all.
 */
int dft_ct_record(struct dft_ct *ct)
{
	const struct dft_opts *o = ct->o;
	int r;

	unlink(ct->out);
	ct->hung[0] = '\0';
	r = dft_ct_sh(ct, "setup", o->ct_setup, NULL);
	if (r)
		return dft_ct_step_failed(ct, "setup", r);
	if (dft_ct_send(ct, NULL, "record"))
		return -1;
	r = dft_ct_sh(ct, "workload", o->ct_workload, NULL);
	/* past the limit writes fail: that, not the workload, is the news */
	if (r >= 0 && dft_ct_overflow(ct, false))
		return -1;
	if (r)
		return dft_ct_step_failed(ct, "workload", r);
	dft_ct_settle(o->ct_settle);
	if (dft_ct_send(ct, NULL, "mark " DFT_END_MARK))
		return -1;
	dft_ct_unmount(ct);
	if (dft_ct_overflow(ct, false) || dft_ct_send(ct, NULL, "crash"))
		return -1;
	return dft_ct_read(ct);
}

/*
 * What the check is told of a state: DMF_STATE (the view spec), DMF_STEP
 * (the label of the last mark made before the crash: what the workload had
 * done, e.g. acknowledged) and DMF_MARKS (how many were made).
 */
int dft_ct_env(const struct dft_ct *ct, const char *spec, unsigned int marks, char **env)
{
	const char *step = marks && marks <= ct->rec.nr_m ? ct->rec.m[marks - 1].label : "";

	if (asprintf(&env[0], "DMF_STATE=%.*s", (int)dft_spec_view_len(spec), spec) < 0)
		env[0] = NULL;
	if (asprintf(&env[1], "DMF_STEP=%s", step) < 0)
		env[1] = NULL;
	if (asprintf(&env[2], "DMF_MARKS=%u", marks) < 0)
		env[2] = NULL;
	return env[0] && env[1] && env[2] ? 0 : dft_ct_err("out of memory");
}

/* Show the state @spec on @ct's device and run the check with @env on it. */
int dft_ct_look(struct dft_ct *ct, const char *spec, char *const *env)
{
	int r = 0;

	unlink(ct->out);
	ct->hung[0] = '\0';
	if (dft_ct_send(ct, NULL, "view %.*s", (int)dft_spec_view_len(spec), spec) ||
	    dft_ct_drop_caches(ct))
		r = -1;
	if (!r) {
		r = dft_ct_sh(ct, "check", ct->o->ct_check, env);
		dft_ct_unmount(ct);
	}
	return r < 0 || !*ct->hung ? r : 124;
}

/*
 * Show the state @spec, after whose crash the workload had made @marks
 * marks, and run the check on it: its exit status (124: it hung), or -1.
 */
int dft_ct_check(struct dft_ct *ct, const char *spec, unsigned int marks)
{
	char *env[4] = { NULL };
	int r = dft_ct_env(ct, spec, marks, env);

	if (!r)
		r = dft_ct_look(ct, spec, env);
	free(env[0]);
	free(env[1]);
	free(env[2]);
	return r;
}

/* keep=all: the workload and its clean unmount.  A check must pass it. */
int dft_ct_control(struct dft_ct *ct)
{
	int r = dft_ct_check(ct, "keep=all", ct->rec.nr_m);

	if (r < 0)
		return -1;
	if (r) {
		dft_err("the check fails without a crash (exit %d): it cannot judge crashes", r);
		dft_ct_print_tail(ct);
		return -1;
	}
	return 0;
}

/* A line on standard error, on a terminal only, overwritten by the next. */
void dft_ct_progress(const struct dft_ct *ct, const char *fmt, ...)
{
	va_list ap;

	(void)ct;
	if (!dft_tty(stderr))
		return;
	fputs("\r\033[K", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
}

/* The end of a FAIL or ok line: what hung past --step-timeout, or the check's status @r. */
void dft_ct_verdict(const struct dft_ct *ct, int r)
{
	if (*ct->hung)
		printf("%s\n", ct->hung);
	else
		printf("check exited %d\n", r);
	fflush(stdout);
}

/* Create the fault device with the cache on @disk. */
int dft_ct_create(struct dft_ct *ct)
{
	const struct dft_opts *o = ct->o;
	char params[256];
	uint64_t bytes;
	struct stat stt;
	struct dft_dev dev;
	int fd, n, r;

	fd = open(ct->disk, O_RDONLY);
	if (fd < 0 || fstat(fd, &stt) || !S_ISBLK(stt.st_mode) ||
	    ioctl(fd, BLKGETSIZE64, &bytes)) {
		r = fd >= 0 && !S_ISBLK(stt.st_mode) ? ENOTBLK : errno;
		dft_err("%s: not a block device I can open: %s", ct->disk, strerror(r));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	close(fd);
	/* a saved run's disk is restored at the start of DEV: its views are that size */
	if (ct->sectors && ct->sectors > bytes >> 9)
		return dft_ct_err("%s: smaller than the saved run's disk (%llu sectors)", ct->disk,
				  (unsigned long long)ct->sectors);
	if (ct->sectors)
		bytes = ct->sectors << 9;
	else
		ct->sectors = bytes >> 9;
	n = snprintf(params, sizeof(params), "%u:%u 0 0 %d cache", major(stt.st_rdev),
		     minor(stt.st_rdev), 1 + o->ct_have_limit + o->ct_have_unit);
	if (o->ct_have_limit)
		n += snprintf(params + n, sizeof(params) - n, " limit=%llu",
			      (unsigned long long)o->ct_limit);
	if (o->ct_have_unit)
		snprintf(params + n, sizeof(params) - n, " unit=%llu",
			 (unsigned long long)o->ct_unit);
	r = dft_dm_create(ct->name, bytes >> 9, params);
	if (r) {
		dft_dev_err(ct->name, r);
		return -1;
	}
	r = dft_dm_get(ct->name, false, &dev);
	if (r) {
		dft_dm_remove(ct->name, true);
		dft_dev_err(ct->name, r);
		return -1;
	}
	ct->major = dev.major;
	ct->minor = dev.minor;
	dft_dm_put(&dev);
	snprintf(ct->dev, sizeof(ct->dev), "/dev/mapper/%s", ct->name);
	return 0;
}

/* What @ct holds in memory; its device is removed by the caller. */
void dft_ct_free(struct dft_ct *ct)
{
	unsigned int i;

	for (i = 0; i < ct->nr_fail; i++) {
		free(ct->fail[i].tail);
		free(ct->fail[i].lost);
		free(ct->fail[i].min);
		free(ct->fail[i].min_spec);
		free(ct->fail[i].why);
	}
	free(ct->fail);
	for (i = 0; i < ct->rc.nr_fail; i++) {
		free(ct->rc.fail[i].spec);
		free(ct->rc.fail[i].tail);
	}
	free(ct->rc.fail);
	free(ct->ep_failed);
	free(ct->ep_checked);
	free(ct->saved);
	dft_catalog_free(&ct->cat);
	dft_plan_free(&ct->plan);
	dft_record_free(&ct->rec);
}
