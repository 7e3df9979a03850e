// SPDX-License-Identifier: GPL-2.0-only
/*
 * dmfault crashtest --entry NAME: a program's crash workload taken from a
 * catalogue, as hunt takes its paths (the syntax is hunt's, base/catalog.c):
 * --catalog FILE, else the one that comes with the tool,
 * PREFIX/share/dmfault/crashtest.catalog (crash/crashtest.catalog in the
 * build tree).  An entry gives the setup, workload and check lines, the
 * settle time and the filesystems it is meant for; its lines run with
 * DMF_FS (--fs, else the entry's first) and DMF_LIB (crashtest.sh, the
 * shell helpers that come with the tool: mkfs, mount, acknowledge, fsck),
 * so a catalogue is data and runs from an installed tool.
 */
#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "crash/crash.h"

enum { DFT_CE_SETUP, DFT_CE_WORKLOAD, DFT_CE_CHECK, DFT_CE_SETTLE, DFT_CE_FS };

/* settle: seconds, as --settle takes them */
static int dft_ce_value_bad(unsigned int key, const char *v, char *why, size_t len)
{
	uint64_t s;

	if (key != DFT_CE_SETTLE || (!dft_parse_u64(v, &s) && s <= DFT_CT_SETTLE_MAX))
		return 0;
	snprintf(why, len, "'%s' is not a number of seconds (0 to %u)", v, DFT_CT_SETTLE_MAX);
	return 1;
}

static const char *const dft_ce_keys[] = { "setup", "workload", "check", "settle", "fs" };
static const size_t dft_ce_offs[] = {
	offsetof(struct dft_ct_entry, setup), offsetof(struct dft_ct_entry, workload),
	offsetof(struct dft_ct_entry, check), offsetof(struct dft_ct_entry, settle),
	offsetof(struct dft_ct_entry, fs),
};

/* A stanza of crashtest's catalogue: an entry, which needs its three lines and fs. */
static const struct dft_cat_kind dft_ce_kind = {
	.what = "entry",
	.keys = dft_ce_keys,
	.val_off = dft_ce_offs,
	.nr_keys = ARRAY_SIZE(dft_ce_keys),
	.keys_said = "setup, workload, check, settle or fs",
	.need = 1U << DFT_CE_SETUP | 1U << DFT_CE_WORKLOAD | 1U << DFT_CE_CHECK |
		1U << DFT_CE_FS,
	.size = sizeof(struct dft_ct_entry),
	.name_off = offsetof(struct dft_ct_entry, name),
	.line_off = offsetof(struct dft_ct_entry, line),
	.value_bad = dft_ce_value_bad,
};

/* Read and parse the crashtest catalogue @file. */
int dft_ct_catalog_read(struct dft_catalog *c, const char *file, char *err, size_t len)
{
	return dft_catalog_read(c, &dft_ce_kind, file, err, len);
}

/* The filesystem of the run: --fs, one of the entry's, else its first. */
static int dft_ce_fs(const struct dft_cmd *cmd, struct dft_ct *ct, const struct dft_ct_entry *e)
{
	const char *fs = ct->o->ct_fs, *p;
	size_t n = fs ? strlen(fs) : strcspn(e->fs, " \t");

	for (p = e->fs; fs && *p; p += strcspn(p, " \t"), p += strspn(p, " \t"))
		if (!strncmp(p, fs, n) && (!p[n] || p[n] == ' ' || p[n] == '\t'))
			break;
	if (fs && !*p)
		return dft_usage_err(cmd, "--fs %s: entry '%s' runs on %s", fs, e->name, e->fs);
	if (n >= sizeof(ct->fs) || strcspn(fs ? fs : e->fs, "'\"\\$`") < n)
		return dft_usage_err(cmd, "entry '%s': '%.*s' is not a filesystem's name",
				     e->name, (int)n, fs ? fs : e->fs);
	snprintf(ct->fs, sizeof(ct->fs), "%.*s", (int)n, fs ? fs : e->fs);
	return 0;
}

/*
 * --entry: the catalogue's entry in @o (the setup, workload and check
 * lines, and the settle time unless --settle gave one), the filesystem and
 * the helpers in @ct.  0, 1 (said why), or a usage error.
 */
int dft_ct_entry_load(const struct dft_cmd *cmd, struct dft_opts *o, struct dft_ct *ct)
{
	char file[PATH_MAX], alt[PATH_MAX], err[PATH_MAX + 256];
	const struct dft_ct_entry *e = NULL;
	unsigned int i;
	uint64_t s;
	int r;

	if (!o->ct_entry && o->ct_fs)
		return dft_usage_err(cmd, "--fs goes with --entry");
	if (!o->ct_entry && o->catalog)
		return dft_usage_err(cmd, "--catalog goes with --entry");
	if (!o->ct_entry)
		return 0;
	if (o->ct_setup || o->ct_workload || o->ct_check)
		return dft_usage_err(cmd, "--entry gives the setup, workload and check");
	r = dft_beside("share/dmfault/crashtest.sh", "crash/crashtest.sh", R_OK, ct->lib, alt,
		       sizeof(ct->lib));
	if (r == -ENOENT)
		return dft_err("crashtest: no helpers: neither %s nor %s is there", ct->lib, alt);
	if (!r && o->catalog)
		snprintf(file, sizeof(file), "%s", o->catalog);
	else if (!r)
		r = dft_beside("share/dmfault/crashtest.catalog", "crash/crashtest.catalog", R_OK,
			       file, alt, sizeof(file));
	if (r == -ENOENT)
		return dft_err("crashtest: no catalogue: neither %s nor %s is there", file, alt);
	if (r)
		return dft_err("/proc/self/exe: %s", strerror(-r));
	if (dft_ct_catalog_read(&ct->cat, file, err, sizeof(err)))
		return dft_err("crashtest: %s", err);
	for (i = 0; i < ct->cat.nr && !e; i++)
		if (!strcmp(((struct dft_ct_entry *)ct->cat.st)[i].name, o->ct_entry))
			e = &((struct dft_ct_entry *)ct->cat.st)[i];
	if (!e)
		return dft_usage_err(cmd, "no entry '%s' in the catalogue", o->ct_entry);
	o->ct_setup = (char *)e->setup;
	o->ct_workload = (char *)e->workload;
	o->ct_check = (char *)e->check;
	if (!o->ct_have_settle && e->settle && !dft_parse_u64(e->settle, &s))
		o->ct_settle = s;
	return dft_ce_fs(cmd, ct, e);
}
