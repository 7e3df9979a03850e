/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Reference models and invariants for the dm-fault engine, shared by the
 * unit tests (tests/unit/engine_test.c) and the fuzzer (tests/fuzz).
 *
 * dmf_ref_prob_parse() reads the probability grammar independently of
 * lib/dmf-engine.c, on digit strings rather than 64-bit accumulators, so a
 * difference between the two is a bug in one of them.  The checks return
 * false and describe the violation in @why.
 */
#ifndef _DMF_TESTS_REF_H
#define _DMF_TESTS_REF_H

#include <dmf/engine.h>

#define DMF_REF_U64_MAX_STR	"18446744073709551615"

static inline bool dmf_ref_isdigit(char c)
{
	return c >= '0' && c <= '9';
}

/* Compare two digit strings (no leading zeros) as numbers. */
static inline int dmf_ref_cmp_digits(const char *a, size_t al, const char *b, size_t bl)
{
	int c;

	if (al != bl)
		return al < bl ? -1 : 1;
	c = memcmp(a, b, al);
	return c < 0 ? -1 : c > 0;
}

static inline u64 dmf_ref_value(const char *d, size_t n)
{
	u64 v = 0;

	while (n--)
		v = v * 10 + (*d++ - '0');
	return v;
}

/* "A/B": -EINVAL unless both are digit runs and B is not zero. */
static inline int dmf_ref_fraction(const char *s, u64 *num, u64 *den)
{
	const char *a = s, *b;
	size_t al = 0, bl = 0;
	u64 g, m, d;

	while (dmf_ref_isdigit(a[al]))
		al++;
	if (!al || a[al] != '/')
		return -EINVAL;
	b = a + al + 1;
	while (dmf_ref_isdigit(b[bl]))
		bl++;
	if (!bl || b[bl])
		return -EINVAL;
	while (al > 1 && *a == '0')
		a++, al--;
	while (bl > 1 && *b == '0')
		b++, bl--;
	if (bl == 1 && *b == '0')
		return -EINVAL;
	/* the engine reads each side into 64 bits before reducing */
	if (dmf_ref_cmp_digits(a, al, DMF_REF_U64_MAX_STR, 20) > 0 ||
	    dmf_ref_cmp_digits(b, bl, DMF_REF_U64_MAX_STR, 20) > 0)
		return -ERANGE;
	m = dmf_ref_value(a, al);
	d = dmf_ref_value(b, bl);
	if (m > d)
		return -ERANGE;
	if (!m) {
		*num = 0;
		*den = 1;
		return 0;
	}
	g = gcd(m, d);
	if (d / g > DMF_PROB_MAX_DEN)
		return -ERANGE;
	*num = m / g;
	*den = d / g;
	return 0;
}

/*
 * The reference reading of a probability: 0 and the reduced fraction,
 * -ERANGE for a well-formed value that is not a probability we hold (above
 * 1, finer than 10^-18, an exponent beyond +-1000, a fraction whose sides do
 * not fit 64 bits) or -EINVAL for text outside the grammar:
 *
 *	fraction := digits "/" digits
 *	decimal  := (digits ["." [digits]] | "." digits) [("e"|"E") ["+"|"-"] digits] ["%"]
 *
 * A decimal is a percentage unless it has an exponent and no "%".
 */
static inline int dmf_ref_prob_parse(const char *s, u64 *num, u64 *den)
{
	const char *ip, *fp = "", *ep = "";
	size_t il = 0, fl = 0, el = 0, n, i, first, last;
	bool eneg = false, percent = true;
	long e = 0, k;
	u64 m = 0, d = 1, g;

	if (!s || !*s)
		return -EINVAL;
	if (strchr(s, '/'))
		return dmf_ref_fraction(s, num, den);
	ip = s;
	while (dmf_ref_isdigit(*s))
		s++, il++;
	if (*s == '.') {
		fp = ++s;
		while (dmf_ref_isdigit(*s))
			s++, fl++;
	}
	if (!il && !fl)
		return -EINVAL;
	if (*s == 'e' || *s == 'E') {
		s++;
		if (*s == '+' || *s == '-')
			eneg = *s++ == '-';
		ep = s;
		while (dmf_ref_isdigit(*s))
			s++, el++;
		if (!el)
			return -EINVAL;
		percent = false;
	}
	if (*s == '%') {
		percent = true;
		s++;
	}
	if (*s)
		return -EINVAL;

	for (i = 0; i < el; i++) {
		e = e * 10 + (ep[i] - '0');
		if (e > 1000)
			return -ERANGE;
	}
	if (eneg)
		e = -e;

	/* the significand is the digits of ip then fp; value = M * 10^k */
	n = il + fl;
#define DMF_REF_DIGIT(j) ((j) < il ? ip[j] : fp[(j) - il])
	for (first = 0; first < n && DMF_REF_DIGIT(first) == '0'; first++)
		;
	if (first == n) {
		*num = 0;
		*den = 1;
		return 0;
	}
	for (last = n - 1; DMF_REF_DIGIT(last) == '0'; last--)
		;
	k = e - (long)fl - (percent ? 2 : 0) + (long)(n - 1 - last);
	n = last - first + 1;			/* significant digits */
	if (k >= 0) {
		if (k == 0 && n == 1 && DMF_REF_DIGIT(first) == '1') {
			*num = 1;
			*den = 1;
			return 0;
		}
		return -ERANGE;
	}
	if ((long)n > -k || -k > 18)
		return -ERANGE;		/* above 1, or finer than 10^-18 */
	for (i = first; i <= last; i++)
		m = m * 10 + (DMF_REF_DIGIT(i) - '0');
#undef DMF_REF_DIGIT
	while (k++ < 0)
		d *= 10;
	g = gcd(m, d);
	*num = m / g;
	*den = d / g;
	return 0;
}

/* Has @s a run of at least @n digits? */
static inline bool dmf_ref_has_digit_run(const char *s, size_t n)
{
	size_t run = 0;

	for (; *s; s++) {
		run = dmf_ref_isdigit(*s) ? run + 1 : 0;
		if (run >= n)
			return true;
	}
	return false;
}

/*
 * Does the engine's answer to dmf_prob_parse(s) agree with the reference?
 * Accepted values must be identical and out-of-range values -ERANGE.  For
 * malformed text the engine says -EINVAL, or -ERANGE when it met a number
 * too large (at least 4 digits: an exponent above 1000) before the junk.
 */
static inline bool dmf_ref_prob_agrees(const char *s, int r, const struct dmf_prob *p,
				       char *why, size_t len)
{
	u64 num = 0, den = 0;
	int want = dmf_ref_prob_parse(s, &num, &den);

	if (!want) {
		if (!r && p->num == num && p->den == den)
			return true;
		snprintf(why, len, "\"%.160s\": engine %d %llu/%llu, reference %llu/%llu",
			 s, r, p->num, p->den, num, den);
		return false;
	}
	if (r == want || (want == -EINVAL && r == -ERANGE && dmf_ref_has_digit_run(s, 4)))
		return true;
	snprintf(why, len, "\"%.160s\": engine %d (%llu/%llu), reference %d",
		 s, r, r ? 0ULL : p->num, r ? 0ULL : p->den, want);
	return false;
}

/* Does num/den (reduced) print as a decimal of at most 18 places? */
static inline bool dmf_ref_terminates(u64 den)
{
	int twos = 0, fives = 0;

	for (; den % 2 == 0; den /= 2)
		twos++;
	for (; den % 5 == 0; den /= 5)
		fives++;
	return den == 1 && twos <= 18 && fives <= 18;
}

/* A stored probability: reduced, within bounds, with the exact threshold. */
static inline bool dmf_ref_prob_valid(const struct dmf_prob *p, char *why, size_t len)
{
	unsigned __int128 t;

	if (!p->den || p->den > DMF_PROB_MAX_DEN || p->num > p->den) {
		snprintf(why, len, "%llu/%llu out of bounds", p->num, p->den);
		return false;
	}
	if (p->num ? gcd(p->num, p->den) != 1 : p->den != 1) {
		snprintf(why, len, "%llu/%llu not reduced", p->num, p->den);
		return false;
	}
	t = ((unsigned __int128)p->num << 64) / p->den;
	if (p->num == p->den)
		t = U64_MAX;
	if (p->thresh != (u64)t) {
		snprintf(why, len, "%llu/%llu threshold %llu, want floor(num*2^64/den) %llu",
			 p->num, p->den, p->thresh, (u64)t);
		return false;
	}
	return true;
}

/*
 * dmf_prob_format() of @p: fits the 48 bytes dmf_attr_format() gives it,
 * is a percentage exactly when the decimal terminates, and parses back to
 * the same fraction.  The text is left in @out.
 */
static inline bool dmf_ref_prob_roundtrip(const struct dmf_prob *p, char *out, size_t outlen,
					  char *why, size_t len)
{
	struct dmf_prob q;
	int n, r;

	n = dmf_prob_format(p, out, outlen);
	if (n < 0 || (size_t)n >= outlen || n >= 48 || (int)strlen(out) != n) {
		snprintf(why, len, "%llu/%llu formats to %d chars", p->num, p->den, n);
		return false;
	}
	if (!!strchr(out, '/') == dmf_ref_terminates(p->den) ||
	    !!strchr(out, '%') != dmf_ref_terminates(p->den)) {
		snprintf(why, len, "%llu/%llu formats as \"%s\"", p->num, p->den, out);
		return false;
	}
	memset(&q, 0xa5, sizeof(q));
	r = dmf_prob_parse(out, &q);
	if (r || q.num != p->num || q.den != p->den || q.thresh != p->thresh) {
		snprintf(why, len, "%llu/%llu -> \"%s\" -> %d %llu/%llu", p->num, p->den, out, r,
			 q.num, q.den);
		return false;
	}
	return true;
}

/* The configuration and run-time state of an attribute, to compare. */
struct dmf_ref_snap {
	struct dmf_prob prob;
	u64 interval, seed;
	s64 times, space, times_left, space_left, count, draws;
	unsigned int flags, verbose;
};

static inline void dmf_ref_snap(const struct dmf_attr *a, struct dmf_ref_snap *s)
{
	int cpu;

	memset(s, 0, sizeof(*s));
	s->prob = a->prob;
	s->interval = a->interval;
	s->seed = a->seed;
	s->times = a->times;
	s->space = a->space;
	s->times_left = atomic64_read(&a->times_left);
	s->space_left = atomic64_read(&a->space_left);
	s->count = atomic64_read(&a->count);
	s->draws = atomic64_read(&a->stream->pos);
	for_each_possible_cpu(cpu)	/* every CPU's generator position */
		s->draws += per_cpu_ptr(a->stats, cpu)->draws;
	s->flags = a->flags;
	s->verbose = a->verbose;
}

static inline bool dmf_ref_unchanged(const struct dmf_attr *a, const struct dmf_ref_snap *before)
{
	struct dmf_ref_snap now;

	dmf_ref_snap(a, &now);
	return !memcmp(&now, before, sizeof(now));
}

/*
 * Feed dmf_attr_format(@a) back through dmf_attr_parse_kv() into @b, which
 * must then have @a's configuration: probability, interval, times, space,
 * verbose, streams and seed.
 */
static inline bool dmf_ref_attr_roundtrip(const struct dmf_attr *a, struct dmf_attr *b,
					  char *why, size_t len)
{
	char buf[256], *s, *pair, *val;
	int n, r;

	n = dmf_attr_format(a, buf, sizeof(buf));
	if (n <= 0 || n >= (int)sizeof(buf) - 1 || (int)strlen(buf) != n) {
		snprintf(why, len, "format gave %d chars", n);
		return false;
	}
	for (s = buf; (pair = strsep(&s, ","));) {
		val = strchr(pair, '=');
		if (!val) {
			snprintf(why, len, "pair \"%s\" has no '='", pair);
			return false;
		}
		*val++ = '\0';
		r = dmf_attr_parse_kv(b, pair, val);
		if (r) {
			snprintf(why, len, "%s=%s does not parse back: %d", pair, val, r);
			return false;
		}
	}
	if (a->prob.num != b->prob.num || a->prob.den != b->prob.den ||
	    a->interval != b->interval || a->times != b->times || a->space != b->space ||
	    a->verbose != b->verbose || a->seed != b->seed ||
	    (a->flags ^ b->flags) & DMF_STREAMS_PERCPU) {
		dmf_attr_format(b, buf, sizeof(buf));
		snprintf(why, len, "read back as %s", buf);
		return false;
	}
	return true;
}

#endif /* _DMF_TESTS_REF_H */
