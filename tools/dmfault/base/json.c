// SPDX-License-Identifier: GPL-2.0-only
/*
 * dmfault: a small JSON writer for --json output.  Pretty-printed with two
 * spaces like lsblk --json, or one document per line (compact) for --watch.
 * Strings are escaped per RFC 8259; anything below 0x20 becomes \u00XX.
 */
#include <inttypes.h>
#include <math.h>

#include "base/base.h"

void dft_json_quote(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	fputc('"', f);
	for (; *p; p++) {
		switch (*p) {
		case '"':
			fputs("\\\"", f);
			break;
		case '\\':
			fputs("\\\\", f);
			break;
		case '\n':
			fputs("\\n", f);
			break;
		case '\t':
			fputs("\\t", f);
			break;
		case '\r':
			fputs("\\r", f);
			break;
		default:
			if (*p < 0x20 || *p == 0x7f)
				fprintf(f, "\\u%04x", *p);
			else
				fputc(*p, f);
		}
	}
	fputc('"', f);
}

void dft_json_init(struct dft_json *j, FILE *f, bool compact)
{
	j->f = f;
	j->depth = 0;
	j->first = true;
	j->compact = compact;
}

/* Separator, newline and indentation before a value, then its key. */
static void dft_json_key(struct dft_json *j, const char *key)
{
	int i;

	if (!j->first)
		fputc(',', j->f);
	if (j->depth && !j->compact) {
		fputc('\n', j->f);
		for (i = 0; i < j->depth; i++)
			fputs("  ", j->f);
	}
	j->first = false;
	if (key) {
		dft_json_quote(j->f, key);
		fputs(j->compact ? ":" : ": ", j->f);
	}
}

void dft_json_begin(struct dft_json *j, const char *key, char open)
{
	dft_json_key(j, key);
	fputc(open, j->f);
	j->depth++;
	j->first = true;
}

void dft_json_end(struct dft_json *j, char close)
{
	int i;

	j->depth--;
	if (!j->first && !j->compact) {
		fputc('\n', j->f);
		for (i = 0; i < j->depth; i++)
			fputs("  ", j->f);
	}
	fputc(close, j->f);
	j->first = false;
}

void dft_json_str(struct dft_json *j, const char *key, const char *val)
{
	dft_json_key(j, key);
	dft_json_quote(j->f, val);
}

void dft_json_u64(struct dft_json *j, const char *key, uint64_t val)
{
	dft_json_key(j, key);
	fprintf(j->f, "%" PRIu64, val);
}

/* A number already in JSON syntax (checked by the caller), e.g. "12.345678". */
void dft_json_num(struct dft_json *j, const char *key, const char *val)
{
	dft_json_key(j, key);
	fputs(val, j->f);
}

void dft_json_double(struct dft_json *j, const char *key, double val)
{
	dft_json_key(j, key);
	if (isfinite(val))
		fprintf(j->f, "%.3f", val);
	else
		fputs("null", j->f);
}

void dft_json_bool(struct dft_json *j, const char *key, bool val)
{
	dft_json_key(j, key);
	fputs(val ? "true" : "false", j->f);
}

void dft_json_null(struct dft_json *j, const char *key)
{
	dft_json_key(j, key);
	fputs("null", j->f);
}

/* End of a top-level document. */
void dft_json_finish(struct dft_json *j)
{
	fputc('\n', j->f);
	fflush(j->f);
	j->first = true;
}
