// SPDX-License-Identifier: GPL-2.0-only
/*
 * dmfault: the commands that create, remove, list and show fault devices.
 * Device-mapper is reached only through base/dm.c.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "dev/dev.h"

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
