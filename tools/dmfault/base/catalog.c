// SPDX-License-Identifier: GPL-2.0-only
/*
 * dmfault: the catalogue files of hunt and crashtest, one syntax for both
 * (dmfault(8), HUNT CATALOGUE): "[NAME]" opens a stanza, "KEY = VALUE"
 * lines fill it, '#' starts a comment line, a trailing backslash continues
 * a line.  Each command says what a stanza is (struct dft_cat_kind): its
 * keys, the one it must have, and where the values go; the values point
 * into the file's text.  And where the files that come with the tool are.
 * libc only: the host unit tests link this file as it is.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/base.h"

/*
 * The next logical line of a catalogue at *@s, NUL-terminated in place: a
 * line that ends in a backslash continues on the next, joined by one blank
 * (a comment line does not).  *@ln counts the lines read, @first is where
 * this one starts; @dangling says the last line of the text ended in a
 * backslash.  NULL at the end.
 */
static char *dft_cat_line(char **s, unsigned int *ln, unsigned int *first, bool *dangling)
{
	char *line = *s, *w = line, *r = line, *end;
	size_t n;

	*dangling = false;
	if (!*r)
		return NULL;
	*first = *ln + 1;
	for (;;) {
		end = strchrnul(r, '\n');
		n = end - r;
		memmove(w, r, n);
		w += n;
		r = *end ? end + 1 : end;
		(*ln)++;
		while (w > line && (w[-1] == ' ' || w[-1] == '\t' || w[-1] == '\r'))
			w--;
		if (w == line || w[-1] != '\\' || line[strspn(line, " \t")] == '#')
			break;
		if (!*r) {
			*dangling = true;
			break;
		}
		for (w--; w > line && (w[-1] == ' ' || w[-1] == '\t'); w--)
			;
		*w++ = ' ';
		r += strspn(r, " \t");
	}
	*w = '\0';
	*s = r;
	return line;
}

static int __printf(5, 6) dft_cat_err(char *err, size_t len, const char *file, unsigned int ln,
				      const char *fmt, ...)
{
	va_list ap;
	int n;

	n = snprintf(err, len, "%s:%u: ", file, ln);
	va_start(ap, fmt);
	if (n >= 0 && (size_t)n < len)
		vsnprintf(err + n, len - n, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* A stanza's name: letters, digits, '.', '_' and '-'. */
static bool dft_cat_name_ok(const char *name)
{
	if (!*name)
		return false;
	for (; *name; name++)
		if (!isalnum((unsigned char)*name) && !strchr("._-", *name))
			return false;
	return true;
}

/* Stanza @i of @c: its name, line and values are at @k's offsets in it. */
static void *dft_cat_at(const struct dft_catalog *c, const struct dft_cat_kind *k, unsigned int i)
{
	return (char *)c->st + i * k->size;
}

#define DFT_CAT_FIELD(st, off)	(*(const char **)((char *)(st) + (off)))

static const char *dft_cat_name(const struct dft_cat_kind *k, void *st)
{
	return DFT_CAT_FIELD(st, k->name_off);
}

static unsigned int *dft_cat_lineno(const struct dft_cat_kind *k, void *st)
{
	return (unsigned int *)((char *)st + k->line_off);
}

/* Add a stanza named @name, at line @ln, to @c. */
static int dft_cat_add(struct dft_catalog *c, const struct dft_cat_kind *k, const char *name,
		       unsigned int ln, const char *file, char *err, size_t len)
{
	unsigned int i;
	void *st;

	if (!dft_cat_name_ok(name))
		return dft_cat_err(err, len, file, ln,
				   "'%s' is not %s %s name (letters, digits, '.', '_', '-')",
				   name, *k->what == 'e' ? "an" : "a", k->what);
	for (i = 0; i < c->nr; i++)
		if (!strcmp(dft_cat_name(k, dft_cat_at(c, k, i)), name))
			return dft_cat_err(err, len, file, ln, "%s '%s' again (first at line %u)",
					   k->what, name, *dft_cat_lineno(k, dft_cat_at(c, k, i)));
	st = realloc(c->st, (c->nr + 1) * k->size);
	if (!st) {
		snprintf(err, len, "out of memory");
		return -ENOMEM;
	}
	c->st = st;
	st = dft_cat_at(c, k, c->nr++);
	memset(st, 0, k->size);
	DFT_CAT_FIELD(st, k->name_off) = name;
	*dft_cat_lineno(k, st) = ln;
	return 0;
}

/* KEY = VALUE in the stanza @st. */
static int dft_cat_set(const struct dft_cat_kind *k, void *st, char *line, unsigned int ln,
		       const char *file, char *err, size_t len)
{
	char *eq = strchr(line, '='), *key, *v, why[160];
	unsigned int i;

	if (!eq)
		return dft_cat_err(err, len, file, ln, "'%s' is not KEY = VALUE", line);
	for (key = eq; key > line && (key[-1] == ' ' || key[-1] == '\t'); key--)
		;
	*key = '\0';
	v = eq + 1 + strspn(eq + 1, " \t");
	for (i = 0; i < k->nr_keys && strcmp(line, k->keys[i]); i++)
		;
	if (i == k->nr_keys)
		return dft_cat_err(err, len, file, ln, "unknown key '%s' (%s)", line, k->keys_said);
	if (DFT_CAT_FIELD(st, k->val_off[i]))
		return dft_cat_err(err, len, file, ln, "%s given twice in %s '%s'", k->keys[i],
				   k->what, dft_cat_name(k, st));
	if (!*v)
		return dft_cat_err(err, len, file, ln, "%s is empty", k->keys[i]);
	if (k->value_bad && k->value_bad(i, v, why, sizeof(why)))
		return dft_cat_err(err, len, file, ln, "%s: %s", k->keys[i], why);
	DFT_CAT_FIELD(st, k->val_off[i]) = v;
	return 0;
}

/* 0, or the error of the last stanza when it lacks a key @k needs. */
static int dft_cat_whole(const struct dft_catalog *c, const struct dft_cat_kind *k,
			 const char *file, char *err, size_t len)
{
	void *st = dft_cat_at(c, k, c->nr - 1);
	unsigned int i;

	for (i = 0; i < k->nr_keys; i++)
		if ((k->need & (1U << i)) && !DFT_CAT_FIELD(st, k->val_off[i]))
			return dft_cat_err(err, len, file, *dft_cat_lineno(k, st),
					   "%s '%s' has no %s", k->what, dft_cat_name(k, st),
					   k->keys[i]);
	return 0;
}

/*
 * Parse @c->text, the catalogue @file, in place, into stanzas of kind @k.
 * 0, or -EINVAL with "FILE:LINE: what is wrong" in @err: an unknown key, a
 * key given twice, a stanza without its needed key, a bad value, a name
 * given twice, a line outside any stanza, no stanza at all.
 */
int dft_catalog_parse(struct dft_catalog *c, const struct dft_cat_kind *k, const char *file,
		      char *err, size_t len)
{
	unsigned int ln = 0, first;
	char *s = c->text, *line, *e;
	bool dangling;
	int r;

	c->st = NULL;
	c->nr = 0;
	*err = '\0';
	while ((line = dft_cat_line(&s, &ln, &first, &dangling)) != NULL) {
		line += strspn(line, " \t");
		if (!*line || *line == '#')
			continue;
		if (dangling)
			return dft_cat_err(err, len, file, first,
					   "the last line ends in a backslash");
		if (*line == '[') {
			if (c->nr && dft_cat_whole(c, k, file, err, len))
				return -EINVAL;
			e = strchr(line, ']');
			if (!e || e[1])
				return dft_cat_err(err, len, file, first,
						   "'%s' is not a [NAME] header", line);
			*e = '\0';
			r = dft_cat_add(c, k, line + 1, first, file, err, len);
		} else if (!c->nr) {
			r = dft_cat_err(err, len, file, first,
					"'%s' is outside %s %s's stanza ([NAME] first)", line,
					*k->what == 'e' ? "an" : "a", k->what);
		} else {
			r = dft_cat_set(k, dft_cat_at(c, k, c->nr - 1), line, first, file, err,
					len);
		}
		if (r)
			return r;
	}
	if (!c->nr)
		return dft_cat_err(err, len, file, ln, "no %s", k->what);
	return dft_cat_whole(c, k, file, err, len);
}

/* Read and parse the catalogue @file; as dft_catalog_parse(), or -errno. */
int dft_catalog_read(struct dft_catalog *c, const struct dft_cat_kind *k, const char *file,
		     char *err, size_t len)
{
	size_t size = 0;
	FILE *f;
	int r;

	memset(c, 0, sizeof(*c));
	f = fopen(file, "re");
	if (!f) {
		r = -errno;
		snprintf(err, len, "%s: %s", file, strerror(-r));
		return r;
	}
	if (getdelim(&c->text, &size, '\0', f) < 0) {
		free(c->text);
		c->text = strdup("");
	}
	r = ferror(f) ? -EIO : 0;
	fclose(f);
	if (r || !c->text) {
		snprintf(err, len, "%s: %s", file, r ? strerror(-r) : "out of memory");
		return r ? r : -ENOMEM;
	}
	return dft_catalog_parse(c, k, file, err, len);
}

void dft_catalog_free(struct dft_catalog *c)
{
	free(c->st);
	free(c->text);
	memset(c, 0, sizeof(*c));
}

/*
 * A file that comes with the tool: @installed under the parent of the
 * directory the tool runs from (PREFIX/sbin/../share/...), else @built in
 * that directory (the build tree).  0 with its path in @out, -ENOENT with
 * the two paths tried in @out and @alt, or another -errno.
 */
int dft_beside(const char *installed, const char *built, int mode, char *out, char *alt,
	       size_t len)
{
	char exe[4096], *slash;
	ssize_t n;

	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		return n ? -errno : -EINVAL;
	exe[n] = '\0';
	slash = strrchr(exe, '/');
	if (!slash)
		return -EINVAL;
	*slash = '\0';
	slash = strrchr(exe, '/');
	if (snprintf(out, len, "%.*s/%s", slash ? (int)(slash - exe) : 0, exe, installed) >=
	    (int)len || snprintf(alt, len, "%s/%s", exe, built) >= (int)len)
		return -ENAMETOOLONG;
	if (!access(out, mode))
		return 0;
	if (access(alt, mode))
		return -ENOENT;
	snprintf(out, len, "%s", alt);
	return 0;
}
