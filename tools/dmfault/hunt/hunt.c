// SPDX-License-Identifier: GPL-2.0-only
/*
 * dmfault hunt: the catalogue of kernel paths it sweeps (a file, see
 * hunt.catalog) and the findings, deduplicated by the call chain of the
 * injected fault (alloc/chain.c).  libc only: the host unit tests link this
 * file as it is.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hunt/hunt.h"

/* What a shell variable's name is made of. */
static const char dft_var_chars[] =
	"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_";

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

/* A path's name: letters, digits, '.', '_' and '-'. */
static bool dft_cat_name_ok(const char *name)
{
	if (!*name)
		return false;
	for (; *name; name++)
		if (!strchr(dft_var_chars, *name) && *name != '.' && *name != '-')
			return false;
	return true;
}

/* A knobs line: blank-separated KNOB=VALUE words.  NULL, or the first bad word. */
static const char *dft_cat_knobs_bad(const char *v, size_t *n)
{
	for (v += strspn(v, " \t"); *v; v += *n, v += strspn(v, " \t")) {
		*n = strcspn(v, " \t");
		if (!memchr(v, '=', *n) || *v == '=')
			return v;
	}
	return NULL;
}

/* Add a path named @name, its stanza at line @ln, to @c. */
static int dft_cat_add(struct dft_hunt_catalog *c, const char *name, unsigned int ln,
		       const char *file, char *err, size_t len)
{
	struct dft_hunt_path *p;
	unsigned int i;

	if (!dft_cat_name_ok(name))
		return dft_cat_err(err, len, file, ln,
				   "'%s' is not a path name (letters, digits, '.', '_', '-')",
				   name);
	for (i = 0; i < c->nr; i++)
		if (!strcmp(c->paths[i].name, name))
			return dft_cat_err(err, len, file, ln, "path '%s' again (first at line %u)",
					   name, c->paths[i].line);
	p = realloc(c->paths, (c->nr + 1) * sizeof(*p));
	if (!p) {
		snprintf(err, len, "out of memory");
		return -ENOMEM;
	}
	c->paths = p;
	p = &c->paths[c->nr++];
	memset(p, 0, sizeof(*p));
	p->name = name;
	p->line = ln;
	return 0;
}

/* KEY = VALUE in the stanza of @p. */
static int dft_cat_set(struct dft_hunt_path *p, char *line, unsigned int ln, const char *file,
		       char *err, size_t len)
{
	static const char *const keys[] = { "setup", "step", "post", "teardown", "knobs" };
	const char **field[] = { &p->setup, &p->cmd, &p->post, &p->teardown, &p->knobs };
	char *eq = strchr(line, '='), *k, *v;
	const char *bad;
	unsigned int i;
	size_t n;

	if (!eq)
		return dft_cat_err(err, len, file, ln, "'%s' is not KEY = VALUE", line);
	for (k = eq; k > line && (k[-1] == ' ' || k[-1] == '\t'); k--)
		;
	*k = '\0';
	v = eq + 1 + strspn(eq + 1, " \t");
	for (i = 0; i < ARRAY_SIZE(keys) && strcmp(line, keys[i]); i++)
		;
	if (i == ARRAY_SIZE(keys))
		return dft_cat_err(err, len, file, ln,
				   "unknown key '%s' (setup, step, post, teardown or knobs)", line);
	if (*field[i])
		return dft_cat_err(err, len, file, ln, "%s given twice in path '%s'", keys[i],
				   p->name);
	if (!*v)
		return dft_cat_err(err, len, file, ln, "%s is empty", keys[i]);
	bad = field[i] == &p->knobs ? dft_cat_knobs_bad(v, &n) : NULL;
	if (bad)
		return dft_cat_err(err, len, file, ln, "knobs: '%.*s' is not KNOB=VALUE", (int)n,
				   bad);
	*field[i] = v;
	return 0;
}

/*
 * Parse @c->text, the catalogue @file, in place: "[NAME]" opens the stanza
 * of a path, "KEY = VALUE" lines fill it, '#' starts a comment line.  0, or
 * -EINVAL with "FILE:LINE: what is wrong" in @err: an unknown key, a key
 * given twice, a path without a step, a name given twice, a line outside
 * any stanza, no path at all.
 */
int dft_hunt_catalog_parse(struct dft_hunt_catalog *c, const char *file, char *err, size_t len)
{
	struct dft_hunt_path *p;
	unsigned int ln = 0, first;
	char *s = c->text, *line, *e;
	bool dangling;
	int r;

	c->paths = NULL;
	c->nr = 0;
	*err = '\0';
	while ((line = dft_cat_line(&s, &ln, &first, &dangling)) != NULL) {
		line += strspn(line, " \t");
		if (!*line || *line == '#')
			continue;
		if (dangling)
			return dft_cat_err(err, len, file, first,
					   "the last line ends in a backslash");
		p = c->nr ? &c->paths[c->nr - 1] : NULL;
		if (*line == '[') {
			if (p && !p->cmd)
				return dft_cat_err(err, len, file, p->line, "path '%s' has no step",
						   p->name);
			e = strchr(line, ']');
			if (!e || e[1])
				return dft_cat_err(err, len, file, first,
						   "'%s' is not a [NAME] header", line);
			*e = '\0';
			r = dft_cat_add(c, line + 1, first, file, err, len);
		} else if (!p) {
			r = dft_cat_err(err, len, file, first,
					"'%s' is outside a path's stanza ([NAME] first)", line);
		} else {
			r = dft_cat_set(p, line, first, file, err, len);
		}
		if (r)
			return r;
	}
	if (!c->nr)
		return dft_cat_err(err, len, file, ln, "no path");
	p = &c->paths[c->nr - 1];
	if (!p->cmd)
		return dft_cat_err(err, len, file, p->line, "path '%s' has no step", p->name);
	return 0;
}

/* Read and parse the catalogue @file; as dft_hunt_catalog_parse(), or -errno. */
int dft_hunt_catalog_read(struct dft_hunt_catalog *c, const char *file, char *err, size_t len)
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
	return dft_hunt_catalog_parse(c, file, err, len);
}

void dft_hunt_catalog_free(struct dft_hunt_catalog *c)
{
	free(c->paths);
	free(c->text);
	memset(c, 0, sizeof(*c));
}

/*
 * A line a setup wrote to $DMF_ENV: KEY=VALUE, KEY a shell variable name
 * that does not start with DMF (those are the tool's).  0 with @key and
 * @val pointing into @line, 1 for a blank line, -EINVAL.
 */
int dft_hunt_env_line(char *line, char **key, char **val)
{
	size_t n;

	line[strcspn(line, "\n")] = '\0';
	if (!line[strspn(line, " \t")])
		return 1;
	n = strspn(line, dft_var_chars);
	if (!n || line[n] != '=' || (*line >= '0' && *line <= '9') || !strncmp(line, "DMF", 3))
		return -EINVAL;
	line[n] = '\0';
	*key = line;
	*val = line + n + 1;
	return 0;
}

/*
 * Copy @in to @out with each $NAME and ${NAME} replaced by the variable's
 * value ('$' before anything else stays).  0, -ENOENT if a variable is not
 * set (its name in @bad), -E2BIG if @out is too small.
 */
int dft_hunt_expand(const char *in, char *out, size_t len, char *bad, size_t badlen)
{
	char name[128];
	const char *v;
	size_t o = 0, n, vl;
	bool brace;

	for (; *in; in++) {
		brace = in[0] == '$' && in[1] == '{';
		n = in[0] == '$' ? strspn(in + 1 + brace, dft_var_chars) : 0;
		if (!n || (brace && in[2 + n] != '}') || n >= sizeof(name)) {
			if (o + 1 >= len)
				return -E2BIG;
			out[o++] = *in;
			continue;
		}
		snprintf(name, sizeof(name), "%.*s", (int)n, in + 1 + brace);
		v = getenv(name);
		if (!v) {
			snprintf(bad, badlen, "%s", name);
			return -ENOENT;
		}
		vl = strlen(v);
		if (o + vl >= len)
			return -E2BIG;
		memcpy(out + o, v, vl);
		o += vl;
		in += n + 2 * brace;
	}
	if (o >= len)
		return -E2BIG;
	out[o] = '\0';
	return 0;
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
