// SPDX-License-Identifier: GPL-2.0-only
/*
 * dmfault hunt: the catalogue of kernel paths it sweeps (a file, see
 * hunt.catalog, read by base/catalog.c) and the findings, deduplicated by the call chain of the
 * injected fault (alloc/chain.c).  libc only: the host unit tests link this
 * file as it is.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hunt/hunt.h"

/* What a shell variable's name is made of. */
static const char dft_var_chars[] =
	"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_";

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

enum { DFT_HUNT_SETUP, DFT_HUNT_STEP, DFT_HUNT_POST, DFT_HUNT_TEARDOWN, DFT_HUNT_KNOBS };

static int dft_hunt_value_bad(unsigned int key, const char *v, char *why, size_t len)
{
	size_t n;
	const char *bad = key == DFT_HUNT_KNOBS ? dft_cat_knobs_bad(v, &n) : NULL;

	if (bad)
		snprintf(why, len, "'%.*s' is not KNOB=VALUE", (int)n, bad);
	return !!bad;
}

static const char *const dft_hunt_keys[] = { "setup", "step", "post", "teardown", "knobs" };
static const size_t dft_hunt_offs[] = {
	offsetof(struct dft_hunt_path, setup), offsetof(struct dft_hunt_path, cmd),
	offsetof(struct dft_hunt_path, post), offsetof(struct dft_hunt_path, teardown),
	offsetof(struct dft_hunt_path, knobs),
};

/* A stanza of hunt's catalogue: a path, which needs its step. */
static const struct dft_cat_kind dft_hunt_kind = {
	.what = "path",
	.keys = dft_hunt_keys,
	.val_off = dft_hunt_offs,
	.nr_keys = ARRAY_SIZE(dft_hunt_keys),
	.keys_said = "setup, step, post, teardown or knobs",
	.need = 1U << DFT_HUNT_STEP,
	.size = sizeof(struct dft_hunt_path),
	.name_off = offsetof(struct dft_hunt_path, name),
	.line_off = offsetof(struct dft_hunt_path, line),
	.value_bad = dft_hunt_value_bad,
};

static int dft_hunt_catalog_of(struct dft_hunt_catalog *c, const struct dft_catalog *g, int r)
{
	c->text = g->text;
	c->paths = g->st;
	c->nr = g->nr;
	return r;
}

/* Parse @c->text, the catalogue @file, in place: dft_catalog_parse() for paths. */
int dft_hunt_catalog_parse(struct dft_hunt_catalog *c, const char *file, char *err, size_t len)
{
	struct dft_catalog g = { .text = c->text };

	return dft_hunt_catalog_of(c, &g, dft_catalog_parse(&g, &dft_hunt_kind, file, err, len));
}

/* Read and parse the catalogue @file; as dft_hunt_catalog_parse(), or -errno. */
int dft_hunt_catalog_read(struct dft_hunt_catalog *c, const char *file, char *err, size_t len)
{
	struct dft_catalog g;

	return dft_hunt_catalog_of(c, &g, dft_catalog_read(&g, &dft_hunt_kind, file, err, len));
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
