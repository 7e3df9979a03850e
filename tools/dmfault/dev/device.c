// SPDX-License-Identifier: GPL-2.0-only
/*
 * dmfault: a fault device, as the device commands share it: opened and
 * checked to be one, listed, sent a message with the kernel's reason for a
 * refusal, and rules checked before they go to it.  Device-mapper is
 * reached only through base/dm.c.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "dev/dev.h"

/* Look @name up and make sure it has a fault target; -DFT_ENOTFAULT if not. */
int dft_open_fault(const char *name, struct dft_dev *dev)
{
	int r = dft_dm_get(name, true, dev);

	if (r)
		return r;
	if (dev->fault < 0) {
		dft_dm_put(dev);
		return -DFT_ENOTFAULT;
	}
	return 0;
}

static uint64_t dft_fault_sector(const struct dft_dev *dev)
{
	return dev->segs[dev->fault].start;
}

/* "/dev/nullb0" for 251:0, from sysfs; "251:0" if it has no name there. */
static void dft_disk_name(unsigned int major, unsigned int minor, char *buf, size_t len)
{
	char link[64], target[PATH_MAX];
	const char *base;
	ssize_t n;

	snprintf(link, sizeof(link), "/sys/dev/block/%u:%u", major, minor);
	n = readlink(link, target, sizeof(target) - 1);
	if (n <= 0) {
		snprintf(buf, len, "%u:%u", major, minor);
		return;
	}
	target[n] = '\0';
	base = strrchr(target, '/');
	if (snprintf(buf, len, "/dev/%s", base ? base + 1 : target) >= (int)len)
		snprintf(buf, len, "%u:%u", major, minor);
}

/*
 * The target refused @rule with -errno @r.  Its syntax passed the target's
 * own parser before it was sent (dft_check_rules()), so the refusal is about
 * the device (a replace naming an id it does not have, a full rule set):
 * say what the kernel logged.
 */
int dft_rule_refused(const char *name, const char *rule, int r, const char *kreason)
{
	return dft_err("%s: the target refused rule '%s': %s", name, rule,
		       kreason ? kreason : strerror(-r));
}

/* Rules given on the command line are checked before anything is sent. */
int dft_check_rules(const struct dft_cmd *cmd, const struct dft_opts *o)
{
	struct dft_rule_err rerr = { .reason = NULL };
	char where[512];
	unsigned int i;
	int r;

	for (i = 0; i < o->nr_rules; i++) {
		r = dft_rule_check(o->rules[i], &rerr);
		if (r == -ENOMEM)
			return dft_err("out of memory");
		if (r)
			return dft_usage_err(cmd, "rule syntax error %s: %s",
					     dft_rule_where(&rerr, o->rules[i], where,
							    sizeof(where)),
					     rerr.reason);
	}
	return 0;
}

/*
 * The rules a compatibility target made of its table, from segment @seg's
 * INFO status; @info holds the device's INFO status, read at the first call.
 */
static unsigned int dft_compat_rules(const char *name, struct dft_dev *info, unsigned int seg)
{
	struct dft_stats st = { 0 };
	unsigned int n = 0;
	const char *err;

	if (!info->segs && dft_dm_get(name, false, info))
		return 0;
	if (seg < info->nr_segs && !dft_parse_info(info->segs[seg].params, &st, &err))
		n = st.nr_rules;
	dft_stats_free(&st);
	return n;
}

int dft_list_one(const char *name, struct dft_listed *l)
{
	struct dft_dev dev, info = { .nr_segs = 0 };
	struct dft_table_status ts;
	const char *err;
	unsigned int i;
	int r;

	memset(l, 0, sizeof(*l));
	r = dft_open_fault(name, &dev);
	if (r)
		return r;
	snprintf(l->name, sizeof(l->name), "%s", name);
	l->major = dev.major;
	l->minor = dev.minor;
	l->suspended = dev.suspended;
	for (i = 0; i < dev.nr_segs; i++) {
		l->size = dev.segs[i].start + dev.segs[i].len;
		if (!dev.segs[i].fault)
			continue;
		if (!strcmp(dev.segs[i].type, DFT_TARGET))
			r = dft_parse_table_status(dev.segs[i].params, &ts, &err);
		else
			r = dft_parse_compat_table(dev.segs[i].type, dev.segs[i].params, &ts, &err);
		if (r) {
			dft_table_status_free(&ts);
			dft_err("%s: cannot parse the table '%s': %s", name, dev.segs[i].params,
				err);
			dft_dm_put(&dev);
			dft_dm_put(&info);
			return -EPROTO;
		}
		if (!l->segments++) {
			l->disk_major = ts.major;
			l->disk_minor = ts.minor;
			l->offset = ts.offset;
			if (ts.major || ts.minor)
				dft_disk_name(ts.major, ts.minor, l->disk, sizeof(l->disk));
			else
				snprintf(l->disk, sizeof(l->disk), "-");
			snprintf(l->type, sizeof(l->type), "%s", dev.segs[i].type);
		}
		l->rules += ts.nr_rules;
		if (strcmp(dev.segs[i].type, DFT_TARGET))
			l->rules += dft_compat_rules(name, &info, i);
		dft_table_status_free(&ts);
	}
	dft_dm_put(&dev);
	dft_dm_put(&info);
	return 0;
}

/* The names of every fault device. */
int dft_fault_names(char ***out, unsigned int *nr)
{
	struct dft_dev dev;
	char **names;
	unsigned int n, i;
	int r;

	*out = NULL;
	*nr = 0;
	r = dft_dm_names(&names, &n);
	if (r)
		return r;
	for (i = 0; i < n; i++) {
		if (dft_open_fault(names[i], &dev)) {
			free(names[i]);
			continue;
		}
		dft_dm_put(&dev);
		names[(*nr)++] = names[i];
	}
	*out = names;
	return 0;
}

/*
 * Send @msg to fault device @name.  On failure the error is reported (with
 * the kernel's reason) and an exit status returned; 0 and *@reply on success.
 */
int dft_send(const char *name, const char *msg, char **reply, char *kreason, size_t klen,
	     int *err)
{
	struct dft_kmsg km;
	struct dft_dev dev;
	int r;

	*reply = NULL;
	kreason[0] = '\0';
	r = dft_open_fault(name, &dev);
	if (r) {
		*err = r;
		return dft_dev_err(name, r);
	}
	dft_kmsg_mark(&km);
	r = dft_dm_message(name, dft_fault_sector(&dev), msg, reply);
	dft_dm_put(&dev);
	if (r) {
		dft_kmsg_dm_reason(&km, kreason, klen);
		*err = r;
	}
	dft_kmsg_close(&km);
	return r ? -1 : 0;
}

/* The part of a "dev: rule add: reason" kernel line after the last ": ". */
const char *dft_reason_tail(const char *kreason)
{
	const char *p = strrchr(kreason, ':');

	if (!*kreason)
		return NULL;
	return p && p[1] == ' ' ? p + 2 : kreason;
}

int dft_msg_failed(const char *name, const char *what, int r, const char *kreason)
{
	const char *why = dft_reason_tail(kreason);

	if (r == -ENXIO || r == -EACCES || r == -EPERM)
		return dft_dev_err(name, r);
	return dft_err("%s: %s failed: %s", name, what, why ? why : strerror(-r));
}

int dft_check_id(const struct dft_cmd *cmd, const char *id)
{
	uint64_t v;

	if (dft_parse_u64(id, &v) || !v || v > UINT32_MAX)
		return dft_usage_err(cmd, "'%s' is not a rule id (a positive number)", id);
	return 0;
}
