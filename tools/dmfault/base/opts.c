// SPDX-License-Identifier: GPL-2.0-only
/*
 * dmfault: knob settings (KNOB=VALUE) of --set, alloc set and run, kept in
 * struct dft_opts.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"

int dft_add_set(struct dft_opts *o, const char *key, const char *val,
		const char *as_given)
{
	struct dft_kv *p = realloc(o->set, (o->nr_set + 1) * sizeof(*p));

	if (!p)
		return -ENOMEM;
	o->set = p;
	p[o->nr_set].key = key;
	p[o->nr_set].val = val;
	p[o->nr_set].as_given = as_given;
	o->nr_set++;
	return 0;
}

/* KNOB=VALUE -> a knob setting; the strings stay in argv. */
int dft_parse_setting(struct dft_opts *o, char *arg)
{
	char *eq = strchr(arg, '=');
	char *as_given = strdup(arg);

	if (!as_given)
		return -ENOMEM;
	if (!eq || eq == arg || strchr(arg, '/')) {
		free(as_given);
		return -EINVAL;
	}
	*eq = '\0';
	return dft_add_set(o, arg, eq + 1, as_given);
}
