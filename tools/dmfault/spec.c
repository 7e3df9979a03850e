// SPDX-License-Identifier: GPL-2.0-only
/*
 * dmfault: readable options to table text.  Sizes with units, durations and
 * percentages become the target's rule keys; a rule the tool does not know
 * (a key or an action of a newer target) passes through untouched, and the
 * checker names the word that is wrong in one it does know.  libc only: the
 * host unit tests link this file as it is.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dmfault.h"

#define DFT_RULE_MAX_LEN	255

static const char * const dft_ops[] = {
	"read", "write", "flush", "fua", "discard", "write-zeroes", "other", "any",
};

static const char * const dft_statuses[] = {
	"ok", "success", "eio", "ioerr", "enospc", "nospc", "etimedout", "timeout",
	"medium", "enodata", "enolink", "transport", "eopnotsupp", "notsupp",
	"eagain", "again", "eilseq", "protection", "eremoteio", "target",
	"enomem", "resource",
};

/* Actions whose keys are all known here; others are checked less strictly. */
static const char * const dft_actions[] = {
	"error", "drop", "corrupt", "delay", "stall", "torn",
};

void dft_buf_add(struct dft_buf *b, const char *fmt, ...)
{
	va_list ap;
	size_t need;
	char *p;
	int n;

	if (b->oom)
		return;
	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0) {
		b->oom = true;
		return;
	}
	need = b->len + n + 1;
	if (need > b->size) {
		size_t size = b->size ? b->size : 64;

		while (size < need)
			size *= 2;
		p = realloc(b->text, size);
		if (!p) {
			b->oom = true;
			return;
		}
		b->text = p;
		b->size = size;
	}
	va_start(ap, fmt);
	vsnprintf(b->text + b->len, b->size - b->len, fmt, ap);
	va_end(ap);
	b->len += n;
}

void dft_buf_free(struct dft_buf *b)
{
	free(b->text);
	memset(b, 0, sizeof(*b));
}

/* Decimal digits only, no sign, no white space, no overflow. */
int dft_parse_u64(const char *s, uint64_t *v)
{
	uint64_t x = 0;

	if (!s || !*s)
		return -EINVAL;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return -EINVAL;
		if (x > (UINT64_MAX - (*s - '0')) / 10)
			return -ERANGE;
		x = x * 10 + (*s - '0');
	}
	*v = x;
	return 0;
}

/*
 * "12", "1.5" -> integer part, fraction digits (at most 9) and their scale;
 * *end points past the number.
 */
static int dft_parse_decimal(const char *s, uint64_t *ip, uint64_t *frac,
			     uint64_t *scale, const char **end)
{
	uint64_t x = 0, f = 0, sc = 1;
	const char *p = s;

	if (*p < '0' || *p > '9')
		return -EINVAL;
	for (; *p >= '0' && *p <= '9'; p++) {
		if (x > (UINT64_MAX - (*p - '0')) / 10)
			return -ERANGE;
		x = x * 10 + (*p - '0');
	}
	if (*p == '.') {
		p++;
		if (*p < '0' || *p > '9')
			return -EINVAL;
		for (; *p >= '0' && *p <= '9'; p++) {
			if (sc >= 1000000000ULL)
				return -ERANGE;
			f = f * 10 + (*p - '0');
			sc *= 10;
		}
	}
	*ip = x;
	*frac = f;
	*scale = sc;
	*end = p;
	return 0;
}

/* ip.frac * mult, which must come out a whole number. */
static int dft_scale(uint64_t ip, uint64_t frac, uint64_t scale, uint64_t mult,
		     uint64_t *v)
{
	uint64_t whole;

	if (mult && ip > UINT64_MAX / mult)
		return -ERANGE;
	whole = ip * mult;
	if (frac) {
		if (mult > UINT64_MAX / frac || (frac * mult) % scale)
			return -EINVAL;
		if (whole > UINT64_MAX - frac * mult / scale)
			return -ERANGE;
		whole += frac * mult / scale;
	}
	*v = whole;
	return 0;
}

static const struct {
	const char *unit;
	uint64_t mult;
} dft_size_units[] = {
	{ "", 1 }, { "b", 1 }, { "B", 1 }, { "s", 512 },
	{ "k", 1ULL << 10 }, { "K", 1ULL << 10 }, { "KiB", 1ULL << 10 },
	{ "m", 1ULL << 20 }, { "M", 1ULL << 20 }, { "MiB", 1ULL << 20 },
	{ "g", 1ULL << 30 }, { "G", 1ULL << 30 }, { "GiB", 1ULL << 30 },
	{ "t", 1ULL << 40 }, { "T", 1ULL << 40 }, { "TiB", 1ULL << 40 },
	{ "kB", 1000 }, { "KB", 1000 }, { "MB", 1000000 }, { "GB", 1000000000 },
	{ "TB", 1000000000000ULL },
};

/**
 * dft_parse_size - a size with an optional unit
 * @s: "4096", "4k", "1.5M", "8s" (512-byte sectors), "1GiB", "1GB"
 * @bytes: the size in bytes
 *
 * Return: 0, -EINVAL (not a size, or not a whole number of bytes), -ERANGE.
 */
int dft_parse_size(const char *s, uint64_t *bytes)
{
	uint64_t ip, frac, scale;
	const char *end;
	unsigned int i;
	int r;

	r = dft_parse_decimal(s, &ip, &frac, &scale, &end);
	if (r)
		return r;
	for (i = 0; i < ARRAY_SIZE(dft_size_units); i++)
		if (!strcmp(end, dft_size_units[i].unit))
			return dft_scale(ip, frac, scale, dft_size_units[i].mult, bytes);
	return -EINVAL;
}

static const struct {
	const char *unit;
	uint64_t ns;
} dft_time_units[] = {
	{ "ns", 1 }, { "us", 1000 }, { "ms", 1000000 }, { "s", 1000000000ULL },
	{ "sec", 1000000000ULL }, { "m", 60000000000ULL }, { "min", 60000000000ULL },
	{ "h", 3600000000000ULL }, { "d", 86400000000000ULL },
};

/**
 * dft_parse_duration - a duration with an optional unit
 * @s: "30", "30s", "1.5s", "500ms", "250us", "2m", "1h", "1d"
 * @unit_ns: what a number without a unit counts (1000000000 for seconds)
 * @ns: the duration in nanoseconds
 *
 * Return: 0, -EINVAL or -ERANGE.
 */
int dft_parse_duration(const char *s, uint64_t unit_ns, uint64_t *ns)
{
	uint64_t ip, frac, scale;
	const char *end;
	unsigned int i;
	int r;

	r = dft_parse_decimal(s, &ip, &frac, &scale, &end);
	if (r)
		return r;
	if (!*end)
		return dft_scale(ip, frac, scale, unit_ns, ns);
	for (i = 0; i < ARRAY_SIZE(dft_time_units); i++)
		if (!strcmp(end, dft_time_units[i].unit))
			return dft_scale(ip, frac, scale, dft_time_units[i].ns, ns);
	return -EINVAL;
}

/*
 * A probability as the engine reads it: "5" (percent, as the kernel's
 * knobs), "0.1%", "1e-6" (a fraction), "1/1000".  At most 1.
 */
int dft_parse_prob(const char *s)
{
	const char *slash = strchr(s, '/');
	double v;
	bool percent = true;
	uint64_t num, den;
	char *end, tmp[64];

	if (!*s || strlen(s) >= sizeof(tmp))
		return -EINVAL;
	if (slash) {
		memcpy(tmp, s, slash - s);
		tmp[slash - s] = '\0';
		if (dft_parse_u64(tmp, &num) || dft_parse_u64(slash + 1, &den) || !den)
			return -EINVAL;
		return num <= den ? 0 : -ERANGE;
	}
	if (!isdigit((unsigned char)s[0]) && s[0] != '.')
		return -EINVAL;
	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s)
		return -EINVAL;
	if (strpbrk(s, "eE"))
		percent = false;
	if (*end == '%') {
		percent = true;
		end++;
	}
	if (*end || strpbrk(s, "xXpPnN"))	/* no hex floats, inf or nan */
		return -EINVAL;
	if (v < 0 || v > (percent ? 100.0 : 1.0))
		return -ERANGE;
	return 0;
}

static bool dft_in(const char *s, const char * const *names, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(s, names[i]))
			return true;
	return false;
}

bool dft_is_status_name(const char *s)
{
	return dft_in(s, dft_statuses, ARRAY_SIZE(dft_statuses));
}

/* "read", "read+write", "any": the op= value the target reads. */
bool dft_is_op_list(const char *s)
{
	char tmp[128], *p, *tok;

	if (!*s || strlen(s) >= sizeof(tmp))
		return false;
	strcpy(tmp, s);
	p = tmp;
	while ((tok = strsep(&p, "+")) != NULL)
		if (!dft_in(tok, dft_ops, ARRAY_SIZE(dft_ops)))
			return false;
	return true;
}

static int dft_rule_fail(struct dft_rule_err *err, const char *word, size_t n,
			 const char *reason)
{
	if (n >= sizeof(err->word))
		n = sizeof(err->word) - 1;
	memcpy(err->word, word, n);
	err->word[n] = '\0';
	err->reason = reason;
	return -EINVAL;
}

/* "A" or "A-B" with A <= B; for sizes also "A-" (no upper bound). */
static int dft_check_range(const char *val, bool size)
{
	char tmp[64], *dash;
	uint64_t a, b;

	if (strlen(val) >= sizeof(tmp))
		return -EINVAL;
	strcpy(tmp, val);
	dash = strchr(tmp, '-');
	if (dash)
		*dash++ = '\0';
	if (!size) {
		if (dft_parse_u64(tmp, &a) || (dash && dft_parse_u64(dash, &b)))
			return -EINVAL;
		return dash && a > b ? -EINVAL : 0;
	}
	/* the target's own units: bytes with k, m or g */
	if (dft_parse_size(tmp, &a) || strpbrk(tmp, ".sBiTt"))
		return -EINVAL;
	if (!dash || !*dash)
		return a > UINT32_MAX ? -EINVAL : 0;
	if (dft_parse_size(dash, &b) || strpbrk(dash, ".sBiTt"))
		return -EINVAL;
	return a > b || b > UINT32_MAX ? -EINVAL : 0;
}

static int dft_check_s64(const char *val, long long min)
{
	uint64_t v;

	if (val[0] == '-')
		return !strcmp(val, "-1") && min <= -1 ? 0 : -EINVAL;
	return dft_parse_u64(val, &v) || v > INT64_MAX ? -EINVAL : 0;
}

/* Like the kernel's kstrtou64(val, 0): decimal, 0x hex or 0 octal. */
static int dft_check_u64_any_base(const char *val)
{
	char *end;

	if (!isdigit((unsigned char)val[0]))
		return -EINVAL;
	errno = 0;
	strtoull(val, &end, 0);
	return errno || *end ? -EINVAL : 0;
}

/* The target's durations: digits and ns, us, ms (the default) or s; a day at most. */
static int dft_check_kernel_duration(const char *val)
{
	static const char *const units[] = { "", "ns", "us", "ms", "s" };
	size_t n = strspn(val, "0123456789");
	uint64_t ns;
	char num[24];

	if (!n || n >= sizeof(num) || !dft_in(val + n, units, ARRAY_SIZE(units)))
		return -EINVAL;
	memcpy(num, val, n);
	num[n] = '\0';
	if (dft_parse_duration(val, 1000000, &ns) || ns > 86400000000000ULL)
		return -EINVAL;
	return 0;
}

/* Check the value of a key the tool knows; -ENOENT for a key it does not. */
static int dft_check_kv(const char *key, const char *val)
{
	uint64_t v;

	if (!strcmp(key, "id"))
		return dft_parse_u64(val, &v) || !v || v > UINT32_MAX ? -EINVAL : 0;
	if (!strcmp(key, "op"))
		return dft_is_op_list(val) ? 0 : -EINVAL;
	if (!strcmp(key, "sectors"))
		return dft_check_range(val, false);
	if (!strcmp(key, "size"))
		return dft_check_range(val, true);
	if (!strcmp(key, "up") || !strcmp(key, "down") || !strcmp(key, "after"))
		return dft_parse_u64(val, &v) || v > UINT32_MAX ? -EINVAL : 0;
	if (!strcmp(key, "skip"))
		return dft_parse_u64(val, &v);
	if (!strcmp(key, "enabled"))
		return strcmp(val, "0") && strcmp(val, "1") ? -EINVAL : 0;
	if (!strcmp(key, "status"))
		return dft_is_status_name(val) ? 0 : -EINVAL;
	if (!strcmp(key, "p") || !strcmp(key, "probability"))
		return dft_parse_prob(val) ? -EINVAL : 0;
	if (!strcmp(key, "interval"))
		return dft_parse_u64(val, &v) || !v ? -EINVAL : 0;
	if (!strcmp(key, "times"))
		return dft_check_s64(val, -1);
	if (!strcmp(key, "space"))
		return dft_check_s64(val, 0);
	if (!strcmp(key, "seed"))
		return dft_check_u64_any_base(val);
	if (!strcmp(key, "verbose"))
		return dft_parse_u64(val, &v) || v > 2 ? -EINVAL : 0;
	if (!strcmp(key, "bits"))
		return dft_parse_u64(val, &v) || !v || v > 4096 ? -EINVAL : 0;
	if (!strcmp(key, "byte"))
		return dft_parse_u64(val, &v) || v > 255 ? -EINVAL : 0;
	if (!strcmp(key, "offset") || !strcmp(key, "keep"))
		return strcmp(val, "random") && (dft_parse_u64(val, &v) || v > UINT32_MAX) ?
		       -EINVAL : 0;
	if (!strcmp(key, "delay") || !strcmp(key, "jitter") || !strcmp(key, "timeout"))
		return dft_check_kernel_duration(val);
	if (!strcmp(key, "dist"))
		return strcmp(val, "uniform") && strcmp(val, "exp") ? -EINVAL : 0;
	return -ENOENT;
}

static bool dft_word_ok(const char *s, size_t n)
{
	size_t i;

	if (!n)
		return false;
	for (i = 0; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && s[i] != '-' && s[i] != '_')
			return false;
	return true;
}

/* The "key=value" item of @rule for @key, or NULL; *n gets its length. */
static const char *dft_find_item(const char *rule, const char *key, size_t *n)
{
	size_t klen = strlen(key);
	const char *p = strchr(rule, ':');

	while (p) {
		p++;
		*n = strcspn(p, ",");
		if (*n > klen && !strncmp(p, key, klen) && p[klen] == '=')
			return p;
		p = strchr(p, ',');
	}
	return NULL;
}

/* Combinations the target refuses, checked only to explain a refusal. */
static int dft_rule_semantics(const char *action, const char *rule,
			      struct dft_rule_err *err)
{
	const char *op, *st, *up;
	size_t n, sn, un;
	char ops[128];

	op = dft_find_item(rule, "op", &n);
	if (op && n - 3 < sizeof(ops)) {
		memcpy(ops, op + 3, n - 3);
		ops[n - 3] = '\0';
		if ((!strcmp(action, "drop") || !strcmp(action, "torn")) &&
		    (strstr(ops, "read") || strstr(ops, "other") || strstr(ops, "any")))
			return dft_rule_fail(err, op, n, !strcmp(action, "drop") ?
					     "drop applies to write, flush, discard and write-zeroes only" :
					     "torn applies to writes only");
	}
	st = dft_find_item(rule, "status", &sn);
	if (!strcmp(action, "error") && st &&
	    (!strncmp(st, "status=ok", sn) || !strncmp(st, "status=success", sn)))
		return dft_rule_fail(err, st, sn, "error needs a failing status");
	up = dft_find_item(rule, "up", &un);
	if (up && !dft_find_item(rule, "down", &n))
		return dft_rule_fail(err, up, un, "up= needs down=");
	if (!strcmp(action, "delay") && !dft_find_item(rule, "delay", &n) &&
	    !dft_find_item(rule, "jitter", &n))
		return dft_rule_fail(err, action, strlen(action), "delay needs delay= or jitter=");
	return 0;
}

/**
 * dft_rule_check - check a rule as the target will read it
 * @rule: "<action>[:<key>=<value>,...]"
 * @strict: also refuse actions and keys this tool does not know, and the
 *          combinations the target refuses (to explain a refusal)
 * @err: on failure, the offending word and why
 *
 * Without @strict, a rule that a newer target may accept is let through.
 *
 * Return: 0 or -EINVAL.
 */
int dft_rule_check(const char *rule, bool strict, struct dft_rule_err *err)
{
	const char *colon, *p, *kv, *eq;
	size_t alen, n;
	char key[64], val[192];
	int r;

	if (!*rule)
		return dft_rule_fail(err, "", 0, "empty rule");
	for (p = rule; *p; p++)
		if (isspace((unsigned char)*p) || !isprint((unsigned char)*p))
			return dft_rule_fail(err, rule, strlen(rule),
					     "a rule cannot contain white space or control characters");
	if (strlen(rule) > DFT_RULE_MAX_LEN)
		return dft_rule_fail(err, rule, 40, "rule too long (255 characters at most)");
	colon = strchr(rule, ':');
	alen = colon ? (size_t)(colon - rule) : strlen(rule);
	if (!dft_word_ok(rule, alen))
		return dft_rule_fail(err, rule, alen, "not an action name");
	if (strict) {
		memcpy(key, rule, alen < sizeof(key) ? alen : sizeof(key) - 1);
		key[alen < sizeof(key) ? alen : sizeof(key) - 1] = '\0';
		if (!dft_in(key, dft_actions, ARRAY_SIZE(dft_actions)))
			return dft_rule_fail(err, rule, alen, "unknown action");
	}
	if (!colon)
		return 0;
	for (kv = colon + 1;; kv += n + 1) {
		n = strcspn(kv, ",");
		eq = memchr(kv, '=', n);
		if (!eq || eq == kv || eq == kv + n - 1)
			return dft_rule_fail(err, kv, n, "expected key=value");
		if ((size_t)(eq - kv) >= sizeof(key) || n - (eq - kv) > sizeof(val))
			return dft_rule_fail(err, kv, n, "word too long");
		memcpy(key, kv, eq - kv);
		key[eq - kv] = '\0';
		memcpy(val, eq + 1, n - (eq - kv) - 1);
		val[n - (eq - kv) - 1] = '\0';
		if (!dft_word_ok(key, strlen(key)))
			return dft_rule_fail(err, kv, n, "not a key name");
		r = dft_check_kv(key, val);
		if (r == -ENOENT && strict)
			return dft_rule_fail(err, kv, n, "unknown key");
		if (r && r != -ENOENT)
			return dft_rule_fail(err, kv, n, "invalid value");
		if (!kv[n])
			break;
	}
	if (strict) {
		memcpy(key, rule, alen);
		key[alen] = '\0';
		return dft_rule_semantics(key, rule, err);
	}
	return 0;
}

/* "1M-2M" or "1M+4k" (bytes, end exclusive) -> "first-last" in sectors. */
static int dft_spec_range(const char *val, struct dft_buf *out)
{
	char tmp[64], *sep;
	uint64_t a, b;
	bool plus;

	if (strlen(val) >= sizeof(tmp))
		return -EINVAL;
	strcpy(tmp, val);
	sep = strpbrk(tmp, "-+");
	if (!sep)
		return -EINVAL;
	plus = *sep == '+';
	*sep++ = '\0';
	if (dft_parse_size(tmp, &a) || dft_parse_size(sep, &b))
		return -EINVAL;
	if (plus) {
		if (b > UINT64_MAX - a)
			return -ERANGE;
		b += a;
	}
	if (a % 512 || b % 512 || b <= a)
		return -EINVAL;
	dft_buf_add(out, ",sectors=%llu-%llu", (unsigned long long)(a / 512),
		    (unsigned long long)(b / 512 - 1));
	return 0;
}

/* "4k-64k", "4k", "4k-": bio size bounds in bytes. */
static int dft_spec_size(const char *val, struct dft_buf *out)
{
	char tmp[64], *dash;
	uint64_t a, b;

	if (strlen(val) >= sizeof(tmp))
		return -EINVAL;
	strcpy(tmp, val);
	dash = strchr(tmp, '-');
	if (dash)
		*dash++ = '\0';
	if (dft_parse_size(tmp, &a) || a > UINT32_MAX)
		return -EINVAL;
	if (!dash) {
		dft_buf_add(out, ",size=%llu", (unsigned long long)a);
		return 0;
	}
	if (!*dash) {
		dft_buf_add(out, ",size=%llu-", (unsigned long long)a);
		return 0;
	}
	if (dft_parse_size(dash, &b) || b > UINT32_MAX || b < a)
		return -EINVAL;
	dft_buf_add(out, ",size=%llu-%llu", (unsigned long long)a, (unsigned long long)b);
	return 0;
}

/* In the largest unit the target reads that keeps the value exact. */
static const char *dft_fmt_ns(uint64_t ns, char *buf, size_t len)
{
	if (ns && !(ns % 1000000000ULL))
		snprintf(buf, len, "%llus", (unsigned long long)(ns / 1000000000ULL));
	else if (!(ns % 1000000))
		snprintf(buf, len, "%llums", (unsigned long long)(ns / 1000000));
	else if (!(ns % 1000))
		snprintf(buf, len, "%lluus", (unsigned long long)(ns / 1000));
	else
		snprintf(buf, len, "%lluns", (unsigned long long)ns);
	return buf;
}

static bool dft_looks_prob(const char *s)
{
	return isdigit((unsigned char)s[0]) &&
	       (strchr(s, '%') || strchr(s, '/') || strpbrk(s, "eE"));
}

/* One item of a readable spec, appended to @out as ",key=value". */
static int dft_spec_item(char *item, bool *have_ops, struct dft_buf *out,
			 struct dft_rule_err *err)
{
	char *val = strchr(item, '=');
	const char *key = item;
	char buf[32];
	uint64_t ns;

	if (!val) {
		if (dft_looks_prob(item)) {
			if (dft_parse_prob(item))
				return dft_rule_fail(err, item, strlen(item),
						     "invalid probability (5%, 0.1%, 1e-6 or 1/1000)");
			dft_buf_add(out, ",p=%s", item);
		} else if (dft_is_status_name(item)) {
			dft_buf_add(out, ",status=%s", item);
		} else if (!strcmp(item, "once")) {
			dft_buf_add(out, ",times=1");
		} else if (!strcmp(item, "disabled")) {
			dft_buf_add(out, ",enabled=0");
		} else if (!*have_ops && (dft_is_op_list(item) || !strcmp(item, "all"))) {
			dft_buf_add(out, ",op=%s", strcmp(item, "all") ? item : "any");
			*have_ops = true;
		} else if (isdigit((unsigned char)item[0])) {
			return dft_rule_fail(err, item, strlen(item),
					     "a bare number is ambiguous: write 5% or p=5 for a probability");
		} else {
			return dft_rule_fail(err, item, strlen(item),
					     "not an operation, probability, status or key=value");
		}
		return 0;
	}
	*val++ = '\0';
	if (!*key || !*val) {
		val[-1] = '=';
		return dft_rule_fail(err, item, strlen(item), "expected key=value");
	}
	if (!strcmp(key, "up") || !strcmp(key, "down") || !strcmp(key, "after")) {
		if (dft_parse_duration(val, 1000000000ULL, &ns) || ns % 1000000000ULL ||
		    ns / 1000000000ULL > UINT32_MAX)
			goto bad;
		dft_buf_add(out, ",%s=%llu", key, (unsigned long long)(ns / 1000000000ULL));
	} else if (!strcmp(key, "delay") || !strcmp(key, "jitter") || !strcmp(key, "timeout")) {
		/* the target's unit-less default is milliseconds, as dm-delay */
		if (dft_parse_duration(val, 1000000, &ns) || ns > 86400000000000ULL)
			goto bad;
		dft_buf_add(out, ",%s=%s", key, dft_fmt_ns(ns, buf, sizeof(buf)));
	} else if (!strcmp(key, "range")) {
		if (dft_spec_range(val, out))
			goto bad;
	} else if (!strcmp(key, "size")) {
		if (dft_spec_size(val, out))
			goto bad;
	} else if (!strcmp(key, "every")) {
		dft_buf_add(out, ",interval=%s", val);
	} else if (!strcmp(key, "op")) {
		dft_buf_add(out, ",op=%s", strcmp(val, "all") ? val : "any");
		*have_ops = true;
	} else {
		dft_buf_add(out, ",%s=%s", key, val);
	}
	return 0;

bad:
	val[-1] = '=';
	if (!strcmp(key, "range"))
		return dft_rule_fail(err, item, strlen(item),
				     "expected START-END or START+LENGTH, 512-byte aligned");
	if (!strcmp(key, "size"))
		return dft_rule_fail(err, item, strlen(item), "expected MIN-MAX in bytes (4k-64k)");
	if (!strcmp(key, "delay") || !strcmp(key, "jitter") || !strcmp(key, "timeout"))
		return dft_rule_fail(err, item, strlen(item),
				     "expected a duration of a day at most (10ms, 250us, 1.5s)");
	return dft_rule_fail(err, item, strlen(item), "expected whole seconds (30, 30s, 2m, 1h)");
}

/**
 * dft_rule_from_spec - build a rule from a readable option value
 * @action: "error", "drop", ...
 * @spec: "[OPS:]ITEM[,ITEM...]" or "OPS" or NULL; OPS is "read", "read+write",
 *        "all"; an ITEM is a probability ("1%", "1e-6", "1/1000"), a status
 *        ("enospc"), "once", "disabled", or key=value where up, down and
 *        after take durations, range= a byte range with units, size= bytes
 *        with units and every= is the interval; other keys pass through
 * @out: the rule text is appended
 * @err: on failure, the offending word and why
 *
 * Return: 0, -EINVAL or -ENOMEM.
 */
int dft_rule_from_spec(const char *action, const char *spec, struct dft_buf *out,
		       struct dft_rule_err *err)
{
	char tmp[DFT_RULE_MAX_LEN + 1], *p, *colon, *item, *c;
	struct dft_buf rule = { 0 };
	bool have_ops = false;
	int r = 0;

	if (!dft_word_ok(action, strlen(action)))
		return dft_rule_fail(err, action, strlen(action), "not an action name");
	if (spec && strlen(spec) > DFT_RULE_MAX_LEN)
		return dft_rule_fail(err, spec, 40, "too long");
	dft_buf_add(&rule, "%s", action);
	if (spec && *spec) {
		strcpy(tmp, spec);
		p = tmp;
		colon = strchr(tmp, ':');
		if (colon) {
			*colon = '\0';
			for (c = tmp; *c; c++)
				if (*c == ',')
					*c = '+';
			if (strcmp(tmp, "all") && !dft_is_op_list(tmp)) {
				r = dft_rule_fail(err, tmp, strlen(tmp), "not an operation list");
				goto out;
			}
			dft_buf_add(&rule, ",op=%s", strcmp(tmp, "all") ? tmp : "any");
			have_ops = true;
			p = colon + 1;
		}
		while ((item = strsep(&p, ",")) != NULL) {
			if (!*item) {
				r = dft_rule_fail(err, spec, strlen(spec), "empty item");
				goto out;
			}
			r = dft_spec_item(item, &have_ops, &rule, err);
			if (r)
				goto out;
		}
	}
	if (rule.oom) {
		r = -ENOMEM;
		goto out;
	}
	/* the first key follows a ':', not a ',' */
	c = strchr(rule.text, ',');
	if (c)
		*c = ':';
	r = dft_rule_check(rule.text, false, err);
	if (!r)
		dft_buf_add(out, "%s", rule.text);
out:
	dft_buf_free(&rule);
	return r;
}

/* "<dev> <offset> [<#rules> <rule>...]" */
int dft_table_params(const struct dft_table_args *ta, struct dft_buf *out)
{
	unsigned int i;

	if (!ta->dev || !*ta->dev || strpbrk(ta->dev, " \t\n"))
		return -EINVAL;
	dft_buf_add(out, "%s %llu", ta->dev, (unsigned long long)ta->offset);
	if (ta->nr_rules)
		dft_buf_add(out, " %u", ta->nr_rules);
	for (i = 0; i < ta->nr_rules; i++)
		dft_buf_add(out, " %s", ta->rules[i]);
	return out->oom ? -ENOMEM : 0;
}

/* "0 <len> fault <params>", the line dmsetup create reads. */
int dft_table_line(const struct dft_table_args *ta, struct dft_buf *out)
{
	if (!ta->len)
		return -EINVAL;
	dft_buf_add(out, "0 %llu %s ", (unsigned long long)ta->len, DFT_TARGET);
	return dft_table_params(ta, out);
}
