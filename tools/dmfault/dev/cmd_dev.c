// SPDX-License-Identifier: GPL-2.0-only
/*
 * dmfault: the commands that create, remove, list and show fault devices,
 * and the helpers the rule and statistics commands share (cmd_rule.c,
 * cmd_stats.c).  Device-mapper is reached only through dm.c.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "base/dmfault.h"

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

/* The size of a block device in sectors, from sysfs. */
static int dft_disk_sectors(unsigned int major, unsigned int minor, uint64_t *sectors)
{
	char path[64], text[32];
	FILE *f;
	int r = -EIO;

	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/size", major, minor);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	if (fgets(text, sizeof(text), f)) {
		text[strcspn(text, "\n")] = '\0';
		r = dft_parse_u64(text, sectors) ? -EIO : 0;
	}
	fclose(f);
	return r;
}

/* DEV as a path to a block device or MAJ:MIN. */
static int dft_resolve_dev(const char *arg, unsigned int *major, unsigned int *minor)
{
	struct stat st;
	char extra;

	if (sscanf(arg, "%u:%u%c", major, minor, &extra) == 2)
		return 0;
	if (stat(arg, &st))
		return -errno;
	if (!S_ISBLK(st.st_mode))
		return -ENOTBLK;
	*major = major(st.st_rdev);
	*minor = minor(st.st_rdev);
	return 0;
}

static bool dft_name_ok(const char *name)
{
	return *name && strlen(name) < 128 && !strchr(name, '/') && strcmp(name, ".") &&
	       strcmp(name, "..") && !strpbrk(name, " \t\n");
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
 * The rule fault_ctr() complained about, from its kernel log line
 * "rule [N ]'TEXT': reason": which of @rules it is, and the reason.
 */
static int dft_ctr_rule(const char *kreason, char *const *rules, unsigned int nr,
			unsigned int *idx, const char **why)
{
	const char *open, *close;
	unsigned int i;
	size_t n;

	if (strncmp(kreason, "rule ", 5))
		return -ENOENT;
	open = strchr(kreason, '\'');
	close = open ? strstr(open + 1, "': ") : NULL;
	if (!close)
		return -ENOENT;
	n = close - open - 1;
	for (i = 0; i < nr; i++) {
		if (strlen(rules[i]) == n && !strncmp(rules[i], open + 1, n)) {
			*idx = i;
			*why = close + 3;
			return 0;
		}
	}
	return -ENOENT;
}

/* Where the device goes on @devarg: ta->dev, ta->offset and ta->len. */
static int dft_create_extent(const struct dft_cmd *cmd, const struct dft_opts *o,
			     const char *devarg, struct dft_table_args *ta, char *devnum,
			     size_t len)
{
	unsigned int major, minor;
	uint64_t disk = 0;
	int r;

	r = dft_resolve_dev(devarg, &major, &minor);
	if (r == -ENOENT)
		return dft_err("%s: no such device", devarg);
	if (r == -ENOTBLK)
		return dft_err("%s: not a block device", devarg);
	if (r)
		return dft_err("%s: %s", devarg, strerror(-r));
	r = dft_disk_sectors(major, minor, &disk);
	if (r && !o->have_size)
		return dft_err("%s: cannot read its size (%s); give --size", devarg,
			       strerror(-r));
	ta->offset = o->offset / 512;
	if (o->have_size) {
		ta->len = o->size / 512;
		if (!ta->len)
			return dft_usage_err(cmd, "--size must not be 0");
	} else {
		if (ta->offset >= disk)
			return dft_err("%s: --offset is past its end (%llu bytes)", devarg,
				       (unsigned long long)disk * 512);
		ta->len = disk - ta->offset;
	}
	if (disk && (ta->offset > disk || ta->len > disk - ta->offset))
		return dft_err("%s: offset + size go past its end (%llu bytes)", devarg,
			       (unsigned long long)disk * 512);
	snprintf(devnum, len, "%u:%u", major, minor);
	ta->dev = devnum;
	return 0;
}

/*
 * Load the table: on a refusal, say why as the kernel logged it, naming the
 * rule it is about.
 */
static int dft_create_load(const struct dft_opts *o, const char *name,
			   const struct dft_table_args *ta)
{
	struct dft_buf b = { 0 };
	char kreason[512];
	struct dft_kmsg km;
	unsigned int idx;
	const char *why;
	int r, loaded;

	if (dft_table_params(ta, &b)) {
		dft_buf_free(&b);
		return dft_err("out of memory");
	}
	loaded = dft_dm_target_loaded();
	if (loaded < 0) {
		dft_buf_free(&b);
		return dft_dev_err(NULL, loaded);
	}
	dft_info(o, "table: 0 %llu %s %s", (unsigned long long)ta->len, DFT_TARGET, b.text);
	dft_kmsg_mark(&km);
	r = dft_dm_create(name, ta->len, b.text);
	dft_buf_free(&b);
	if (r != -EINVAL)
		dft_kmsg_close(&km);
	if (!r) {
		dft_info(o, "created /dev/mapper/%s", name);
		return DFT_EXIT_OK;
	}
	if (r != -EINVAL)
		return dft_dev_err(name, r);
	if (!loaded && dft_dm_target_loaded() == 0) {
		dft_kmsg_close(&km);
		return dft_dev_err(name, -DFT_ENOMODULE);
	}
	if (!dft_kmsg_dm_reason(&km, kreason, sizeof(kreason)))
		kreason[0] = '\0';
	dft_kmsg_close(&km);
	if (kreason[0] && !dft_ctr_rule(kreason, o->rules, o->nr_rules, &idx, &why))
		return dft_rule_refused(name, o->rules[idx], r, why);
	return dft_err("%s: the target refused the table: %s", name,
		       kreason[0] ? kreason : "invalid argument (see the kernel log)");
}

DFT_HANDLER(dft_cmd_create)
{
	struct dft_table_args ta = { .rules = (const char *const *)o->rules };
	const char *name = argv[0];
	struct dft_buf b = { 0 };
	char devnum[32];
	int r;

	(void)argc;
	if (!dft_name_ok(name))
		return dft_usage_err(cmd, "'%s' is not a valid device name", name);
	r = dft_check_rules(cmd, o);
	if (r)
		return r;
	if (o->nr_rules > DFT_MAX_RULES)
		return dft_usage_err(cmd, "%u rules given, the target takes %d at most",
				     o->nr_rules, DFT_MAX_RULES);
	r = dft_create_extent(cmd, o, argv[1], &ta, devnum, sizeof(devnum));
	if (r)
		return r;
	ta.nr_rules = o->nr_rules;
	if (!o->print)
		return dft_create_load(o, name, &ta);
	r = dft_table_line(&ta, &b);
	if (!r)
		printf("%s\n", b.text);
	dft_buf_free(&b);
	return r ? dft_err("out of memory") : DFT_EXIT_OK;
}

DFT_HANDLER(dft_cmd_remove)
{
	struct dft_dev dev;
	int i, r, ret = DFT_EXIT_OK;

	(void)cmd;
	for (i = 0; i < argc; i++) {
		r = o->force ? dft_dm_get(argv[i], false, &dev) : dft_open_fault(argv[i], &dev);
		if (r) {
			ret = dft_dev_err(argv[i], r);
			continue;
		}
		dft_dm_put(&dev);
		r = dft_dm_remove(argv[i], o->retry);
		if (r == -EBUSY)
			ret = dft_err("%s: device is busy (open count %d)", argv[i],
				      dev.open_count);
		else if (r)
			ret = dft_dev_err(argv[i], r);
		else
			dft_info(o, "removed %s", argv[i]);
	}
	return ret;
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

static void dft_list_json(const struct dft_listed *l, unsigned int nl)
{
	struct dft_json j;
	char num[32];
	unsigned int i;

	dft_json_init(&j, stdout, false);
	dft_json_begin(&j, NULL, '{');
	dft_json_begin(&j, "devices", '[');
	for (i = 0; i < nl; i++) {
		dft_json_begin(&j, NULL, '{');
		dft_json_str(&j, "name", l[i].name);
		snprintf(num, sizeof(num), "%u:%u", l[i].major, l[i].minor);
		dft_json_str(&j, "maj:min", num);
		dft_json_u64(&j, "size", l[i].size * 512);
		dft_json_str(&j, "disk", l[i].disk);
		dft_json_str(&j, "target", l[i].type);
		snprintf(num, sizeof(num), "%u:%u", l[i].disk_major, l[i].disk_minor);
		dft_json_str(&j, "disk_maj:min", num);
		dft_json_u64(&j, "offset", l[i].offset * 512);
		dft_json_u64(&j, "rules", l[i].rules);
		dft_json_u64(&j, "segments", l[i].segments);
		dft_json_bool(&j, "suspended", l[i].suspended);
		dft_json_end(&j, '}');
	}
	dft_json_end(&j, ']');
	dft_json_end(&j, '}');
	dft_json_finish(&j);
}

static void dft_list_human(const struct dft_opts *o, const struct dft_listed *l,
			   unsigned int nl)
{
	char size[32], off[32];
	unsigned int i;

	if (!nl)
		return;
	printf("%-16s %8s  %-16s %10s %5s\n", "NAME", "SIZE", "DISK", "OFFSET", "RULES");
	for (i = 0; i < nl; i++) {
		if (o->bytes) {
			snprintf(size, sizeof(size), "%llu", (unsigned long long)l[i].size * 512);
			snprintf(off, sizeof(off), "%llu", (unsigned long long)l[i].offset * 512);
		} else {
			dft_human_size(l[i].size * 512, size, sizeof(size));
			dft_human_size(l[i].offset * 512, off, sizeof(off));
		}
		printf("%-16s %8s  %-16s %10s %5u", l[i].name, size, l[i].disk, off, l[i].rules);
		if (strcmp(l[i].type, DFT_TARGET))
			printf("  (%s)", l[i].type);
		printf("%s\n", l[i].suspended ? "  (suspended)" : "");
	}
}

DFT_HANDLER(dft_cmd_list)
{
	struct dft_listed *l = NULL, *p;
	unsigned int n, i, nl = 0;
	char **names;
	int r;

	(void)cmd;
	(void)argc;
	(void)argv;
	r = dft_fault_names(&names, &n);
	if (r)
		return dft_dev_err(NULL, r);
	for (i = 0; i < n; i++) {
		p = realloc(l, (nl + 1) * sizeof(*l));
		if (!p) {
			r = dft_err("out of memory");
			goto out;
		}
		l = p;
		r = dft_list_one(names[i], &l[nl]);
		if (r == -ENXIO || r == -DFT_ENOTFAULT)
			continue;	/* gone or changed since it was listed */
		if (r) {
			r = r == -EPROTO ? DFT_EXIT_FAIL : dft_dev_err(names[i], r);
			goto out;
		}
		nl++;
	}
	r = DFT_EXIT_OK;
	if (o->names) {
		for (i = 0; i < nl; i++)
			printf("%s\n", l[i].name);
	} else if (o->json) {
		dft_list_json(l, nl);
	} else {
		dft_list_human(o, l, nl);
	}
out:
	free(l);
	dft_free_names(names, n);
	return r;
}

DFT_HANDLER(dft_cmd_table)
{
	struct dft_dev dev;
	unsigned int i;
	int r;

	(void)cmd;
	(void)o;
	(void)argc;
	r = dft_open_fault(argv[0], &dev);
	if (r)
		return dft_dev_err(argv[0], r);
	for (i = 0; i < dev.nr_segs; i++)
		printf("%llu %llu %s %s\n", (unsigned long long)dev.segs[i].start,
		       (unsigned long long)dev.segs[i].len, dev.segs[i].type, dev.segs[i].params);
	dft_dm_put(&dev);
	return DFT_EXIT_OK;
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
