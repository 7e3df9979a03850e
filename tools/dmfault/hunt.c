// SPDX-License-Identifier: GPL-2.0-only
/*
 * dmfault hunt: the catalogue of kernel paths it sweeps, the call chain of
 * an injected fault as the allocator hooks log it (verbose 2), and the
 * findings, deduplicated by that chain.  libc only: the host unit tests
 * link this file as it is (tests/unit/dmfault_hunt_test.c).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "dmfault.h"

#define W	DFT_HUNT_DIR
#define LOOP_SETUP(dev, img, size, mkfs) \
	"modprobe loop; truncate -s " size " " W "/" img " && " mkfs " " W "/" img \
	" >/dev/null && losetup " dev " " W "/" img " && mkdir -p " W "/mnt"
#define DM_SETUP \
	"modprobe loop; truncate -s 8M " W "/dm.img && losetup /dev/loop2 " W "/dm.img && " \
	"echo '0 16384 linear /dev/loop2 0' > " W "/linear.table && " \
	"echo '0 16384 fault /dev/loop2 0' > " W "/fault.table"

/*
 * Each command is short and reaches its path in a few system calls;
 * dmf-hunt (tests/vm/bin, static) makes the calls no standard command
 * makes alone.  Faults go to the command's process (fail-nth is not
 * inherited), so none is a shell.  The 9p client is out of scope (see
 * dft_hunt_defaults in cmd_hunt.c).
 */
const struct dft_hunt_path dft_hunt_catalog[] = {
	{ "netns", NULL, "dmf-hunt unshare n", NULL, NULL, NULL },
	{ "mntns", NULL, "dmf-hunt unshare m", NULL, NULL, NULL },
	{ "userns", NULL, "dmf-hunt unshare U", NULL, NULL, NULL },
	{ "pidns", NULL, "dmf-hunt unshare p", NULL, NULL, NULL },
	{ "tmpfs", "mkdir -p " W "/mnt", "dmf-hunt mount tmpfs none " W "/mnt",
	  "umount " W "/mnt", NULL, NULL },
	{ "ext4", "modprobe ext4; " LOOP_SETUP("/dev/loop0", "ext4.img", "32M", "mkfs.ext4 -q"),
	  "dmf-hunt mount ext4 /dev/loop0 " W "/mnt", "umount " W "/mnt",
	  "losetup -d /dev/loop0", NULL },
	{ "xfs", "modprobe xfs; " LOOP_SETUP("/dev/loop1", "xfs.img", "320M", "mkfs.xfs -q"),
	  "dmf-hunt mount xfs /dev/loop1 " W "/mnt", "umount " W "/mnt",
	  "losetup -d /dev/loop1", NULL },
	{ "dm-linear-create", DM_SETUP, "dmsetup create hunt-c " W "/linear.table",
	  "dmsetup remove hunt-c", "losetup -d /dev/loop2", NULL },
	{ "dm-fault-create", DM_SETUP, "dmsetup create hunt-c " W "/fault.table",
	  "dmsetup remove hunt-c", "losetup -d /dev/loop2", NULL },
	{ "dm-linear-load", DM_SETUP "; dmsetup create --notable hunt-l",
	  "dmsetup load hunt-l " W "/linear.table", "dmsetup clear hunt-l",
	  "dmsetup remove hunt-l; losetup -d /dev/loop2", NULL },
	{ "dm-fault-load", DM_SETUP "; dmsetup create --notable hunt-l",
	  "dmsetup load hunt-l " W "/fault.table", "dmsetup clear hunt-l",
	  "dmsetup remove hunt-l; losetup -d /dev/loop2", NULL },
	{ "dm-remove", DM_SETUP "; dmsetup create hunt-r " W "/linear.table",
	  "dmsetup remove hunt-r",
	  "dmsetup remove hunt-r; dmsetup create hunt-r " W "/linear.table",
	  "dmsetup remove hunt-r; losetup -d /dev/loop2", NULL },
	{ "pipe", NULL, "dmf-hunt pipe", NULL, NULL, NULL },
	{ "unix", NULL, "dmf-hunt unix", NULL, NULL, NULL },
	{ "inet", "ip link set lo up", "dmf-hunt inet", NULL, NULL, NULL },
	{ "inet6", "ip link set lo up", "dmf-hunt inet6", NULL, NULL, NULL },
	{ "netlink", NULL, "dmf-hunt netlink", NULL, NULL, NULL },
	{ "packet", "ip link set lo up", "dmf-hunt packet", NULL, NULL, NULL },
	{ "epoll", NULL, "dmf-hunt epoll", NULL, NULL, NULL },
	{ "inotify", NULL, "dmf-hunt inotify", NULL, NULL, NULL },
	{ "eventfd", NULL, "dmf-hunt eventfd", NULL, NULL, NULL },
	{ "timerfd", NULL, "dmf-hunt timerfd", NULL, NULL, NULL },
	{ "io_uring", NULL, "dmf-hunt io_uring", NULL, NULL, NULL },
	{ "module", "rmmod ts_kmp; cp \"$(modinfo -n ts_kmp)\" " W "/",
	  "dmf-hunt insmod " W " ts_kmp", "rmmod ts_kmp", NULL, NULL },
};

const unsigned int dft_hunt_catalog_size = ARRAY_SIZE(dft_hunt_catalog);

/*
 * A catalogue line of $DMFAULT_HUNT_CATALOG: NAME|SETUP|CMD|POST|TEARDOWN|KNOBS,
 * trailing fields optional.  @p points into @line.  0, 1 for a blank or
 * comment line, -EINVAL without a name or a command.
 */
int dft_hunt_parse_line(char *line, struct dft_hunt_path *p)
{
	const char **field[] = { &p->name, &p->setup, &p->cmd, &p->post, &p->teardown,
				 &p->knobs };
	unsigned int i;
	char *s;

	memset(p, 0, sizeof(*p));
	line[strcspn(line, "\n")] = '\0';
	line += strspn(line, " \t");
	if (!*line || *line == '#')
		return 1;
	for (i = 0; i < ARRAY_SIZE(field) && line; i++) {
		s = strsep(&line, "|");
		*field[i] = *s ? s : NULL;
	}
	if (line || !p->name || !p->cmd)
		return -EINVAL;
	return 0;
}

/* Append @sym (up to "+0x" or a blank) to @c's frames. */
static void dft_chain_add(struct dft_chain *c, const char *sym)
{
	size_t n = strcspn(sym, "+ \t"), have = strlen(c->frames);

	if (!n || have + n + 4 >= sizeof(c->frames))
		return;
	if (c->nr++)
		strcat(c->frames, " < ");
	strncat(c->frames, sym, n);
}

/*
 * Feed one kernel log line.  The hook logs a fault as
 * "dmf_alloc: FAULT_INJECTION: forcing a failure: HOOK FN(...) pid P (COMM)"
 * and, at verbose 2, "dmf_alloc:   called by SYM+0x../0x.. [MOD]" and
 * "dmf_alloc:   from SYM...".  A new fault line starts the chain again.
 * True if the line was one of these.
 */
bool dft_chain_feed(struct dft_chain *c, const char *text)
{
	static const char fault[] = "FAULT_INJECTION: forcing a failure: ";
	const char *p;
	size_t n;

	p = strstr(text, fault);
	if (p) {
		memset(c, 0, sizeof(*c));
		p += strlen(fault);
		n = strcspn(p, "\n");
		/* drop " pid P (COMM)": it differs from run to run */
		if (strstr(p, " pid "))
			n = strstr(p, " pid ") - p;
		snprintf(c->fault, sizeof(c->fault), "%.*s", (int)n, p);
		c->seen = true;
		return true;
	}
	if (!c->seen || strncmp(text, "dmf_alloc:   ", 13))
		return false;
	p = text + 13;
	if (!strncmp(p, "called by ", 10))
		dft_chain_add(c, p + 10);
	else if (!strncmp(p, "from ", 5))
		dft_chain_add(c, p + 5);
	else
		return false;
	return true;
}

/*
 * The key findings are deduplicated by: their kind and the chain of the
 * injected fault, symbols without offsets (they differ between builds, the
 * functions do not).  Without a logged chain (a __GFP_NOWARN allocation is
 * not logged) the kind and what was seen, digits dropped.
 */
void dft_chain_key(const struct dft_chain *c, const char *kind, const char *what, char *key,
		   size_t len)
{
	size_t n;

	if (c->nr) {
		snprintf(key, len, "%s|%s", kind, c->frames);
		return;
	}
	n = snprintf(key, len, "%s|unlogged|", kind);
	for (; what && *what && n + 1 < len; what++)
		if (*what < '0' || *what > '9')
			key[n++] = *what;
	if (n < len)
		key[n] = '\0';
}

/*
 * The first line of a report the kernel prints, with a stack dump
 * ("Call Trace:"), when an allocation fails and the caller copes with it:
 * warn_alloc() ("COMM: page allocation failure: order:0, mode:0x...(...),
 * nodemask=(null),cpuset=/,mems_allowed=0", "vmalloc error: ..."), and
 * 6.1's __register_sysctl_table() ("sysctl could not get directory: /net
 * -12").  Diagnostics of a failure handled, not findings.
 */
bool dft_alloc_failure_report(const char *line)
{
	return (strstr(line, ", mode:0x") && strstr(line, "nodemask=")) ||
	       strstr(line, "sysctl could not get directory: ");
}

/* Is @word one of the blank-separated words of @list? */
static bool dft_has_word(const char *list, const char *word)
{
	size_t n = strlen(word);
	const char *p;

	for (p = list; (p = strstr(p, word)) != NULL; p += n)
		if ((p == list || p[-1] == ' ') && (p[n] == ' ' || !p[n]))
			return true;
	return false;
}

/* Add a finding, or count another hit of one with the same key.  0 or -ENOMEM. */
int dft_findings_add(struct dft_findings *fs, const struct dft_finding *nf)
{
	struct dft_finding *f, *p;
	unsigned int i;
	size_t n;

	for (i = 0; i < fs->nr; i++) {
		f = &fs->f[i];
		if (strcmp(f->key, nf->key))
			continue;
		f->hits++;
		n = strlen(f->paths);
		if (!dft_has_word(f->paths, nf->path) && n + strlen(nf->path) + 2 < sizeof(f->paths))
			snprintf(f->paths + n, sizeof(f->paths) - n, " %s", nf->path);
		return 0;
	}
	p = realloc(fs->f, (fs->nr + 1) * sizeof(*p));
	if (!p)
		return -ENOMEM;
	fs->f = p;
	f = &fs->f[fs->nr++];
	*f = *nf;
	f->hits = 1;
	snprintf(f->paths, sizeof(f->paths), "%s", nf->path);
	return 0;
}

void dft_findings_free(struct dft_findings *fs)
{
	free(fs->f);
	fs->f = NULL;
	fs->nr = 0;
}
