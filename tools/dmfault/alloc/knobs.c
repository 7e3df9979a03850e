// SPDX-License-Identifier: GPL-2.0-only
/*
 * dmfault: the dmf_alloc module's debugfs files, which every allocator
 * command goes through:
 *   /sys/kernel/debug/dm-fault/{failslab,fail_page_alloc}/<knob>
 *   /sys/kernel/debug/dm-fault/mark       "PID" marks, "-PID" unmarks
 *   /sys/kernel/debug/dm-fault/fail-nth   "PID N"
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "alloc/alloc.h"

const char *const dft_hooks[DFT_NR_HOOKS] = { "failslab", "fail_page_alloc" };

/* The module's debugfs directory; $DMFAULT_DEBUGFS points elsewhere (tests). */
const char *dft_debugfs(void)
{
	const char *dir = getenv("DMFAULT_DEBUGFS");

	return dir && *dir ? dir : DFT_DEBUGFS;
}

/* A file at the top of the debugfs directory: "mark", "fail-nth". */
const char *dft_top_file(char *buf, size_t len, const char *name)
{
	snprintf(buf, len, "%s/%s", dft_debugfs(), name);
	return buf;
}

static bool dft_debugfs_mounted(void)
{
	char line[512];
	bool found = false;
	FILE *f = fopen("/proc/self/mounts", "re");

	if (!f)
		return true;	/* cannot tell: do not claim it is missing */
	while (!found && fgets(line, sizeof(line), f))
		found = strstr(line, " /sys/kernel/debug debugfs ") != NULL;
	fclose(f);
	return found;
}

/*
 * Which of modules @names does modprobe know for the running kernel?  A
 * module's line in modules.dep starts with its path,
 * "<dir>/<name>.ko[.xz|.zst|.gz]:".  Bit i for @names[i], in one read of
 * the file; -1 cannot tell (no modules.dep).
 */
static int dft_modules_installed(const char *release, const char *const *names,
				 unsigned int nr)
{
	char path[512], line[4096], *colon, *base;
	unsigned int i;
	int found = 0;
	size_t n;
	FILE *f;

	snprintf(path, sizeof(path), "/lib/modules/%s/modules.dep", release);
	f = fopen(path, "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		colon = strchr(line, ':');
		if (!colon)
			continue;
		*colon = '\0';
		base = strrchr(line, '/');
		base = base ? base + 1 : line;
		for (i = 0; i < nr; i++) {
			n = strlen(names[i]);
			if (!strncmp(base, names[i], n) && !strncmp(base + n, ".ko", 3) &&
			    (!base[n + 3] || base[n + 3] == '.'))
				found |= 1 << i;
		}
	}
	fclose(f);
	return found;
}

/*
 * Is the module there?  An exit status after the error, 0 if it is.  When
 * it is not loaded, say why it cannot be: dm-fault installed for this
 * kernel without dmf_alloc means the kernel lacks what the hooks need.
 */
int dft_alloc_present(void)
{
	static const char *const names[] = { "dmf_alloc", "dm-fault" };
	const char *dir = dft_debugfs();
	struct utsname u;
	struct stat st;

	if (!stat(dir, &st) && S_ISDIR(st.st_mode))
		return 0;
	if (errno == EACCES)
		return dft_err("%s: permission denied (debugfs needs root)", dir);
	if (!strncmp(dir, "/sys/kernel/debug/", 18) && !dft_debugfs_mounted())
		return dft_err("debugfs is not mounted (mount -t debugfs none /sys/kernel/debug)");
	/* dm-fault installed, dmf_alloc not */
	if (!uname(&u) && dft_modules_installed(u.release, names, 2) == 2)
		return dft_err("allocator hooks not loaded (dmf_alloc): not built for %s %s: they need an x86-64 or arm64 kernel with kprobes and ftrace with arguments",
			       u.machine, u.release);
	return dft_err("allocator hooks not loaded (dmf_alloc): no %s", dir);
}

int dft_read_file(const char *path, char *buf, size_t len)
{
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	if (n < 0) {
		n = -errno;
		close(fd);
		return n;
	}
	close(fd);
	buf[n] = '\0';
	while (n && buf[n - 1] == '\n')
		buf[--n] = '\0';
	return 0;
}

int dft_write_file(const char *path, const char *val)
{
	size_t n = strlen(val);
	char buf[512];
	ssize_t w;
	int fd;

	if (n + 2 > sizeof(buf))
		return -EINVAL;
	memcpy(buf, val, n);
	buf[n++] = '\n';
	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	w = write(fd, buf, n);
	if (w < 0) {
		w = -errno;
		close(fd);
		return w;
	}
	close(fd);
	return (size_t)w == n ? 0 : -EIO;
}

int dft_knob_path(char *buf, size_t len, const char *hook, const char *knob)
{
	if (!*knob || strchr(knob, '/') || !strcmp(knob, ".") || !strcmp(knob, ".."))
		return -EINVAL;
	if (snprintf(buf, len, "%s/%s/%s", dft_debugfs(), hook, knob) >= (int)len)
		return -ENAMETOOLONG;
	return 0;
}

static int dft_knob_err(const char *hook, const char *knob, const char *val, int r)
{
	if (r == -ENOENT)
		return dft_err("%s: no knob '%s' (see dmfault alloc show)", hook, knob);
	if (r == -EINVAL || r == -ERANGE)
		return dft_err("%s/%s: invalid value '%s'", hook, knob, val);
	if (r == -EACCES || r == -EPERM)
		return dft_err("%s/%s: permission denied", hook, knob);
	return dft_err("%s/%s: %s", hook, knob, strerror(-r));
}

/* Write every o->set knob to the selected hooks; @saved gets old values. */
int dft_apply_knobs(const struct dft_kv *set, unsigned int nr, unsigned int mask,
		    char ***saved, bool quiet_missing)
{
	char path[512], old[DFT_KNOB_MAX];
	unsigned int i, h;
	int r;

	for (i = 0; i < nr; i++) {
		for (h = 0; h < ARRAY_SIZE(dft_hooks); h++) {
			if (!(mask & (1U << h)))
				continue;
			r = dft_knob_path(path, sizeof(path), dft_hooks[h], set[i].key);
			if (r)
				return dft_err("'%s' is not a knob name", set[i].key);
			if (saved) {
				r = dft_read_file(path, old, sizeof(old));
				if (r == -ENOENT && quiet_missing)
					continue;
				if (r)
					return dft_knob_err(dft_hooks[h], set[i].key, set[i].val, r);
				saved[h][i] = strdup(old);
				if (!saved[h][i])
					return dft_err("out of memory");
			}
			r = dft_write_file(path, set[i].val);
			if (r)
				return dft_knob_err(dft_hooks[h], set[i].key, set[i].val, r);
		}
	}
	return 0;
}

/* Restore what dft_apply_knobs() saved for hook @h, in reverse order. */
void dft_restore_knobs(unsigned int h, const struct dft_kv *set, unsigned int nr,
		       char **saved)
{
	char path[512];
	unsigned int i;

	for (i = nr; i-- > 0;) {
		if (!saved[i])
			continue;
		if (!dft_knob_path(path, sizeof(path), dft_hooks[h], set[i].key))
			dft_write_file(path, saved[i]);
		free(saved[i]);
		saved[i] = NULL;
	}
}

/* Mark (or unmark) @pid through DFT_DEBUGFS/mark. */
int dft_mark(pid_t pid, bool mark)
{
	char val[32], path[512];

	snprintf(val, sizeof(val), "%s%d", mark ? "" : "-", (int)pid);
	return dft_write_file(dft_top_file(path, sizeof(path), "mark"), val);
}

/* Injected faults so far in the selected hooks, from their counters files. */
int dft_injected(unsigned int mask, uint64_t *total)
{
	char path[512], text[DFT_KNOB_MAX];
	unsigned int h;
	uint64_t v;

	*total = 0;
	for (h = 0; h < ARRAY_SIZE(dft_hooks); h++) {
		if (!(mask & (1U << h)))
			continue;
		snprintf(path, sizeof(path), "%s/%s/counters", dft_debugfs(), dft_hooks[h]);
		if (dft_read_file(path, text, sizeof(text)) ||
		    dft_find_counter(text, "injected", &v))
			return -ENOENT;
		*total += v;
	}
	return 0;
}

/*
 * Did the fail-nth count of @pid fire?  The module keeps "PID LEFT" (and
 * " exited") after the task is gone; LEFT 0 means it fired.  The entry is
 * dropped.  1 fired, 0 not, -ENOENT if the file does not tell.
 */
int dft_nth_fired(pid_t pid)
{
	char path[512], text[DFT_KNOB_MAX], val[32], *line, *s;
	uint64_t p, left;
	int r = -ENOENT;

	dft_top_file(path, sizeof(path), "fail-nth");
	if (dft_read_file(path, text, sizeof(text)))
		return -ENOENT;
	s = text;
	while ((line = strsep(&s, "\n")) != NULL) {
		char *pid_s = strsep(&line, " "), *left_s = strsep(&line, " ");

		if (!left_s || dft_parse_u64(pid_s, &p) || p != (uint64_t)pid ||
		    dft_parse_u64(left_s, &left))
			continue;
		r = left == 0;
		break;
	}
	snprintf(val, sizeof(val), "-%d", (int)pid);
	dft_write_file(path, val);
	return r;
}
