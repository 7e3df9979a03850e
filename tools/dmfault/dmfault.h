/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * dmfault: the userspace tool for the dm-fault target and the dm-fault
 * allocator hooks.  Declarations shared by its files.
 *
 * Layout: main.c holds the command table, the argument parser, help and the
 * completion script; cmd_dev.c (create, remove, list, table), cmd_rule.c
 * (rules on a live device), cmd_stats.c (stats, log, reset, release) and
 * cmd_alloc.c (allocator hooks, run) are the handlers; dm.c is the only
 * file that talks to libdevmapper and kmsg.c reads the kernel log; spec.c
 * (readable options to table text), parse.c (status and message replies)
 * and json.c (output) use only libc, so the host unit tests link them as
 * they are.
 *
 * Conventions: our functions return 0 or -errno; libdevmapper's return 1
 * for success and are converted in dm.c, never passed on.
 */
#ifndef _DMFAULT_H
#define _DMFAULT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define DMF_VERSION		"1.0.0"
#define DMF_TARGET		"fault"
#define DMF_MAX_RULES		256	/* the target's limit, for messages only */
#define DMF_DEBUGFS		"/sys/kernel/debug/dm-fault"

/* Exit statuses */
enum {
	DMF_EXIT_OK = 0,
	DMF_EXIT_FAIL = 1,
	DMF_EXIT_USAGE = 2,
};

/* Errors of our own, beyond errno, returned as negative values. */
enum {
	DMF_ENOTFAULT = 4096,	/* the device has no fault target */
	DMF_ENOMODULE,		/* the kernel has no fault target type */
	DMF_ESYNTAX,		/* the target rejected a rule or a message */
};

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define __printf(a, b)	__attribute__((format(printf, a, b)))

/* ---- spec.c: units and the option -> table builder ---------------------- */

int dmf_parse_u64(const char *s, uint64_t *v);
int dmf_parse_size(const char *s, uint64_t *bytes);
int dmf_parse_duration(const char *s, uint64_t unit_ns, uint64_t *ns);
int dmf_parse_prob(const char *s);
bool dmf_is_status_name(const char *s);
bool dmf_is_op_list(const char *s);

/* A growable string; text is always NUL-terminated once anything is added. */
struct dmf_buf {
	char *text;
	size_t len;
	size_t size;
	bool oom;
};

void dmf_buf_add(struct dmf_buf *b, const char *fmt, ...)
	__printf(2, 3);
void dmf_buf_free(struct dmf_buf *b);

/* Where a rule went wrong: the word and the reason, for the error message. */
struct dmf_rule_err {
	char word[128];
	const char *reason;
};

int dmf_rule_from_spec(const char *action, const char *spec, struct dmf_buf *out,
		       struct dmf_rule_err *err);
int dmf_rule_check(const char *rule, bool strict, struct dmf_rule_err *err);

struct dmf_table_args {
	const char *dev;		/* as given: path or MAJ:MIN */
	uint64_t offset;		/* sectors */
	uint64_t len;			/* sectors */
	unsigned int nr_rules;
	const char *const *rules;
};

int dmf_table_params(const struct dmf_table_args *ta, struct dmf_buf *out);
int dmf_table_line(const struct dmf_table_args *ta, struct dmf_buf *out);

/* ---- parse.c: status, message replies, kernel log ------------------------ */

#define DMF_NAME_LEN		32

struct dmf_op_stat {
	char name[DMF_NAME_LEN];
	uint64_t bios, bytes, failed, failed_bytes;
};

struct dmf_rule_stat {
	unsigned int id;
	char action[DMF_NAME_LEN];	/* "" when only the status was read */
	int enabled;			/* -1: not known */
	uint64_t seen, matched, injected, seed;
	bool has_seed;
};

/* A device-wide "NAME N" line of the stats reply, e.g. "held 2". */
struct dmf_stat_extra {
	char name[DMF_NAME_LEN];
	uint64_t val;
};

#define DMF_MAX_EXTRA		16

struct dmf_stats {
	unsigned int nr_extra;
	struct dmf_stat_extra extra[DMF_MAX_EXTRA];
	unsigned int nr_ops;
	struct dmf_op_stat *ops;
	unsigned int nr_rules;
	struct dmf_rule_stat *rules;
};

void dmf_stats_free(struct dmf_stats *st);
int dmf_parse_info(const char *status, struct dmf_stats *st, const char **err);
int dmf_parse_stats_reply(const char *reply, struct dmf_stats *st, const char **err);

struct dmf_table_status {
	unsigned int major, minor;
	uint64_t offset;
	unsigned int nr_rules;
	char **rules;
};

void dmf_table_status_free(struct dmf_table_status *ts);
int dmf_parse_table_status(const char *params, struct dmf_table_status *ts,
			   const char **err);

struct dmf_log_entry {
	char time[32];			/* SECONDS.USEC as the kernel printed it */
	uint64_t usec;			/* the same, in microseconds */
	char op[DMF_NAME_LEN];
	uint64_t sector;
	uint64_t bytes;
	unsigned int rule;
	char action[DMF_NAME_LEN];
};

int dmf_parse_log_reply(const char *reply, struct dmf_log_entry **entries,
			unsigned int *nr, const char **err);

struct dmf_rule_info {
	unsigned int id;
	char action[DMF_NAME_LEN];
	bool enabled;
};

int dmf_parse_rule(const char *rule, struct dmf_rule_info *ri);
int dmf_parse_kmsg(const char *record, int *level, uint64_t *usec, const char **text);
int dmf_find_counter(const char *text, const char *key, uint64_t *val);
const char *dmf_kernel_problem(const char *line);

/* ---- json.c ---------------------------------------------------------------- */

struct dmf_json {
	FILE *f;
	int depth;
	bool first;
	bool compact;
};

void dmf_json_init(struct dmf_json *j, FILE *f, bool compact);
void dmf_json_begin(struct dmf_json *j, const char *key, char open);
void dmf_json_end(struct dmf_json *j, char close);
void dmf_json_str(struct dmf_json *j, const char *key, const char *val);
void dmf_json_u64(struct dmf_json *j, const char *key, uint64_t val);
void dmf_json_num(struct dmf_json *j, const char *key, const char *val);
void dmf_json_double(struct dmf_json *j, const char *key, double val);
void dmf_json_bool(struct dmf_json *j, const char *key, bool val);
void dmf_json_null(struct dmf_json *j, const char *key);
void dmf_json_finish(struct dmf_json *j);
void dmf_json_quote(FILE *f, const char *s);

/* ---- dm.c: libdevmapper ------------------------------------------------------ */

struct dmf_segment {
	uint64_t start, len;
	char type[DMF_NAME_LEN];
	char *params;
};

struct dmf_dev {
	char name[128];
	unsigned int major, minor;
	int open_count;
	bool suspended;
	unsigned int nr_segs;
	struct dmf_segment *segs;
	int fault;			/* index of the first fault segment, -1: none */
};

void dmf_dm_init(int verbose);
const char *dmf_dm_last_error(void);
int dmf_dm_target_loaded(void);
int dmf_dm_names(char ***names, unsigned int *nr);
void dmf_free_names(char **names, unsigned int nr);
int dmf_dm_get(const char *name, bool table, struct dmf_dev *dev);
void dmf_dm_put(struct dmf_dev *dev);
int dmf_dm_create(const char *name, uint64_t len, const char *params);
int dmf_dm_remove(const char *name, bool retry);
int dmf_dm_message(const char *name, uint64_t sector, const char *msg, char **reply);

/* ---- kmsg.c: what the kernel logged since a mark ------------------------------ */

struct dmf_kmsg {
	int fd;
};

void dmf_kmsg_mark(struct dmf_kmsg *k);
int dmf_kmsg_next(struct dmf_kmsg *k, char *buf, size_t len, const char **text);
void dmf_kmsg_close(struct dmf_kmsg *k);
const char *dmf_kmsg_dm_reason(struct dmf_kmsg *k, char *out, size_t len);

/* ---- main.c: the command table and output helpers --------------------------- */

struct dmf_opts;

struct dmf_cmd {
	const char *name;		/* one or two words: "create", "rule add" */
	const char *usage;		/* the arguments after the name */
	int min_args, max_args;		/* positional arguments; -1: no limit */
	int (*fn)(const struct dmf_cmd *cmd, struct dmf_opts *o, int argc, char **argv);
	const char *help;		/* one line */
	const char *const *opts;	/* long names of the options it takes */
	unsigned int flags;
};

/* Command flags */
#define DMF_CMD_RULES		(1U << 0)	/* args past min_args are rule texts */
#define DMF_CMD_ARGV		(1U << 1)	/* options end at the first argument */
#define DMF_CMD_DEVICE		(1U << 2)	/* the first argument names a device */
#define DMF_CMD_HIDDEN		(1U << 3)	/* not listed in the help */

struct dmf_kv {
	const char *key;
	const char *val;
	const char *as_given;
};

/* Everything the options of any command can set. */
struct dmf_opts {
	int verbose;
	bool json, print, names, bytes, force, retry, slab, page, nth_sweep, with_exec;
	bool have_offset, have_size;
	uint64_t offset, size;			/* bytes */
	uint64_t watch_ms;
	long long count;			/* --count: watch iterations, -1 forever */
	long long max_steps;
	unsigned int nr_rules;
	char **rules;				/* built or raw rule texts, in order */
	unsigned int nr_set;
	struct dmf_kv *set;			/* knob settings: alloc set, run */
	int cmd_argc;
	char **cmd_argv;
};

int dmf_parse_setting(struct dmf_opts *o, char *arg);
int dmf_err(const char *fmt, ...) __printf(1, 2);
int dmf_usage_err(const struct dmf_cmd *cmd, const char *fmt, ...)
	__printf(2, 3);
int dmf_dev_err(const char *name, int r);
void dmf_info(const struct dmf_opts *o, const char *fmt, ...)
	__printf(2, 3);
void dmf_human_size(uint64_t bytes, char *buf, size_t len);
bool dmf_tty(FILE *f);

/* ---- cmd_*.c: the command handlers ------------------------------------------- */

#define DMF_HANDLER(fn) \
	int fn(const struct dmf_cmd *cmd, struct dmf_opts *o, int argc, char **argv)

DMF_HANDLER(dmf_cmd_create);
DMF_HANDLER(dmf_cmd_remove);
DMF_HANDLER(dmf_cmd_list);
DMF_HANDLER(dmf_cmd_table);
DMF_HANDLER(dmf_cmd_rule_add);
DMF_HANDLER(dmf_cmd_rule_id);
DMF_HANDLER(dmf_cmd_rule_replace);
DMF_HANDLER(dmf_cmd_rule_list);
DMF_HANDLER(dmf_cmd_stats);
DMF_HANDLER(dmf_cmd_reset);
DMF_HANDLER(dmf_cmd_release);
DMF_HANDLER(dmf_cmd_log);
DMF_HANDLER(dmf_cmd_alloc_show);
DMF_HANDLER(dmf_cmd_alloc_set);
DMF_HANDLER(dmf_cmd_alloc_mark);
DMF_HANDLER(dmf_cmd_run);

/* cmd_dev.c, shared by cmd_rule.c and cmd_stats.c */
/* A fault device as list shows it. */
struct dmf_listed {
	char name[128];
	unsigned int major, minor;
	uint64_t size;			/* sectors */
	char disk[128];
	unsigned int disk_major, disk_minor;
	uint64_t offset;		/* sectors */
	unsigned int rules, segments;
	bool suspended;
};

int dmf_open_fault(const char *name, struct dmf_dev *dev);
int dmf_list_one(const char *name, struct dmf_listed *l);
int dmf_fault_names(char ***out, unsigned int *nr);
int dmf_send(const char *name, const char *msg, char **reply, char *kreason, size_t klen,
	     int *err);
const char *dmf_reason_tail(const char *kreason);
int dmf_msg_failed(const char *name, const char *what, int r, const char *kreason);
int dmf_rule_refused(const char *name, const char *rule, int r, const char *kreason);
int dmf_check_rules(const struct dmf_cmd *cmd, const struct dmf_opts *o);
int dmf_check_id(const struct dmf_cmd *cmd, const char *id);

#endif /* _DMFAULT_H */
