// SPDX-License-Identifier: GPL-2.0-only
/*
 * dmfault: drive the dm-fault device-mapper target and the dm-fault
 * allocator hooks.  This file only dispatches; each command's handler is
 * in the folder of its concern (README: dev/, alloc/, crash/, hunt/, all
 * on base/).
 *
 * Every command is one row of dft_cmds[]: its name (one or two words), the
 * arguments it takes, the options it accepts, its handler and a line of
 * help.  The usage text, --help, per-command help and the bash completion
 * script are all generated from that table, so a new command is one row and
 * one handler.
 */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "alloc/alloc.h"
#include "crash/crash.h"
#include "dev/dev.h"
#include "hunt/hunt.h"

/* How an option is stored in struct dft_opts. */
enum dft_opt_kind {
	DFT_OPT_FLAG,		/* bool at .off */
	DFT_OPT_SIZE,		/* uint64_t bytes at .off, bool at .seen */
	DFT_OPT_ACTION,		/* a readable rule for action .action */
	DFT_OPT_RULE,		/* a raw rule */
	DFT_OPT_SET,		/* KNOB=VALUE */
	DFT_OPT_KNOB,		/* --NAME V, a shorthand for --set .action=V */
	DFT_OPT_WATCH,
	DFT_OPT_COUNT,		/* long long at .off, 1 or more */
	DFT_OPT_STR,		/* char * at .off */
	DFT_OPT_U64,		/* uint64_t at .off, bool at .seen */
	DFT_OPT_SECONDS,	/* unsigned int at .off, 0 allowed */
	DFT_OPT_VERBOSE,
	DFT_OPT_HELP,
};

struct dft_opt {
	const char *name;
	char short_name;
	const char *arg;		/* metavariable; NULL for a flag */
	enum dft_opt_kind kind;
	size_t off;
	size_t seen;
	const char *action;		/* DFT_OPT_ACTION: the rule action; KNOB: knob */
	const char *help;
};

#define FLAG(n, s, field, h) \
	{ n, s, NULL, DFT_OPT_FLAG, offsetof(struct dft_opts, field), 0, NULL, h }
#define ACTION(n, h) \
	{ n, 0, "SPEC", DFT_OPT_ACTION, 0, 0, n, h }
#define KNOB(n, s, a, h) \
	{ n, s, a, DFT_OPT_KNOB, 0, 0, n, h }
#define STR(n, a, field, h) \
	{ n, 0, a, DFT_OPT_STR, offsetof(struct dft_opts, field), 0, NULL, h }

static const struct dft_opt dft_options[] = {
	{ "help", 'h', NULL, DFT_OPT_HELP, 0, 0, NULL, "show this help and exit" },
	{ "verbose", 'v', NULL, DFT_OPT_VERBOSE, 0, 0, NULL,
	  "say more (repeat for libdevmapper's messages)" },
	FLAG("json", 'J', json, "machine-readable output, one object per device"),
	FLAG("print", 0, print, "print the table line for dmsetup create instead"),
	{ "offset", 0, "SIZE", DFT_OPT_SIZE, offsetof(struct dft_opts, offset),
	  offsetof(struct dft_opts, have_offset), NULL, "start on DEV (default 0)" },
	{ "size", 0, "SIZE", DFT_OPT_SIZE, offsetof(struct dft_opts, size),
	  offsetof(struct dft_opts, have_size), NULL,
	  "length of the device (default: the rest of DEV)" },
	ACTION("error", "fail matching I/O: [OPS:]ITEM,... e.g. read:1%,enospc"),
	ACTION("drop", "acknowledge writes, never write them: e.g. write:5%"),
	ACTION("corrupt", "corrupt data: e.g. read:bits=1,1%"),
	ACTION("delay", "delay I/O: e.g. any:delay=10ms,jitter=5ms"),
	ACTION("stall", "hold I/O until released: e.g. write:timeout=30s"),
	ACTION("torn", "write only a prefix: e.g. write:keep=1,1%"),
	{ "rule", 'r', "RULE", DFT_OPT_RULE, 0, 0, NULL,
	  "a rule in the target's syntax, passed as it is" },
	FLAG("names", 'n', names, "print only the device names"),
	FLAG("bytes", 'b', bytes, "print sizes in bytes"),
	{ "watch", 'w', "SECONDS", DFT_OPT_WATCH, 0, 0, NULL,
	  "refresh every SECONDS with rates per second" },
	{ "count", 'c', "N", DFT_OPT_COUNT, offsetof(struct dft_opts, count), 0, NULL,
	  "stop after N refreshes" },
	FLAG("force", 'f', force, "remove even a device that is not a fault device"),
	FLAG("retry", 0, retry, "retry a remove that fails because the device is busy"),
	FLAG("slab", 0, slab, "the slab hook (failslab), the default"),
	FLAG("page", 0, page, "the page allocator hook (fail_page_alloc)"),
	{ "set", 's', "KNOB=VALUE", DFT_OPT_SET, 0, 0, NULL,
	  "set a hook knob for the run (repeatable)" },
	KNOB("probability", 'p', "P", "fault probability: 5 (%), 0.1%, 1e-6, 1/1000"),
	KNOB("interval", 0, "N", "only every Nth allocation may fail"),
	KNOB("times", 't', "N", "at most N faults (-1: no limit)"),
	KNOB("space", 0, "BYTES", "let BYTES of allocations through first"),
	FLAG("nth-sweep", 0, nth_sweep,
	     "run CMD with fail-nth 1, 2, ... until it completes with no fault"),
	{ "max-steps", 0, "N", DFT_OPT_COUNT, offsetof(struct dft_opts, max_steps), 0, NULL,
	  "stop a sweep after N steps (default 10000)" },
	{ "step-timeout", 0, "SECONDS", DFT_OPT_SECONDS, offsetof(struct dft_opts, step_timeout),
	  0, NULL, "kill a step that runs longer, and what it started (default 300, 0: none)" },
	FLAG("exec", 0, with_exec,
	     "fail allocations of the exec too (as failcmd.sh; may panic a TOMOYO kernel)"),
	STR("setup", "CMD", ct_setup, "crashtest: make the state to start from (mkfs, mount)"),
	STR("workload", "CMD", ct_workload, "crashtest: the program under test, recorded"),
	STR("check", "CMD", ct_check, "crashtest: judge a crash state (mount, app check, fsck)"),
	STR("state", "SPEC", ct_state, "crashtest: record again and check only this state"),
	{ "settle", 0, "SECONDS", DFT_OPT_SECONDS, offsetof(struct dft_opts, ct_settle),
	  offsetof(struct dft_opts, ct_have_settle), NULL,
	  "crashtest: keep recording SECONDS after the workload exits (default 0)" },
	STR("entry", "NAME", ct_entry,
	    "crashtest: the setup, workload, check and settle of a catalogue's entry"),
	STR("fs", "FS", ct_fs, "crashtest --entry: the filesystem (default: the entry's first)"),
	{ "recovery", 0, "N", DFT_OPT_COUNT, offsetof(struct dft_opts, ct_recovery), 0, NULL,
	  "crashtest: record the check of N passing states, check crashes during it" },
	{ "recovery-states", 0, "N", DFT_OPT_COUNT, offsetof(struct dft_opts, ct_rc_max), 0, NULL,
	  "crashtest: at most N states of each such recording (default 50)" },
	STR("recovery-state", "SPEC", ct_rstate,
	    "crashtest: with --state, check only this state of its check's recording"),
	{ "subset-max", 0, "N", DFT_OPT_U64, offsetof(struct dft_opts, ct_subset_max),
	  offsetof(struct dft_opts, ct_have_subset_max), NULL,
	  "crashtest: every subset of an epoch of at most N writes (default 8)" },
	{ "samples", 0, "N", DFT_OPT_U64, offsetof(struct dft_opts, ct_samples),
	  offsetof(struct dft_opts, ct_have_samples), NULL,
	  "crashtest: else N seeded random subsets (default 8)" },
	{ "seed", 0, "N", DFT_OPT_U64, offsetof(struct dft_opts, ct_seed),
	  offsetof(struct dft_opts, ct_have_seed), NULL,
	  "crashtest: the seed of the samples and tears (default 1)" },
	{ "max-states", 0, "N", DFT_OPT_COUNT, offsetof(struct dft_opts, ct_max_states), 0, NULL,
	  "crashtest: check at most N states, shared by the epochs (default 2000)" },
	{ "minimise", 0, "N", DFT_OPT_U64, offsetof(struct dft_opts, ct_minimise),
	  offsetof(struct dft_opts, ct_have_minimise), NULL,
	  "crashtest: checks to shrink a failure's lost writes (default 64, 0: off)" },
	{ "limit", 0, "SIZE", DFT_OPT_SIZE, offsetof(struct dft_opts, ct_limit),
	  offsetof(struct dft_opts, ct_have_limit), NULL,
	  "crashtest: the cache's memory limit, which the recording must fit in" },
	{ "unit", 0, "SIZE", DFT_OPT_SIZE, offsetof(struct dft_opts, ct_unit),
	  offsetof(struct dft_opts, ct_have_unit), NULL,
	  "crashtest: what a torn write keeps or loses (default: the logical block)" },
	STR("save", "DIR", ct_save,
	    "crashtest: record, then keep the run in DIR for --load instead of checking it"),
	STR("load", "DIR", ct_load, "crashtest: check the states of a run --save kept in DIR"),
	STR("shard", "I/N", ct_shard, "crashtest --load: only the states i with i % N == I"),
	FLAG("merge", 0, ct_merge, "crashtest: merge the shards' --json reports given as arguments"),
	STR("svg", "FILE", ct_svg, "crashtest: draw the states of each epoch into FILE"),
	STR("catalog", "FILE", catalog,
	    "hunt, crashtest: the catalogue (default: the one installed with the tool)"),
	STR("dir", "DIR", hunt_dir,
	    "hunt: scratch files and loop images here (default: a new directory in $TMPDIR)"),
	STR("mode", "MODE", bad_mode,
	    "badblocks: heal (reads fail, a write heals; the default), sticky, read or write"),
	STR("status", "STATUS", bad_status,
	    "badblocks: the error the ranges fail with, as a rule's status= (default medium)"),
	{ "wr-fail", 0, "N", DFT_OPT_U64, offsetof(struct dft_opts, bad_wr_fail),
	  offsetof(struct dft_opts, bad_have_wr_fail), NULL,
	  "badblocks: mode heal: writes that fail before one heals (default 0)" },
	{ "block-size", 0, "SIZE", DFT_OPT_SIZE, offsetof(struct dft_opts, bad_block_size),
	  offsetof(struct dft_opts, bad_have_block_size), NULL,
	  "badblocks load: the list's block size, as badblocks -b (default 1024)" },
};

#define OPTS(...)	((const char *const[]){ __VA_ARGS__, NULL })
#define RULE_OPTS	"error", "drop", "corrupt", "delay", "stall", "torn", "rule"
#define BAD_OPTS	"mode", "status", "wr-fail"

static DFT_HANDLER(dft_cmd_help);
static DFT_HANDLER(dft_cmd_version);
static DFT_HANDLER(dft_cmd_completion);

static const struct dft_cmd dft_cmds[] = {
	{ "create", "NAME DEV [RULE...]", 2, 2, dft_cmd_create,
	  "create fault device NAME on block device DEV",
	  OPTS("offset", "size", "print", RULE_OPTS), DFT_CMD_RULES },
	{ "remove", "NAME...", 1, -1, dft_cmd_remove,
	  "remove fault devices",
	  OPTS("retry", "force"), DFT_CMD_DEVICE },
	{ "list", "", 0, 0, dft_cmd_list,
	  "list every fault device with its disk and rule count",
	  OPTS("json", "names", "bytes"), 0 },
	{ "table", "NAME", 1, 1, dft_cmd_table,
	  "print the table line that recreates NAME as it is now",
	  NULL, DFT_CMD_DEVICE },
	{ "rule add", "NAME [RULE...]", 1, 1, dft_cmd_rule_add,
	  "add rules to a live device; prints the new rule ids",
	  OPTS(RULE_OPTS), DFT_CMD_DEVICE | DFT_CMD_RULES },
	{ "rule remove", "NAME ID...", 2, -1, dft_cmd_rule_id,
	  "remove rules", NULL, DFT_CMD_DEVICE },
	{ "rule enable", "NAME ID...", 2, -1, dft_cmd_rule_id,
	  "enable rules", NULL, DFT_CMD_DEVICE },
	{ "rule disable", "NAME ID...", 2, -1, dft_cmd_rule_id,
	  "disable rules (they keep their counters)", NULL, DFT_CMD_DEVICE },
	{ "rule replace", "NAME ID [RULE]", 2, 2, dft_cmd_rule_replace,
	  "replace a rule, keeping its id",
	  OPTS(RULE_OPTS), DFT_CMD_DEVICE | DFT_CMD_RULES },
	{ "rule list", "NAME", 1, 1, dft_cmd_rule_list,
	  "list the rules of a device",
	  OPTS("json"), DFT_CMD_DEVICE },
	{ "rule check", "[RULE...]", 0, 0, dft_cmd_rule_check,
	  "check rules with the target's own parser, without a device",
	  OPTS(RULE_OPTS), DFT_CMD_RULES | DFT_CMD_KEEP_REFUSED },
	{ "stats", "[NAME...]", 0, -1, dft_cmd_stats,
	  "per-op and per-rule counters (every fault device without NAME)",
	  OPTS("json", "watch", "count", "bytes"), DFT_CMD_DEVICE },
	{ "log", "NAME...", 1, -1, dft_cmd_log,
	  "the recent injected faults, oldest first",
	  OPTS("json"), DFT_CMD_DEVICE },
	{ "reset", "NAME...", 1, -1, dft_cmd_reset,
	  "zero the counters and clear the fault log", NULL, DFT_CMD_DEVICE },
	{ "release", "NAME [RULE_ID]", 1, 2, dft_cmd_release,
	  "release I/O held by stall rules (all, or one rule's)", NULL, DFT_CMD_DEVICE },
	{ "badblocks add", "NAME RANGE...", 2, -1, dft_cmd_bad_msg,
	  "mark sector ranges bad: SECTOR, FIRST-LAST or FIRST+COUNT",
	  OPTS(BAD_OPTS), DFT_CMD_DEVICE },
	{ "badblocks remove", "NAME RANGE...", 2, -1, dft_cmd_bad_msg,
	  "make sector ranges good again (a range may split one)", NULL, DFT_CMD_DEVICE },
	{ "badblocks clear", "NAME", 1, 1, dft_cmd_bad_msg,
	  "remove every range", NULL, DFT_CMD_DEVICE },
	{ "badblocks enable", "NAME", 1, 1, dft_cmd_bad_msg,
	  "let the map fail I/O (the default)", NULL, DFT_CMD_DEVICE },
	{ "badblocks disable", "NAME", 1, 1, dft_cmd_bad_msg,
	  "keep the map but fail nothing", NULL, DFT_CMD_DEVICE },
	{ "badblocks partial", "NAME on|off", 2, 2, dft_cmd_bad_msg,
	  "complete the good sectors before a bad one, fail the rest", NULL, DFT_CMD_DEVICE },
	{ "badblocks count", "NAME", 1, 1, dft_cmd_bad_msg,
	  "how many ranges and sectors are bad", NULL, DFT_CMD_DEVICE },
	{ "badblocks query", "NAME SECTOR", 2, 2, dft_cmd_bad_msg,
	  "whether a sector is bad, and its range and kind", NULL, DFT_CMD_DEVICE },
	{ "badblocks list", "NAME", 1, 1, dft_cmd_bad_list,
	  "every bad range with its kind, one a line", NULL, DFT_CMD_DEVICE },
	{ "badblocks load", "NAME FILE", 2, 2, dft_cmd_bad_load,
	  "add the blocks of a badblocks(8) list (- for stdin), in batches",
	  OPTS("block-size", BAD_OPTS), DFT_CMD_DEVICE | DFT_CMD_FILE },
	{ "alloc show", "", 0, 0, dft_cmd_alloc_show,
	  "show the allocator hook knobs and counters",
	  OPTS("slab", "page", "json"), 0 },
	{ "alloc set", "KNOB=VALUE...", 1, -1, dft_cmd_alloc_set,
	  "set allocator hook knobs",
	  OPTS("slab", "page"), 0 },
	{ "alloc mark", "PID...", 1, -1, dft_cmd_alloc_mark,
	  "let the hooks fail allocations of these processes (make-it-fail)", NULL, 0 },
	{ "alloc unmark", "PID...", 1, -1, dft_cmd_alloc_mark,
	  "stop failing allocations of these processes", NULL, 0 },
	{ "run", "[--] CMD [ARG...]", 0, 0, dft_cmd_run,
	  "run CMD with allocator faults aimed at it and report them",
	  OPTS("slab", "page", "set", "probability", "interval", "times", "space",
	       "nth-sweep", "max-steps", "step-timeout", "exec"), DFT_CMD_ARGV },
	{ "crashtest", "DEV | --merge JSON...", 1, -1, dft_cmd_crashtest,
	  "record a workload on DEV once, then check the crash states it can leave",
	  OPTS("setup", "workload", "check", "state", "settle", "catalog", "entry", "fs",
	       "subset-max", "samples", "seed", "max-states", "minimise", "limit", "unit",
	       "step-timeout", "json", "recovery", "recovery-states", "recovery-state", "save",
	       "load", "shard", "merge", "svg"), 0 },
	{ "hunt", "[PATH...]", 0, -1, dft_cmd_hunt,
	  "sweep a catalogue of kernel paths with fail-nth; table of findings",
	  OPTS("slab", "page", "set", "max-steps", "step-timeout", "catalog", "dir", "json"), 0 },
	{ "completion", "[bash]", 0, 1, dft_cmd_completion,
	  "print the bash completion script", NULL, 0 },
	{ "help", "[COMMAND]", 0, 2, dft_cmd_help,
	  "show the help of dmfault or of a command", NULL, 0 },
	{ "version", "", 0, 0, dft_cmd_version,
	  "show the version", NULL, 0 },
};

static const struct dft_opt *dft_find_opt(const char *name, char short_name)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(dft_options); i++) {
		if (name && !strcmp(dft_options[i].name, name))
			return &dft_options[i];
		if (!name && short_name && dft_options[i].short_name == short_name)
			return &dft_options[i];
	}
	return NULL;
}

static bool dft_cmd_takes(const struct dft_cmd *cmd, const struct dft_opt *opt)
{
	const char *const *p;

	if (opt->kind == DFT_OPT_HELP || opt->kind == DFT_OPT_VERBOSE)
		return true;
	for (p = cmd->opts; p && *p; p++)
		if (!strcmp(*p, opt->name))
			return true;
	return false;
}

/* "rule add" -> "rule", "add"; the group of a two-word command. */
static bool dft_cmd_group(const struct dft_cmd *cmd, const char *group)
{
	size_t n = strlen(group);

	return !strncmp(cmd->name, group, n) && cmd->name[n] == ' ';
}

static const struct dft_cmd *dft_find_cmd(const char *w1, const char *w2, int *words)
{
	char two[64];
	unsigned int i;

	if (w2 && snprintf(two, sizeof(two), "%s %s", w1, w2) < (int)sizeof(two)) {
		for (i = 0; i < ARRAY_SIZE(dft_cmds); i++) {
			if (!strcmp(dft_cmds[i].name, two)) {
				*words = 2;
				return &dft_cmds[i];
			}
		}
	}
	for (i = 0; i < ARRAY_SIZE(dft_cmds); i++) {
		if (!strcmp(dft_cmds[i].name, w1)) {
			*words = 1;
			return &dft_cmds[i];
		}
	}
	return NULL;
}

static bool dft_is_group(const char *w)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(dft_cmds); i++)
		if (dft_cmd_group(&dft_cmds[i], w))
			return true;
	return false;
}

/*
 * "badblocks NAME add ...", the device before the subcommand, is read as
 * "badblocks add NAME ..." for the commands about a device: the two words
 * are swapped in @argv.  NULL when the words are not that.
 */
static const struct dft_cmd *dft_find_cmd_dev_first(char **argv, int argc, int i, int *words)
{
	const struct dft_cmd *cmd;
	char *name;
	int n;

	if (i + 2 >= argc || !dft_is_group(argv[i]))
		return NULL;
	cmd = dft_find_cmd(argv[i], argv[i + 2], &n);
	if (!cmd || n != 2 || !(cmd->flags & DFT_CMD_DEVICE))
		return NULL;
	*words = n;
	name = argv[i + 1];
	argv[i + 1] = argv[i + 2];
	argv[i + 2] = name;
	return cmd;
}

/* "rule" without a known subcommand: list the ones there are. */
static int dft_group_err(const char *group, const char *sub)
{
	unsigned int i;
	size_t n = strlen(group) + 1;

	if (sub)
		fprintf(stderr, "%s: %s: unknown subcommand '%s'; one of:", dft_prog, group, sub);
	else
		fprintf(stderr, "%s: %s needs a subcommand, one of:", dft_prog, group);
	for (i = 0; i < ARRAY_SIZE(dft_cmds); i++)
		if (dft_cmd_group(&dft_cmds[i], group))
			fprintf(stderr, " %s", dft_cmds[i].name + n);
	fprintf(stderr, "\nTry '%s help %s'.\n", dft_prog, group);
	return DFT_EXIT_USAGE;
}

static void dft_usage_line(FILE *f, const struct dft_cmd *cmd)
{
	fprintf(f, "%s %s%s%s%s", dft_prog, cmd->name, cmd->opts ? " [OPTION...]" : "",
		*cmd->usage ? " " : "", cmd->usage);
}

static void dft_main_help(FILE *f)
{
	unsigned int i;
	char left[64];

	fprintf(f, "usage: %s [-h] [-V] [-v] COMMAND [OPTION...] [ARG...]\n\n", dft_prog);
	fprintf(f, "Drive the dm-fault device-mapper target and the allocator fault hooks.\n\n");
	fprintf(f, "Commands:\n");
	for (i = 0; i < ARRAY_SIZE(dft_cmds); i++) {
		if (dft_cmds[i].flags & DFT_CMD_HIDDEN)
			continue;
		snprintf(left, sizeof(left), "%s %s", dft_cmds[i].name, dft_cmds[i].usage);
		fprintf(f, "  %-32s %s\n", left, dft_cmds[i].help);
	}
	fprintf(f, "\nOptions:\n");
	fprintf(f, "  -h, --help     show this help, or a command's with COMMAND --help\n");
	fprintf(f, "  -V, --version  show the version\n");
	fprintf(f, "  -v, --verbose  say more\n");
	fprintf(f, "\nExit status: 0 success, 1 failure, 2 bad usage.  See dmfault(8).\n");
}

static void dft_opt_left(const struct dft_opt *opt, char *buf, size_t len)
{
	if (opt->short_name)
		snprintf(buf, len, "-%c, --%s%s%s", opt->short_name, opt->name,
			 opt->arg ? " " : "", opt->arg ? opt->arg : "");
	else
		snprintf(buf, len, "    --%s%s%s", opt->name, opt->arg ? " " : "",
			 opt->arg ? opt->arg : "");
}

static void dft_cmd_usage(FILE *f, const struct dft_cmd *cmd)
{
	const char *const *p;
	const struct dft_opt *opt;
	char left[64];

	fputs("usage: ", f);
	dft_usage_line(f, cmd);
	fprintf(f, "\n\n%c%s.\n", cmd->help[0] - 'a' + 'A', cmd->help + 1);
	if (cmd->flags & DFT_CMD_RULES)
		fprintf(f, "\nA RULE is <action>[:<key>=<value>,...] as the target reads it; the\n"
			"action options build one from readable words (see dmfault(8)).\n");
	fprintf(f, "\nOptions:\n");
	for (p = cmd->opts; p && *p; p++) {
		opt = dft_find_opt(*p, 0);
		if (!opt)
			continue;
		dft_opt_left(opt, left, sizeof(left));
		fprintf(f, "  %-26s %s\n", left, opt->help);
	}
	opt = dft_find_opt("help", 0);
	dft_opt_left(opt, left, sizeof(left));
	fprintf(f, "  %-26s %s\n", left, opt->help);
}

static DFT_HANDLER(dft_cmd_help)
{
	const struct dft_cmd *c;
	int words;

	(void)o;
	if (!argc) {
		dft_main_help(stdout);
		return DFT_EXIT_OK;
	}
	c = dft_find_cmd(argv[0], argc > 1 ? argv[1] : NULL, &words);
	if (!c || words != argc) {
		if (argc == 1 && dft_is_group(argv[0])) {
			unsigned int i;

			for (i = 0; i < ARRAY_SIZE(dft_cmds); i++)
				if (dft_cmd_group(&dft_cmds[i], argv[0]))
					dft_cmd_usage(stdout, &dft_cmds[i]), putchar('\n');
			return DFT_EXIT_OK;
		}
		return dft_usage_err(cmd, "no command '%s%s%s'", argv[0], argc > 1 ? " " : "",
				     argc > 1 ? argv[1] : "");
	}
	dft_cmd_usage(stdout, c);
	return DFT_EXIT_OK;
}

static DFT_HANDLER(dft_cmd_version)
{
	(void)cmd;
	(void)o;
	(void)argc;
	(void)argv;
	printf("dmfault %s\n", DFT_VERSION);
	return DFT_EXIT_OK;
}

/* The completion script's first part: walk the words typed so far. */
static void dft_comp_walk(void)
{
	const struct dft_opt *opt;
	unsigned int i, j;

	printf("\tlocal i cmd= sub= nargs=0\n");
	printf("\tfor ((i = 1; i < cword; i++)); do\n");
	printf("\t\tcase ${words[i-1]} in\n\t\t");
	for (i = 0, j = 0; i < ARRAY_SIZE(dft_options); i++) {
		opt = &dft_options[i];
		if (!opt->arg)
			continue;
		printf("%s--%s", j++ ? " | " : "", opt->name);
		if (opt->short_name)
			printf(" | -%c", opt->short_name);
	}
	printf(") continue ;;\n\t\tesac\n");
	printf("\t\tcase ${words[i]} in\n");
	printf("\t\t--) break ;;\n");
	printf("\t\t-*) ;;\n");
	printf("\t\t*)\n");
	printf("\t\t\tif [[ -z $cmd ]]; then cmd=${words[i]}\n");
	printf("\t\t\telif [[ -z $sub && \" $(_dmfault_subs \"$cmd\") \" == *\" ${words[i]} \"* ]]; then sub=${words[i]}\n");
	printf("\t\t\telse nargs=$((nargs + 1)); fi ;;\n");
	printf("\t\tesac\n\tdone\n\n");
}

/* Options that take a value complete nothing after them; per-command options. */
static void dft_comp_options(void)
{
	const struct dft_opt *opt;
	const char *const *p;
	unsigned int i;

	printf("\tcase $prev in\n");
	for (i = 0; i < ARRAY_SIZE(dft_options); i++) {
		opt = &dft_options[i];
		if (!opt->arg)
			continue;
		printf("\t--%s", opt->name);
		if (opt->short_name)
			printf(" | -%c", opt->short_name);
		printf(") return ;;\n");
	}
	printf("\tesac\n\n");
	printf("\tlocal opts=\n\tcase \"$cmd $sub\" in\n");
	for (i = 0; i < ARRAY_SIZE(dft_cmds); i++) {
		const struct dft_cmd *c = &dft_cmds[i];

		printf("\t\"%s%s\")\n\t\topts=\"--help", c->name, strchr(c->name, ' ') ? "" : " ");
		for (p = c->opts; p && *p; p++)
			printf(" --%s", *p);
		printf("\" ;;\n");
	}
	printf("\tesac\n\n");
}

/* A case pattern: the commands with every flag of @want and none of @skip. */
static void dft_comp_case(unsigned int want, unsigned int skip)
{
	unsigned int i, j;

	for (i = 0, j = 0; i < ARRAY_SIZE(dft_cmds); i++) {
		if ((dft_cmds[i].flags & want) != want || (dft_cmds[i].flags & skip))
			continue;
		printf("%s\"%s%s\"", j++ ? " | " : "\t", dft_cmds[i].name,
		       strchr(dft_cmds[i].name, ' ') ? "" : " ");
	}
	printf(")\n");
}

/* Command words, then device names and files where arguments go. */
static void dft_comp_words(void)
{
	static const char names[] =
		"$(compgen -W \"$(dmfault list --names 2>/dev/null)\" -- \"$cur\")";
	unsigned int i, j;

	printf("\tif [[ $cur == -* ]]; then\n");
	printf("\t\tCOMPREPLY=($(compgen -W \"$opts\" -- \"$cur\"))\n\t\treturn\n\tfi\n");
	printf("\tif [[ -z $cmd ]]; then\n\t\tCOMPREPLY=($(compgen -W \"");
	for (i = 0, j = 0; i < ARRAY_SIZE(dft_cmds); i++) {
		const char *sp = strchr(dft_cmds[i].name, ' ');
		size_t n = sp ? (size_t)(sp - dft_cmds[i].name) : strlen(dft_cmds[i].name);

		if (i && !strncmp(dft_cmds[i - 1].name, dft_cmds[i].name, n) &&
		    dft_cmds[i - 1].name[n] == ' ' && sp)
			continue;
		printf("%s%.*s", j++ ? " " : "", (int)n, dft_cmds[i].name);
	}
	printf(" --help --version\" -- \"$cur\"))\n\t\treturn\n\tfi\n");
	printf("\tlocal subs=$(_dmfault_subs \"$cmd\")\n");
	printf("\tif [[ -n $subs && -z $sub ]]; then\n");
	printf("\t\tCOMPREPLY=($(compgen -W \"$subs\" -- \"$cur\"))\n\t\treturn\n\tfi\n");
	printf("\tcase \"$cmd $sub\" in\n");
	dft_comp_case(DFT_CMD_DEVICE | DFT_CMD_FILE, 0);
	printf("\t\tif ((nargs == 0)); then\n\t\t\tCOMPREPLY=(%s)\n", names);
	printf("\t\telif ((nargs == 1)); then\n\t\t\tCOMPREPLY=($(compgen -f -- \"$cur\"))\n");
	printf("\t\tfi ;;\n");
	dft_comp_case(DFT_CMD_DEVICE, DFT_CMD_FILE);
	printf("\t\tif ((nargs == 0)) || [[ $cmd == remove || $cmd == stats || $cmd == log || $cmd == reset ]]; then\n");
	printf("\t\t\tCOMPREPLY=(%s)\n", names);
	printf("\t\tfi ;;\n");
	printf("\t\"create \")\n");
	printf("\t\t((nargs == 1)) && COMPREPLY=($(compgen -f -- \"${cur:-/dev/}\")) ;;\n");
	printf("\t\"run \")\n");
	printf("\t\tCOMPREPLY=($(compgen -c -- \"$cur\")) ;;\n");
	printf("\tesac\n}\n\n");
}

/* _dmfault_subs: the second words of two-word commands. */
static void dft_comp_subs(void)
{
	unsigned int i, j;

	printf("_dmfault_subs()\n{\n\tcase $1 in\n");
	for (i = 0; i < ARRAY_SIZE(dft_cmds); i++) {
		const char *sp = strchr(dft_cmds[i].name, ' ');

		if (!sp || (i && !strncmp(dft_cmds[i - 1].name, dft_cmds[i].name,
					  sp - dft_cmds[i].name + 1)))
			continue;
		printf("\t%.*s) echo \"", (int)(sp - dft_cmds[i].name), dft_cmds[i].name);
		for (j = i; j < ARRAY_SIZE(dft_cmds) &&
		     !strncmp(dft_cmds[j].name, dft_cmds[i].name, sp - dft_cmds[i].name + 1); j++)
			printf("%s%s", j > i ? " " : "", dft_cmds[j].name + (sp - dft_cmds[i].name) + 1);
		printf("\" ;;\n");
	}
	printf("\tesac\n}\n\n");
	printf("complete -F _dmfault dmfault\n");
}

/*
 * The bash completion script, from the command table: command words, the
 * options of each command, and device names from "dmfault list --names".
 */
static DFT_HANDLER(dft_cmd_completion)
{
	(void)o;
	if (argc && strcmp(argv[0], "bash"))
		return dft_usage_err(cmd, "only bash is supported, not '%s'", argv[0]);
	printf("# bash completion for dmfault(8)  -*- shell-script -*-\n");
	printf("# SPDX-License-Identifier: GPL-2.0-only\n");
	printf("# Generated by 'dmfault completion bash' from the command table: do not edit.\n\n");
	printf("_dmfault()\n{\n");
	printf("\tlocal cur prev words cword\n");
	printf("\t_init_completion 2>/dev/null || {\n");
	printf("\t\tcur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}\n");
	printf("\t\twords=(\"${COMP_WORDS[@]}\") cword=$COMP_CWORD\n\t}\n\n");
	dft_comp_walk();
	dft_comp_options();
	dft_comp_words();
	dft_comp_subs();
	return DFT_EXIT_OK;
}

static int dft_add_str(char ***arr, unsigned int *nr, const char *s)
{
	char **p = realloc(*arr, (*nr + 1) * sizeof(**arr));

	if (!p)
		return -ENOMEM;
	*arr = p;
	p[*nr] = strdup(s);
	if (!p[*nr])
		return -ENOMEM;
	(*nr)++;
	return 0;
}

/* --error SPEC and the other actions: a readable rule, checked and kept. */
static int dft_opt_action(const struct dft_cmd *cmd, struct dft_opts *o,
			  const struct dft_opt *opt, const char *val)
{
	struct dft_rule_err rerr = { .reason = NULL };
	struct dft_buf b = { 0 };
	char where[512];
	int r;

	r = dft_rule_from_spec(opt->action, val, &b, &rerr);
	if (r == -ENOMEM)
		return dft_err("out of memory");
	/* built but refused: the handler reports it (rule check, with the others) */
	if (r && b.len && (cmd->flags & DFT_CMD_KEEP_REFUSED))
		r = 0;
	if (r) {
		r = dft_usage_err(cmd, "--%s %s: rule syntax error %s: %s", opt->name, val,
				  dft_rule_where(&rerr, b.len ? b.text : val, where, sizeof(where)),
				  rerr.reason);
		dft_buf_free(&b);
		return r;
	}
	r = dft_add_str(&o->rules, &o->nr_rules, b.text);
	dft_buf_free(&b);
	return r ? dft_err("out of memory") : 0;
}

/* --watch: whole seconds, or a duration as rules take it, 1 ms at least. */
static int dft_opt_watch(const struct dft_cmd *cmd, struct dft_opts *o, const char *val)
{
	uint64_t u;

	if (!dft_parse_u64(val, &u) && u && u <= 86400)
		u *= 1000000000ULL;
	else if (dft_parse_duration(val, &u) || u < 1000000)
		return dft_usage_err(cmd, "--watch: '%s' is not an interval (1, 2s, 250ms)", val);
	o->watch_ms = u / 1000000;
	return 0;
}

/* Store one option's value; returns an exit status, 0 to go on. */
static int dft_set_opt(const struct dft_cmd *cmd, struct dft_opts *o,
		       const struct dft_opt *opt, char *val)
{
	uint64_t u;
	int r;

	switch (opt->kind) {
	case DFT_OPT_HELP:
		dft_cmd_usage(stdout, cmd);
		return -1;
	case DFT_OPT_VERBOSE:
		o->verbose++;
		return 0;
	case DFT_OPT_FLAG:
		*(bool *)((char *)o + opt->off) = true;
		return 0;
	case DFT_OPT_SIZE:
		r = dft_parse_size(val, &u);
		if (r)
			return dft_usage_err(cmd, "--%s: '%s' is not a size (4096, 4k, 1m, 1g)",
					     opt->name, val);
		if (u % 512)
			return dft_usage_err(cmd, "--%s: %s is not a multiple of 512 bytes",
					     opt->name, val);
		*(uint64_t *)((char *)o + opt->off) = u;
		*(bool *)((char *)o + opt->seen) = true;
		return 0;
	case DFT_OPT_ACTION:
		return dft_opt_action(cmd, o, opt, val);
	case DFT_OPT_RULE:
		return dft_add_str(&o->rules, &o->nr_rules, val) ? dft_err("out of memory") : 0;
	case DFT_OPT_SET:
		r = dft_parse_setting(o, val);
		if (r == -EINVAL)
			return dft_usage_err(cmd, "--set wants KNOB=VALUE, not '%s'", val);
		return r ? dft_err("out of memory") : 0;
	case DFT_OPT_KNOB:
		return dft_add_set(o, opt->action, val, NULL) ? dft_err("out of memory") : 0;
	case DFT_OPT_WATCH:
		return dft_opt_watch(cmd, o, val);
	case DFT_OPT_COUNT:
		if (dft_parse_u64(val, &u) || !u || u > INT64_MAX)
			return dft_usage_err(cmd, "--%s: '%s' is not a positive count",
					     opt->name, val);
		*(long long *)((char *)o + opt->off) = u;
		return 0;
	case DFT_OPT_SECONDS:
		if (dft_parse_u64(val, &u) || u > 7 * 24 * 3600)
			return dft_usage_err(cmd, "--%s: '%s' is not a number of seconds (0 to 604800)",
					     opt->name, val);
		*(unsigned int *)((char *)o + opt->off) = u;
		if (opt->seen)
			*(bool *)((char *)o + opt->seen) = true;
		return 0;
	case DFT_OPT_STR:
		*(char **)((char *)o + opt->off) = val;
		return 0;
	case DFT_OPT_U64:
		if (dft_parse_u64(val, &u))
			return dft_usage_err(cmd, "--%s: '%s' is not a number", opt->name, val);
		*(uint64_t *)((char *)o + opt->off) = u;
		*(bool *)((char *)o + opt->seen) = true;
		return 0;
	}
	return 0;
}

/*
 * getopt_long's view of dft_options[]: every option (so that one of another
 * command is named as such, not as unknown), long ones returning
 * DFT_LONG + index.  "-" keeps non-options in place (rule arguments keep
 * their order with the rule options); "+" stops at the first one (the
 * command that run starts).
 */
#define DFT_LONG	256

static void dft_getopt_tables(const struct dft_cmd *cmd, struct option *lo, char *so)
{
	unsigned int i;

	*so++ = cmd->flags & DFT_CMD_ARGV ? '+' : '-';
	*so++ = ':';
	for (i = 0; i < ARRAY_SIZE(dft_options); i++) {
		const struct dft_opt *opt = &dft_options[i];

		lo[i] = (struct option){ opt->name, opt->arg ? required_argument : no_argument,
					 NULL, DFT_LONG + i };
		if (opt->short_name) {
			*so++ = opt->short_name;
			if (opt->arg)
				*so++ = ':';
		}
	}
	lo[i] = (struct option){ 0 };
	*so = '\0';
}

/* getopt_long refused argv[optind - 1]: say why, as the option table names it. */
static int dft_getopt_err(const struct dft_cmd *cmd, int c, char *const *argv)
{
	const char *a = argv[optind - 1];
	const struct dft_opt *opt = NULL;

	if (optopt >= DFT_LONG)
		opt = &dft_options[optopt - DFT_LONG];
	else if (optopt)
		opt = dft_find_opt(NULL, optopt);
	if (!opt)
		return dft_usage_err(cmd, "unknown option '%s'", a);
	if (c == ':')
		return dft_usage_err(cmd, "option --%s needs %s", opt->name, opt->arg);
	return dft_usage_err(cmd, "option --%s takes no value", opt->name);
}

/* One positional argument: a rule past the fixed ones, or an argument. */
static int dft_add_arg(const struct dft_cmd *cmd, struct dft_opts *o, char *a, int *nargs,
		       char **args)
{
	if ((cmd->flags & DFT_CMD_RULES) && *nargs >= cmd->min_args)
		return dft_add_str(&o->rules, &o->nr_rules, a) ? dft_err("out of memory") : 0;
	args[(*nargs)++] = a;
	return 0;
}

static int dft_check_nargs(const struct dft_cmd *cmd, int nargs, char **args)
{
	if (nargs < cmd->min_args)
		return dft_usage_err(cmd, "missing argument%s (usage: %s %s %s)",
				     cmd->min_args - nargs > 1 ? "s" : "", dft_prog,
				     cmd->name, cmd->usage);
	if (cmd->max_args >= 0 && nargs > cmd->max_args)
		return dft_usage_err(cmd, "unexpected argument '%s' (usage: %s %s %s)",
				     args[cmd->max_args], dft_prog, cmd->name, cmd->usage);
	return -1;
}

/*
 * Parse the options and arguments of @cmd in argv[1..argc) (argv[0] is the
 * command's last word) with getopt_long.  Options may come anywhere before
 * "--".  Returns -1 to go on, or an exit status.
 */
static int dft_parse_args(const struct dft_cmd *cmd, struct dft_opts *o, int argc,
			  char **argv, int *nargs, char **args)
{
	struct option lo[ARRAY_SIZE(dft_options) + 1];
	char so[2 * ARRAY_SIZE(dft_options) + 3];
	const struct dft_opt *opt;
	int c, r;

	dft_getopt_tables(cmd, lo, so);
	*nargs = 0;
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, so, lo, NULL)) != -1) {
		if (c == 1) {
			r = dft_add_arg(cmd, o, optarg, nargs, args);
			if (r)
				return r;
			continue;
		}
		if (c == '?' || c == ':')
			return dft_getopt_err(cmd, c, argv);
		opt = c >= DFT_LONG ? &dft_options[c - DFT_LONG] : dft_find_opt(NULL, c);
		if (!dft_cmd_takes(cmd, opt))
			return dft_usage_err(cmd, "option --%s does not apply here", opt->name);
		r = dft_set_opt(cmd, o, opt, optarg);
		if (r)
			return r < 0 ? DFT_EXIT_OK : r;
	}
	if (cmd->flags & DFT_CMD_ARGV) {
		o->cmd_argc = argc - optind;
		o->cmd_argv = argv + optind;
		return -1;
	}
	for (; optind < argc; optind++) {
		r = dft_add_arg(cmd, o, argv[optind], nargs, args);
		if (r)
			return r;
	}
	return dft_check_nargs(cmd, *nargs, args);
}

static void dft_opts_free(struct dft_opts *o)
{
	unsigned int i;

	for (i = 0; i < o->nr_rules; i++)
		free(o->rules[i]);
	free(o->rules);
	for (i = 0; i < o->nr_set; i++)
		free((char *)o->set[i].as_given);
	free(o->set);
}

int main(int argc, char **argv)
{
	struct dft_opts o = { .count = -1, .max_steps = 10000, .step_timeout = DFT_STEP_TIMEOUT };
	const struct dft_cmd *cmd;
	char **args;
	int i = 1, words, nargs, r;

	/* options before the command */
	for (; i < argc && argv[i][0] == '-'; i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			dft_main_help(stdout);
			return DFT_EXIT_OK;
		} else if (!strcmp(argv[i], "-V") || !strcmp(argv[i], "--version")) {
			return dft_cmd_version(NULL, &o, 0, NULL);
		} else if (!strcmp(argv[i], "-v") || !strcmp(argv[i], "--verbose")) {
			o.verbose++;
		} else {
			return dft_usage_err(NULL, "unknown option '%s'", argv[i]);
		}
	}
	if (i >= argc) {
		dft_main_help(stderr);
		return DFT_EXIT_USAGE;
	}
	cmd = dft_find_cmd(argv[i], i + 1 < argc ? argv[i + 1] : NULL, &words);
	if (!cmd || (words == 1 && dft_is_group(argv[i])))
		cmd = dft_find_cmd_dev_first(argv, argc, i, &words) ?: cmd;
	if (!cmd || (words == 1 && dft_is_group(argv[i]))) {
		if (dft_is_group(argv[i]))
			return dft_group_err(argv[i], i + 1 < argc ? argv[i + 1] : NULL);
		return dft_usage_err(NULL, "unknown command '%s'", argv[i]);
	}
	i += words;
	args = calloc(argc + 1, sizeof(*args));
	if (!args)
		return dft_err("out of memory");
	/* getopt_long wants argv[0]: the command's last word */
	r = dft_parse_args(cmd, &o, argc - i + 1, argv + i - 1, &nargs, args);
	if (r < 0) {
		dft_dm_init(o.verbose);
		r = cmd->fn(cmd, &o, nargs, args);
	}
	free(args);
	dft_opts_free(&o);
	if (fflush(stdout) || ferror(stdout)) {
		if (errno != EPIPE)
			return dft_err("write error: %s", strerror(errno));
	}
	return r;
}
