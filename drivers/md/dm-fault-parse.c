// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-fault rule text: parse "<action>[:<key>=<value>,...]" into a struct
 * fault_rule_cfg and print it back so that the printed text parses to the same
 * configuration, and the bad-block map's words (mode, status, ranges).  The
 * cache's words are dm-fault-parse-cache.c's, which calls this file.  No
 * block-layer types here: the host tests and dmfault build this file.
 */
#include "dm-fault-rule.h"

/* a rule's text with its NUL: 255 characters at most */
#define FAULT_RULE_SIZE		256

static const char * const fault_op_names[FAULT_NR_OPS + 1] = {
	[FAULT_OP_READ] = "read",
	[FAULT_OP_WRITE] = "write",
	[FAULT_OP_FLUSH] = "flush",
	[FAULT_OP_DISCARD] = "discard",
	[FAULT_OP_WRITE_ZEROES] = "write-zeroes",
	[FAULT_OP_OTHER] = "other",
	[FAULT_NR_OPS] = "fua",
};

static const char * const fault_action_names[FAULT_NR_ACTIONS] = {
	[FAULT_ACT_ERROR] = "error",
	[FAULT_ACT_DROP] = "drop",
	[FAULT_ACT_CORRUPT] = "corrupt",
	[FAULT_ACT_DELAY] = "delay",
	[FAULT_ACT_STALL] = "stall",
	[FAULT_ACT_TORN] = "torn",
};

static const char * const fault_dist_names[] = {
	[FAULT_DIST_UNIFORM] = "uniform",
	[FAULT_DIST_EXP] = "exp",
};

/* Canonical names first; errno spellings are accepted as aliases. */
static const struct {
	const char *name;
	const char *alias;
} fault_status_names[FAULT_NR_STATUS] = {
	[FAULT_STS_OK] = { "ok", "success" },
	[FAULT_STS_IOERR] = { "eio", "ioerr" },
	[FAULT_STS_NOSPC] = { "enospc", "nospc" },
	[FAULT_STS_TIMEOUT] = { "etimedout", "timeout" },
	[FAULT_STS_MEDIUM] = { "medium", "enodata" },
	[FAULT_STS_TRANSPORT] = { "enolink", "transport" },
	[FAULT_STS_NOTSUPP] = { "eopnotsupp", "notsupp" },
	[FAULT_STS_AGAIN] = { "eagain", "again" },
	[FAULT_STS_PROTECTION] = { "eilseq", "protection" },
	[FAULT_STS_TARGET] = { "eremoteio", "target" },
	[FAULT_STS_RESOURCE] = { "enomem", "resource" },
};

const char *fault_op_name(unsigned int op)
{
	return op <= FAULT_NR_OPS ? fault_op_names[op] : "?";
}

const char *fault_action_name(enum fault_action action)
{
	return action < FAULT_NR_ACTIONS ? fault_action_names[action] : "?";
}

static const char *fault_status_name(enum fault_sts status)
{
	return status < FAULT_NR_STATUS ? fault_status_names[status].name : "?";
}

int fault_rule_cfg_init(struct fault_rule_cfg *cfg)
{
	int r;

	memset(cfg, 0, sizeof(*cfg));
	r = dmf_attr_init(&cfg->attr, "rule");
	if (r)
		return r;
	/* A rule fires on every bio it matches unless told otherwise. */
	dmf_prob_set(&cfg->attr.prob, 1, 1);
	cfg->enabled = true;
	cfg->opmask = FAULT_OPM_ANY;
	cfg->last = U64_MAX;
	cfg->max_bytes = U32_MAX;
	cfg->status = FAULT_STS_IOERR;
	cfg->byte = -1;
	cfg->offset = -1;
	cfg->keep = -1;
	return 0;
}

void fault_rule_cfg_destroy(struct fault_rule_cfg *cfg)
{
	dmf_attr_destroy(&cfg->attr);
}

static int fault_parse_u64(const char *s, u64 *v)
{
	return kstrtou64(s, 0, v) ? -EINVAL : 0;
}

static int fault_parse_u32(const char *s, u32 *v)
{
	u64 x;

	if (fault_parse_u64(s, &x) || x > U32_MAX)
		return -EINVAL;
	*v = x;
	return 0;
}

/**
 * fault_parse_size - parse bytes with an optional binary unit: 4096, 4k, 1m, 1g
 * @s: the text; the unit is k, m or g in either case, powers of 1024
 * @max: the largest value taken
 * @v: the result in bytes
 *
 * dmfault reads its own size options with this function, so the tool and
 * the target take one notation.
 *
 * Return: 0 or -EINVAL.
 */
int fault_parse_size(const char *s, u64 max, u64 *v)
{
	char num[24];
	size_t n = strlen(s);
	unsigned int shift = 0;
	u64 x;

	if (!n || n >= sizeof(num))
		return -EINVAL;
	memcpy(num, s, n + 1);
	switch (num[n - 1]) {
	case 'k': case 'K':
		shift = 10;
		break;
	case 'm': case 'M':
		shift = 20;
		break;
	case 'g': case 'G':
		shift = 30;
		break;
	}
	if (shift)
		num[n - 1] = '\0';
	if (kstrtou64(num, 10, &x) || x > (max >> shift))
		return -EINVAL;
	*v = x << shift;
	return 0;
}

static int fault_parse_bytes(const char *s, u32 *v)
{
	u64 x;

	if (fault_parse_size(s, U32_MAX, &x))
		return -EINVAL;
	*v = x;
	return 0;
}

/**
 * fault_parse_duration - parse a duration: 10 (ms, as dm-delay), 10ms, 250us,
 * 1500ns, 2s
 * @s: the text
 * @ns: the result in nanoseconds
 *
 * Return: 0 or -EINVAL.
 */
int fault_parse_duration(const char *s, u64 *ns)
{
	static const struct {
		const char *unit;
		u64 mult;
	} units[] = {
		{ "ns", 1 }, { "us", 1000 }, { "ms", 1000000 }, { "s", 1000000000 },
		{ "", 1000000 },
	};
	char num[24];
	size_t n = strspn(s, "0123456789"), i;
	u64 x;

	if (!n || n >= sizeof(num))
		return -EINVAL;
	memcpy(num, s, n);
	num[n] = '\0';
	if (kstrtou64(num, 10, &x))
		return -EINVAL;
	for (i = 0; i < ARRAY_SIZE(units); i++) {
		if (strcmp(s + n, units[i].unit))
			continue;
		/* at most a day: keeps every product in range */
		if (x > 86400ULL * 1000000000ULL / units[i].mult)
			return -EINVAL;
		*ns = x * units[i].mult;
		return 0;
	}
	return -EINVAL;
}

/* Print in the largest unit that keeps the value exact. */
int fault_format_duration(u64 ns, char *buf, size_t len)
{
	if (ns && !(ns % 1000000000))
		return scnprintf(buf, len, "%llus", ns / 1000000000);
	if (!(ns % 1000000))
		return scnprintf(buf, len, "%llums", ns / 1000000);
	if (!(ns % 1000))
		return scnprintf(buf, len, "%lluus", ns / 1000);
	return scnprintf(buf, len, "%lluns", ns);
}

/**
 * fault_exp_sample - an exponentially distributed value from a uniform draw
 * @draw: 64 uniformly random bits
 * @mean: the distribution's mean
 *
 * -ln(u) = -log2(u) * ln 2, with log2 in 16.16 fixed point: the integer part
 * from the leading zeros, the fraction from the mantissa by a quadratic fit
 * of log2(1 + x) (error below 0.01).  Capped at 32 times the mean.
 */
u64 fault_exp_sample(u64 draw, u64 mean)
{
	unsigned int e;
	u64 x, frac, l2;

	if (!draw)
		return mean * 32;
	e = fls64(draw) - 1;			/* draw = 2^e * (1 + x) */
	x = ((draw << (63 - e)) << 1) >> 48;	/* x in 16-bit fixed point */
	/* log2(1 + x) ~= x + 0.346 x (1 - x) */
	frac = x + ((x * (65536 - x)) >> 16) * 22675 / 65536;
	l2 = ((u64)(64 - e) << 16) - frac;	/* -log2(draw / 2^64) */
	l2 = min_t(u64, l2, 46ULL << 16);
	/* -ln(u) = -log2(u) * ln 2, ln 2 = 45426 / 65536 */
	return mul_u64_u64_div_u64(mean, (l2 * 45426) >> 16, 65536);
}

/* "A-B" or "A" (a single value); for sizes "A-" leaves B as it is. */
static int fault_parse_range(char *s, bool bytes, u64 *a, u64 *b)
{
	char *dash = strchr(s, '-');
	u32 a32 = 0, b32 = 0;
	int r;

	if (dash)
		*dash++ = '\0';
	if (bytes) {
		r = fault_parse_bytes(s, &a32);
		if (!r && dash && *dash)
			r = fault_parse_bytes(dash, &b32);
		else
			b32 = dash ? U32_MAX : a32;
		*a = a32;
		*b = b32;
	} else {
		r = fault_parse_u64(s, a);
		if (!r && dash)
			r = fault_parse_u64(dash, b);
		else
			*b = *a;
	}
	if (r || *a > *b)
		return -EINVAL;
	return 0;
}

/**
 * fault_parse_ops - an op= value: names from the op table joined by '+', or "any"
 * @s: the text, cut up in place
 * @mask: bits of enum fault_op and FAULT_OPM_FUA
 *
 * Return: 0 or -EINVAL.
 */
int fault_parse_ops(char *s, unsigned int *mask)
{
	unsigned int m = 0, i;
	char *tok;

	while ((tok = strsep(&s, "+")) != NULL) {
		if (!strcmp(tok, "any")) {
			m |= FAULT_OPM_ANY;
			continue;
		}
		for (i = 0; i <= FAULT_NR_OPS; i++)
			if (!strcmp(tok, fault_op_names[i]))
				break;
		if (i > FAULT_NR_OPS)
			return -EINVAL;
		m |= 1U << i;
	}
	*mask = m;
	return 0;
}

/**
 * fault_parse_status - a status= value: a canonical name or its errno alias
 * @s: the text
 * @st: the status
 *
 * Return: 0 or -EINVAL.
 */
int fault_parse_status(const char *s, enum fault_sts *st)
{
	unsigned int i;

	for (i = 0; i < FAULT_NR_STATUS; i++) {
		if (!strcmp(s, fault_status_names[i].name) ||
		    !strcmp(s, fault_status_names[i].alias)) {
			*st = i;
			return 0;
		}
	}
	return -EINVAL;
}

static unsigned int fault_default_ops(enum fault_action action)
{
	switch (action) {
	case FAULT_ACT_DROP:
	case FAULT_ACT_TORN:
		return FAULT_OPM_WRITES;
	case FAULT_ACT_CORRUPT:
		return BIT(FAULT_OP_READ);
	default:
		return FAULT_OPM_ANY;
	}
}

/*
 * One parser per rule key.  Each returns 0 or -EINVAL; the reason a caller
 * shows for -EINVAL is "Invalid value in rule".
 */
static int fault_kv_id(struct fault_rule_cfg *cfg, char *val)
{
	return fault_parse_u32(val, &cfg->id) || !cfg->id ? -EINVAL : 0;
}

static int fault_kv_op(struct fault_rule_cfg *cfg, char *val)
{
	return fault_parse_ops(val, &cfg->opmask);
}

static int fault_kv_sectors(struct fault_rule_cfg *cfg, char *val)
{
	return fault_parse_range(val, false, &cfg->first, &cfg->last);
}

static int fault_kv_size(struct fault_rule_cfg *cfg, char *val)
{
	u64 a, b;

	if (fault_parse_range(val, true, &a, &b))
		return -EINVAL;
	cfg->min_bytes = a;
	cfg->max_bytes = b;
	return 0;
}

static int fault_kv_up(struct fault_rule_cfg *cfg, char *val)
{
	return fault_parse_u32(val, &cfg->up_s);
}

static int fault_kv_down(struct fault_rule_cfg *cfg, char *val)
{
	return fault_parse_u32(val, &cfg->down_s);
}

static int fault_kv_after(struct fault_rule_cfg *cfg, char *val)
{
	return fault_parse_u32(val, &cfg->after_s);
}

static int fault_kv_skip(struct fault_rule_cfg *cfg, char *val)
{
	return fault_parse_u64(val, &cfg->skip);
}

static int fault_kv_enabled(struct fault_rule_cfg *cfg, char *val)
{
	if (strcmp(val, "0") && strcmp(val, "1"))
		return -EINVAL;
	cfg->enabled = val[0] == '1';
	return 0;
}

static int fault_kv_status(struct fault_rule_cfg *cfg, char *val)
{
	return fault_parse_status(val, &cfg->status);
}

static int fault_kv_bits(struct fault_rule_cfg *cfg, char *val)
{
	return fault_parse_u32(val, &cfg->bits) || !cfg->bits || cfg->bits > 4096 ? -EINVAL : 0;
}

static int fault_kv_byte(struct fault_rule_cfg *cfg, char *val)
{
	u32 v;

	if (fault_parse_u32(val, &v) || v > 255)
		return -EINVAL;
	cfg->byte = v;
	return 0;
}

/* "random" or a number up to @max: offset= and keep= */
static int fault_parse_random_or(char *val, u64 max, s64 *out)
{
	u64 v;

	if (!strcmp(val, "random")) {
		*out = -1;
		return 0;
	}
	if (fault_parse_u64(val, &v) || v > max)
		return -EINVAL;
	*out = v;
	return 0;
}

static int fault_kv_offset(struct fault_rule_cfg *cfg, char *val)
{
	return fault_parse_random_or(val, U32_MAX, &cfg->offset);
}

static int fault_kv_keep(struct fault_rule_cfg *cfg, char *val)
{
	return fault_parse_random_or(val, U32_MAX, &cfg->keep);
}

static int fault_kv_delay(struct fault_rule_cfg *cfg, char *val)
{
	return fault_parse_duration(val, &cfg->delay_ns);
}

static int fault_kv_jitter(struct fault_rule_cfg *cfg, char *val)
{
	return fault_parse_duration(val, &cfg->jitter_ns);
}

static int fault_kv_timeout(struct fault_rule_cfg *cfg, char *val)
{
	return fault_parse_duration(val, &cfg->timeout_ns);
}

static int fault_kv_dist(struct fault_rule_cfg *cfg, char *val)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(fault_dist_names); i++) {
		if (!strcmp(val, fault_dist_names[i])) {
			cfg->dist = i;
			return 0;
		}
	}
	return -EINVAL;
}

static const struct {
	const char *key;
	int (*parse)(struct fault_rule_cfg *cfg, char *val);
} fault_rule_keys[] = {
	{ "id", fault_kv_id },		{ "op", fault_kv_op },
	{ "sectors", fault_kv_sectors },	{ "size", fault_kv_size },
	{ "up", fault_kv_up },		{ "down", fault_kv_down },
	{ "after", fault_kv_after },	{ "skip", fault_kv_skip },
	{ "enabled", fault_kv_enabled },	{ "status", fault_kv_status },
	{ "bits", fault_kv_bits },	{ "byte", fault_kv_byte },
	{ "offset", fault_kv_offset },	{ "delay", fault_kv_delay },
	{ "jitter", fault_kv_jitter },	{ "dist", fault_kv_dist },
	{ "timeout", fault_kv_timeout },	{ "keep", fault_kv_keep },
};

/* One key=value of a rule: the rule's own keys, then the engine's. */
static int fault_rule_kv(struct fault_rule_cfg *cfg, const char *key, char *val,
			 struct fault_rule_err *err)
{
	unsigned int i;
	int r = -ENOENT;

	for (i = 0; i < ARRAY_SIZE(fault_rule_keys); i++) {
		if (!strcmp(key, fault_rule_keys[i].key)) {
			r = fault_rule_keys[i].parse(cfg, val);
			break;
		}
	}
	if (r == -ENOENT)
		r = dmf_attr_parse_kv(&cfg->attr, key, val);
	if (r == -ENOENT) {
		err->reason = "Unknown rule key";
		return -EINVAL;
	}
	if (r) {
		err->reason = "Invalid value in rule";
		return -EINVAL;
	}
	return 0;
}

/* Reject combinations that cannot mean anything. */
static int fault_rule_check_combination(struct fault_rule_cfg *cfg, const char **error)
{
	if (!(cfg->opmask & (FAULT_OPM_ANY | FAULT_OPM_FUA))) {
		*error = "Rule matches no operation";
		return -EINVAL;
	}
	if (cfg->action == FAULT_ACT_DROP &&
	    (cfg->opmask & ~(FAULT_OPM_WRITES | 1U << FAULT_OP_DISCARD |
			     1U << FAULT_OP_WRITE_ZEROES | 1U << FAULT_OP_FLUSH))) {
		*error = "drop applies to write, flush, discard and write-zeroes only";
		return -EINVAL;
	}
	if (cfg->action == FAULT_ACT_CORRUPT &&
	    cfg->opmask != BIT(FAULT_OP_READ) && (cfg->opmask & ~FAULT_OPM_WRITES)) {
		*error = "corrupt needs op=read or op=write";
		return -EINVAL;
	}
	if (cfg->action == FAULT_ACT_TORN && (cfg->opmask & ~FAULT_OPM_WRITES)) {
		*error = "torn applies to writes only";
		return -EINVAL;
	}
	if (cfg->action == FAULT_ACT_CORRUPT && cfg->byte >= 0 && cfg->bits) {
		*error = "corrupt takes bits= or byte=, not both";
		return -EINVAL;
	}
	if (cfg->action == FAULT_ACT_DELAY && !cfg->delay_ns && !cfg->jitter_ns) {
		*error = "delay needs delay= or jitter=";
		return -EINVAL;
	}
	if (cfg->action == FAULT_ACT_ERROR && cfg->status == FAULT_STS_OK) {
		*error = "error needs a failing status";
		return -EINVAL;
	}
	if (cfg->up_s && !cfg->down_s) {
		*error = "up= needs down=";
		return -EINVAL;
	}
	return 0;
}

/* Fail with @reason about the @len characters at @at of the rule text. */
static int fault_rule_fail(struct fault_rule_err *err, const char *reason, size_t at, size_t len)
{
	err->reason = reason;
	err->pos = at;
	err->len = len;
	return -EINVAL;
}

/**
 * fault_rule_cfg_parse - parse one rule
 * @cfg: initialised by fault_rule_cfg_init(); filled in
 * @text: "<action>[:<key>=<value>,...]"
 * @err: on failure, a static string naming the problem and the part of
 *       @text it is about (the action, one key=value item, or the whole
 *       rule for a combination of keys), so that a caller can point at it
 *
 * Return: 0 or -EINVAL.
 */
int fault_rule_cfg_parse(struct fault_rule_cfg *cfg, const char *text, struct fault_rule_err *err)
{
	char buf[FAULT_RULE_SIZE];
	char *s = buf, *action, *kv, *val;
	size_t len = strlen(text);
	unsigned int i;
	int r;

	if (len >= sizeof(buf))
		return fault_rule_fail(err, "Rule too long", 0, len);
	memcpy(buf, text, len + 1);
	action = strsep(&s, ":");
	for (i = 0; i < FAULT_NR_ACTIONS; i++)
		if (!strcmp(action, fault_action_names[i]))
			break;
	if (i == FAULT_NR_ACTIONS)
		return fault_rule_fail(err, "Unknown rule action", 0, strlen(action));
	cfg->action = i;
	cfg->opmask = fault_default_ops(cfg->action);

	while (s && (kv = strsep(&s, ",")) != NULL) {
		size_t at = kv - buf, n = strlen(kv);

		val = strchr(kv, '=');
		if (!val || val == kv || !val[1])
			return fault_rule_fail(err, "Rule arguments are key=value", at, n);
		*val++ = '\0';
		r = fault_rule_kv(cfg, kv, val, err);
		if (r)
			return fault_rule_fail(err, err->reason, at, n);
	}
	r = fault_rule_check_combination(cfg, &err->reason);
	if (r)
		return fault_rule_fail(err, err->reason, 0, len);
	return 0;
}

static int fault_format_ops(unsigned int mask, char *buf, size_t len)
{
	unsigned int i;
	int n = 0;

	/* "any" is every operation; FUA is a flag on writes, printed apart */
	if ((mask & FAULT_OPM_ANY) == FAULT_OPM_ANY)
		return scnprintf(buf, len, "any%s", mask & FAULT_OPM_FUA ? "+fua" : "");
	for (i = 0; i <= FAULT_NR_OPS; i++) {
		if (!(mask & (1U << i)))
			continue;
		n += scnprintf(buf + n, len - n, "%s%s", n ? "+" : "", fault_op_names[i]);
	}
	return n;
}

/**
 * fault_rule_cfg_format - print a rule as fault_rule_cfg_parse() reads it
 * @cfg: the rule
 * @buf: output
 * @len: size of @buf
 *
 * Return: the number of characters written, as scnprintf(); text that does
 * not fit is cut.
 */
int fault_rule_cfg_format(const struct fault_rule_cfg *cfg, char *buf, size_t len)
{
	unsigned int def_ops = fault_default_ops(cfg->action);
	char ops[80], t[32];
	int n = 0;

	/* a rule not yet on a device has no id: print none, not id=0 */
	n += scnprintf(buf + n, len - n, "%s:", fault_action_name(cfg->action));
	if (cfg->id)
		n += scnprintf(buf + n, len - n, "id=%u,", cfg->id);
	if (cfg->opmask != def_ops) {
		fault_format_ops(cfg->opmask, ops, sizeof(ops));
		n += scnprintf(buf + n, len - n, "op=%s,", ops);
	}
	if (cfg->first || cfg->last != U64_MAX)
		n += scnprintf(buf + n, len - n, "sectors=%llu-%llu,", cfg->first, cfg->last);
	if (cfg->min_bytes || cfg->max_bytes != U32_MAX)
		n += scnprintf(buf + n, len - n, "size=%u-%u,", cfg->min_bytes, cfg->max_bytes);
	if (cfg->down_s)
		n += scnprintf(buf + n, len - n, "up=%u,down=%u,", cfg->up_s, cfg->down_s);
	if (cfg->after_s)
		n += scnprintf(buf + n, len - n, "after=%u,", cfg->after_s);
	if (cfg->skip)
		n += scnprintf(buf + n, len - n, "skip=%llu,", cfg->skip);
	if (cfg->status != FAULT_STS_IOERR)
		n += scnprintf(buf + n, len - n, "status=%s,", fault_status_name(cfg->status));
	if (cfg->bits)
		n += scnprintf(buf + n, len - n, "bits=%u,", cfg->bits);
	if (cfg->byte >= 0)
		n += scnprintf(buf + n, len - n, "byte=%d,", cfg->byte);
	if (cfg->offset >= 0)
		n += scnprintf(buf + n, len - n, "offset=%lld,", cfg->offset);
	if (cfg->delay_ns) {
		fault_format_duration(cfg->delay_ns, t, sizeof(t));
		n += scnprintf(buf + n, len - n, "delay=%s,", t);
	}
	if (cfg->jitter_ns) {
		fault_format_duration(cfg->jitter_ns, t, sizeof(t));
		n += scnprintf(buf + n, len - n, "jitter=%s,dist=%s,", t,
			       fault_dist_names[cfg->dist]);
	}
	if (cfg->timeout_ns) {
		fault_format_duration(cfg->timeout_ns, t, sizeof(t));
		n += scnprintf(buf + n, len - n, "timeout=%s,", t);
	}
	if (cfg->keep >= 0)
		n += scnprintf(buf + n, len - n, "keep=%lld,", cfg->keep);
	if (!cfg->enabled)
		n += scnprintf(buf + n, len - n, "enabled=0,");
	n += dmf_attr_format(&cfg->attr, buf + n, len - n);
	return n;
}

int fault_name_index(const char * const *names, unsigned int n, const char *s)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (!strcmp(s, names[i]))
			return i;
	return -1;
}

static const char * const fault_bad_mode_names[FAULT_NR_BAD_MODES] = {
	[FAULT_BAD_HEAL] = "heal",
	[FAULT_BAD_STICKY] = "sticky",
	[FAULT_BAD_READ] = "read",
	[FAULT_BAD_WRITE] = "write",
};

static const char * const fault_bad_stat_names[FAULT_NR_BAD_STATS] = {
	[FAULT_BS_RANGES] = "ranges",
	[FAULT_BS_SECTORS] = "sectors",
	[FAULT_BS_LOOKUPS] = "lookups",
	[FAULT_BS_HITS] = "hits",
	[FAULT_BS_HEALS] = "heals",
};

static const char *fault_bad_mode_name(enum fault_bad_mode mode)
{
	return mode < FAULT_NR_BAD_MODES ? fault_bad_mode_names[mode] : "?";
}

const char *fault_bad_stat_name(enum fault_bad_stat i)
{
	return i < FAULT_NR_BAD_STATS ? fault_bad_stat_names[i] : "?";
}

/* A bad range as a disk reports a medium error: reads fail, a write heals. */
void fault_bad_attr_init(struct fault_bad_attr *a)
{
	a->mode = FAULT_BAD_HEAL;
	a->status = FAULT_STS_MEDIUM;
	a->wr_fail = 0;
}

/**
 * fault_bad_attr_parse - one key of a bad range: mode=, status= or wr_fail=
 * @a: changed by the key
 * @word: "<key>=<value>"
 * @error: set to the reason on failure
 *
 * Return: 0, or -EINVAL with *@error set.
 */
int fault_bad_attr_parse(struct fault_bad_attr *a, const char *word, const char **error)
{
	const char *val = strchr(word, '=');
	int i;

	if (!val) {
		*error = "expected mode=, status= or wr_fail=";
		return -EINVAL;
	}
	val++;
	if (!strncmp(word, "mode=", 5)) {
		i = fault_name_index(fault_bad_mode_names, FAULT_NR_BAD_MODES, val);
		if (i >= 0) {
			a->mode = i;
			return 0;
		}
		*error = "mode= takes heal, sticky, read or write";
	} else if (!strncmp(word, "status=", 7)) {
		if (!fault_parse_status(val, &a->status) && a->status != FAULT_STS_OK)
			return 0;
		*error = "status= takes an error status, as a rule's";
	} else if (!strncmp(word, "wr_fail=", 8)) {
		if (*val >= '0' && *val <= '9' && !kstrtouint(val, 10, &a->wr_fail))
			return 0;
		*error = "wr_fail= takes a count of writes, 0 to 4294967295";
	} else {
		*error = "expected mode=, status= or wr_fail=";
	}
	return -EINVAL;
}

/* "mode=<m> status=<s> wr_fail=<n>", as fault_bad_attr_parse() reads it */
int fault_bad_attr_format(const struct fault_bad_attr *a, char *buf, size_t len)
{
	return scnprintf(buf, len, "mode=%s status=%s wr_fail=%u", fault_bad_mode_name(a->mode),
			 fault_status_name(a->status), a->wr_fail);
}

/* A sector number in decimal: no sign, no base prefix, no wrap past 2^64. */
static int fault_bad_sector(const char *s, size_t n, u64 *v)
{
	char num[24];

	if (!n || n >= sizeof(num) || *s < '0' || *s > '9')
		return -EINVAL;
	memcpy(num, s, n);
	num[n] = '\0';
	return kstrtou64(num, 10, v) ? -EINVAL : 0;
}

/* One sector number, as the query and list messages take it. */
int fault_bad_sector_parse(const char *s, u64 *v)
{
	return fault_bad_sector(s, strlen(s), v);
}

/**
 * fault_bad_range_parse - a range of sectors: "<n>", "<first>-<last>" or "<first>+<count>"
 * @s: the text
 * @first: the first sector
 * @last: the last sector, inclusive
 *
 * Refuses a reversed range, a count of 0 and a range that wraps past 2^64;
 * whether it fits the device is the caller's question.
 *
 * Return: 0 or -EINVAL.
 */
int fault_bad_range_parse(const char *s, u64 *first, u64 *last)
{
	size_t n = strcspn(s, "-+");
	u64 count;

	if (fault_bad_sector(s, n, first))
		return -EINVAL;
	if (!s[n]) {
		*last = *first;
		return 0;
	}
	if (s[n] == '-')
		return fault_bad_sector(s + n + 1, strlen(s + n + 1), last) || *last < *first ?
		       -EINVAL : 0;
	if (fault_bad_sector(s + n + 1, strlen(s + n + 1), &count) || !count ||
	    count - 1 > U64_MAX - *first)
		return -EINVAL;
	*last = *first + count - 1;
	return 0;
}
