// SPDX-License-Identifier: GPL-2.0-only
/*
 * dmfault: readable options to table text.  An option such as
 * "--error read:1%,enospc" is translated word by word into the target's
 * rule text ("error:op=read,p=1%,status=enospc"), byte ranges with units
 * into sectors; the result is then checked by the target's own parser
 * (rule.c).  Nothing here decides whether a value is valid for the target.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"

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

static int dft_spec_fail(struct dft_rule_err *err, const char *word, const char *reason)
{
	snprintf(err->word, sizeof(err->word), "%s", word);
	err->reason = reason;
	return -EINVAL;
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

/* up=, down=, after=: whole seconds, bare (30) or as a target duration (30s). */
static int dft_spec_seconds(const char *key, const char *val, struct dft_buf *out)
{
	uint64_t ns;

	if (val[strspn(val, "0123456789")]) {
		if (dft_parse_duration(val, &ns) || ns % 1000000000ULL)
			return -EINVAL;
		dft_buf_add(out, ",%s=%llu", key, (unsigned long long)(ns / 1000000000ULL));
		return 0;
	}
	dft_buf_add(out, ",%s=%s", key, val);
	return 0;
}

/* Only a shape: whether it is a valid probability is the target's to say. */
static bool dft_looks_prob(const char *s)
{
	return isdigit((unsigned char)s[0]) &&
	       (strchr(s, '%') || strchr(s, '/') || strpbrk(s, "eE"));
}

/* An item without '=': a probability, a status, an op list or a shorthand. */
static int dft_spec_word(const char *item, bool *have_ops, struct dft_buf *out,
			 struct dft_rule_err *err)
{
	if (dft_looks_prob(item)) {
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
		return dft_spec_fail(err, item,
				     "a bare number is ambiguous: write 5% or p=5 for a probability");
	} else {
		return dft_spec_fail(err, item,
				     "not an operation, probability, status or key=value");
	}
	return 0;
}

/* One item of a readable spec, appended to @out as ",key=value". */
static int dft_spec_item(char *item, bool *have_ops, struct dft_buf *out,
			 struct dft_rule_err *err)
{
	char *val = strchr(item, '=');
	const char *key = item;

	if (!val)
		return dft_spec_word(item, have_ops, out, err);
	*val++ = '\0';
	if (!*key || !*val) {
		val[-1] = '=';
		return dft_spec_fail(err, item, "expected key=value");
	}
	if (!strcmp(key, "up") || !strcmp(key, "down") || !strcmp(key, "after")) {
		if (dft_spec_seconds(key, val, out)) {
			val[-1] = '=';
			return dft_spec_fail(err, item, "expected whole seconds (30, 30s, 1500ms)");
		}
	} else if (!strcmp(key, "range")) {
		if (dft_spec_range(val, out)) {
			val[-1] = '=';
			return dft_spec_fail(err, item,
					     "expected START-END or START+LENGTH, 512-byte aligned");
		}
	} else if (!strcmp(key, "every")) {
		dft_buf_add(out, ",interval=%s", val);
	} else if (!strcmp(key, "op")) {
		dft_buf_add(out, ",op=%s", strcmp(val, "all") ? val : "any");
		*have_ops = true;
	} else {
		dft_buf_add(out, ",%s=%s", key, val);
	}
	return 0;
}

/* "OPS:" in front of the items: "read,write" or "read+write" or "all". */
static int dft_spec_ops(char *ops, struct dft_buf *out, struct dft_rule_err *err)
{
	char *c;

	for (c = ops; *c; c++)
		if (*c == ',')
			*c = '+';
	if (strcmp(ops, "all") && !dft_is_op_list(ops))
		return dft_spec_fail(err, ops, "not an operation list");
	dft_buf_add(out, ",op=%s", strcmp(ops, "all") ? ops : "any");
	return 0;
}

/**
 * dft_rule_from_spec - build a rule from a readable option value
 * @action: "error", "drop", ...
 * @spec: "[OPS:]ITEM[,ITEM...]" or "OPS" or NULL; OPS is "read", "read+write",
 *        "all"; an ITEM is a probability ("1%", "1e-6", "1/1000"), a status
 *        ("enospc"), "once", "disabled", or key=value where up, down and
 *        after take whole seconds (30, 30s), range= a byte range with units
 *        and every= is the interval; other keys pass through
 * @out: the rule text is appended, also when the target's parser refuses it
 *       (to show it in the message)
 * @err: on failure, the offending word and why
 *
 * The rule built is checked by the target's parser (dft_rule_check()).
 *
 * Return: 0, -EINVAL or -ENOMEM.
 */
int dft_rule_from_spec(const char *action, const char *spec, struct dft_buf *out,
		       struct dft_rule_err *err)
{
	struct dft_buf rule = { 0 };
	bool have_ops = false;
	char *tmp, *p, *colon, *item, *c;
	int r = 0;

	tmp = strdup(spec ? spec : "");
	if (!tmp)
		return -ENOMEM;
	dft_buf_add(&rule, "%s", action);
	p = tmp;
	colon = strchr(tmp, ':');
	if (colon) {
		*colon = '\0';
		r = dft_spec_ops(tmp, &rule, err);
		have_ops = true;
		p = colon + 1;
	}
	while (!r && *tmp && (item = strsep(&p, ",")) != NULL) {
		if (!*item)
			r = dft_spec_fail(err, spec, "empty item");
		else
			r = dft_spec_item(item, &have_ops, &rule, err);
	}
	if (!r && rule.oom)
		r = -ENOMEM;
	if (!r) {
		/* the first key follows a ':', not a ',' */
		c = strchr(rule.text, ',');
		if (c)
			*c = ':';
		dft_buf_add(out, "%s", rule.text);
		r = out->oom ? -ENOMEM : dft_rule_check(rule.text, err);
	}
	dft_buf_free(&rule);
	free(tmp);
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
