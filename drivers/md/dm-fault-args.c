// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-fault table and message arguments: numbers read as dm_read_arg() reads
 * them but without its wrap past UINT_MAX; a fault table's rule count, rule
 * words and cache feature read into a struct fault_table_args; a message's
 * words read into a struct fault_msg.  Nothing here opens a device, makes
 * a rule or looks at a device's state (that is dm-fault.c and
 * dm-fault-cache.c): the host fuzzers build this file.  The compatibility
 * targets' words are dm-fault-compat-args.c's.
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
	/* not a number where the feature count belongs: a rule the rule count left out */
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

/* The first word is no message of ours: the log names it. */
static int fault_msg_unknown(struct fault_msg *m, char **argv, char **error)
{
	m->cmd = FAULT_MSG_NONE;
	m->word = argv[0];
	*error = "Unrecognised message";
	return -EINVAL;
}

/* release [<id>]: an id of 1 or more, none for every held bio */
static int fault_msg_parse_release(struct fault_msg *m, unsigned int argc, char **argv,
				   char **error)
{
	if (argc > 2)
		return fault_msg_unknown(m, argv, error);
	if (argc == 2 && (kstrtouint(argv[1], 10, &m->id) || !m->id)) {
		m->word = argv[1];
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
		return fault_msg_unknown(m, argv, error);
	m->form = argv[1];
	m->word = argv[argc - 1];
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
	struct fault_view v = { .ranges = NULL, .tears = NULL };
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
 * Every message: its words, its FAULT_MSGF_* flags and, for a first word,
 * the reader of the words after it (NULL: there are none).
 */
static const struct {
	const char *name;
	unsigned int flags;
	int (*parse)(struct fault_msg *m, unsigned int argc, char **argv, char **error);
} fault_msgs[FAULT_NR_MSGS] = {
	[FAULT_MSG_NONE] = { "?", 0, NULL },
	[FAULT_MSG_RULE] = { "rule", FAULT_MSGF_WORD | FAULT_MSGF_RULE, fault_msg_parse_rule },
	[FAULT_MSG_RULE_ADD] = { "rule add", FAULT_MSGF_RULE, NULL },
	[FAULT_MSG_RULE_REPLACE] = { "rule replace", FAULT_MSGF_RULE, NULL },
	[FAULT_MSG_RULE_REMOVE] = { "rule remove", FAULT_MSGF_RULE, NULL },
	[FAULT_MSG_RULE_ENABLE] = { "rule enable", FAULT_MSGF_RULE, NULL },
	[FAULT_MSG_RULE_DISABLE] = { "rule disable", FAULT_MSGF_RULE, NULL },
	[FAULT_MSG_RULE_LIST] = { "rule list", FAULT_MSGF_RULE, NULL },
	[FAULT_MSG_STATS] = { "stats", FAULT_MSGF_WORD, NULL },
	[FAULT_MSG_LOG] = { "log", FAULT_MSGF_WORD, NULL },
	[FAULT_MSG_RELEASE] = { "release", FAULT_MSGF_WORD | FAULT_MSGF_ID,
			fault_msg_parse_release },
	[FAULT_MSG_RESET] = { "reset", FAULT_MSGF_WORD, NULL },
	[FAULT_MSG_BAD] = { "bad", FAULT_MSGF_WORD, fault_msg_parse_bad },
	[FAULT_MSG_BAD_ADD] = { "bad add", 0, NULL },
	[FAULT_MSG_BAD_REMOVE] = { "bad remove", 0, NULL },
	[FAULT_MSG_BAD_CLEAR] = { "bad clear", 0, NULL },
	[FAULT_MSG_BAD_QUERY] = { "bad query", 0, NULL },
	[FAULT_MSG_BAD_COUNT] = { "bad count", 0, NULL },
	[FAULT_MSG_BAD_LIST] = { "bad list", 0, NULL },
	[FAULT_MSG_BAD_ENABLE] = { "bad enable", 0, NULL },
	[FAULT_MSG_BAD_DISABLE] = { "bad disable", 0, NULL },
	[FAULT_MSG_BAD_PARTIAL] = { "bad partial", 0, NULL },
	[FAULT_MSG_CACHE] = { "cache", FAULT_MSGF_WORD, fault_msg_parse_cache },
	[FAULT_MSG_CACHE_ON] = { "cache on", 0, NULL },
	[FAULT_MSG_CACHE_OFF] = { "cache off", 0, NULL },
	[FAULT_MSG_CRASH] = { "crash", FAULT_MSGF_WORD, fault_msg_parse_crash },
	[FAULT_MSG_MARK] = { "mark", FAULT_MSGF_WORD | FAULT_MSGF_TAKES, fault_msg_parse_mark },
	[FAULT_MSG_RECOVER] = { "recover", FAULT_MSGF_WORD | FAULT_MSGF_TAKES, NULL },
	[FAULT_MSG_LOST] = { "lost", FAULT_MSGF_WORD | FAULT_MSGF_TAKES, NULL },
	[FAULT_MSG_RECORD] = { "record", FAULT_MSGF_WORD, fault_msg_parse_record },
	[FAULT_MSG_RECORD_LIST] = { "record list", 0, NULL },
	[FAULT_MSG_VIEW] = { "view", FAULT_MSGF_WORD, fault_msg_parse_view },
};

/**
 * fault_msg_name - the words that start a message, for its warnings
 * @cmd: the message
 *
 * Return: a static string, "?" for FAULT_MSG_NONE or a value out of range.
 */
const char *fault_msg_name(enum fault_msg_cmd cmd)
{
	return cmd < FAULT_NR_MSGS ? fault_msgs[cmd].name : "?";
}

/**
 * fault_msg_flags - how a message is found and its refusals logged
 * @cmd: the message
 *
 * Return: its FAULT_MSGF_* flags, 0 for a value out of range.
 */
unsigned int fault_msg_flags(enum fault_msg_cmd cmd)
{
	return cmd < FAULT_NR_MSGS ? fault_msgs[cmd].flags : 0;
}

/*
 * A message of one word given more: one whose refusals say what it takes
 * says that it takes none; any other is no message of ours.
 */
static int fault_msg_parse_alone(struct fault_msg *m, unsigned int argc, char **argv,
				 char **error)
{
	if (argc == 1)
		return 0;
	if (!(fault_msgs[m->cmd].flags & FAULT_MSGF_TAKES))
		return fault_msg_unknown(m, argv, error);
	*error = "takes no arguments";
	return -EINVAL;
}

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
 * message when its first word was recognised, FAULT_MSG_NONE otherwise,
 * and @m->word and @m->form hold what its log line names.
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
	for (i = 0; i < FAULT_NR_MSGS; i++) {
		if (!(fault_msgs[i].flags & FAULT_MSGF_WORD) ||
		    strcasecmp(argv[0], fault_msgs[i].name))
			continue;
		m->cmd = i;
		if (!fault_msgs[i].parse)
			return fault_msg_parse_alone(m, argc, argv, error);
		return fault_msgs[i].parse(m, argc, argv, error);
	}
	return fault_msg_unknown(m, argv, error);
}
