// SPDX-License-Identifier: GPL-2.0-only
/*
 * dmfault: the only file that talks to libdevmapper.  libdevmapper returns
 * 1 for success and 0 for failure, with the ioctl's errno kept in the task;
 * everything here returns 0 or -errno instead, so that the convention never
 * leaks past this file.  libdevmapper's own messages are kept (the last
 * error is available for a diagnosis) and shown only with -v.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <libdevmapper.h>

#include "base/base.h"

static int dft_dm_verbose;
static char dft_dm_err[256];

static void dft_dm_log(int level, const char *file, int line, int dm_errno_or_class,
		       const char *f, ...)
{
	char msg[sizeof(dft_dm_err)];
	va_list ap;

	(void)file;
	(void)line;
	(void)dm_errno_or_class;
	level &= 7;
	va_start(ap, f);
	vsnprintf(msg, sizeof(msg), f, ap);
	va_end(ap);
	if (level <= 3)		/* _LOG_ERR and worse */
		memcpy(dft_dm_err, msg, sizeof(msg));
	if ((dft_dm_verbose >= 1 && level <= 4) || dft_dm_verbose >= 3)
		fprintf(stderr, "dmfault: libdevmapper: %s\n", msg);
}

void dft_dm_init(int verbose)
{
	dft_dm_verbose = verbose;
	dm_log_with_errno_init(dft_dm_log);
	if (verbose >= 3)
		dm_log_init_verbose(verbose);
}

const char *dft_dm_last_error(void)
{
	return dft_dm_err;
}

/* Why the control device cannot be used, when the task has no errno. */
static int dft_dm_control_errno(void)
{
	int fd = open("/dev/mapper/control", O_RDWR | O_CLOEXEC);

	if (fd >= 0) {
		close(fd);
		return -EIO;
	}
	if (errno == ENOENT && access("/proc/misc", R_OK) == 0)
		return -ENODEV;		/* device-mapper not in the kernel */
	return -errno;
}

/* Run @dmt: 0 or -errno, never libdevmapper's 1/0. */
static int dft_dm_run(struct dm_task *dmt)
{
	int e;

	dft_dm_err[0] = '\0';
	if (dm_task_run(dmt))
		return 0;
	e = dm_task_get_errno(dmt);
	if (e)
		return -e;
	return dft_dm_control_errno();
}

/* A task for @name; NULL with *@r set to -errno when it cannot be made. */
static struct dm_task *dft_dm_task(int type, const char *name, int *r)
{
	struct dm_task *dmt = dm_task_create(type);

	if (!dmt) {
		/* libdevmapper checks the driver version here: no access, no driver */
		*r = dft_dm_control_errno();
		if (*r == -EIO)
			*r = -ENOMEM;
		return NULL;
	}
	if (name && !dm_task_set_name(dmt, name)) {
		dm_task_destroy(dmt);
		*r = -EINVAL;
		return NULL;
	}
	return dmt;
}

/* 1 if the kernel knows the fault target type, 0 if not, or -errno. */
int dft_dm_target_loaded(void)
{
	struct dm_versions *v;
	struct dm_task *dmt;
	unsigned int next = 0;
	int r;

	dmt = dft_dm_task(DM_DEVICE_LIST_VERSIONS, NULL, &r);
	if (!dmt)
		return r;
	r = dft_dm_run(dmt);
	if (r)
		goto out;
	v = dm_task_get_versions(dmt);
	do {
		v = (struct dm_versions *)((char *)v + next);
		if (!strcmp(v->name, DFT_TARGET)) {
			r = 1;
			goto out;
		}
		next = v->next;
	} while (next);
out:
	dm_task_destroy(dmt);
	return r;
}

void dft_free_names(char **names, unsigned int nr)
{
	while (nr)
		free(names[--nr]);
	free(names);
}

/* The names of every device-mapper device, sorted by the kernel. */
int dft_dm_names(char ***names, unsigned int *nr)
{
	struct dm_task *dmt;
	struct dm_names *n;
	unsigned int next = 0, count = 0;
	char **arr = NULL, **p;
	int r;

	*names = NULL;
	*nr = 0;
	dmt = dft_dm_task(DM_DEVICE_LIST, NULL, &r);
	if (!dmt)
		return r;
	r = dft_dm_run(dmt);
	if (r)
		goto out;
	n = dm_task_get_names(dmt);
	if (!n || !n->dev)
		goto out;
	do {
		n = (struct dm_names *)((char *)n + next);
		p = realloc(arr, (count + 1) * sizeof(*arr));
		if (!p)
			goto nomem;
		arr = p;
		arr[count] = strdup(n->name);
		if (!arr[count])
			goto nomem;
		count++;
		next = n->next;
	} while (next);
	*names = arr;
	*nr = count;
out:
	dm_task_destroy(dmt);
	return r;
nomem:
	dft_free_names(arr, count);
	r = -ENOMEM;
	goto out;
}

void dft_dm_put(struct dft_dev *dev)
{
	unsigned int i;

	for (i = 0; dev->segs && i < dev->nr_segs; i++)
		free(dev->segs[i].params);
	free(dev->segs);
	dev->segs = NULL;
	dev->nr_segs = 0;
}

/* dm_fault took @name ("flakey", "delay") if compat_names=1 and the in-tree module is not in. */
static bool dft_compat_name_ours(const char *name)
{
	char path[64], c = 'N';
	FILE *f;

	snprintf(path, sizeof(path), "/sys/module/dm_%s", name);
	if (!access(path, F_OK))
		return false;
	f = fopen("/sys/module/dm_fault/parameters/compat_names", "re");
	if (!f)
		return false;
	if (fscanf(f, " %c", &c) != 1)
		c = 'N';
	fclose(f);
	return c == 'Y';
}

/*
 * Targets of dm_fault: "fault", the compatibility targets fault-flakey,
 * fault-delay and fault-error (their own tables, the same counters, log
 * and messages), and flakey and delay when it registered those names.
 */
bool dft_is_fault_target(const char *type)
{
	if (!strcmp(type, DFT_TARGET) || !strcmp(type, "fault-flakey") ||
	    !strcmp(type, "fault-delay") || !strcmp(type, "fault-error"))
		return true;
	return (!strcmp(type, "flakey") || !strcmp(type, "delay")) && dft_compat_name_ours(type);
}

/*
 * Info and targets of device @name: the TABLE (@table) or INFO status of
 * every segment, walked with dm_get_next_target().  -ENXIO: no such device.
 */
int dft_dm_get(const char *name, bool table, struct dft_dev *dev)
{
	struct dft_segment *seg, *p;
	uint64_t start, len;
	char *type, *params;
	struct dm_info info;
	struct dm_task *dmt;
	void *next = NULL;
	int r;

	memset(dev, 0, sizeof(*dev));
	dev->fault = -1;
	if (strlen(name) >= sizeof(dev->name))
		return -ENAMETOOLONG;
	strcpy(dev->name, name);
	dmt = dft_dm_task(table ? DM_DEVICE_TABLE : DM_DEVICE_STATUS, name, &r);
	if (!dmt)
		return r;
	r = dft_dm_run(dmt);
	if (r)
		goto out;
	if (!dm_task_get_info(dmt, &info) || !info.exists) {
		r = -ENXIO;
		goto out;
	}
	dev->major = info.major;
	dev->minor = info.minor;
	dev->open_count = info.open_count;
	dev->suspended = info.suspended;
	do {
		next = dm_get_next_target(dmt, next, &start, &len, &type, &params);
		if (!type)
			continue;
		p = realloc(dev->segs, (dev->nr_segs + 1) * sizeof(*p));
		if (!p) {
			r = -ENOMEM;
			goto out;
		}
		dev->segs = p;
		seg = &dev->segs[dev->nr_segs];
		memset(seg, 0, sizeof(*seg));
		seg->start = start;
		seg->len = len;
		snprintf(seg->type, sizeof(seg->type), "%s", type);
		seg->params = strdup(params ? params : "");
		if (!seg->params) {
			r = -ENOMEM;
			goto out;
		}
		seg->fault = dft_is_fault_target(type);
		if (dev->fault < 0 && seg->fault)
			dev->fault = dev->nr_segs;
		dev->nr_segs++;
	} while (next);
out:
	if (r)
		dft_dm_put(dev);
	dm_task_destroy(dmt);
	return r;
}

/* Remove @name with a udev cookie, waiting for udev (or libdm) to finish. */
int dft_dm_remove(const char *name, bool retry)
{
	struct dm_task *dmt;
	uint32_t cookie = 0;
	int r;

	dmt = dft_dm_task(DM_DEVICE_REMOVE, name, &r);
	if (!dmt)
		return r;
	if (retry)
		dm_task_retry_remove(dmt);
	if (!dm_task_set_cookie(dmt, &cookie, 0)) {
		dm_task_destroy(dmt);
		return -EIO;
	}
	r = dft_dm_run(dmt);
	dm_udev_wait(cookie);
	dm_task_destroy(dmt);
	return r;
}

/* Load @name's inactive table: one segment of @type. */
int dft_dm_load(const char *name, uint64_t len, const char *type, const char *params)
{
	struct dm_task *dmt;
	int r;

	dmt = dft_dm_task(DM_DEVICE_RELOAD, name, &r);
	if (!dmt)
		return r;
	if (!dm_task_add_target(dmt, 0, len, type, params)) {
		dm_task_destroy(dmt);
		return -ENOMEM;
	}
	r = dft_dm_run(dmt);
	dm_task_destroy(dmt);
	return r;
}

/* Run a task of @type on @name that needs nothing more: 0 or -errno. */
static int dft_dm_do(int type, const char *name)
{
	struct dm_task *dmt;
	int r;

	dmt = dft_dm_task(type, name, &r);
	if (!dmt)
		return r;
	r = dft_dm_run(dmt);
	dm_task_destroy(dmt);
	return r;
}

/* Drop @name's inactive table, loaded but not live. */
int dft_dm_clear(const char *name)
{
	return dft_dm_do(DM_DEVICE_CLEAR, name);
}

/* Resume @name (its loaded table goes live) with a udev cookie: the node appears. */
int dft_dm_resume(const char *name)
{
	struct dm_task *dmt;
	uint32_t cookie = 0;
	int r;

	dmt = dft_dm_task(DM_DEVICE_RESUME, name, &r);
	if (!dmt)
		return r;
	if (!dm_task_set_cookie(dmt, &cookie, 0)) {
		dm_task_destroy(dmt);
		return -EIO;
	}
	r = dft_dm_run(dmt);
	dm_udev_wait(cookie);
	dm_task_destroy(dmt);
	return r;
}

/* Suspend @name; @noflush: keep the I/O in flight queued instead of waiting for it. */
int dft_dm_suspend(const char *name, bool noflush)
{
	struct dm_task *dmt;
	int r;

	dmt = dft_dm_task(DM_DEVICE_SUSPEND, name, &r);
	if (!dmt)
		return r;
	if (noflush && !dm_task_no_flush(dmt)) {
		dm_task_destroy(dmt);
		return -ENOMEM;
	}
	r = dft_dm_run(dmt);
	dm_task_destroy(dmt);
	return r;
}

/*
 * Create @name with one segment of @type: create, load, then resume.  If
 * the load or the resume fails, the half-made device is removed before
 * returning the first error.
 */
int dft_dm_create_as(const char *name, uint64_t len, const char *type, const char *params)
{
	int r;

	r = dft_dm_do(DM_DEVICE_CREATE, name);
	if (r)
		return r == -EBUSY ? -EEXIST : r;

	r = dft_dm_load(name, len, type, params);
	if (!r)
		r = dft_dm_resume(name);
	if (r) {
		/* keep the first error; a failed clean-up is reported as well */
		char why[sizeof(dft_dm_err)];

		memcpy(why, dft_dm_err, sizeof(why));
		if (dft_dm_remove(name, true))
			fprintf(stderr, "dmfault: %s: could not remove the half-created device: %s\n",
				name, dft_dm_err);
		memcpy(dft_dm_err, why, sizeof(why));
	}
	return r;
}

/* Create @name with one fault segment (dft_dm_create_as()). */
int dft_dm_create(const char *name, uint64_t len, const char *params)
{
	return dft_dm_create_as(name, len, DFT_TARGET, params);
}

/*
 * Send @msg to the target at @sector of @name.  *@reply gets the target's
 * reply (an empty string when it gave none); free() it.
 */
int dft_dm_message(const char *name, uint64_t sector, const char *msg, char **reply)
{
	struct dm_task *dmt;
	const char *resp;
	int r;

	*reply = NULL;
	dmt = dft_dm_task(DM_DEVICE_TARGET_MSG, name, &r);
	if (!dmt)
		return r;
	if (!dm_task_set_sector(dmt, sector) || !dm_task_set_message(dmt, msg)) {
		dm_task_destroy(dmt);
		return -ENOMEM;
	}
	r = dft_dm_run(dmt);
	if (!r) {
		resp = dm_task_get_message_response(dmt);
		*reply = strdup(resp ? resp : "");
		if (!*reply)
			r = -ENOMEM;
	}
	dm_task_destroy(dmt);
	return r;
}
