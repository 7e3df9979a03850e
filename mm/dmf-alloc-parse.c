// SPDX-License-Identifier: GPL-2.0-only
/*
 * dmf_alloc knob values: the text of a write to a knob read into names or
 * numbers, with nothing applied.  A value is refused here with -EINVAL (or
 * the errno its knob documents) before anything changes.  The host fuzzers
 * build this file.
 */
#include "dmf-alloc-parse.h"

/**
 * dmfa_names_parse - split a knob value into names
 * @s: names separated by blanks or commas
 * @max: how many are allowed
 * @modules: module names: '-' is read as '_', as modprobe does
 *
 * Return: the list (freed with kfree(), or dmfa_names_free() while it may
 * be in use), NULL for an empty one, or an ERR_PTR: -EINVAL for a name too
 * long, -ENOSPC for too many names, -ENOMEM.
 */
struct dmfa_names *dmfa_names_parse(const char *s, unsigned int max, bool modules)
{
	size_t len = strlen(s);
	struct dmfa_names *n;
	char *p, *tok;

	n = kzalloc(struct_size(n, buf, len + 1), GFP_KERNEL);
	if (!n)
		return ERR_PTR(-ENOMEM);
	memcpy(n->buf, s, len + 1);
	p = n->buf;
	while ((tok = strsep(&p, " \t\n,")) != NULL) {
		if (!*tok)
			continue;
		if (n->nr >= max || n->nr >= DMFA_NAMES_MAX || strlen(tok) >= DMFA_NAME_LEN) {
			int r = strlen(tok) >= DMFA_NAME_LEN ? -EINVAL : -ENOSPC;

			kfree(n);
			return ERR_PTR(r);
		}
		if (modules)
			strreplace(tok, '-', '_');
		n->name[n->nr++] = tok;
	}
	if (!n->nr) {
		kfree(n);
		return NULL;
	}
	return n;
}

/**
 * dmfa_cache_filter_parse - read a write to cache-filter
 * @val: names of caches, e.g. "dentry kmalloc-64"; "", "N", "n" or "0" for
 *	 every cache
 * @names_known: whether the running kernel's cache names can be read
 *
 * The kernel's Y (the caches flagged in /sys/kernel/slab) has no
 * equivalent: no cache can be flagged without CONFIG_FAILSLAB.
 *
 * Return: the list, NULL for every cache, or an ERR_PTR: -EINVAL for "Y",
 * "y" or "1", -EOPNOTSUPP for names when they cannot be read, or what
 * dmfa_names_parse() returns.
 */
struct dmfa_names *dmfa_cache_filter_parse(const char *val, bool names_known)
{
	/* kstrtobool() would take "no_such_cache" for N */
	if (!strcmp(val, "Y") || !strcmp(val, "y") || !strcmp(val, "1"))
		return ERR_PTR(-EINVAL);
	if (!strcmp(val, "N") || !strcmp(val, "n") || !strcmp(val, "0"))
		return NULL;
	if (!names_known)
		return ERR_PTR(-EOPNOTSUPP);
	return dmfa_names_parse(val, DMFA_NAMES_MAX, false);
}

/**
 * dmfa_pid_next - the next pid of a write to mark or unmark
 * @s: where to read; moved past the pid read
 * @pid: set to the pid, > 0
 * @unmark: set if it was written "-PID"
 *
 * Pids are decimal, "PID" or "-PID", separated by blanks or commas.
 *
 * Return: 1 for a pid, 0 at the end of the text, -EINVAL for a bad one.
 */
int dmfa_pid_next(const char **s, int *pid, bool *unmark)
{
	static const char sep[] = " \t\n,";
	char tok[16];
	size_t n;

	*s += strspn(*s, sep);
	if (!**s)
		return 0;
	n = strcspn(*s, sep);
	if (n >= sizeof(tok))
		return -EINVAL;
	memcpy(tok, *s, n);
	tok[n] = '\0';
	*s += n;
	*unmark = *tok == '-';
	if (kstrtoint(tok + *unmark, 10, pid) || *pid <= 0)
		return -EINVAL;
	return 1;
}

/*
 * A decimal int after blanks at *@s, as sscanf("%d") reads one, but one
 * past INT_MAX is refused, not wrapped.  *@s is moved past it.
 */
static int dmfa_int_next(const char **s, int *v)
{
	const char *p = skip_spaces(*s);
	size_t sign = *p == '-', n = sign + strspn(p + sign, "0123456789");
	char tok[24];

	if (n == sign || n >= sizeof(tok))
		return -EINVAL;
	memcpy(tok, p, n);
	tok[n] = '\0';
	*s = p + n;
	return kstrtoint(tok, 10, v);
}

/**
 * dmfa_nth_parse - read a write to fail-nth
 * @val: "PID N", or "-PID" (N is then 0), blanks trimmed
 * @pid: set to the pid, > 0
 * @n: set to the count, >= 0; 0 drops the entry
 *
 * Return: 0, or -EINVAL (also for a number past INT_MAX).
 */
int dmfa_nth_parse(const char *val, int *pid, int *n)
{
	if (val[0] == '-') {
		if (kstrtoint(val + 1, 10, pid) || *pid <= 0)
			return -EINVAL;
		*n = 0;
		return 0;
	}
	if (dmfa_int_next(&val, pid) || dmfa_int_next(&val, n) || *skip_spaces(val) ||
	    *pid <= 0 || *n < 0)
		return -EINVAL;
	return 0;
}
