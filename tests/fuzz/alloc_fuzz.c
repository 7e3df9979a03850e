// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer target for what a write to a dmf_alloc debugfs knob says
 * (mm/dmf-alloc-parse.c, the file the module compiles, built unchanged
 * against tools/kshim).  The input's first byte picks the reader and its
 * parameters, the rest is the value, trimmed as the knob's write trims it:
 *
 *  - name lists (require-/reject-module/symbol) and cache-filter: the
 *    result is the blank- or comma-separated words of the value, '-' read
 *    as '_' for modules, or the documented error for the first word too
 *    long or one too many; nothing is leaked;
 *  - mark and unmark: each pid read is the decimal number written, > 0 and
 *    no larger than INT_MAX, or the value is refused;
 *  - fail-nth: "PID N" or "-PID" is taken only with PID > 0, N >= 0, both
 *    exactly the numbers written (no wrap past INT_MAX).
 *
 * Each reader is checked against a reference reading written here from
 * the knob's documentation.  A broken invariant aborts; libFuzzer saves the
 * input as crash-<sha1>.
 */
#include <stdint.h>

#include "../../mm/dmf-alloc-parse.h"

#define FZ_MAX_INPUT	4096
#define FZ_SEP		" \t\n,"

static void __noreturn fz_fail(const char *input, const char *what, long detail)
{
	fprintf(stderr, "alloc_fuzz: input \"%s\": %s (%ld)\n", input, what, detail);
	abort();
}

static bool fz_isspace(char c)
{
	return c == ' ' || (c >= '\t' && c <= '\r') || (unsigned char)c == 0xa0;
}

/* strim() in place: what dmfa_knob_write() hands a knob. */
static char *fz_strim(char *s)
{
	size_t n = strlen(s);

	while (n && fz_isspace(s[n - 1]))
		s[--n] = '\0';
	while (fz_isspace(*s))
		s++;
	return s;
}

/* The exact value of "[+]digits" at @s..@end, or -1 if it is not one or > INT_MAX. */
static long long fz_decimal(const char *s, const char *end)
{
	long long v = 0;

	if (s < end && *s == '+')
		s++;
	if (s == end)
		return -1;
	for (; s < end; s++) {
		if (*s < '0' || *s > '9')
			return -1;
		v = v * 10 + (*s - '0');
		if (v > INT_MAX)
			v = (long long)INT_MAX + 1;
	}
	return v > INT_MAX ? -1 : v;
}

/* What dmfa_names_parse(@in, @max, @modules) should give: 0 or -errno. */
static void fz_names_check(const char *in, struct dmfa_names *n, unsigned int max, bool modules)
{
	unsigned int i = 0, want_nr = 0;
	long want_err = 0;
	const char *s = in;
	size_t len;

	for (s += strspn(s, FZ_SEP); *s; s += strspn(s, FZ_SEP)) {
		len = strcspn(s, FZ_SEP);
		if (want_nr >= max || want_nr >= DMFA_NAMES_MAX || len >= DMFA_NAME_LEN) {
			want_err = len >= DMFA_NAME_LEN ? -EINVAL : -ENOSPC;
			break;
		}
		want_nr++;
		s += len;
	}
	if (IS_ERR(n)) {
		if (PTR_ERR(n) != want_err)
			fz_fail(in, "names: wrong error", PTR_ERR(n));
		return;
	}
	if (want_err)
		fz_fail(in, "names: accepted, should be", want_err);
	if (!n) {
		if (want_nr)
			fz_fail(in, "names: none read, words given", want_nr);
		return;
	}
	if (n->nr != want_nr)
		fz_fail(in, "names: wrong count", n->nr);
	for (s = in + strspn(in, FZ_SEP); i < n->nr; i++, s += strspn(s, FZ_SEP)) {
		len = strcspn(s, FZ_SEP);
		if (strlen(n->name[i]) != len)
			fz_fail(in, "names: wrong length of name", i);
		for (size_t j = 0; j < len; j++)
			if (n->name[i][j] != (modules && s[j] == '-' ? '_' : s[j]))
				fz_fail(in, "names: wrong name", i);
		s += len;
	}
}

static void fz_names(const char *in, unsigned int param)
{
	unsigned int max = param % (DMFA_NAMES_MAX + 2);
	bool modules = param & 32;
	struct dmfa_names *n = dmfa_names_parse(in, max, modules);

	fz_names_check(in, n, max, modules);
	if (!IS_ERR_OR_NULL(n))
		kfree(n);
}

static void fz_cache_filter(const char *in, unsigned int param)
{
	bool known = param & 1;
	struct dmfa_names *n = dmfa_cache_filter_parse(in, known);

	if (!strcmp(in, "Y") || !strcmp(in, "y") || !strcmp(in, "1")) {
		if (PTR_ERR(n) != -EINVAL)
			fz_fail(in, "cache-filter: Y not refused", PTR_ERR(n));
	} else if (!strcmp(in, "N") || !strcmp(in, "n") || !strcmp(in, "0")) {
		if (n)
			fz_fail(in, "cache-filter: N is not every cache", PTR_ERR(n));
	} else if (!known) {
		if (PTR_ERR(n) != -EOPNOTSUPP)
			fz_fail(in, "cache-filter: names taken without cache names", PTR_ERR(n));
	} else {
		fz_names_check(in, n, DMFA_NAMES_MAX, false);
	}
	if (!IS_ERR_OR_NULL(n))
		kfree(n);
}

static void fz_marks(const char *in)
{
	const char *s = in, *tok, *end;
	long long want;
	bool unmark;
	int pid, r;

	for (;;) {
		tok = s + strspn(s, FZ_SEP);
		end = tok + strcspn(tok, FZ_SEP);
		r = dmfa_pid_next(&s, &pid, &unmark);
		if (!*tok) {
			if (r)
				fz_fail(in, "mark: a pid read past the end", r);
			return;
		}
		want = end - tok >= 16 ? -1 : fz_decimal(tok + (*tok == '-'), end);
		if (want <= 0) {
			if (r != -EINVAL)
				fz_fail(in, "mark: a bad pid taken", pid);
			return;
		}
		if (r != 1 || pid != want || unmark != (*tok == '-') || s != end)
			fz_fail(in, "mark: a pid read wrong", r == 1 ? pid : r);
	}
}

/* One number of "PID N" as the kernel's sscanf reads it, exactly. */
static const char *fz_nth_number(const char *s, long long *v)
{
	bool neg;

	while (fz_isspace(*s))
		s++;
	neg = *s == '-';
	s += neg;
	if (*s < '0' || *s > '9')
		return NULL;
	for (*v = 0; *s >= '0' && *s <= '9'; s++)
		if (*v <= (long long)INT_MAX + 1)
			*v = *v * 10 + (*s - '0');
	if (neg)
		*v = -*v;
	return s;
}

static void fz_nth(const char *in)
{
	long long want_pid, want_n;
	const char *s;
	int pid, n, r;

	r = dmfa_nth_parse(in, &pid, &n);
	if (r && r != -EINVAL)
		fz_fail(in, "fail-nth: not EINVAL", r);
	if (r)
		return;
	if (pid <= 0 || n < 0)
		fz_fail(in, "fail-nth: out of range taken", pid);
	if (in[0] == '-') {
		want_pid = fz_decimal(in + 1, in + strlen(in));
		want_n = 0;
	} else {
		s = fz_nth_number(in, &want_pid);
		s = s ? fz_nth_number(s, &want_n) : NULL;
		if (!s)
			fz_fail(in, "fail-nth: taken without two numbers", pid);
	}
	if (want_pid != pid || want_n != n)
		fz_fail(in, "fail-nth: a number read other than written", pid);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char buf[FZ_MAX_INPUT + 1];
	char *s;

	if (!size || size > FZ_MAX_INPUT)
		return 0;
	memcpy(buf, data + 1, size - 1);
	buf[size - 1] = '\0';
	s = fz_strim(buf);
	switch (data[0] & 3) {
	case 0:
		fz_names(s, data[0] >> 2);
		break;
	case 1:
		fz_cache_filter(s, data[0] >> 2);
		break;
	case 2:
		fz_marks(s);
		break;
	default:
		fz_nth(s);
		break;
	}
	return 0;
}
