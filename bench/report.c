// SPDX-License-Identifier: GPL-2.0-only
/*
 * bench/report.c - turn the @@BENCH lines of bench/guest.sh into results.
 *
 * usage: report [--smoke] [--engine ENGINE.json] [--plot PNG] OUTDIR LOG...
 *
 * For each guest log (one per kernel): OUTDIR/KVER.json (every run, the
 * summary and the target verdicts), OUTDIR/KVER.csv (the summary), and the
 * table on stdout.  With --engine, the cases of bench/engine.sh's JSON
 * with their verdicts.  With --plot, one PNG of the ratios to dm-linear of
 * every kernel, drawn with gnuplot.  Exit status 0, 1 if a log has no
 * result (or cannot be read), 2 on a usage error.
 *
 * An @@BENCH line is one flat JSON object (string, number, true, false or
 * null values), as jq -c prints it; engine.json is an object whose "cases"
 * is an array of such objects.  The output JSON is written as Python's
 * json.dump(indent=1) would (ASCII only, floats in their shortest form).
 *
 * bench/run builds it: gcc -O2 -Wall -o bench/results/bin/report
 * bench/report.c -lm
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static const char usage[] =
	"usage: report [--smoke] [--engine ENGINE.json] [--plot PNG] OUTDIR LOG...\n"
	"\n"
	"For each guest log (one per kernel): OUTDIR/KVER.json (every run, the\n"
	"summary and the target verdicts), OUTDIR/KVER.csv (the summary), and the\n"
	"table on stdout.  With --plot, one PNG of the ratios to dm-linear of every\n"
	"kernel, drawn with gnuplot.  Exit status 0, or 1 if a log has no result.\n";

/*
 * Ratio targets to dm-linear (medians, same boot).  T_FLAKEY means: at least
 * dm-flakey's ratio on the same device and workload.
 */
enum { T_RATIO, T_FLAKEY };

static const struct target {
	const char *config;
	int kind;
	double want;
} targets[] = {
	{ "fault", T_RATIO, 0.98 },
	{ "fault", T_FLAKEY, 0 },
	{ "fault-16miss", T_RATIO, 0.95 },
	{ "fault-16miss", T_FLAKEY, 0 },
	{ "fault-p0", T_RATIO, 0.95 },
	{ "fault-p0", T_FLAKEY, 0 },
	{ "fault-p0.1%", T_FLAKEY, 0 },
	{ "fault-flakey", T_FLAKEY, 0 },
	{ "fault-delay", T_FLAKEY, 0 },
};

/*
 * The targets are judged on the CPU-bound device; on the virtio disk the
 * host's I/O timing enters the guest's clock, so those rows are shown only.
 */
static const char *const target_devices[] = { "nullb" };

static const char *const descr[][2] = {
	{ "raw", "the device itself" },
	{ "dm-linear", "dm-linear" },
	{ "dm-flakey", "dm-flakey up 1 s, down 0 (never down)" },
	{ "dm-delay", "dm-delay 0 ms" },
	{ "fault", "dm-fault, no rules" },
	{ "fault-16miss", "dm-fault, 16 rules matching nothing" },
	{ "fault-p0", "dm-fault, 1 rule on every bio, p=0" },
	{ "fault-p0.1%", "dm-fault, 1 rule, p=0.1% error" },
	{ "fault-flakey", "dm-fault's flakey syntax, up 1 down 0" },
	{ "fault-delay", "dm-fault's delay syntax, 0 ms" },
};

/* ---- memory and strings ------------------------------------------------ */

static void __attribute__((noreturn, format(printf, 1, 2))) die(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fputs("report: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

static void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		die("out of memory");
	return p;
}

/* Append one zeroed element to the array *arr of *n elements of size sz. */
static void *push(void *arrp, int *n, size_t sz)
{
	char *a;

	memcpy(&a, arrp, sizeof(a));
	a = xrealloc(a, (*n + 1) * sz);
	memcpy(arrp, &a, sizeof(a));
	memset(a + *n * sz, 0, sz);
	return a + (*n)++ * sz;
}

struct buf {
	char *s;
	size_t len, cap;
};

static void buf_add(struct buf *b, const char *s, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		b->cap = (b->len + n + 1) * 2;
		b->s = xrealloc(b->s, b->cap);
	}
	memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = '\0';
}

static void buf_puts(struct buf *b, const char *s)
{
	buf_add(b, s, strlen(s));
}

static void buf_putc(struct buf *b, char c)
{
	buf_add(b, &c, 1);
}

static void __attribute__((format(printf, 2, 3))) buf_printf(struct buf *b, const char *fmt, ...)
{
	va_list ap;
	char small[256];
	int n;

	va_start(ap, fmt);
	n = vsnprintf(small, sizeof(small), fmt, ap);
	va_end(ap);
	if (n < (int)sizeof(small)) {
		buf_add(b, small, n);
		return;
	}
	buf_add(b, "", 0);
	if (b->len + n + 1 > b->cap) {
		b->cap = b->len + n + 1;
		b->s = xrealloc(b->s, b->cap);
	}
	va_start(ap, fmt);
	vsnprintf(b->s + b->len, n + 1, fmt, ap);
	va_end(ap);
	b->len += n;
}

/* The string built so far (never NULL); b is empty again. */
static char *buf_take(struct buf *b)
{
	char *s = b->s;

	if (!s) {
		s = xrealloc(NULL, 1);
		*s = '\0';
	}
	memset(b, 0, sizeof(*b));
	return s;
}

static char *xstrdup(const char *s)
{
	struct buf b = { 0 };

	buf_puts(&b, s);
	return buf_take(&b);
}

static char *path_join(const char *dir, const char *name)
{
	struct buf b = { 0 };
	size_t n = strlen(dir);

	buf_puts(&b, dir);
	if (n && dir[n - 1] != '/')
		buf_putc(&b, '/');
	buf_puts(&b, name);
	return buf_take(&b);
}

/* ---- UTF-8 ---------------------------------------------------------------- */

/*
 * Length of the well-formed UTF-8 sequence at s (1 to 4), or minus the
 * length of its maximal ill-formed subpart: what one U+FFFD replaces.
 * A NUL ends a sequence early, so s may end anywhere.
 */
static int utf8_len(const unsigned char *s)
{
	unsigned char c = s[0], lo = 0x80, hi = 0xbf;
	int n, i;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		n = 2;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4;
	else
		return -1;
	if (c == 0xe0)
		lo = 0xa0;
	else if (c == 0xed)
		hi = 0x9f;
	else if (c == 0xf0)
		lo = 0x90;
	else if (c == 0xf4)
		hi = 0x8f;
	for (i = 1; i < n; i++) {
		if (s[i] < lo || s[i] > hi)
			return -i;
		lo = 0x80;
		hi = 0xbf;
	}
	return n;
}

static void utf8_put(struct buf *b, uint32_t cp)
{
	if ((cp >= 0xd800 && cp < 0xe000) || cp > 0x10ffff)
		cp = 0xfffd;
	if (cp < 0x80) {
		buf_putc(b, cp);
	} else if (cp < 0x800) {
		buf_putc(b, 0xc0 | cp >> 6);
		buf_putc(b, 0x80 | (cp & 0x3f));
	} else if (cp < 0x10000) {
		buf_putc(b, 0xe0 | cp >> 12);
		buf_putc(b, 0x80 | (cp >> 6 & 0x3f));
		buf_putc(b, 0x80 | (cp & 0x3f));
	} else {
		buf_putc(b, 0xf0 | cp >> 18);
		buf_putc(b, 0x80 | (cp >> 12 & 0x3f));
		buf_putc(b, 0x80 | (cp >> 6 & 0x3f));
		buf_putc(b, 0x80 | (cp & 0x3f));
	}
}

/* The code point at *sp, which is advanced past it. */
static uint32_t utf8_get(const char **sp)
{
	const unsigned char *s = (const unsigned char *)*sp;
	int n = utf8_len(s);

	if (n < 0) {
		*sp += -n;
		return 0xfffd;
	}
	*sp += n;
	switch (n) {
	case 1:
		return s[0];
	case 2:
		return (s[0] & 0x1f) << 6 | (s[1] & 0x3f);
	case 3:
		return (s[0] & 0x0f) << 12 | (s[1] & 0x3f) << 6 | (s[2] & 0x3f);
	default:
		return (uint32_t)(s[0] & 0x07) << 18 | (s[1] & 0x3f) << 12 |
		       (s[2] & 0x3f) << 6 | (s[3] & 0x3f);
	}
}

/*
 * Read a whole file as text: ill-formed UTF-8 replaced by U+FFFD, NULs
 * dropped.  NULL (errno set) if it cannot be read.
 */
static char *read_text(const char *path)
{
	FILE *f = fopen(path, "rb");
	struct buf raw = { 0 }, b = { 0 };
	char chunk[65536];
	const char *p, *end;
	size_t n;
	int len;

	if (!f)
		return NULL;
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		buf_add(&raw, chunk, n);
	if (ferror(f)) {
		fclose(f);
		free(raw.s);
		errno = EIO;
		return NULL;
	}
	fclose(f);
	p = raw.s;
	end = p + raw.len;
	while (p && p < end) {
		if (!*p) {
			p++;
			continue;
		}
		len = utf8_len((const unsigned char *)p);
		if (len > 0) {
			buf_add(&b, p, len);
			p += len;
		} else {
			buf_add(&b, "\xef\xbf\xbd", 3);
			p -= len;
		}
	}
	free(raw.s);
	return buf_take(&b);
}

/* ---- values and records --------------------------------------------------- */

enum vtype { V_NULL, V_BOOL, V_NUM, V_STR };

struct val {
	enum vtype type;
	bool isint;		/* V_NUM: an integer (no fraction or exponent) */
	double num;		/* V_NUM; V_BOOL: 0 or 1 */
	char *str;		/* V_STR, UTF-8 */
};

struct field {
	char *key;
	struct val v;
};

/* One flat JSON object: the fields in their order. */
struct rec {
	struct field *f;
	int n;
};

static struct val num(double x, bool isint)
{
	struct val v = { .type = V_NUM, .isint = isint, .num = x };

	return v;
}

static void rec_free(struct rec *r)
{
	int i;

	for (i = 0; i < r->n; i++) {
		free(r->f[i].key);
		free(r->f[i].v.str);
	}
	free(r->f);
	r->f = NULL;
	r->n = 0;
}

/* Set key (taken over) to v; a repeated key keeps its place, last value. */
static void rec_set(struct rec *r, char *key, struct val v)
{
	struct field *f;
	int i;

	for (i = 0; i < r->n; i++) {
		if (!strcmp(r->f[i].key, key)) {
			free(key);
			free(r->f[i].v.str);
			r->f[i].v = v;
			return;
		}
	}
	f = push(&r->f, &r->n, sizeof(*f));
	f->key = key;
	f->v = v;
}

static const struct val *rec_get(const struct rec *r, const char *key)
{
	int i;

	for (i = 0; r && i < r->n; i++)
		if (!strcmp(r->f[i].key, key))
			return &r->f[i].v;
	return NULL;
}

static const char *rec_str(const struct rec *r, const char *key)
{
	const struct val *v = rec_get(r, key);

	return v && v->type == V_STR ? v->str : NULL;
}

static const struct val *rec_num(const struct rec *r, const char *key)
{
	const struct val *v = rec_get(r, key);

	return v && v->type == V_NUM ? v : NULL;
}

static bool rec_is(const struct rec *r, const char *kind)
{
	const char *k = rec_str(r, "kind");

	return k && !strcmp(k, kind);
}

/* Python's truth value of v (absent: false). */
static bool truthy(const struct val *v)
{
	if (!v)
		return false;
	switch (v->type) {
	case V_STR:
		return v->str[0];
	case V_NUM:
	case V_BOOL:
		return v->num != 0;
	default:
		return false;
	}
}

/* ---- number formatting ------------------------------------------------- */

/*
 * Python's repr() of a finite float: the shortest digits that read back
 * as x, in positional notation for 1e-4 <= |x| < 1e16, else as 1.5e-05.
 */
static void fmt_repr(struct buf *b, double x)
{
	char d[40], digits[24];
	const char *s;
	int p, nd = 0, exp, i;

	for (p = 1; p < 17; p++) {
		snprintf(d, sizeof(d), "%.*e", p - 1, x);
		if (strtod(d, NULL) == x)
			break;
	}
	snprintf(d, sizeof(d), "%.*e", p - 1, x);
	s = d;
	if (*s == '-')
		buf_putc(b, *s++);
	for (; *s != 'e'; s++)
		if (*s != '.')
			digits[nd++] = *s;
	while (nd > 1 && digits[nd - 1] == '0')
		nd--;
	exp = atoi(s + 1);
	if (exp < -4 || exp >= 16) {
		buf_putc(b, digits[0]);
		if (nd > 1) {
			buf_putc(b, '.');
			buf_add(b, digits + 1, nd - 1);
		}
		buf_printf(b, "e%c%02d", exp < 0 ? '-' : '+', abs(exp));
	} else if (exp < 0) {
		buf_puts(b, "0.");
		for (i = -1; i > exp; i--)
			buf_putc(b, '0');
		buf_add(b, digits, nd);
	} else {
		for (i = 0; i <= exp; i++)
			buf_putc(b, i < nd ? digits[i] : '0');
		buf_putc(b, '.');
		if (nd > exp + 1)
			buf_add(b, digits + exp + 1, nd - exp - 1);
		else
			buf_putc(b, '0');
	}
}

/* A number as Python's str() or json.dump() writes it. */
static void fmt_num(struct buf *b, const struct val *v, bool json)
{
	double x = v->num;

	if (isnan(x))
		buf_puts(b, json ? "NaN" : "nan");
	else if (isinf(x))
		buf_puts(b, x < 0 ? (json ? "-Infinity" : "-inf") : (json ? "Infinity" : "inf"));
	else if (v->isint)
		buf_printf(b, "%.0f", x == 0 ? 0.0 : x);
	else
		fmt_repr(b, x);
}

/* Append Python's str() of v. */
static void val_str(struct buf *b, const struct val *v)
{
	switch (v->type) {
	case V_STR:
		buf_puts(b, v->str);
		break;
	case V_NUM:
		fmt_num(b, v, false);
		break;
	case V_BOOL:
		buf_puts(b, v->num ? "True" : "False");
		break;
	default:
		buf_puts(b, "None");
	}
}

/* str() of v, or dflt if v is NULL: a string to free. */
static char *val_dup(const struct val *v, const char *dflt)
{
	struct buf b = { 0 };

	if (v)
		val_str(&b, v);
	else
		buf_puts(&b, dflt);
	return buf_take(&b);
}

/* ---- JSON input ---------------------------------------------------------- */

static void skip_ws(const char **p)
{
	while (**p == ' ' || **p == '\t' || **p == '\n' || **p == '\r')
		(*p)++;
}

static bool isdig(char c)
{
	return c >= '0' && c <= '9';
}

static int parse_hex4(const char *p, uint32_t *cp)
{
	int i;

	*cp = 0;
	for (i = 0; i < 4; i++) {
		char c = p[i];

		if (isdig(c))
			*cp = *cp << 4 | (c - '0');
		else if ((c | 0x20) >= 'a' && (c | 0x20) <= 'f')
			*cp = *cp << 4 | ((c | 0x20) - 'a' + 10);
		else
			return -1;
	}
	return 0;
}

/* \uXXXX at p (past the backslash and u), a surrogate pair joined. */
static const char *parse_uescape(const char *p, struct buf *b)
{
	uint32_t cp, lo;

	if (parse_hex4(p, &cp))
		return NULL;
	p += 4;
	if (cp >= 0xd800 && cp < 0xdc00 && p[0] == '\\' && p[1] == 'u' &&
	    !parse_hex4(p + 2, &lo) && lo >= 0xdc00 && lo < 0xe000) {
		cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
		p += 6;
	}
	utf8_put(b, cp);
	return p;
}

static int parse_string(const char **pp, char **out)
{
	static const char esc_in[] = "\"\\/bfnrt", esc_out[] = "\"\\/\b\f\n\r\t";
	const char *p = *pp + 1, *e;
	struct buf b = { 0 };
	unsigned char c;

	for (;;) {
		c = *p++;
		if (c == '"')
			break;
		if (c < 0x20)		/* a control character, or the end */
			goto bad;
		if (c != '\\') {
			buf_putc(&b, c);
			continue;
		}
		c = *p++;
		if (c == 'u') {
			p = parse_uescape(p, &b);
			if (!p)
				goto bad;
			continue;
		}
		e = c ? strchr(esc_in, c) : NULL;
		if (!e)
			goto bad;
		buf_putc(&b, esc_out[e - esc_in]);
	}
	*out = buf_take(&b);
	*pp = p;
	return 0;
bad:
	free(b.s);
	return -1;
}

static int parse_number(const char **pp, struct val *v)
{
	const char *p = *pp;
	bool isint = true;

	if (*p == '-')
		p++;
	if (*p == '0')
		p++;
	else if (isdig(*p))
		while (isdig(*p))
			p++;
	else
		return -1;
	if (*p == '.') {
		isint = false;
		if (!isdig(*++p))
			return -1;
		while (isdig(*p))
			p++;
	}
	if (*p == 'e' || *p == 'E') {
		isint = false;
		p++;
		if (*p == '+' || *p == '-')
			p++;
		if (!isdig(*p))
			return -1;
		while (isdig(*p))
			p++;
	}
	*v = num(strtod(*pp, NULL), isint);
	*pp = p;
	return 0;
}

/* A string, number, true, false or null. */
static int parse_scalar(const char **pp, struct val *v)
{
	static const struct {
		const char *word;
		enum vtype type;
		double num;
	} words[] = {
		{ "true", V_BOOL, 1 }, { "false", V_BOOL, 0 }, { "null", V_NULL, 0 },
	};
	size_t i, n;

	memset(v, 0, sizeof(*v));
	if (**pp == '"') {
		v->type = V_STR;
		return parse_string(pp, &v->str);
	}
	for (i = 0; i < ARRAY_SIZE(words); i++) {
		n = strlen(words[i].word);
		if (!strncmp(*pp, words[i].word, n)) {
			v->type = words[i].type;
			v->num = words[i].num;
			*pp += n;
			return 0;
		}
	}
	return parse_number(pp, v);
}

/* One "key": value pair of an object, the value parsed by scalar(). */
static int parse_member(const char **pp, char **key)
{
	if (**pp != '"' || parse_string(pp, key))
		return -1;
	skip_ws(pp);
	if (**pp != ':') {
		free(*key);
		return -1;
	}
	(*pp)++;
	skip_ws(pp);
	return 0;
}

/* A flat JSON object into r (which the caller frees, also on error). */
static int parse_object(const char **pp, struct rec *r)
{
	const char *p = *pp;
	struct val v;
	char *key;

	if (*p++ != '{')
		return -1;
	skip_ws(&p);
	if (*p == '}') {
		*pp = p + 1;
		return 0;
	}
	for (;;) {
		if (parse_member(&p, &key))
			return -1;
		if (parse_scalar(&p, &v)) {
			free(key);
			return -1;
		}
		rec_set(r, key, v);
		skip_ws(&p);
		if (*p == '}')
			break;
		if (*p++ != ',')
			return -1;
		skip_ws(&p);
	}
	*pp = p + 1;
	return 0;
}

/* An array of flat objects, appended to *recs. */
static int parse_recs(const char **pp, struct rec **recs, int *n)
{
	const char *p = *pp;

	if (*p++ != '[')
		return -1;
	skip_ws(&p);
	if (*p == ']') {
		*pp = p + 1;
		return 0;
	}
	for (;;) {
		if (parse_object(&p, push(recs, n, sizeof(**recs))))
			return -1;
		skip_ws(&p);
		if (*p == ']')
			break;
		if (*p++ != ',')
			return -1;
		skip_ws(&p);
	}
	*pp = p + 1;
	return 0;
}

/* engine.json: an object of scalars and "cases", an array of flat objects. */
static int parse_engine(const char *p, struct rec **cases, int *n)
{
	struct val v;
	char *key;
	int err;

	skip_ws(&p);
	if (*p++ != '{')
		return -1;
	skip_ws(&p);
	while (*p != '}') {
		if (parse_member(&p, &key))
			return -1;
		if (!strcmp(key, "cases") && *p == '[') {
			err = parse_recs(&p, cases, n);
		} else {
			err = parse_scalar(&p, &v);
			free(v.str);
		}
		free(key);
		if (err)
			return -1;
		skip_ws(&p);
		if (*p == ',') {
			p++;
			skip_ws(&p);
			if (*p == '}')
				return -1;
		} else if (*p != '}') {
			return -1;
		}
	}
	p++;
	skip_ws(&p);
	return *p ? -1 : 0;
}

/* ---- JSON output: json.dump(indent=1, ensure_ascii=True) --------------- */

struct jw {
	FILE *f;
	int depth;
	bool empty;		/* the container just opened has no item yet */
};

static void json_str(FILE *f, const char *s)
{
	uint32_t cp;

	putc('"', f);
	while (*s) {
		cp = utf8_get(&s);
		if (cp == '"' || cp == '\\')
			fprintf(f, "\\%c", (char)cp);
		else if (cp == '\n')
			fputs("\\n", f);
		else if (cp == '\r')
			fputs("\\r", f);
		else if (cp == '\t')
			fputs("\\t", f);
		else if (cp == '\b')
			fputs("\\b", f);
		else if (cp == '\f')
			fputs("\\f", f);
		else if (cp >= 0x20 && cp < 0x80)
			putc(cp, f);
		else if (cp < 0x10000)
			fprintf(f, "\\u%04x", cp);
		else
			fprintf(f, "\\u%04x\\u%04x", 0xd800 + ((cp - 0x10000) >> 10),
				0xdc00 + ((cp - 0x10000) & 0x3ff));
	}
	putc('"', f);
}

/* Start an item of the current container: "key": in an object. */
static void jw_item(struct jw *w, const char *key)
{
	if (!w->depth)
		return;
	fprintf(w->f, "%s%*s", w->empty ? "\n" : ",\n", w->depth, "");
	if (key) {
		json_str(w->f, key);
		fputs(": ", w->f);
	}
	w->empty = false;
}

static void jw_open(struct jw *w, const char *key, char c)
{
	jw_item(w, key);
	putc(c, w->f);
	w->depth++;
	w->empty = true;
}

static void jw_close(struct jw *w, char c)
{
	w->depth--;
	if (!w->empty)
		fprintf(w->f, "\n%*s", w->depth, "");
	putc(c, w->f);
	w->empty = false;
}

static void jw_val(struct jw *w, const char *key, const struct val *v)
{
	struct buf b = { 0 };

	jw_item(w, key);
	switch (v ? v->type : V_NULL) {
	case V_STR:
		json_str(w->f, v->str);
		return;
	case V_NUM:
		fmt_num(&b, v, true);
		fputs(b.s, w->f);
		free(b.s);
		return;
	case V_BOOL:
		fputs(v->num ? "true" : "false", w->f);
		return;
	default:
		fputs("null", w->f);
	}
}

static void jw_float(struct jw *w, const char *key, double x)
{
	struct val v = num(x, false);

	jw_val(w, key, &v);
}

static void jw_int(struct jw *w, const char *key, long n)
{
	struct val v = num(n, true);

	jw_val(w, key, &v);
}

static void jw_str(struct jw *w, const char *key, const char *s)
{
	jw_item(w, key);
	json_str(w->f, s);
}

static void jw_bool(struct jw *w, const char *key, bool b)
{
	jw_item(w, key);
	fputs(b ? "true" : "false", w->f);
}

static void jw_rec(struct jw *w, const char *key, const struct rec *r)
{
	int i;

	jw_open(w, key, '{');
	for (i = 0; r && i < r->n; i++)
		jw_val(w, r->f[i].key, &r->f[i].v);
	jw_close(w, '}');
}

/* ---- one guest log --------------------------------------------------------- */

struct verdict {
	char label[48];
	double want;
	bool ok;
};

struct row {				/* one device, workload and configuration */
	const char *device, *workload, *config;
	int rounds;
	struct val med, min, max, errors, injected;
	double spread;
	bool has_ratio;
	double ratio, delta;		/* to dm-linear; guest ns (insns) per I/O */
	struct verdict v[ARRAY_SIZE(targets)];
	int nv;
};

struct amode {				/* one mode of the allocator benchmark */
	const char *mode;
	int rounds;
	struct val med, failures, hooked;
	double spread, ns_per_op, ratio, delta, delta_hooked;
	bool has_ns, has_ratio, has_delta_hooked;
};

struct kres {
	char *kernel;
	struct rec *recs;
	int nrecs;
	const struct rec *setup;
	struct row *rows;
	int nrows;
	struct amode *alloc;
	int nalloc;
	char **notes;
	int nnotes;
	char *configs;			/* the setup's, split */
};

static void add_note(struct kres *k, char *text)
{
	*(char **)push(&k->notes, &k->nnotes, sizeof(char *)) = text;
}

/* The record on one @@BENCH line, or a note that it does not parse. */
static void parse_line(struct kres *k, const char *line, const char *json)
{
	struct rec *r = push(&k->recs, &k->nrecs, sizeof(*r));
	const char *p = json, *end;
	struct buf b = { 0 };

	skip_ws(&p);
	if (!parse_object(&p, r)) {
		skip_ws(&p);
		if (!*p)
			return;
	}
	rec_free(r);
	while (*line == ' ' || (*line >= '\t' && *line <= '\r') ||
	       (*line >= 0x1c && *line <= 0x1f))
		line++;
	end = line + strlen(line);
	while (end > line && (end[-1] == ' ' || (end[-1] >= '\t' && end[-1] <= '\r') ||
			      (end[-1] >= 0x1c && end[-1] <= 0x1f)))
		end--;
	buf_puts(&b, "unparsable line: ");
	buf_add(&b, line, end - line);
	rec_set(r, xstrdup("kind"), (struct val){ .type = V_STR, .str = xstrdup("note") });
	rec_set(r, xstrdup("text"), (struct val){ .type = V_STR, .str = buf_take(&b) });
}

/* The @@BENCH records of one log, in order (lines end in \n, \r or \r\n). */
static int parse_log(struct kres *k, const char *path)
{
	char *text = read_text(path), *line, *at, *eol;

	if (!text)
		return -1;
	for (line = text; *line; line = eol) {
		eol = line + strcspn(line, "\r\n");
		if (*eol == '\r' && eol[1] == '\n')
			*eol++ = '\0';
		if (*eol)
			*eol++ = '\0';
		at = strstr(line, "@@BENCH ");
		if (at)
			parse_line(k, line, at + 8);
	}
	free(text);
	return 0;
}

static int cmp_val(const void *a, const void *b)
{
	double x = ((const struct val *)a)->num, y = ((const struct val *)b)->num;

	return (x > y) - (x < y);
}

/* statistics.median() of v[0..n), n > 0 (v is sorted) */
static struct val median(struct val *v, int n)
{
	qsort(v, n, sizeof(*v), cmp_val);
	if (n % 2)
		return v[n / 2];
	return num((v[n / 2 - 1].num + v[n / 2].num) / 2, false);
}

/* min(), max() (the first of equals) and the spread in % around med */
static double spread(const struct val *v, int n, struct val med, struct val *min,
		     struct val *max)
{
	int i;

	*min = *max = v[0];
	for (i = 1; i < n; i++) {
		if (v[i].num < min->num)
			*min = v[i];
		if (v[i].num > max->num)
			*max = v[i];
	}
	return med.num ? (max->num - min->num) / med.num * 100 : 0.0;
}

/* sum(r.get(key, 0)) */
static void sum_add(struct val *sum, const struct rec *r, const char *key)
{
	const struct val *v = rec_num(r, key);

	if (v) {
		sum->num += v->num;
		sum->isint = sum->isint && v->isint;
	}
}

static bool is_fio(const struct rec *r)
{
	return rec_is(r, "fio") && rec_str(r, "device") && rec_str(r, "workload") &&
	       rec_str(r, "config") && rec_num(r, "iops");
}

static bool fio_in(const struct rec *r, const char *dev, const char *wl, const char *cfg)
{
	return is_fio(r) && !strcmp(rec_str(r, "device"), dev) &&
	       !strcmp(rec_str(r, "workload"), wl) &&
	       (!cfg || !strcmp(rec_str(r, "config"), cfg));
}

/* The IOPS of every run of dev, wl, cfg into v; their number. */
static int fio_iops(const struct kres *k, const char *dev, const char *wl, const char *cfg,
		    struct val *v)
{
	int i, n = 0;

	for (i = 0; i < k->nrecs; i++)
		if (fio_in(&k->recs[i], dev, wl, cfg))
			v[n++] = *rec_num(&k->recs[i], "iops");
	return n;
}

static void add_row(struct kres *k, const char *dev, const char *wl, const char *cfg,
		    const struct val *lin_med, struct val *v)
{
	struct row *r = push(&k->rows, &k->nrows, sizeof(*r));
	int i;

	r->device = dev;
	r->workload = wl;
	r->config = cfg;
	r->rounds = fio_iops(k, dev, wl, cfg, v);
	r->errors = num(0, true);
	r->injected = num(0, true);
	for (i = 0; i < k->nrecs; i++) {
		if (fio_in(&k->recs[i], dev, wl, cfg)) {
			sum_add(&r->errors, &k->recs[i], "total_err");
			sum_add(&r->injected, &k->recs[i], "injected");
		}
	}
	r->med = median(v, r->rounds);
	r->spread = spread(v, r->rounds, r->med, &r->min, &r->max);
	if (lin_med && lin_med->num && r->med.num) {
		r->has_ratio = true;
		r->ratio = r->med.num / lin_med->num;
		/* -icount shift=0: one virtual ns per guest instruction */
		r->delta = 1e9 / r->med.num - 1e9 / lin_med->num;
	}
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static bool in_list(const char *s, const char *const *list, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (!strcmp(s, list[i]))
			return true;
	return false;
}

/* setup.get("configs", "").split() */
static int split_words(char *s, const char **words)
{
	static const char ws[] = " \t\n\v\f\r\x1c\x1d\x1e\x1f";
	int n = 0;

	for (s += strspn(s, ws); *s; s += strspn(s, ws)) {
		words[n++] = s;
		s += strcspn(s, ws);
		if (*s)
			*s++ = '\0';
	}
	return n;
}

/*
 * The rows of one device and workload: the configurations in the setup's
 * order, then the others sorted.
 */
static void summarise_dev(struct kres *k, const char *dev, const char *wl,
			  const char **order, int norder, struct val *v)
{
	const char **rest = xrealloc(NULL, k->nrecs * sizeof(*rest));
	struct val lin_med, *lin = NULL;
	const char *c;
	int i, n, nrest = 0;

	n = fio_iops(k, dev, wl, "dm-linear", v);
	if (n) {
		lin_med = median(v, n);
		lin = &lin_med;
	}
	for (i = 0; i < norder; i++)
		if (fio_iops(k, dev, wl, order[i], v))
			add_row(k, dev, wl, order[i], lin, v);
	for (i = 0; i < k->nrecs; i++) {
		if (!fio_in(&k->recs[i], dev, wl, NULL))
			continue;
		c = rec_str(&k->recs[i], "config");
		if (!in_list(c, order, norder) && !in_list(c, rest, nrest))
			rest[nrest++] = c;
	}
	qsort(rest, nrest, sizeof(*rest), cmp_str);
	for (i = 0; i < nrest; i++)
		add_row(k, dev, wl, rest[i], lin, v);
	free(rest);
}

static const struct row *find_row(const struct kres *k, const struct row *r, const char *cfg)
{
	const struct row *found = NULL;
	int i;

	for (i = 0; i < k->nrows; i++)
		if (!strcmp(k->rows[i].device, r->device) &&
		    !strcmp(k->rows[i].workload, r->workload) &&
		    !strcmp(k->rows[i].config, cfg))
			found = &k->rows[i];
	return found;
}

static void judge(const struct kres *k, struct row *r)
{
	const struct row *fl;
	struct verdict *v;
	size_t i;

	if (!r->has_ratio || !in_list(r->device, target_devices, ARRAY_SIZE(target_devices)))
		return;
	for (i = 0; i < ARRAY_SIZE(targets); i++) {
		if (strcmp(targets[i].config, r->config))
			continue;
		v = &r->v[r->nv];
		if (targets[i].kind == T_FLAKEY) {
			fl = find_row(k, r, "dm-flakey");
			if (!fl || !fl->has_ratio)
				continue;
			v->want = fl->ratio;
			snprintf(v->label, sizeof(v->label), ">= dm-flakey %.3f", v->want);
		} else {
			v->want = targets[i].want;
			snprintf(v->label, sizeof(v->label), ">= %.2f", v->want);
		}
		v->ok = r->ratio >= v->want;
		r->nv++;
	}
}

static void summarise(struct kres *k)
{
	const char *configs = rec_str(k->setup, "configs");
	struct val *v = xrealloc(NULL, k->nrecs * sizeof(*v));
	const char **order;
	const struct rec *r;
	int i, j, norder;

	/* the rows point into k->configs and into the records */
	k->configs = xstrdup(configs ? configs : "");
	order = xrealloc(NULL, (strlen(k->configs) / 2 + 1) * sizeof(*order));
	norder = split_words(k->configs, order);
	for (i = 0; i < k->nrecs; i++) {
		r = &k->recs[i];
		if (!is_fio(r))
			continue;
		for (j = 0; j < i; j++)
			if (fio_in(&k->recs[j], rec_str(r, "device"), rec_str(r, "workload"), NULL))
				break;
		if (j == i)
			summarise_dev(k, rec_str(r, "device"), rec_str(r, "workload"),
				      order, norder, v);
	}
	for (i = 0; i < k->nrows; i++)
		judge(k, &k->rows[i]);
	free(v);
	free(order);
}

static bool is_alloc(const struct rec *r)
{
	return rec_is(r, "alloc") && rec_str(r, "mode") && rec_num(r, "ops_per_s");
}

static void alloc_mode(struct kres *k, const char *mode, struct val *v, struct val *h)
{
	struct amode *a = push(&k->alloc, &k->nalloc, sizeof(*a));
	const struct rec *r;
	struct val min, max;
	int i, nh = 0;

	a->mode = mode;
	a->failures = num(0, true);
	for (i = 0; i < k->nrecs; i++) {
		r = &k->recs[i];
		if (!is_alloc(r) || strcmp(rec_str(r, "mode"), mode))
			continue;
		v[a->rounds++] = *rec_num(r, "ops_per_s");
		sum_add(&a->failures, r, "failures");
		if (rec_num(r, "hooked_per_op"))
			h[nh++] = *rec_num(r, "hooked_per_op");
	}
	a->med = median(v, a->rounds);
	a->spread = spread(v, a->rounds, a->med, &min, &max);
	if (a->med.num) {
		a->has_ns = true;
		a->ns_per_op = 1e9 / a->med.num;
	}
	if (nh)
		a->hooked = median(h, nh);
}

static void summarise_alloc(struct kres *k)
{
	struct val *v = xrealloc(NULL, k->nrecs * sizeof(*v));
	struct val *h = xrealloc(NULL, k->nrecs * sizeof(*h));
	double base = 0;
	const char *m;
	int i, j;

	for (i = 0; i < k->nrecs; i++) {
		if (!is_alloc(&k->recs[i]))
			continue;
		m = rec_str(&k->recs[i], "mode");
		for (j = 0; j < k->nalloc; j++)
			if (!strcmp(k->alloc[j].mode, m))
				break;
		if (j < k->nalloc)
			continue;
		alloc_mode(k, m, v, h);
		if (!strcmp(m, "none"))
			base = k->alloc[j].med.num;
	}
	for (j = 0; base && j < k->nalloc; j++) {
		struct amode *a = &k->alloc[j];

		a->has_ratio = a->has_ns;
		a->ratio = a->med.num / base;
		a->delta = a->ns_per_op - 1e9 / base;
		if (a->has_ns && truthy(&a->hooked)) {
			/* extra guest instructions per allocation the hook saw */
			a->has_delta_hooked = true;
			a->delta_hooked = a->delta / a->hooked.num;
		}
	}
	free(v);
	free(h);
}

static const char *description(const char *cfg)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(descr); i++)
		if (!strcmp(descr[i][0], cfg))
			return descr[i][1];
	return cfg;
}

/* ---- the table -------------------------------------------------------- */

static void verdicts(struct buf *b, const struct row *r, const char *sep)
{
	int i;

	for (i = 0; i < r->nv; i++)
		buf_printf(b, "%s%s %s", i ? sep : "", r->v[i].ok ? "PASS" : "MISS",
			   r->v[i].label);
}

static void print_header(const struct kres *k, bool smoke)
{
	static const char *const keys[] = { "engine", "rounds", "numjobs", "null_ios",
					    "numjobs", "virtio_ios" };
	char *s[ARRAY_SIZE(keys)];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(keys); i++)
		s[i] = val_dup(rec_get(k->setup, keys[i]), !strcmp(keys[i], "numjobs") ? "2" : "?");
	printf("=== %s: engine %s, %s round(s), null_blk %sx%s IOs, virtio %sx%s IOs per run%s ===\n",
	       k->kernel, s[0], s[1], s[2], s[3], s[4], s[5],
	       smoke ? " (SMOKE: tiny runs, no verdicts)" : "");
	for (i = 0; i < ARRAY_SIZE(keys); i++)
		free(s[i]);
	puts("ratio: median IOPS / median dm-linear IOPS; dinsn/IO: guest instructions per I/O more than dm-linear; targets judged on null_blk only");
	printf("%-6s %-9s %-13s %10s %8s %7s %9s %6s  %s\n", "device", "workload", "config",
	       "kIOPS med", "spread%", "ratio", "dinsn/IO", "errors", "target");
}

static void print_row(const struct row *r, bool smoke)
{
	char ratio[32] = "-", delta[32] = "-";
	struct buf e = { 0 }, tv = { 0 };

	if (r->has_ratio) {
		snprintf(ratio, sizeof(ratio), "%.3f", r->ratio);
		snprintf(delta, sizeof(delta), "%+.0f", r->delta);
	}
	val_str(&e, &r->errors);
	buf_puts(&tv, "");
	if (!smoke)
		verdicts(&tv, r, "  ");
	printf("%-6s %-9s %-13s %10.2f %8.2f %7s %9s %6s  %s\n", r->device, r->workload,
	       r->config, r->med.num / 1000, r->spread, ratio, delta, e.s, tv.s);
	free(e.s);
	free(tv.s);
}

static void print_alloc(const struct kres *k)
{
	char ratio[32], delta[32], hooked[32], dh[32];
	const struct amode *a;
	int i;

	printf("allocator hooks (%s):\n", k->kernel);
	printf("(dinsn/op: guest instructions per operation more than without the module;"
	       " hooked/op: allocations the armed hook saw per operation)\n");
	printf("%-10s %12s %8s %7s %10s %9s %11s %8s\n", "mode", "kops/s med", "spread%",
	       "ratio", "dinsn/op", "hooked/op", "dinsn/alloc", "failed");
	for (i = 0; i < k->nalloc; i++) {
		a = &k->alloc[i];
		strcpy(ratio, "-");
		strcpy(delta, "-");
		strcpy(hooked, "-");
		strcpy(dh, "-");
		if (a->has_ratio) {
			snprintf(ratio, sizeof(ratio), "%.4f", a->ratio);
			snprintf(delta, sizeof(delta), "%+.1f", a->delta);
		}
		if (truthy(&a->hooked))
			snprintf(hooked, sizeof(hooked), "%.2f", a->hooked.num);
		if (a->has_delta_hooked)
			snprintf(dh, sizeof(dh), "%+.0f", a->delta_hooked);
		printf("%-10s %12.2f %8.2f %7s %10s %9s %11s %8lld\n", a->mode,
		       a->med.num / 1000, a->spread, ratio, delta, hooked, dh,
		       (long long)a->failures.num);
	}
}

static void print_table(const struct kres *k, bool smoke)
{
	int i;

	print_header(k, smoke);
	for (i = 0; i < k->nrows; i++)
		print_row(&k->rows[i], smoke);
	if (k->nalloc)
		print_alloc(k);
	for (i = 0; i < k->nnotes; i++)
		printf("note: %s\n", k->notes[i]);
	printf("\n");
}

/* ---- KVER.json and KVER.csv -------------------------------------------- */

static FILE *create(const char *outdir, const char *kernel, const char *ext)
{
	struct buf b = { 0 };
	char *path;
	FILE *f;

	buf_printf(&b, "%s%s", kernel, ext);
	path = path_join(outdir, b.s);
	f = fopen(path, "w");
	if (!f)
		die("%s: %s", path, strerror(errno));
	free(path);
	free(b.s);
	return f;
}

static void finish(FILE *f, const char *what)
{
	if (ferror(f) | fclose(f))
		die("writing %s failed", what);
}

static void json_row(struct jw *w, const struct row *r)
{
	int i;

	jw_open(w, NULL, '{');
	jw_str(w, "device", r->device);
	jw_str(w, "workload", r->workload);
	jw_str(w, "config", r->config);
	jw_str(w, "description", description(r->config));
	jw_int(w, "rounds", r->rounds);
	jw_val(w, "iops_median", &r->med);
	jw_val(w, "iops_min", &r->min);
	jw_val(w, "iops_max", &r->max);
	jw_float(w, "spread_pct", r->spread);
	jw_val(w, "errors", &r->errors);
	jw_val(w, "injected", &r->injected);
	if (r->has_ratio) {
		jw_float(w, "ratio", r->ratio);
		jw_float(w, "delta_ns_per_io", r->delta);
	}
	jw_open(w, "targets", '[');
	for (i = 0; i < r->nv; i++) {
		jw_open(w, NULL, '{');
		jw_str(w, "target", r->v[i].label);
		jw_float(w, "want", r->v[i].want);
		jw_bool(w, "ok", r->v[i].ok);
		jw_close(w, '}');
	}
	jw_close(w, ']');
	jw_close(w, '}');
}

static void json_alloc(struct jw *w, const struct amode *a)
{
	jw_open(w, NULL, '{');
	jw_str(w, "mode", a->mode);
	jw_int(w, "rounds", a->rounds);
	jw_val(w, "ops_median", &a->med);
	jw_float(w, "spread_pct", a->spread);
	jw_val(w, "failures", &a->failures);
	if (a->has_ns)
		jw_float(w, "ns_per_op", a->ns_per_op);
	else
		jw_val(w, "ns_per_op", NULL);
	if (a->hooked.type == V_NUM)
		jw_val(w, "hooked_per_op", &a->hooked);
	if (a->has_ratio) {
		jw_float(w, "ratio", a->ratio);
		jw_float(w, "delta_ns_per_op", a->delta);
	}
	if (a->has_delta_hooked)
		jw_float(w, "delta_ns_per_hooked", a->delta_hooked);
	jw_close(w, '}');
}

static void write_json(const struct kres *k, const char *outdir, bool smoke)
{
	struct jw w = { .f = create(outdir, k->kernel, ".json") };
	int i;

	jw_open(&w, NULL, '{');
	jw_str(&w, "kernel", k->kernel);
	jw_bool(&w, "smoke", smoke);
	jw_rec(&w, "setup", k->setup);
	jw_open(&w, "notes", '[');
	for (i = 0; i < k->nnotes; i++)
		jw_str(&w, NULL, k->notes[i]);
	jw_close(&w, ']');
	jw_open(&w, "summary", '[');
	for (i = 0; i < k->nrows; i++)
		json_row(&w, &k->rows[i]);
	jw_close(&w, ']');
	jw_open(&w, "alloc", '[');
	for (i = 0; i < k->nalloc; i++)
		json_alloc(&w, &k->alloc[i]);
	jw_close(&w, ']');
	jw_open(&w, "runs", '[');
	for (i = 0; i < k->nrecs; i++)
		if (rec_is(&k->recs[i], "fio") || rec_is(&k->recs[i], "alloc"))
			jw_rec(&w, NULL, &k->recs[i]);
	jw_close(&w, ']');
	jw_close(&w, '}');
	finish(w.f, "the JSON results");
}

/* One CSV field as Python's csv module writes it (QUOTE_MINIMAL). */
static void csv_field(FILE *f, const char *s, bool last)
{
	if (strpbrk(s, ",\"\r\n")) {
		putc('"', f);
		for (; *s; s++) {
			if (*s == '"')
				putc('"', f);
			putc(*s, f);
		}
		putc('"', f);
	} else {
		fputs(s, f);
	}
	fputs(last ? "\r\n" : ",", f);
}

static void csv_row(FILE *f, const char *const *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		csv_field(f, v[i], i == n - 1);
}

static void csv_summary_row(FILE *f, const char *kernel, const struct row *r, bool smoke)
{
	char rounds[16], med[64], min[64], max[64], spr[64], ratio[64] = "", delta[64] = "";
	struct buf e = { 0 }, in = { 0 }, tv = { 0 };

	snprintf(rounds, sizeof(rounds), "%d", r->rounds);
	snprintf(med, sizeof(med), "%.1f", r->med.num);
	snprintf(min, sizeof(min), "%.1f", r->min.num);
	snprintf(max, sizeof(max), "%.1f", r->max.num);
	snprintf(spr, sizeof(spr), "%.3f", r->spread);
	if (r->has_ratio) {
		snprintf(ratio, sizeof(ratio), "%.4f", r->ratio);
		snprintf(delta, sizeof(delta), "%.1f", r->delta);
	}
	val_str(&e, &r->errors);
	val_str(&in, &r->injected);
	buf_puts(&tv, "");
	if (!smoke)
		verdicts(&tv, r, " ");
	{
		const char *v[] = { kernel, r->device, r->workload, r->config, rounds, med,
				    min, max, spr, ratio, delta, e.s, in.s, tv.s };

		csv_row(f, v, ARRAY_SIZE(v));
	}
	free(e.s);
	free(in.s);
	free(tv.s);
}

static void csv_alloc_row(FILE *f, const char *kernel, const struct amode *a)
{
	char rounds[16], med[64], spr[64], ratio[64] = "", delta[64] = "";
	struct buf fl = { 0 };

	snprintf(rounds, sizeof(rounds), "%d", a->rounds);
	snprintf(med, sizeof(med), "%.1f", a->med.num);
	snprintf(spr, sizeof(spr), "%.3f", a->spread);
	if (a->has_ratio) {
		snprintf(ratio, sizeof(ratio), "%.4f", a->ratio);
		snprintf(delta, sizeof(delta), "%.1f", a->delta);
	}
	val_str(&fl, &a->failures);
	{
		const char *v[] = { kernel, "alloc", "slab-churn", a->mode, rounds, med, "", "",
				    spr, ratio, delta, fl.s, "", "" };

		csv_row(f, v, ARRAY_SIZE(v));
	}
	free(fl.s);
}

static void write_csv(const struct kres *k, const char *outdir, bool smoke)
{
	FILE *f = create(outdir, k->kernel, ".csv");
	int i;

	fputs("kernel,device,workload,config,rounds,iops_median,iops_min,iops_max,spread_pct,"
	      "ratio_to_linear,delta_ns_per_io,errors,injected,verdict\r\n", f);
	for (i = 0; i < k->nrows; i++)
		csv_summary_row(f, k->kernel, &k->rows[i], smoke);
	for (i = 0; i < k->nalloc; i++)
		csv_alloc_row(f, k->kernel, &k->alloc[i]);
	finish(f, "the CSV summary");
}

/* ---- per log ------------------------------------------------------------ */

/* setup.get("kernel") or the first record's kernel or the log's name */
static char *kernel_name(const struct kres *k, const char *log)
{
	const char *base, *dot;
	struct buf b = { 0 };
	int i;

	if (truthy(rec_get(k->setup, "kernel")))
		return val_dup(rec_get(k->setup, "kernel"), "");
	for (i = 0; i < k->nrecs; i++)
		if (truthy(rec_get(&k->recs[i], "kernel")))
			return val_dup(rec_get(&k->recs[i], "kernel"), "");
	base = strrchr(log, '/');
	base = base ? base + 1 : log;
	dot = strrchr(base, '.');
	buf_add(&b, base, dot ? (size_t)(dot - base) : strlen(base));
	return buf_take(&b);
}

static const char unfinished[] =
	"the guest did not finish (no 'done' record): results are partial";

/* The notes of the guest and of the report, in the order they are shown. */
static int collect_notes(struct kres *k, const char *log)
{
	const char *text;
	struct buf b = { 0 };
	int i, status = 0;
	bool done = false;

	for (i = 0; i < k->nrecs; i++) {
		text = rec_str(&k->recs[i], "text");
		if ((rec_is(&k->recs[i], "note") || rec_is(&k->recs[i], "fatal")) && text)
			add_note(k, xstrdup(text));
		done |= rec_is(&k->recs[i], "done");
	}
	if (!done) {
		add_note(k, xstrdup(unfinished));
		status = 1;
	}
	if (!k->nrows) {
		buf_printf(&b, "no fio result in %s", log);
		add_note(k, buf_take(&b));
		status = 1;
	}
	for (i = 0; i < k->nrecs; i++) {
		text = rec_str(&k->recs[i], "text");
		if (rec_is(&k->recs[i], "alloc-note") && text)
			add_note(k, xstrdup(text));
	}
	return status;
}

/* One log: the table, KVER.json and KVER.csv.  0, 1 (no result) or -1. */
static int report_log(struct kres *k, const char *log, const char *outdir, bool smoke)
{
	int i, status;

	if (parse_log(k, log)) {
		fprintf(stderr, "report: %s: %s\n", log, strerror(errno));
		return -1;
	}
	for (i = 0; i < k->nrecs && !k->setup; i++)
		if (rec_is(&k->recs[i], "setup"))
			k->setup = &k->recs[i];
	summarise(k);
	k->kernel = kernel_name(k, log);
	status = collect_notes(k, log);
	summarise_alloc(k);
	print_table(k, smoke);
	write_json(k, outdir, smoke);
	write_csv(k, outdir, smoke);
	return status;
}

static int misses(const struct kres *k)
{
	int i, j, n = 0;

	for (i = 0; i < k->nrows; i++)
		for (j = 0; j < k->rows[i].nv; j++)
			n += !k->rows[i].v[j].ok;
	return n;
}

static void kres_free(struct kres *k)
{
	int i;

	for (i = 0; i < k->nrecs; i++)
		rec_free(&k->recs[i]);
	for (i = 0; i < k->nnotes; i++)
		free(k->notes[i]);
	free(k->recs);
	free(k->notes);
	free(k->rows);
	free(k->alloc);
	free(k->kernel);
	free(k->configs);
}

/* ---- engine.json ---------------------------------------------------------- */

/* The engine's cases with their verdicts; the number of missed targets. */
static int report_engine(const char *path, bool smoke)
{
	const struct val *insn, *t;
	struct rec *cases = NULL;
	struct buf name = { 0 };
	int i, n = 0, missed = 0;
	char *text;

	text = read_text(path);
	if (!text || parse_engine(text, &cases, &n)) {
		fprintf(stderr, "report: %s: %s\n", path, text ? "not the JSON of bench/engine.sh" :
			strerror(errno));
		n = -1;
	}
	if (n >= 0)
		printf("engine (host, callgrind): instructions per dmf_should_fail() decision\n");
	for (i = 0; i < n; i++) {
		insn = rec_num(&cases[i], "insn");
		t = rec_num(&cases[i], "target");
		if (!insn || !rec_get(&cases[i], "name"))
			continue;
		val_str(&name, rec_get(&cases[i], "name"));
		printf("  %-34s %8.1f  ", name.s, insn->num);
		if (t && !smoke) {
			printf("%s <= %lld", insn->num <= t->num ? "PASS" : "MISS",
			       (long long)t->num);
			missed += insn->num > t->num;
		}
		printf("\n");
		free(buf_take(&name));
	}
	if (n >= 0)
		printf("\n");
	for (i = 0; i < n; i++)
		rec_free(&cases[i]);
	free(cases);
	free(text);
	return n < 0 ? -1 : missed;
}

/* ---- the plot ------------------------------------------------------------- */

struct series {
	const char *kernel, *workload;
};

struct plot {
	const struct kres *res;
	int nres;
	const char *outdir;
	const char **devices;
	int ndev;
	struct series *series;
	int nseries;
};

static void plot_collect(struct plot *p)
{
	const struct row *r;
	struct series *s;
	int i, j, k;

	for (i = 0; i < p->nres; i++) {
		for (j = 0; j < p->res[i].nrows; j++) {
			r = &p->res[i].rows[j];
			if (!in_list(r->device, p->devices, p->ndev))
				*(const char **)push(&p->devices, &p->ndev, sizeof(char *)) =
					r->device;
			for (k = 0; k < p->nseries; k++)
				if (!strcmp(p->series[k].kernel, p->res[i].kernel) &&
				    !strcmp(p->series[k].workload, r->workload))
					break;
			if (k < p->nseries)
				continue;
			s = push(&p->series, &p->nseries, sizeof(*s));
			s->kernel = p->res[i].kernel;
			s->workload = r->workload;
		}
	}
}

/* The ratio of cfg for one series on dev, if there is one. */
static const struct row *plot_find(const struct plot *p, const struct series *s,
				   const char *dev, const char *cfg)
{
	const struct row *r;
	int i, j;

	for (i = 0; i < p->nres; i++) {
		if (strcmp(p->res[i].kernel, s->kernel))
			continue;
		for (j = 0; j < p->res[i].nrows; j++) {
			r = &p->res[i].rows[j];
			if (!strcmp(r->device, dev) && !strcmp(r->workload, s->workload) &&
			    !strcmp(r->config, cfg) && r->has_ratio)
				return r;
		}
	}
	return NULL;
}

/* One line of the data file: the configuration and its ratio per series. */
static void plot_line(struct buf *b, const struct plot *p, const char *dev, const char *cfg)
{
	const struct row *r;
	const char *c;
	int i;

	for (c = cfg; *c; c++)
		buf_putc(b, *c == ' ' ? '_' : *c);
	for (i = 0; i < p->nseries; i++) {
		r = plot_find(p, &p->series[i], dev, cfg);
		if (r)
			buf_printf(b, " %.4f", r->ratio);
		else
			buf_puts(b, " NaN");
	}
	buf_putc(b, '\n');
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f)
		die("%s: %s", path, strerror(errno));
	fputs(text, f);
	finish(f, path);
}

/* OUTDIR/ratios-DEV.dat and, for nullb, ratios-DEV-zoom.dat */
static void plot_data(const struct plot *p, const char *dev, const char *dat, const char *zdat)
{
	struct buf all = { 0 }, zoom = { 0 }, line = { 0 };
	const char **cfgs = NULL;
	const struct row *r;
	int i, j, ncfg = 0;

	buf_puts(&all, "# config");
	for (i = 0; i < p->nseries; i++)
		buf_printf(&all, " %s/%s", p->series[i].kernel, p->series[i].workload);
	buf_putc(&all, '\n');
	buf_puts(&zoom, "");
	for (i = 0; i < p->nres; i++) {
		for (j = 0; j < p->res[i].nrows; j++) {
			r = &p->res[i].rows[j];
			if (strcmp(r->device, dev) || !r->has_ratio ||
			    in_list(r->config, cfgs, ncfg))
				continue;
			*(const char **)push(&cfgs, &ncfg, sizeof(char *)) = r->config;
			plot_line(&line, p, dev, r->config);
			buf_puts(&all, line.s);
			if (!strncmp(line.s, "fault", 5) || !strncmp(line.s, "dm-linear", 9))
				buf_puts(&zoom, line.s);
			free(buf_take(&line));
		}
	}
	write_file(dat, all.s);
	if (zdat)
		write_file(zdat, zoom.s);
	free(all.s);
	free(zoom.s);
	free(cfgs);
}

static void plot_cmd(struct buf *gp, const struct plot *p, const char *dat)
{
	int i;

	buf_puts(gp, "plot ");
	for (i = 0; i < p->nseries; i++)
		buf_printf(gp, "'%s' using %d:xtic(1) title '%s %s' noenhanced, \\\n  ", dat,
			   i + 2, p->series[i].kernel, p->series[i].workload);
	buf_puts(gp, "0.98 with lines dt 2 lw 2 lc rgb 'dark-green' title 'target no rules 0.98'"
		", \\\n  0.95 with lines dt 3 lw 2 lc rgb 'red' title 'target rules 0.95'\n");
}

static void plot_device(struct buf *gp, const struct plot *p, const char *dev)
{
	struct buf name = { 0 };
	char *dat, *zdat = NULL;
	const char *title = dev;

	buf_printf(&name, "ratios-%s.dat", dev);
	dat = path_join(p->outdir, name.s);
	if (!strcmp(dev, "nullb")) {
		free(buf_take(&name));
		buf_printf(&name, "ratios-%s-zoom.dat", dev);
		zdat = path_join(p->outdir, name.s);
		title = "null_blk (no backing memory, CPU-bound): targets judged here";
	} else if (!strcmp(dev, "virtio")) {
		title = "virtio disk (completions timed by the host under -icount: "
			"large spread, shown, not judged)";
	}
	plot_data(p, dev, dat, zdat);
	buf_printf(gp, "set title '%s' noenhanced\n", title);
	plot_cmd(gp, p, dat);
	if (zdat) {
		/* the same bars of dm-fault's configurations, zoomed on the targets */
		buf_puts(gp, "set title 'null_blk, dm-fault configurations (zoomed)' noenhanced\n"
			 "set yrange [0.90:1.01]\nset ytics 0.01\n");
		plot_cmd(gp, p, zdat);
		buf_puts(gp, "set yrange [0:1.3]\nset ytics 0.1\n");
	}
	free(name.s);
	free(dat);
	free(zdat);
}

/* Run gnuplot on script; its output is shown only if it fails. */
static bool run_gnuplot(const char *script)
{
	struct buf cmd = { 0 }, out = { 0 };
	char chunk[4096];
	const char *s;
	FILE *f;
	size_t n;
	int st;

	buf_puts(&cmd, "exec gnuplot '");
	for (s = script; *s; s++)
		buf_puts(&cmd, *s == '\'' ? "'\\''" : (char[]){ *s, '\0' });
	buf_puts(&cmd, "' 2>&1");
	fflush(NULL);
	f = popen(cmd.s, "r");
	free(cmd.s);
	if (!f) {
		fprintf(stderr, "report: gnuplot failed: %s\n", strerror(errno));
		return false;
	}
	buf_puts(&out, "");
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		buf_add(&out, chunk, n);
	st = pclose(f);
	if (st == -1 || !WIFEXITED(st) || WEXITSTATUS(st))
		fprintf(stderr, "report: gnuplot failed: %s\n", out.s);
	free(out.s);
	return st != -1 && WIFEXITED(st) && !WEXITSTATUS(st);
}

/* Clustered bars of the ratio to dm-linear: one panel per device. */
static bool plot(const char *png, const struct kres *res, int nres, const char *outdir)
{
	struct plot p = { .res = res, .nres = nres, .outdir = outdir };
	struct buf gp = { 0 };
	char *script;
	bool ok;
	int i;

	plot_collect(&p);
	if (!p.ndev) {
		free(p.series);
		return false;
	}
	buf_printf(&gp, "set terminal pngcairo size 1400,%d font 'DejaVu Sans,10'\n"
		   "set output '%s'\n"
		   "set multiplot layout %d,1 title 'IOPS ratio to dm-linear, same boot, "
		   "median of rounds (QEMU -icount, fio 4k QD32 2 jobs)'\n",
		   420 * (p.ndev + in_list("nullb", p.devices, p.ndev)), png,
		   p.ndev + in_list("nullb", p.devices, p.ndev));
	buf_puts(&gp, "set style data histograms\nset style histogram clustered gap 1\n"
		 "set style fill solid 0.85 border -1\nset boxwidth 0.9\nset yrange [0:1.3]\n"
		 "set ytics 0.1\nset grid ytics\nset key outside right top vertical\n"
		 "set xtics rotate by -25 noenhanced\nset ylabel 'ratio to dm-linear'\n");
	for (i = 0; i < p.ndev; i++)
		plot_device(&gp, &p, p.devices[i]);
	buf_puts(&gp, "unset multiplot\n");
	script = path_join(outdir, "ratios.gp");
	write_file(script, gp.s);
	ok = run_gnuplot(script);
	free(script);
	free(gp.s);
	free(p.devices);
	free(p.series);
	return ok;
}

/* ---- main ------------------------------------------------------------------- */

/* os.makedirs(dir, exist_ok=True) */
static int mkdir_p(const char *dir)
{
	char *d = xstrdup(dir), *s = d;
	int err = 0;

	if (!*d) {
		free(d);
		errno = ENOENT;
		return -1;
	}
	do {
		s = strchr(s + 1, '/');
		if (s)
			*s = '\0';
		if (*d && mkdir(d, 0777) && errno != EEXIST)
			err = -1;
		if (s)
			*s = '/';
	} while (s && !err);
	free(d);
	return err;
}

int main(int argc, char **argv)
{
	const char *png = NULL, *engine = NULL, *outdir;
	struct kres *res = NULL;
	int i, n, nres = 0, status = 0, missed = 0;
	bool smoke = false;
	struct stat st;

	for (argv++, argc--; argc && !strncmp(argv[0], "--", 2); argv++, argc--) {
		if (!strcmp(argv[0], "--smoke")) {
			smoke = true;
		} else if (!strcmp(argv[0], "--plot") && argc > 1) {
			png = *++argv;
			argc--;
		} else if (!strcmp(argv[0], "--engine") && argc > 1) {
			engine = *++argv;
			argc--;
		} else {
			fputs(usage, stderr);
			return 2;
		}
	}
	if (argc < 2) {
		fputs(usage, stderr);
		return 2;
	}
	outdir = argv[0];
	if (mkdir_p(outdir))
		die("%s: %s", outdir, strerror(errno));
	res = xrealloc(NULL, argc * sizeof(*res));
	for (i = 1; i < argc; i++) {
		memset(&res[nres], 0, sizeof(*res));
		n = report_log(&res[nres], argv[i], outdir, smoke);
		if (n < 0) {
			kres_free(&res[nres]);
			status = 1;
			continue;
		}
		status |= n;
		if (!smoke)
			missed += misses(&res[nres]);
		nres++;
	}
	if (engine && !stat(engine, &st)) {
		n = report_engine(engine, smoke);
		if (n < 0)
			status = 1;
		else
			missed += n;
	}
	if (png && nres && plot(png, res, nres, outdir))
		printf("plot: %s\n", png);
	if (!smoke)
		printf("targets missed: %d\n", missed);
	for (i = 0; i < nres; i++)
		kres_free(&res[i]);
	free(res);
	if (fflush(stdout))
		status = 1;
	return status;
}
