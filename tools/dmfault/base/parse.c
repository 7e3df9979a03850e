// SPDX-License-Identifier: GPL-2.0-only
/*
 * dmfault: parsers for what the fault target prints (INFO and TABLE status,
 * the log and rule list message replies) and for kernel log records.
 * Input is untrusted text: every field is checked, malformed input gives an
 * error string and never a crash.  Fields a newer target appends to a log
 * line are skipped; the INFO status ends with the held count, the cache word
 * and the bad-block map's word, and words after those are left alone.  libc
 * only: the host unit tests link this file as it is.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"

#define DFT_MAX_PARSED_RULES	65536
#define DFT_MAX_PARSED_OPS	64

void dft_stats_free(struct dft_stats *st)
{
	free(st->ops);
	free(st->rules);
	free(st->cache);
	free(st->bad);
	memset(st, 0, sizeof(*st));
}

/* Split off the next token separated by any of @sep; NULL at the end. */
static char *dft_token(char **s, const char *sep)
{
	char *t;

	*s += strspn(*s, sep);
	if (!**s)
		return NULL;
	t = *s;
	*s += strcspn(*s, sep);
	if (**s)
		*(*s)++ = '\0';
	return t;
}

static int dft_copy_name(char *dst, const char *src)
{
	size_t n = strlen(src);

	if (!n || n >= DFT_NAME_LEN)
		return -EINVAL;
	memcpy(dst, src, n + 1);
	return 0;
}

static int dft_parse_uint(const char *s, unsigned int *v)
{
	uint64_t x;

	if (dft_parse_u64(s, &x) || x > UINT32_MAX)
		return -EINVAL;
	*v = x;
	return 0;
}

/* "name:a:b:c:d": an op entry of the INFO status. */
static int dft_parse_op_entry(char *tok, struct dft_op_stat *op)
{
	char *f[5];
	int i;

	for (i = 0; i < 5; i++) {
		f[i] = strsep(&tok, ":");
		if (!f[i])
			return -EINVAL;
	}
	if (tok || dft_copy_name(op->name, f[0]) || dft_parse_u64(f[1], &op->bios) ||
	    dft_parse_u64(f[2], &op->bytes) || dft_parse_u64(f[3], &op->failed) ||
	    dft_parse_u64(f[4], &op->failed_bytes))
		return -EINVAL;
	return 0;
}

/* "id:seen:matched:injected:action:enabled:seed": a rule entry of the INFO status. */
static int dft_parse_rule_entry(char *tok, struct dft_rule_stat *rs)
{
	uint64_t enabled;
	char *f[7];
	int i, n;

	for (n = 0; n < 7 && tok; n++)
		f[n] = strsep(&tok, ":");
	memset(rs, 0, sizeof(*rs));
	if (tok || n != 7)
		return -EINVAL;
	for (i = 0; i < n; i++)
		if (!*f[i])
			return -EINVAL;
	if (dft_parse_uint(f[0], &rs->id) || dft_parse_u64(f[1], &rs->seen) ||
	    dft_parse_u64(f[2], &rs->matched) || dft_parse_u64(f[3], &rs->injected) ||
	    dft_copy_name(rs->action, f[4]) || dft_parse_u64(f[5], &enabled) || enabled > 1 ||
	    dft_parse_u64(f[6], &rs->seed))
		return -EINVAL;
	rs->enabled = enabled;
	return 0;
}

/* @n counters "a:b:..." from @s (NULL: none); fields after them are ignored. */
static int dft_parse_counters(char *s, uint64_t *v, unsigned int n)
{
	unsigned int i;
	char *tok;

	for (i = 0; i < n; i++) {
		tok = strsep(&s, ":");
		if (!tok || dft_parse_u64(tok, &v[i]))
			return -EINVAL;
	}
	return 0;
}

/**
 * dft_parse_cache - parse the cache word of the INFO status
 * @word: "state:blocks:...:lost_sectors" (fields a newer target adds after
 *        these are ignored)
 * @c: filled in
 *
 * Return: 0, 1 if @word is "-" (no cache), -EINVAL if malformed.
 */
int dft_parse_cache(const char *word, struct dft_cache_stat *c)
{
	char buf[512], *s = buf, *tok;

	memset(c, 0, sizeof(*c));
	if (!strcmp(word, "-"))
		return 1;
	if (strlen(word) >= sizeof(buf))
		return -EINVAL;
	strcpy(buf, word);
	tok = strsep(&s, ":");
	if (!*tok || strlen(tok) >= sizeof(c->state))
		return -EINVAL;
	strcpy(c->state, tok);
	return dft_parse_counters(s, c->v, DFT_NR_CACHE);
}

/**
 * dft_parse_bad - parse the bad-block map's word of the INFO status
 * @word: "<on|off>:<partial 0|1>:ranges:sectors:lookups:hits:heals" (fields
 *        a newer target adds after these are ignored)
 * @b: filled in
 *
 * Return: 0, 1 if @word is "-" (no map), -EINVAL if malformed.
 */
int dft_parse_bad(const char *word, struct dft_bad_stat *b)
{
	char buf[512], *s = buf, *on, *partial;

	memset(b, 0, sizeof(*b));
	if (!strcmp(word, "-"))
		return 1;
	if (strlen(word) >= sizeof(buf))
		return -EINVAL;
	strcpy(buf, word);
	on = strsep(&s, ":");
	partial = strsep(&s, ":");
	if ((strcmp(on, "on") && strcmp(on, "off")) || !partial ||
	    (strcmp(partial, "0") && strcmp(partial, "1")))
		return -EINVAL;
	b->enabled = !strcmp(on, "on");
	b->partial = *partial == '1';
	return dft_parse_counters(s, b->v, DFT_NR_BAD);
}

/* The next word of @s, copied to *@word; @what names it when it is missing. */
static int dft_parse_info_word(char **s, char **word, const char *what, const char **err)
{
	char *tok = dft_token(s, " ");

	if (!tok) {
		*err = what;
		return -EINVAL;
	}
	*word = strdup(tok);
	if (!*word) {
		*err = "out of memory";
		return -ENOMEM;
	}
	return 0;
}

/*
 * "<held> <cache> <bad>": the end of the INFO status.  The cache word ("-"
 * when off, or colon-separated fields) and the bad-block map's word ("-"
 * when there is no map) are kept as they are; words after them belong to
 * a newer target and are left alone, so that this tool reads its status.
 */
static int dft_parse_info_tail(char *s, struct dft_stats *st, const char **err)
{
	char *tok = dft_token(&s, " ");

	if (!tok || dft_parse_u64(tok, &st->held)) {
		*err = tok ? "bad held count" : "held count missing";
		return -EINVAL;
	}
	return dft_parse_info_word(&s, &st->cache, "cache word missing", err) ?:
	       dft_parse_info_word(&s, &st->bad, "bad-block map word missing", err);
}

/**
 * dft_parse_info - parse the INFO status of a fault target
 * @status: "<nr_ops> <op>:<bios>:<bytes>:<failed>:<failed_bytes>... <nr_rules>
 *          <id>:<seen>:<matched>:<injected>:<action>:<enabled>:<seed>... <held>
 *          <cache> <bad>"
 * @st: filled in; free with dft_stats_free() (also after an error)
 * @err: on failure, what was wrong
 *
 * Return: 0, -EINVAL or -ENOMEM.
 */
int dft_parse_info(const char *status, struct dft_stats *st, const char **err)
{
	char *copy, *s, *tok;
	unsigned int n, i;
	int r = -EINVAL;

	memset(st, 0, sizeof(*st));
	copy = strdup(status ? status : "");
	if (!copy) {
		*err = "out of memory";
		return -ENOMEM;
	}
	s = copy;
	tok = dft_token(&s, " ");
	if (!tok || dft_parse_uint(tok, &n) || n > DFT_MAX_PARSED_OPS) {
		*err = "bad operation count";
		goto out;
	}
	st->ops = calloc(n ? n : 1, sizeof(*st->ops));
	if (!st->ops)
		goto oom;
	for (i = 0; i < n; i++) {
		tok = dft_token(&s, " ");
		if (!tok || dft_parse_op_entry(tok, &st->ops[i])) {
			*err = tok ? "bad operation entry" : "operation entries missing";
			goto out;
		}
		st->nr_ops++;
	}
	tok = dft_token(&s, " ");
	if (!tok || dft_parse_uint(tok, &n) || n > DFT_MAX_PARSED_RULES) {
		*err = "bad rule count";
		goto out;
	}
	st->rules = calloc(n ? n : 1, sizeof(*st->rules));
	if (!st->rules)
		goto oom;
	for (i = 0; i < n; i++) {
		tok = dft_token(&s, " ");
		if (!tok || dft_parse_rule_entry(tok, &st->rules[i])) {
			*err = tok ? "bad rule entry" : "rule entries missing";
			goto out;
		}
		st->nr_rules++;
	}
	r = dft_parse_info_tail(s, st, err);
out:
	free(copy);
	return r;
oom:
	*err = "out of memory";
	r = -ENOMEM;
	goto out;
}

static int dft_stats_grow(void **arr, unsigned int nr, size_t size)
{
	void *p;

	/* capacity: 8, then doubled whenever a power of two is reached */
	if (nr && (nr < 8 || (nr & (nr - 1))))
		return 0;
	p = realloc(*arr, (nr ? nr * 2 : 8) * size);
	if (!p)
		return -ENOMEM;
	*arr = p;
	return 0;
}

void dft_table_status_free(struct dft_table_status *ts)
{
	unsigned int i;

	for (i = 0; ts->rules && i < ts->nr_rules; i++)
		free(ts->rules[i]);
	free(ts->rules);
	free(ts->features);
	memset(ts, 0, sizeof(*ts));
}

/* "<maj>:<min>": the underlying device of the TABLE status. */
static int dft_parse_devnum(char *tok, struct dft_table_status *ts)
{
	char *colon = tok ? strchr(tok, ':') : NULL;

	if (!colon)
		return -EINVAL;
	*colon = '\0';
	if (dft_parse_uint(tok, &ts->major) || dft_parse_uint(colon + 1, &ts->minor))
		return -EINVAL;
	return 0;
}

/* "[<nr> <rule>...]": the rules of the TABLE status, each copied. */
/* "[<n> <feature>...]" after the rules, kept as one string */
static int dft_parse_table_features(char *s, struct dft_table_status *ts, const char **err)
{
	char *tok = dft_token(&s, " ");
	unsigned int n, i;
	size_t len;

	if (!tok)
		return 0;
	if (dft_parse_uint(tok, &n) || !n || n > 16) {
		*err = "more rules than counted";
		return -EINVAL;
	}
	ts->features = calloc(1, strlen(s) + 1);
	if (!ts->features) {
		*err = "out of memory";
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		tok = dft_token(&s, " ");
		if (!tok) {
			*err = "feature words missing";
			return -EINVAL;
		}
		len = strlen(ts->features);
		sprintf(ts->features + len, "%s%s", len ? " " : "", tok);
	}
	if (dft_token(&s, " ")) {
		*err = "more features than counted";
		return -EINVAL;
	}
	return 0;
}

static int dft_parse_table_rules(char *s, struct dft_table_status *ts, const char **err)
{
	char *tok = dft_token(&s, " ");
	unsigned int n, i;

	if (!tok)
		return 0;
	if (dft_parse_uint(tok, &n) || n > DFT_MAX_PARSED_RULES) {
		*err = "bad rule count";
		return -EINVAL;
	}
	ts->rules = calloc(n ? n : 1, sizeof(*ts->rules));
	if (!ts->rules)
		goto oom;
	for (i = 0; i < n; i++) {
		tok = dft_token(&s, " ");
		if (!tok) {
			*err = "rules missing";
			return -EINVAL;
		}
		ts->rules[i] = strdup(tok);
		if (!ts->rules[i])
			goto oom;
		ts->nr_rules++;
	}
	return dft_parse_table_features(s, ts, err);
oom:
	*err = "out of memory";
	return -ENOMEM;
}

/* "<maj:min> <offset>": how the TABLE status of a target with a disk starts. */
static int dft_parse_table_head(char **s, struct dft_table_status *ts, const char **err)
{
	char *tok;

	if (dft_parse_devnum(dft_token(s, " "), ts)) {
		*err = "bad device number";
		return -EINVAL;
	}
	tok = dft_token(s, " ");
	if (!tok || dft_parse_u64(tok, &ts->offset)) {
		*err = "bad offset";
		return -EINVAL;
	}
	return 0;
}

/**
 * dft_parse_table_status - parse the TABLE status of a fault target
 * @params: "<maj:min> <offset> [<nr> <rule>... [<n> <feature>...]]"
 * @ts: filled in; free with dft_table_status_free() (also after an error)
 * @err: on failure, what was wrong
 *
 * Return: 0, -EINVAL or -ENOMEM.
 */
int dft_parse_table_status(const char *params, struct dft_table_status *ts,
			   const char **err)
{
	char *copy, *s;
	int r;

	memset(ts, 0, sizeof(*ts));
	copy = strdup(params ? params : "");
	if (!copy) {
		*err = "out of memory";
		return -ENOMEM;
	}
	s = copy;
	r = dft_parse_table_head(&s, ts, err);
	if (!r)
		r = dft_parse_table_rules(s, ts, err);
	free(copy);
	return r;
}

/**
 * dft_parse_compat_table - the disk of a compatibility target's TABLE status
 * @type: fault-flakey, fault-delay, fault-error, flakey or delay
 * @params: flakey's and delay's lines start "<maj:min> <offset>"; the
 *          error target has no disk (@ts left zero)
 * @ts: filled in (no rules: the counters tell how many the target made)
 * @err: on failure, what was wrong
 *
 * Return: 0 or -EINVAL.
 */
int dft_parse_compat_table(const char *type, const char *params, struct dft_table_status *ts,
			   const char **err)
{
	char buf[256], *s = buf;

	memset(ts, 0, sizeof(*ts));
	if (!strcmp(type, "fault-error"))
		return 0;
	snprintf(buf, sizeof(buf), "%s", params ? params : "");
	return dft_parse_table_head(&s, ts, err);
}

/* "12.345678" -> microseconds, keeping the text. */
static int dft_parse_time(const char *s, struct dft_log_entry *e)
{
	const char *dot = strchr(s, '.');
	char secs[24];
	uint64_t sec, us;

	if (!dot || strlen(dot + 1) != 6 || (size_t)(dot - s) >= sizeof(secs) ||
	    strlen(s) >= sizeof(e->time))
		return -EINVAL;
	memcpy(secs, s, dot - s);
	secs[dot - s] = '\0';
	if (dft_parse_u64(secs, &sec) || dft_parse_u64(dot + 1, &us) ||
	    sec > UINT64_MAX / 1000000 - 1)
		return -EINVAL;
	e->usec = sec * 1000000 + us;
	strcpy(e->time, s);
	return 0;
}

/**
 * dft_parse_log_reply - parse the reply to the "log" message
 * @reply: lines "SECONDS.USEC OP SECTOR BYTES RULE_ID ACTION", oldest first
 * @entries: an allocated array (free() it), NULL when empty
 * @nr: number of entries
 * @err: on failure, what was wrong
 *
 * Return: 0, -EINVAL or -ENOMEM.
 */
int dft_parse_log_reply(const char *reply, struct dft_log_entry **entries,
			unsigned int *nr, const char **err)
{
	char *copy, *s, *line, *f[6];
	struct dft_log_entry *e;
	unsigned int i;
	int r = -EINVAL;

	*entries = NULL;
	*nr = 0;
	copy = strdup(reply ? reply : "");
	if (!copy) {
		*err = "out of memory";
		return -ENOMEM;
	}
	s = copy;
	while ((line = dft_token(&s, "\n")) != NULL) {
		for (i = 0; i < 6; i++)
			f[i] = dft_token(&line, " ");
		if (!f[5]) {
			*err = "short log line";
			goto out;
		}
		if (*nr >= DFT_MAX_PARSED_RULES ||
		    dft_stats_grow((void **)entries, *nr, sizeof(**entries))) {
			*err = "out of memory";
			r = -ENOMEM;
			goto out;
		}
		e = &(*entries)[*nr];
		memset(e, 0, sizeof(*e));
		if (dft_parse_time(f[0], e) || dft_copy_name(e->op, f[1]) ||
		    dft_parse_u64(f[2], &e->sector) || dft_parse_u64(f[3], &e->bytes) ||
		    dft_parse_uint(f[4], &e->rule) || dft_copy_name(e->action, f[5])) {
			*err = "bad log line";
			goto out;
		}
		(*nr)++;
	}
	r = 0;
out:
	if (r) {
		free(*entries);
		*entries = NULL;
		*nr = 0;
	}
	free(copy);
	return r;
}

/**
 * dft_parse_rule - the id, action and enabled flag of a canonical rule
 * @rule: "<action>:id=N[,...]" as the target prints it
 * @ri: filled in
 *
 * Return: 0 or -EINVAL (no action or no id).
 */
int dft_parse_rule(const char *rule, struct dft_rule_info *ri)
{
	size_t alen = strcspn(rule, ":");
	const char *p;
	char num[24];
	size_t n;

	memset(ri, 0, sizeof(*ri));
	ri->enabled = true;
	if (!alen || alen >= DFT_NAME_LEN || !rule[alen])
		return -EINVAL;
	memcpy(ri->action, rule, alen);
	ri->action[alen] = '\0';
	for (p = rule + alen + 1; *p; p += n + (p[n] == ',')) {
		n = strcspn(p, ",");
		if (n > 3 && !strncmp(p, "id=", 3)) {
			if (n - 3 >= sizeof(num))
				return -EINVAL;
			memcpy(num, p + 3, n - 3);
			num[n - 3] = '\0';
			if (dft_parse_uint(num, &ri->id) || !ri->id)
				return -EINVAL;
		} else if (n == 9 && !strncmp(p, "enabled=0", 9)) {
			ri->enabled = false;
		}
	}
	return ri->id ? 0 : -EINVAL;
}

/**
 * dft_parse_kmsg - split a /dev/kmsg record
 * @record: "<prio>,<seq>,<usec>,<flags>[,...];<text>\n[ continuation lines]"
 * @level: the log level (prio & 7)
 * @usec: the timestamp
 * @text: points into @record at the text (continuation lines cut off)
 *
 * The record is modified: the text is NUL-terminated at its first newline.
 *
 * Return: 0 or -EINVAL.
 */
int dft_parse_kmsg(const char *record, int *level, uint64_t *usec, const char **text)
{
	char head[128], *semi, *f[3], *s;
	size_t n;
	uint64_t prio, seq;
	int i;

	semi = strchr(record, ';');
	if (!semi || (size_t)(semi - record) >= sizeof(head))
		return -EINVAL;
	n = semi - record;
	memcpy(head, record, n);
	head[n] = '\0';
	s = head;
	for (i = 0; i < 3; i++) {
		f[i] = strsep(&s, ",");
		if (!f[i])
			return -EINVAL;
	}
	if (dft_parse_u64(f[0], &prio) || dft_parse_u64(f[1], &seq) ||
	    dft_parse_u64(f[2], usec))
		return -EINVAL;
	*level = prio & 7;
	*text = semi + 1;
	semi[strcspn(semi, "\n")] = '\0';
	return 0;
}

/**
 * dft_find_counter - a counter of a dmf_alloc counters file
 * @text: lines "<name> <value>", as the file gives them
 * @key: the counter's name
 * @val: its value
 *
 * Return: 0 or -ENOENT.
 */
int dft_find_counter(const char *text, const char *key, uint64_t *val)
{
	size_t klen = strlen(key), n;
	const char *p = text;
	char num[24];

	for (; *p; p += strcspn(p, "\n") + (p[strcspn(p, "\n")] == '\n')) {
		if (strncmp(p, key, klen) || p[klen] != ' ')
			continue;
		n = strcspn(p + klen + 1, "\n");
		if (!n || n >= sizeof(num))
			return -ENOENT;
		memcpy(num, p + klen + 1, n);
		num[n] = '\0';
		return dft_parse_u64(num, val) ? -ENOENT : 0;
	}
	return -ENOENT;
}

/*
 * Is a kernel log line a sign of trouble (oops, WARN, BUG, KASAN...)?
 * Returns the pattern that matched, or NULL.
 */
const char *dft_kernel_problem(const char *line)
{
	static const char *const pats[] = {
		"WARNING:", "BUG:", "kernel BUG", "Oops", "general protection fault",
		"Call Trace", "Kernel panic", "KASAN", "UBSAN", "KFENCE",
		"Unable to handle kernel", "blocked for more than", "soft lockup",
		"hard LOCKUP", "RCU stall", "refcount_t", "list_add corruption",
		"list_del corruption", "Bad page", "stack-protector",
		"suspected memory leak",
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(pats); i++)
		if (strstr(line, pats[i]))
			return pats[i];
	return NULL;
}
