// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-fault's cache words: the cache feature and a crash's options
 * ("limit=", "unit=", "lose=", "seed=", "after="), parsed into a struct
 * fault_cache_cfg and printed back, and a crash state's view ("keep=",
 * "tear=") parsed into a struct fault_view.  Calls go to dm-fault-parse.c
 * (sizes, names), never back.  No block-layer types here: the host tests
 * and dmfault build this file.
 */
#include "dm-fault-rule.h"

static const char * const fault_lose_names[FAULT_NR_LOSE] = {
	[FAULT_LOSE_ALL] = "all",
	[FAULT_LOSE_NONE] = "none",
	[FAULT_LOSE_WRITES] = "writes",
	[FAULT_LOSE_SECTORS] = "sectors",
};

static const char * const fault_trigger_names[FAULT_NR_TRIGGERS] = {
	[FAULT_TRIG_NONE] = "none",
	[FAULT_TRIG_FLUSH] = "flush",
	[FAULT_TRIG_WRITE] = "write",
	[FAULT_TRIG_BYTES] = "bytes",
};

static const char * const fault_cache_stat_names[FAULT_NR_CACHE_STATS] = {
	[FAULT_CS_BLOCKS] = "blocks",
	[FAULT_CS_BYTES] = "bytes",
	[FAULT_CS_HIGH_WATER] = "high_water",
	[FAULT_CS_LIMIT] = "limit",
	[FAULT_CS_WRITES] = "writes",
	[FAULT_CS_FLUSHES] = "flushes",
	[FAULT_CS_FUA] = "fua",
	[FAULT_CS_FORCED] = "forced",
	[FAULT_CS_WRITTEN_BACK] = "written_back",
	[FAULT_CS_CRASHES] = "crashes",
	[FAULT_CS_LOST_WRITES] = "lost_writes",
	[FAULT_CS_LOST_SECTORS] = "lost_sectors",
	[FAULT_CS_RECORDED] = "recorded",
};

const char *fault_cache_stat_name(enum fault_cache_stat i)
{
	return i < FAULT_NR_CACHE_STATS ? fault_cache_stat_names[i] : "?";
}

const char *fault_lose_name(enum fault_lose lose)
{
	return lose < FAULT_NR_LOSE ? fault_lose_names[lose] : "?";
}

const char *fault_trigger_name(enum fault_trigger after)
{
	return after < FAULT_NR_TRIGGERS ? fault_trigger_names[after] : "?";
}

void fault_cache_cfg_init(struct fault_cache_cfg *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->limit = FAULT_CACHE_LIMIT_DEF;
	cfg->lose = FAULT_LOSE_ALL;
}

/* after=flush:<n>, write:<n>, bytes:<size>, or none */
static int fault_parse_trigger(struct fault_cache_cfg *cfg, char *val, const char **error)
{
	char *n = strchr(val, ':');
	int t;

	if (n)
		*n++ = '\0';
	t = fault_name_index(fault_trigger_names, FAULT_NR_TRIGGERS, val);
	if (t < 0) {
		*error = "Unknown crash trigger (flush, write, bytes, none)";
		return -EINVAL;
	}
	if (t == FAULT_TRIG_NONE && !n) {
		cfg->after = FAULT_TRIG_NONE;
		cfg->after_n = 0;
		return 0;
	}
	if (t == FAULT_TRIG_NONE || !n ||
	    (t == FAULT_TRIG_BYTES ? fault_parse_size(n, U64_MAX, &cfg->after_n) :
	     kstrtou64(n, 10, &cfg->after_n)) || !cfg->after_n) {
		*error = "Crash trigger is <flush|write|bytes>:<count of 1 or more>";
		return -EINVAL;
	}
	cfg->after = t;
	return 0;
}

/*
 * unit=<size>: a power of two from 512 bytes to 1 MiB, or 0 for the logical
 * block of the disk below (whether a unit is smaller than that block is the
 * cache's question: only it knows the disk).
 */
static int fault_parse_unit(const char *val, u32 *unit, const char **error)
{
	u64 v;

	if (fault_parse_size(val, FAULT_CACHE_UNIT_MAX, &v) ||
	    (v && (v < 512 || (v & (v - 1))))) {
		*error = "Invalid tearing unit (0, or a power of two from 512 to 1m)";
		return -EINVAL;
	}
	*unit = v;
	return 0;
}

/* One key=value word: the FAULT_CKEY_* bit of its key, or -EINVAL with *@error set. */
static int fault_cache_cfg_word(struct fault_cache_cfg *cfg, const char *word, unsigned int keys,
				const char **error)
{
	size_t len = strlen(word);
	char buf[64], *val;
	int i;

	if (len >= sizeof(buf)) {
		*error = "Cache option too long";
		return -EINVAL;
	}
	memcpy(buf, word, len + 1);
	val = strchr(buf, '=');
	if (!val || val == buf || !val[1]) {
		*error = "Cache options are key=value";
		return -EINVAL;
	}
	*val++ = '\0';
	if ((keys & FAULT_CKEY_LIMIT) && !strcmp(buf, "limit")) {
		if (fault_parse_size(val, U64_MAX, &cfg->limit) ||
		    cfg->limit < FAULT_CACHE_LIMIT_MIN) {
			*error = "Invalid cache limit (64k or more, units k, m, g)";
			return -EINVAL;
		}
		return FAULT_CKEY_LIMIT;
	}
	if ((keys & FAULT_CKEY_LOSE) && !strcmp(buf, "lose")) {
		i = fault_name_index(fault_lose_names, FAULT_NR_LOSE, val);
		if (i < 0) {
			*error = "Unknown crash policy (all, none, writes, sectors)";
			return -EINVAL;
		}
		cfg->lose = i;
		return FAULT_CKEY_LOSE;
	}
	if ((keys & FAULT_CKEY_SEED) && !strcmp(buf, "seed")) {
		if (kstrtou64(val, 0, &cfg->seed)) {
			*error = "Invalid crash seed";
			return -EINVAL;
		}
		return FAULT_CKEY_SEED;
	}
	if ((keys & FAULT_CKEY_AFTER) && !strcmp(buf, "after")) {
		if (fault_parse_trigger(cfg, val, error))
			return -EINVAL;
		return FAULT_CKEY_AFTER;
	}
	if ((keys & FAULT_CKEY_UNIT) && !strcmp(buf, "unit")) {
		if (fault_parse_unit(val, &cfg->unit, error))
			return -EINVAL;
		return FAULT_CKEY_UNIT;
	}
	*error = "Unknown cache option";
	return -EINVAL;
}

/**
 * fault_cache_cfg_parse - parse one key=value word of the cache options
 * @cfg: initialised by fault_cache_cfg_init(); the key's field is set
 * @word: limit=<size>, lose=<all|none|writes|sectors>, seed=<u64> or
 *        after=<flush|write|bytes>:<n>
 * @keys: FAULT_CKEY_* bits: the keys this context takes
 * @error: on failure, a static string naming the problem
 *
 * Return: 0 or -EINVAL.
 */
int fault_cache_cfg_parse(struct fault_cache_cfg *cfg, const char *word, unsigned int keys,
			  const char **error)
{
	int r = fault_cache_cfg_word(cfg, word, keys, error);

	return r < 0 ? r : 0;
}

/**
 * fault_cache_cfg_parse_words - parse the cache option words of a table or
 * a message
 * @cfg: initialised by fault_cache_cfg_init(); the fields of the keys given
 *       are set, the last word of a key winning
 * @argc: number of words
 * @argv: the words
 * @keys: FAULT_CKEY_* bits: the keys this context takes
 * @given: set to the FAULT_CKEY_* bits of the keys given, so that "crash"
 *         can lay the options it names over the ones the cache has
 * @error: on failure, a static string naming the problem
 *
 * Return: 0 or -EINVAL.
 */
int fault_cache_cfg_parse_words(struct fault_cache_cfg *cfg, unsigned int argc, char **argv,
				unsigned int keys, unsigned int *given, const char **error)
{
	unsigned int i;
	int r;

	*given = 0;
	for (i = 0; i < argc; i++) {
		r = fault_cache_cfg_word(cfg, argv[i], keys, error);
		if (r < 0)
			return r;
		*given |= r;
	}
	return 0;
}

/**
 * fault_cache_cfg_apply - lay the options @keys of @from over @to
 * @to: options to change
 * @from: options parsed from words
 * @keys: FAULT_CKEY_* bits, as fault_cache_cfg_parse_words() sets @given
 *
 * A crash takes the policy and seed the cache has unless it names its own.
 */
void fault_cache_cfg_apply(struct fault_cache_cfg *to, const struct fault_cache_cfg *from,
			   unsigned int keys)
{
	if (keys & FAULT_CKEY_LIMIT)
		to->limit = from->limit;
	if (keys & FAULT_CKEY_LOSE)
		to->lose = from->lose;
	if (keys & FAULT_CKEY_SEED)
		to->seed = from->seed;
	if (keys & FAULT_CKEY_AFTER) {
		to->after = from->after;
		to->after_n = from->after_n;
	}
	if (keys & FAULT_CKEY_UNIT)
		to->unit = from->unit;
}

/**
 * fault_cache_cfg_format - print the options in @keys that differ from the
 * defaults, as words fault_cache_cfg_parse() reads, each after a space
 * @cfg: the options
 * @keys: FAULT_CKEY_* bits
 * @buf: output
 * @len: size of @buf
 *
 * Return: characters written, as scnprintf().
 */
int fault_cache_cfg_format(const struct fault_cache_cfg *cfg, unsigned int keys, char *buf,
			   size_t len)
{
	int n = 0;

	/* with every option at its default nothing is printed: still a string */
	if (len)
		buf[0] = '\0';
	if ((keys & FAULT_CKEY_LIMIT) && cfg->limit != FAULT_CACHE_LIMIT_DEF)
		n += scnprintf(buf + n, len - n, " limit=%llu", cfg->limit);
	if ((keys & FAULT_CKEY_AFTER) && cfg->after != FAULT_TRIG_NONE)
		n += scnprintf(buf + n, len - n, " after=%s:%llu",
			       fault_trigger_names[cfg->after], cfg->after_n);
	if ((keys & FAULT_CKEY_LOSE) && cfg->lose != FAULT_LOSE_ALL)
		n += scnprintf(buf + n, len - n, " lose=%s", fault_lose_names[cfg->lose]);
	if ((keys & FAULT_CKEY_SEED) && cfg->seed)
		n += scnprintf(buf + n, len - n, " seed=%llu", cfg->seed);
	if ((keys & FAULT_CKEY_UNIT) && cfg->unit)
		n += scnprintf(buf + n, len - n, " unit=%u", cfg->unit);
	return n;
}

/**
 * fault_cache_feature_format - print the cache feature group of a table
 * @cfg: the options the table gave
 * @buf: output
 * @len: size of @buf
 *
 * " <n> cache[ <key>=<value>...]" with the options that differ from the
 * defaults: the status TABLE line ends with it, and a test feeds that line
 * back to the constructor, so the count must match the words.
 *
 * Return: characters written, as scnprintf().
 */
int fault_cache_feature_format(const struct fault_cache_cfg *cfg, char *buf, size_t len)
{
	char opts[128];
	unsigned int words = 1;
	const char *p;

	fault_cache_cfg_format(cfg, FAULT_CKEY_ALL, opts, sizeof(opts));
	for (p = opts; *p; p++)
		words += *p == ' ';
	return scnprintf(buf, len, " %u cache%s", words, opts);
}

/* After an item of a list: 1 at its end, 0 past a comma with more to come, -1 if neither. */
static int fault_list_next(const char **s)
{
	if (!**s)
		return 1;
	if (*(*s)++ != ',' || !**s)
		return -1;
	return 0;
}

/* One write number of a view: 1 or more, ended by @end. */
static int fault_view_number(const char **p, const char *end, u64 *v)
{
	char buf[24];
	size_t n = end - *p;

	if (!n || n >= sizeof(buf))
		return -EINVAL;
	memcpy(buf, *p, n);
	buf[n] = '\0';
	if (buf[0] == '+' || kstrtou64(buf, 10, v) || !*v)
		return -EINVAL;
	*p = end;
	return 0;
}

/* keep=<n>[-<m>][,...]: ascending ranges that neither overlap nor touch out of order */
static int fault_view_ranges(struct fault_view *v, const char *s, const char **error)
{
	struct fault_range r;
	int end_of_list;
	u64 prev = 0;
	const char *end;

	for (;;) {
		end = s + strcspn(s, "-,");
		if (fault_view_number(&s, end, &r.first))
			goto bad;
		r.last = r.first;
		if (*s == '-') {
			s++;
			end = s + strcspn(s, ",");
			if (fault_view_number(&s, end, &r.last) || r.last < r.first)
				goto bad;
		}
		if (r.first <= prev) {
			*error = "Kept writes must be in ascending order";
			return -EINVAL;
		}
		if (v->nr_ranges == FAULT_VIEW_RANGES) {
			*error = "Too many kept ranges (at most 65536)";
			return -EINVAL;
		}
		if (v->ranges)
			v->ranges[v->nr_ranges] = r;
		v->nr_ranges++;
		prev = r.last;
		end_of_list = fault_list_next(&s);
		if (end_of_list > 0)
			return 0;
		if (end_of_list < 0)
			goto bad;
	}
bad:
	*error = "keep= is all, none or <n>[-<m>][,...] of write numbers from 1";
	return -EINVAL;
}

/* Is write @w kept by the ranges counted so far?  Only with v->ranges. */
static bool fault_view_has(const struct fault_view *v, u64 w)
{
	unsigned int lo = 0, hi = v->nr_ranges;

	if (v->all)
		return true;
	while (lo < hi) {
		unsigned int mid = lo + (hi - lo) / 2;

		if (v->ranges[mid].last < w)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < v->nr_ranges && v->ranges[lo].first <= w;
}

/* tear=<w>:<seed>[,...]: ascending writes, each one kept */
static int fault_view_tears(struct fault_view *v, const char *s, const char **error)
{
	struct fault_tear t;
	u64 prev = 0;
	int end_of_list;
	const char *end;
	char buf[24];
	size_t n;

	for (;;) {
		if (v->nr_tears == FAULT_VIEW_TEARS) {
			*error = "Too many torn writes (at most 64)";
			return -EINVAL;
		}
		end = s + strcspn(s, ":,");
		if (*end != ':' || fault_view_number(&s, end, &t.write))
			goto bad;
		s++;
		n = strcspn(s, ",");
		if (!n || n >= sizeof(buf))
			goto bad;
		memcpy(buf, s, n);
		buf[n] = '\0';
		if (kstrtou64(buf, 0, &t.seed))
			goto bad;
		if (v->nr_tears && t.write <= prev) {
			*error = "Torn writes must be in ascending order";
			return -EINVAL;
		}
		if (v->ranges && !fault_view_has(v, t.write)) {
			*error = "A torn write must be kept";
			return -EINVAL;
		}
		if (v->tears)
			v->tears[v->nr_tears] = t;
		v->nr_tears++;
		prev = t.write;
		s += n;
		end_of_list = fault_list_next(&s);
		if (end_of_list > 0)
			return 0;
		if (end_of_list < 0)
			goto bad;
	}
bad:
	*error = "tear= is <write>:<seed>[,...]";
	return -EINVAL;
}

/**
 * fault_view_parse - read a crash state of a recording
 * @v: filled in; @v->ranges and @v->tears: arrays for as many ranges and
 *     tears as a counting pass found, or NULL to check the words and count
 *     only (the message parser's pass: it allocates nothing, so what it
 *     refuses is always the words)
 * @keep: the value of keep=: all, none, or ascending <n>[-<m>] ranges
 * @tear: the value of tear=, or NULL
 * @error: set to a static string naming the problem on failure
 *
 * Whether a torn write is kept is checked only with @v->ranges.
 *
 * Return: 0, or -EINVAL with *@error set.
 */
int fault_view_parse(struct fault_view *v, const char *keep, const char *tear,
		     const char **error)
{
	struct fault_range *ranges = v->ranges;
	struct fault_tear *tears = v->tears;

	memset(v, 0, sizeof(*v));
	v->ranges = ranges;
	v->tears = tears;
	if (!strcmp(keep, "all"))
		v->all = true;
	else if (strcmp(keep, "none") && fault_view_ranges(v, keep, error))
		return -EINVAL;
	return tear ? fault_view_tears(v, tear, error) : 0;
}
