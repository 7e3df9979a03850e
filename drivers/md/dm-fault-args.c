// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-fault table and message arguments: numbers read as dm_read_arg() reads
 * them but without its wrap past UINT_MAX; a fault table's rule count, rule
 * words and cache feature read into a struct fault_table_args; a message's
 * words read into a struct fault_msg; and the table lines of dm-flakey and
 * dm-delay read into a struct fault_compat_args and printed back as those
 * targets print them.  Nothing here opens a device, makes a rule or looks at
 * a device's state (that is dm-fault.c, dm-fault-cache.c and
 * dm-fault-compat.c): the host fuzzers build this file.
 *
 * dm-flakey grew error_reads and random_{read,write}_corrupt in 6.6 and
 * changed how it prints its table; FAULT_FLAKEY_V2 (set by Kbuild from the
 * kernel version) picks the flakey of the kernel this is built for.
 */
#include "dm-fault-args.h"

/*
 * dm_read_arg() and dm_read_arg_group() read with sscanf("%u"), which takes
 * 4294967296 as 0: refuse first what kstrtouint() refuses, with the
 * argument's own error text.
 */
static int fault_arg_overflows(const struct dm_arg *arg, struct dm_arg_set *as, char **error)
{
	unsigned int v;

	if (as->argc && kstrtouint(as->argv[0], 10, &v)) {
		*error = arg->error;
		return -EINVAL;
	}
	return 0;
}

int fault_read_arg(const struct dm_arg *arg, struct dm_arg_set *as, unsigned int *value,
		   char **error)
{
	return fault_arg_overflows(arg, as, error) ?: dm_read_arg(arg, as, value, error);
}

int fault_read_arg_group(const struct dm_arg *arg, struct dm_arg_set *as, unsigned int *value,
			 char **error)
{
	return fault_arg_overflows(arg, as, error) ?: dm_read_arg_group(arg, as, value, error);
}

/**
 * fault_table_parse_rules - read the rule count and the rule words of a
 * fault table
 * @ta: filled in; the cache options get their defaults
 * @as: the words after "<dev> <offset>"; the count and rules are shifted off
 * @error: set to the reason on failure
 *
 * The rules' own text is the rule parser's (dm-fault-parse.c): the
 * constructor adds them one by one before it reads the features, so that a
 * bad rule is reported before a bad feature.
 *
 * Return: 0, or -EINVAL with *@error set.
 */
int fault_table_parse_rules(struct fault_table_args *ta, struct dm_arg_set *as, char **error)
{
	static const struct dm_arg _args[] = {
		{0, FAULT_MAX_RULES, "Invalid number of rules"},
	};
	int r;

	memset(ta, 0, sizeof(*ta));
	fault_cache_cfg_init(&ta->cache_cfg);
	if (!as->argc)
		return 0;
	r = fault_read_arg(_args, as, &ta->nr_rules, error);
	if (r)
		return r;
	if (ta->nr_rules > as->argc) {
		*error = "Rule count does not match the rules given";
		return -EINVAL;
	}
	ta->rules = as->argv;
	dm_consume_args(as, ta->nr_rules);
	return 0;
}

/**
 * fault_table_parse_features - read the feature group after the rules
 * @ta: from fault_table_parse_rules(); cache and cache_cfg filled in
 * @as: what is left: [<#features> cache [<key>=<value>...]]
 * @error: set to the reason on failure
 *
 * Whether the machine can give the cache its limit is the constructor's
 * question: this only reads the words.
 *
 * Return: 0, or -EINVAL with *@error set.
 */
int fault_table_parse_features(struct fault_table_args *ta, struct dm_arg_set *as,
			       char **error)
{
	static const struct dm_arg _args[] = {
		{1, 6, "Invalid number of feature args"},
	};
	const char *why;
	unsigned int n;
	int r;

	if (!as->argc)
		return 0;
	/* a word where a rule count said none: the old refusal */
	if (!isdigit(*as->argv[0])) {
		*error = "Rule count does not match the rules given";
		return -EINVAL;
	}
	r = fault_read_arg_group(_args, as, &n, error);
	if (r)
		return r;
	if (strcasecmp(dm_shift_arg(as), "cache")) {
		*error = "Unknown feature (cache)";
		return -EINVAL;
	}
	if (fault_cache_cfg_parse_words(&ta->cache_cfg, n - 1, as->argv, FAULT_CKEY_ALL,
					&ta->keys, &why)) {
		*error = (char *)why;
		return -EINVAL;
	}
	dm_consume_args(as, n - 1);
	if (as->argc) {
		*error = "Words after the feature args";
		return -EINVAL;
	}
	ta->cache = true;
	return 0;
}

static const char * const fault_msg_names[FAULT_NR_MSGS] = {
	[FAULT_MSG_NONE] = "?",
	[FAULT_MSG_RULE] = "rule",
	[FAULT_MSG_RULE_ADD] = "rule add",
	[FAULT_MSG_RULE_REPLACE] = "rule replace",
	[FAULT_MSG_RULE_REMOVE] = "rule remove",
	[FAULT_MSG_RULE_ENABLE] = "rule enable",
	[FAULT_MSG_RULE_DISABLE] = "rule disable",
	[FAULT_MSG_RULE_LIST] = "rule list",
	[FAULT_MSG_STATS] = "stats",
	[FAULT_MSG_LOG] = "log",
	[FAULT_MSG_RELEASE] = "release",
	[FAULT_MSG_RESET] = "reset",
	[FAULT_MSG_BAD] = "bad",
	[FAULT_MSG_BAD_ADD] = "bad add",
	[FAULT_MSG_BAD_REMOVE] = "bad remove",
	[FAULT_MSG_BAD_CLEAR] = "bad clear",
	[FAULT_MSG_BAD_QUERY] = "bad query",
	[FAULT_MSG_BAD_COUNT] = "bad count",
	[FAULT_MSG_BAD_LIST] = "bad list",
	[FAULT_MSG_BAD_ENABLE] = "bad enable",
	[FAULT_MSG_BAD_DISABLE] = "bad disable",
	[FAULT_MSG_BAD_PARTIAL] = "bad partial",
	[FAULT_MSG_CACHE] = "cache",
	[FAULT_MSG_CACHE_ON] = "cache on",
	[FAULT_MSG_CACHE_OFF] = "cache off",
	[FAULT_MSG_CRASH] = "crash",
	[FAULT_MSG_MARK] = "mark",
	[FAULT_MSG_RECOVER] = "recover",
	[FAULT_MSG_LOST] = "lost",
	[FAULT_MSG_RECORD] = "record",
	[FAULT_MSG_RECORD_LIST] = "record list",
	[FAULT_MSG_VIEW] = "view",
};

/**
 * fault_msg_name - the words that start a message, for its warnings
 * @cmd: the message
 *
 * Return: a static string, "?" for FAULT_MSG_NONE or a value out of range.
 */
const char *fault_msg_name(enum fault_msg_cmd cmd)
{
	return cmd < FAULT_NR_MSGS ? fault_msg_names[cmd] : "?";
}

static int fault_msg_unknown(struct fault_msg *m, char **error)
{
	m->cmd = FAULT_MSG_NONE;
	*error = "Unrecognised message";
	return -EINVAL;
}

/*
 * A message of one word: "stats", "log" and "reset" with more are no
 * message of ours, as before the cache; the cache's "recover" and "lost"
 * say that they take no arguments.
 */
static int fault_msg_parse_alone(struct fault_msg *m, unsigned int argc, char **error)
{
	if (argc == 1)
		return 0;
	if (m->cmd < FAULT_MSG_CACHE)
		return fault_msg_unknown(m, error);
	*error = "takes no arguments";
	return -EINVAL;
}

/* release [<id>]: an id of 1 or more, none for every held bio */
static int fault_msg_parse_release(struct fault_msg *m, unsigned int argc, char **argv,
				   char **error)
{
	if (argc > 2)
		return fault_msg_unknown(m, error);
	if (argc == 2 && (kstrtouint(argv[1], 10, &m->id) || !m->id)) {
		*error = "Invalid rule id";
		return -EINVAL;
	}
	return 0;
}

/*
 * rule add <rule> | rule replace <id> <rule> | rule remove|enable|disable <id>
 * | rule list.  The rule's text is read where it is added.
 */
static int fault_msg_parse_rule(struct fault_msg *m, unsigned int argc, char **argv,
				char **error)
{
	static const struct {
		const char *word;
		enum fault_msg_cmd cmd;
		unsigned int argc;
	} forms[] = {
		{ "add", FAULT_MSG_RULE_ADD, 3 },	{ "list", FAULT_MSG_RULE_LIST, 2 },
		{ "replace", FAULT_MSG_RULE_REPLACE, 4 }, { "remove", FAULT_MSG_RULE_REMOVE, 3 },
		{ "enable", FAULT_MSG_RULE_ENABLE, 3 },	{ "disable", FAULT_MSG_RULE_DISABLE, 3 },
	};
	unsigned int i;

	if (argc < 2)
		return fault_msg_unknown(m, error);
	for (i = 0; i < ARRAY_SIZE(forms); i++)
		if (argc == forms[i].argc && !strcasecmp(argv[1], forms[i].word))
			break;
	if (i == ARRAY_SIZE(forms)) {
		*error = "Invalid rule message";
		return -EINVAL;
	}
	m->cmd = forms[i].cmd;
	if (m->cmd == FAULT_MSG_RULE_ADD)
		m->rule = argv[2];
	if (m->cmd == FAULT_MSG_RULE_ADD || m->cmd == FAULT_MSG_RULE_LIST)
		return 0;
	if (kstrtouint(argv[2], 10, &m->id)) {
		*error = "Invalid rule id";
		return -EINVAL;
	}
	if (m->cmd == FAULT_MSG_RULE_REPLACE)
		m->rule = argv[3];
	return 0;
}

static int fault_msg_cache_words(struct fault_msg *m, unsigned int argc, char **argv,
				 unsigned int keys, char **error)
{
	const char *why;

	if (fault_cache_cfg_parse_words(&m->cache, argc, argv, keys, &m->keys, &why)) {
		*error = (char *)why;
		return -EINVAL;
	}
	return 0;
}

/* cache on [limit=<size>] [unit=<size>] | cache off */
static int fault_msg_parse_cache(struct fault_msg *m, unsigned int argc, char **argv,
				 char **error)
{
	if (argc >= 2 && !strcasecmp(argv[1], "on")) {
		m->cmd = FAULT_MSG_CACHE_ON;
		return fault_msg_cache_words(m, argc - 2, argv + 2,
					     FAULT_CKEY_LIMIT | FAULT_CKEY_UNIT, error);
	}
	if (argc == 2 && !strcasecmp(argv[1], "off")) {
		m->cmd = FAULT_MSG_CACHE_OFF;
		return 0;
	}
	*error = "expected 'cache on [limit=<size>] [unit=<size>]' or 'cache off'";
	return -EINVAL;
}

/* crash [lose=<policy>] [seed=<n>] [after=<trigger>]: without after=, now */
static int fault_msg_parse_crash(struct fault_msg *m, unsigned int argc, char **argv,
				 char **error)
{
	m->cache.after = FAULT_NR_TRIGGERS;
	return fault_msg_cache_words(m, argc - 1, argv + 1,
				     FAULT_CKEY_LOSE | FAULT_CKEY_SEED | FAULT_CKEY_AFTER, error);
}

/* mark [<label>]: a label of letters, digits and ._:- */
static int fault_msg_parse_mark(struct fault_msg *m, unsigned int argc, char **argv,
				char **error)
{
	const char *p;

	if (argc == 1)
		return 0;
	if (argc > 2)
		goto bad;
	m->label = argv[1];
	if (!*m->label || strlen(m->label) > FAULT_MARK_LABEL_MAX)
		goto bad;
	for (p = m->label; *p; p++)
		if (!isalnum(*p) && !strchr("._:-", *p))
			goto bad;
	return 0;
bad:
	*error = "takes one label of up to 32 letters, digits and ._:-";
	return -EINVAL;
}

/* record | record list <from> */
static int fault_msg_parse_record(struct fault_msg *m, unsigned int argc, char **argv,
				  char **error)
{
	if (argc == 1)
		return 0;
	if (!strcasecmp(argv[1], "list")) {
		m->cmd = FAULT_MSG_RECORD_LIST;
		if (argc == 3 && !kstrtou64(argv[2], 10, &m->from) && m->from)
			return 0;
	}
	*error = "expected 'record' or 'record list <from>' (a write number from 1)";
	return -EINVAL;
}

/* view keep=<list> [tear=<list>]: the words are read whole here, then again by the cache */
static int fault_msg_parse_view(struct fault_msg *m, unsigned int argc, char **argv,
				char **error)
{
	struct fault_view v = { .ranges = NULL };
	const char *why;
	unsigned int i;

	for (i = 1; i < argc; i++) {
		if (!strncmp(argv[i], "keep=", 5) && !m->keep)
			m->keep = argv[i] + 5;
		else if (!strncmp(argv[i], "tear=", 5) && !m->tear)
			m->tear = argv[i] + 5;
		else
			goto bad;
	}
	if (!m->keep)
		goto bad;
	if (fault_view_parse(&v, m->keep, m->tear, &why)) {
		*error = (char *)why;
		return -EINVAL;
	}
	return 0;
bad:
	*error = "expected 'view keep=<list> [tear=<write>:<seed>,...]'";
	return -EINVAL;
}

/* bad add|remove: [keys] then one range or more; the ranges are read twice */
static int fault_msg_bad_ranges(struct fault_msg *m, unsigned int argc, char **argv,
				char **error)
{
	const char *why;
	unsigned int i;
	u64 first, last;

	fault_bad_attr_init(&m->bad);
	for (i = 2; i < argc && strchr(argv[i], '='); i++) {
		if (m->cmd == FAULT_MSG_BAD_REMOVE) {
			*error = "bad remove takes ranges only";
			return -EINVAL;
		}
		if (fault_bad_attr_parse(&m->bad, argv[i], &why)) {
			*error = (char *)why;
			return -EINVAL;
		}
	}
	if (m->bad.wr_fail && m->bad.mode != FAULT_BAD_HEAL) {
		*error = "wr_fail= is for mode=heal";
		return -EINVAL;
	}
	m->ranges = argv + i;
	m->nr_ranges = argc - i;
	if (!m->nr_ranges) {
		*error = "expected a range: <sector>, <first>-<last> or <first>+<count>";
		return -EINVAL;
	}
	for (; i < argc; i++) {
		if (fault_bad_range_parse(argv[i], &first, &last)) {
			*error = "invalid range: <sector>, <first>-<last> or <first>+<count>";
			return -EINVAL;
		}
	}
	return 0;
}

/*
 * bad add [mode=<m>] [status=<s>] [wr_fail=<n>] <range>... | bad remove
 * <range>... | bad clear | bad count | bad enable | bad disable | bad query
 * <sector> | bad list [<from>] | bad partial on|off
 */
static int fault_msg_parse_bad(struct fault_msg *m, unsigned int argc, char **argv,
			       char **error)
{
	static const struct {
		const char *word;
		enum fault_msg_cmd cmd;
		unsigned int argc;		/* 0: any */
	} forms[] = {
		{ "add", FAULT_MSG_BAD_ADD, 0 },	{ "remove", FAULT_MSG_BAD_REMOVE, 0 },
		{ "clear", FAULT_MSG_BAD_CLEAR, 2 },	{ "query", FAULT_MSG_BAD_QUERY, 3 },
		{ "count", FAULT_MSG_BAD_COUNT, 2 },	{ "list", FAULT_MSG_BAD_LIST, 0 },
		{ "enable", FAULT_MSG_BAD_ENABLE, 2 },	{ "disable", FAULT_MSG_BAD_DISABLE, 2 },
		{ "partial", FAULT_MSG_BAD_PARTIAL, 3 },
	};
	unsigned int i;

	for (i = 0; argc >= 2 && i < ARRAY_SIZE(forms); i++)
		if (!strcasecmp(argv[1], forms[i].word))
			break;
	if (argc < 2 || i == ARRAY_SIZE(forms) || (forms[i].argc && argc != forms[i].argc))
		goto bad;
	m->cmd = forms[i].cmd;
	switch (m->cmd) {
	case FAULT_MSG_BAD_ADD:
	case FAULT_MSG_BAD_REMOVE:
		return fault_msg_bad_ranges(m, argc, argv, error);
	case FAULT_MSG_BAD_QUERY:
		if (fault_bad_sector_parse(argv[2], &m->sector))
			goto bad;
		return 0;
	case FAULT_MSG_BAD_LIST:
		if (argc > 3 || (argc == 3 && fault_bad_sector_parse(argv[2], &m->sector)))
			goto bad;
		return 0;
	case FAULT_MSG_BAD_PARTIAL:
		m->on = !strcasecmp(argv[2], "on");
		if (!m->on && strcasecmp(argv[2], "off"))
			goto bad;
		return 0;
	default:
		return 0;
	}
bad:
	*error = "expected 'bad add|remove|clear|query|count|list|enable|disable|partial'";
	return -EINVAL;
}

/*
 * The messages by their first word, which is their name; parse reads the
 * rest of the words, NULL: there is none.
 */
static const struct {
	enum fault_msg_cmd cmd;
	int (*parse)(struct fault_msg *m, unsigned int argc, char **argv, char **error);
} fault_msg_words[] = {
	{ FAULT_MSG_RULE, fault_msg_parse_rule },
	{ FAULT_MSG_STATS, NULL },
	{ FAULT_MSG_LOG, NULL },
	{ FAULT_MSG_RELEASE, fault_msg_parse_release },
	{ FAULT_MSG_RESET, NULL },
	{ FAULT_MSG_BAD, fault_msg_parse_bad },
	{ FAULT_MSG_CACHE, fault_msg_parse_cache },
	{ FAULT_MSG_CRASH, fault_msg_parse_crash },
	{ FAULT_MSG_MARK, fault_msg_parse_mark },
	{ FAULT_MSG_RECOVER, NULL },
	{ FAULT_MSG_LOST, NULL },
	{ FAULT_MSG_RECORD, fault_msg_parse_record },
	{ FAULT_MSG_VIEW, fault_msg_parse_view },
};

/**
 * fault_msg_parse - read what a message to a fault target asks for
 * @m: filled in
 * @argc: number of words
 * @argv: the words, as the target's .message gets them; not changed, and
 *        @m->rule points into them
 * @error: set to a static string naming the problem on failure
 *
 * Words are matched in any case, values are not.  Whether the device can
 * do it (a cache, a rule with that id) is the caller's question, and the
 * caller asks some of those first: on failure @m->cmd still names the
 * message when its first word was recognised, FAULT_MSG_NONE otherwise.
 *
 * Return: 0, or -EINVAL with *@error set.
 */
int fault_msg_parse(struct fault_msg *m, unsigned int argc, char **argv, char **error)
{
	unsigned int i;

	memset(m, 0, sizeof(*m));
	fault_cache_cfg_init(&m->cache);
	if (!argc) {
		*error = "Empty message";
		return -EINVAL;
	}
	for (i = 0; i < ARRAY_SIZE(fault_msg_words); i++) {
		if (strcasecmp(argv[0], fault_msg_names[fault_msg_words[i].cmd]))
			continue;
		m->cmd = fault_msg_words[i].cmd;
		if (!fault_msg_words[i].parse)
			return fault_msg_parse_alone(m, argc, error);
		return fault_msg_words[i].parse(m, argc, argv, error);
	}
	return fault_msg_unknown(m, error);
}

static const struct dm_arg fault_flakey_args[] = {
	{0, UINT_MAX, "Invalid up interval"},
	{0, UINT_MAX, "Invalid down interval"},
	{0, 11, "Invalid number of feature args"},
	{1, UINT_MAX, "Invalid corrupt bio byte"},
	{0, 255, "Invalid corrupt value to write into bio byte (0-255)"},
	{0, UINT_MAX, "Invalid corrupt bio flags mask"},
	{0, FAULT_FLAKEY_PROB_BASE, "Invalid random corrupt argument"},
};

#define FAULT_ARG_UP		(&fault_flakey_args[0])
#define FAULT_ARG_DOWN		(&fault_flakey_args[1])
#define FAULT_ARG_FEATURES	(&fault_flakey_args[2])
#define FAULT_ARG_CBYTE		(&fault_flakey_args[3])
#define FAULT_ARG_CVALUE	(&fault_flakey_args[4])
#define FAULT_ARG_CFLAGS	(&fault_flakey_args[5])
#define FAULT_ARG_RANDOM	(&fault_flakey_args[6])

/* corrupt_bio_byte <nth> <r|w> <value> <flags>, flags 0 only */
static int fault_flakey_corrupt_byte(struct fault_compat_args *ca, struct dm_arg_set *as,
				     char **error)
{
	const char *dir;
	int r;

	r = fault_read_arg(FAULT_ARG_CBYTE, as, &ca->corrupt_byte, error);
	if (r)
		return r;
	dir = dm_shift_arg(as);
	if (strcasecmp(dir, "r") && strcasecmp(dir, "w")) {
		*error = "Invalid corrupt bio direction (r or w)";
		return -EINVAL;
	}
	ca->corrupt_dir = dir[0] | 0x20;
	r = fault_read_arg(FAULT_ARG_CVALUE, as, &ca->corrupt_value, error);
	if (!r)
		r = fault_read_arg(FAULT_ARG_CFLAGS, as, &ca->corrupt_flags, error);
	if (r)
		return r;
	if (ca->corrupt_flags) {
		*error = "corrupt_bio_byte bio flags are not supported";
		return -EINVAL;
	}
	return 0;
}

/* The feature named @name, whose own arguments are among the @argc left. */
static int fault_flakey_feature(struct fault_compat_args *ca, struct dm_arg_set *as,
				const char *name, unsigned int *argc, char **error)
{
	int r;

	if (!strcasecmp(name, "drop_writes") || !strcasecmp(name, "error_writes")) {
		if (ca->flags & (FAULT_FL_DROP_WRITES | FAULT_FL_ERROR_WRITES)) {
			*error = "Only one of drop_writes and error_writes is allowed";
			return -EINVAL;
		}
		/* any case, as dm-flakey: "DROP_WRITES" is not error_writes */
		ca->flags |= tolower(name[0]) == 'd' ? FAULT_FL_DROP_WRITES : FAULT_FL_ERROR_WRITES;
	} else if (FAULT_FLAKEY_V2 && !strcasecmp(name, "error_reads")) {
		ca->flags |= FAULT_FL_ERROR_READS;
	} else if (!strcasecmp(name, "corrupt_bio_byte")) {
		if (*argc < 4) {
			*error = "Feature corrupt_bio_byte requires parameters";
			return -EINVAL;
		}
		r = fault_flakey_corrupt_byte(ca, as, error);
		if (r)
			return r;
		*argc -= 4;
	} else if (FAULT_FLAKEY_V2 && *argc &&
		   (!strcasecmp(name, "random_read_corrupt") ||
		    !strcasecmp(name, "random_write_corrupt"))) {
		r = fault_read_arg(FAULT_ARG_RANDOM, as,
				   tolower(name[7]) == 'r' ? &ca->rrc : &ca->rwc, error);
		if (r)
			return r;
		(*argc)--;
	} else {
		*error = "Unrecognised flakey feature requested";
		return -EINVAL;
	}
	return 0;
}

static int fault_flakey_features(struct fault_compat_args *ca, struct dm_arg_set *as,
				 char **error)
{
	unsigned int argc;
	int r;

	if (!as->argc)
		return 0;
	r = fault_read_arg_group(FAULT_ARG_FEATURES, as, &argc, error);
	if (r)
		return r;
	while (argc) {
		argc--;
		r = fault_flakey_feature(ca, as, dm_shift_arg(as), &argc, error);
		if (r)
			return r;
	}
	if ((ca->flags & (FAULT_FL_DROP_WRITES | FAULT_FL_ERROR_WRITES)) &&
	    ca->corrupt_byte && ca->corrupt_dir == 'w') {
		*error = "drop_writes and error_writes are incompatible with corrupt_bio_byte w";
		return -EINVAL;
	}
	return 0;
}

/**
 * fault_flakey_parse - read the arguments of a flakey table after its device
 * @ca: zeroed; filled in
 * @as: <up interval> <down interval> [<#feature args> [<arg>]*]
 * @error: set to the reason on failure
 *
 * Return: 0, or -EINVAL with *@error set.
 */
int fault_flakey_parse(struct fault_compat_args *ca, struct dm_arg_set *as, char **error)
{
	int r;

	r = fault_read_arg(FAULT_ARG_UP, as, &ca->up, error);
	if (!r)
		r = fault_read_arg(FAULT_ARG_DOWN, as, &ca->down, error);
	if (r)
		return r;
	if (!(ca->up + ca->down) || ca->up + ca->down < ca->up) {
		*error = "Invalid up and down intervals";
		return -EINVAL;
	}
	return fault_flakey_features(ca, as, error);
}

/* The table line as the flakey of this kernel prints it. */
void fault_flakey_format(const struct fault_compat_args *ca, const char *dev,
			 unsigned long long start, char *result, unsigned int maxlen)
{
	bool drop = ca->flags & FAULT_FL_DROP_WRITES, errw = ca->flags & FAULT_FL_ERROR_WRITES;
	bool errr = ca->flags & FAULT_FL_ERROR_READS;
	const char *sep = FAULT_FLAKEY_V2 ? "" : " ";
	unsigned int sz = 0;

	DMEMIT("%s %llu %u %u", dev, start, ca->up, ca->down);
	DMEMIT(" %u%s", errr + drop + errw + (ca->corrupt_byte ? 5 : 0) + (ca->rrc ? 2 : 0) +
	       (ca->rwc ? 2 : 0), sep);
	if (errr)
		DMEMIT(" error_reads");
	if (drop)
		DMEMIT(FAULT_FLAKEY_V2 ? " drop_writes" : "drop_writes ");
	else if (errw)
		DMEMIT(FAULT_FLAKEY_V2 ? " error_writes" : "error_writes ");
	if (ca->corrupt_byte)
		DMEMIT(FAULT_FLAKEY_V2 ? " corrupt_bio_byte %u %c %u %u" :
		       "corrupt_bio_byte %u %c %u %u ", ca->corrupt_byte, ca->corrupt_dir,
		       ca->corrupt_value, ca->corrupt_flags);
	if (ca->rrc)
		DMEMIT(" random_read_corrupt %u", ca->rrc);
	if (ca->rwc)
		DMEMIT(" random_write_corrupt %u", ca->rwc);
}

/**
 * fault_delay_parse - read the delays of a delay table
 * @ca: zeroed; nr_delay and delay_ms[] filled in
 * @argc: 3, 6 or 9
 * @argv: <dev> <offset> <ms> [<dev> <offset> <write ms> [<dev> <offset> <flush ms>]]
 * @error: set to the reason on failure
 *
 * Every class must name the same device and offset as the first (compared
 * as text): a fault device has one device below it.
 *
 * Return: 0, or -EINVAL with *@error set.
 */
int fault_delay_parse(struct fault_compat_args *ca, unsigned int argc, char **argv,
		      char **error)
{
	unsigned int i, ms;

	if (argc != 3 && argc != 6 && argc != 9) {
		*error = "Requires exactly 3, 6 or 9 arguments";
		return -EINVAL;
	}
	ca->nr_delay = argc / 3;
	for (i = 0; i < ca->nr_delay; i++) {
		if (i && (strcmp(argv[3 * i], argv[0]) || strcmp(argv[3 * i + 1], argv[1]))) {
			*error = "Every delay class must map the same device and offset";
			return -EINVAL;
		}
		if (!isdigit(argv[3 * i + 2][0]) || kstrtouint(argv[3 * i + 2], 10, &ms) ||
		    ms > FAULT_DELAY_MAX_MS) {
			*error = "Invalid delay";
			return -EINVAL;
		}
		ca->delay_ms[i] = ms;
	}
	return 0;
}

void fault_delay_format(const struct fault_compat_args *ca, const char *dev,
			unsigned long long start, char *result, unsigned int maxlen)
{
	unsigned int sz = 0, i;

	for (i = 0; i < ca->nr_delay; i++)
		DMEMIT("%s%s %llu %u", i ? " " : "", dev, start, ca->delay_ms[i]);
}
