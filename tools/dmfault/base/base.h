/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * dmfault's base: what every command folder uses, and nothing that knows
 * a command.  The options (struct dft_opts, filled by main.c) and the
 * command type, messages to the user (out.c), knob settings (opts.c),
 * readable options to table text (spec.c), status and message replies
 * (parse.c), output (json.c), libdevmapper (dm.c, the only file that talks
 * to it), the kernel log (kmsg.c), child processes (proc.c), and the
 * target's own parser for rules (rule.c) and messages (msg.c), declared in
 * rule.h.  spec.c, parse.c, json.c and proc.c use only libc and rule.c, so
 * the host unit tests link them as they are.
 *
 * Conventions: our functions return 0 or -errno; libdevmapper's return 1
 * for success and are converted in dm.c, never passed on.
 */
#ifndef _DMFAULT_BASE_H
#define _DMFAULT_BASE_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>
#include <time.h>

#include "base/rule.h"

#define DFT_VERSION		"1.0.0"
#define DFT_TARGET		"fault"
#define DFT_MAX_RULES		256	/* the target's limit, for messages only */

/* Exit statuses */
enum {
	DFT_EXIT_OK = 0,
	DFT_EXIT_FAIL = 1,
	DFT_EXIT_USAGE = 2,
};

/* Errors of our own, beyond errno, returned as negative values. */
enum {
	DFT_ENOTFAULT = 4096,	/* the device has no fault target */
	DFT_ENOMODULE,		/* the kernel has no fault target type */
	DFT_ESYNTAX,		/* the target rejected a rule or a message */
};

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define __printf(a, b)	__attribute__((format(printf, a, b)))
#define __noreturn	__attribute__((noreturn))

/* ---- options: the command type and struct dft_opts (main.c fills them) ---- */

struct dft_opts;
struct dft_sweep;

/* A command: one row of the table in main.c. */
struct dft_cmd {
	const char *name;		/* one or two words: "create", "rule add" */
	const char *usage;		/* the arguments after the name */
	int min_args, max_args;		/* positional arguments; -1: no limit */
	int (*fn)(const struct dft_cmd *cmd, struct dft_opts *o, int argc, char **argv);
	const char *help;		/* one line */
	const char *const *opts;	/* long names of the options it takes */
	unsigned int flags;
};

/* Command flags */
#define DFT_CMD_RULES		(1U << 0)	/* args past min_args are rule texts */
#define DFT_CMD_ARGV		(1U << 1)	/* options end at the first argument */
#define DFT_CMD_DEVICE		(1U << 2)	/* the first argument names a device */
#define DFT_CMD_HIDDEN		(1U << 3)	/* not listed in the help */
#define DFT_CMD_KEEP_REFUSED	(1U << 4)	/* a refused --ACTION rule goes to the handler */
#define DFT_CMD_FILE		(1U << 5)	/* the second argument is a file */

struct dft_kv {
	const char *key;
	const char *val;
	const char *as_given;
};

/* Everything the options of any command can set. */
struct dft_opts {
	int verbose;
	bool json, print, names, bytes, force, retry, slab, page, nth_sweep, with_exec;
	bool have_offset, have_size;
	uint64_t offset, size;			/* bytes */
	uint64_t watch_ms;
	long long count;			/* --count: watch iterations, -1 forever */
	long long max_steps;
	unsigned int step_timeout;		/* seconds, 0: none */
	unsigned int nr_rules;
	char **rules;				/* built or raw rule texts, in order */
	unsigned int nr_set;
	struct dft_kv *set;			/* knob settings: alloc set, run */
	int cmd_argc;
	char **cmd_argv;
	struct dft_sweep *sweep;		/* hunt: run --nth-sweep reports here */
	char *catalog, *hunt_dir;		/* hunt and crashtest --catalog, hunt --dir */

	/* crashtest */
	char *ct_setup, *ct_workload, *ct_check, *ct_state, *ct_rstate;
	uint64_t ct_seed, ct_limit, ct_unit, ct_subset_max, ct_samples, ct_minimise;
	bool ct_have_seed, ct_have_limit, ct_have_unit, ct_have_subset_max, ct_have_samples;
	bool ct_have_minimise;
	long long ct_max_states;
	unsigned int ct_settle;			/* seconds recorded after the workload */
	bool ct_have_settle;
	char *ct_entry, *ct_fs;			/* --entry of the catalogue, on --fs */
	long long ct_recovery, ct_rc_max;	/* --recovery, --recovery-states */
	char *ct_save, *ct_load, *ct_shard;	/* a run kept in a directory, checked in shares */
	char *ct_svg;				/* the picture of the exploration */
	bool ct_merge;				/* the arguments are shards' --json reports */

	/* badblocks */
	char *bad_mode, *bad_status;
	uint64_t bad_wr_fail, bad_block_size;
	bool bad_have_wr_fail, bad_have_block_size;
};

#define DFT_HANDLER(fn) \
	int fn(const struct dft_cmd *cmd, struct dft_opts *o, int argc, char **argv)

/* ---- out.c: messages to the user ----------------------------------------- */

extern const char dft_prog[];
int dft_err(const char *fmt, ...) __printf(1, 2);
int dft_usage_err(const struct dft_cmd *cmd, const char *fmt, ...)
	__printf(2, 3);
int dft_dev_err(const char *name, int r);
void dft_info(const struct dft_opts *o, const char *fmt, ...)
	__printf(2, 3);
void dft_human_size(uint64_t bytes, char *buf, size_t len);
bool dft_tty(FILE *f);

/* ---- opts.c: knob settings ----------------------------------------------- */

int dft_add_set(struct dft_opts *o, const char *key, const char *val, const char *as_given);
int dft_parse_setting(struct dft_opts *o, char *arg);

/* ---- catalog.c: the catalogues of hunt and crashtest ---------------------- */

/*
 * What a command's catalogue stanza is: its struct (@size bytes) holds the
 * name (a const char * at @name_off), the line where the stanza starts (an
 * unsigned int at @line_off) and each key's value (a const char * at
 * @val_off[i], NULL if not given).
 */
struct dft_cat_kind {
	const char *what;		/* a stanza, in errors: "path", "entry" */
	const char *const *keys;
	const size_t *val_off;
	unsigned int nr_keys;
	const char *keys_said;		/* the keys, as an unknown one's error lists them */
	unsigned int need;		/* the keys every stanza must have: bit i, key i */
	size_t size, name_off, line_off;
	/* a value's own syntax: 0, or nonzero with the reason in @why */
	int (*value_bad)(unsigned int key, const char *v, char *why, size_t len);
};

/* A catalogue file, parsed: @st (@nr stanzas) points into its text. */
struct dft_catalog {
	char *text;
	void *st;
	unsigned int nr;
};

int dft_catalog_parse(struct dft_catalog *c, const struct dft_cat_kind *k, const char *file,
		      char *err, size_t len);
int dft_catalog_read(struct dft_catalog *c, const struct dft_cat_kind *k, const char *file,
		     char *err, size_t len);
void dft_catalog_free(struct dft_catalog *c);
int dft_beside(const char *installed, const char *built, int mode, char *out, char *alt,
	       size_t len);

/* ---- spec.c: units and the option -> rule translation --------------------- */

int dft_parse_u64(const char *s, uint64_t *v);
int dft_parse_size(const char *s, uint64_t *bytes);

/* A growable string; text is always NUL-terminated once anything is added. */
struct dft_buf {
	char *text;
	size_t len;
	size_t size;
	bool oom;
};

void dft_buf_add(struct dft_buf *b, const char *fmt, ...)
	__printf(2, 3);
void dft_buf_free(struct dft_buf *b);

int dft_rule_from_spec(const char *action, const char *spec, struct dft_buf *out,
		       struct dft_rule_err *err);

struct dft_table_args {
	const char *dev;		/* as given: path or MAJ:MIN */
	uint64_t offset;		/* sectors */
	uint64_t len;			/* sectors */
	unsigned int nr_rules;
	const char *const *rules;
};

int dft_table_params(const struct dft_table_args *ta, struct dft_buf *out);
int dft_table_line(const struct dft_table_args *ta, struct dft_buf *out);

/* ---- parse.c: status, message replies, kernel log ------------------------ */

#define DFT_NAME_LEN		32

struct dft_op_stat {
	char name[DFT_NAME_LEN];
	uint64_t bios, bytes, failed, failed_bytes;
};

struct dft_rule_stat {
	unsigned int id;
	char action[DFT_NAME_LEN];
	bool enabled;
	uint64_t seen, matched, injected, seed;
};

/* The counters of the INFO status. */
struct dft_stats {
	uint64_t held;			/* bios held by delay and stall rules */
	char *cache;			/* the cache mode word as given, "-": off */
	char *bad;			/* the bad-block map's word as given, "-": none */
	unsigned int nr_ops;
	struct dft_op_stat *ops;
	unsigned int nr_rules;
	struct dft_rule_stat *rules;
};

/* The cache word of the INFO status: its state and counters (DFT_C_*, rule.h). */
struct dft_cache_stat {
	char state[DFT_NAME_LEN];	/* on, off, crashed */
	uint64_t v[DFT_NR_CACHE];
};

int dft_parse_cache(const char *word, struct dft_cache_stat *c);

/* The bad word of the INFO status: the map's switches and counters (DFT_B_*, rule.h). */
struct dft_bad_stat {
	bool enabled;			/* on: bios that touch a range fail */
	bool partial;			/* the good sectors before a bad one complete */
	uint64_t v[DFT_NR_BAD];
};

int dft_parse_bad(const char *word, struct dft_bad_stat *b);

void dft_stats_free(struct dft_stats *st);
int dft_parse_info(const char *status, struct dft_stats *st, const char **err);

struct dft_table_status {
	unsigned int major, minor;
	uint64_t offset;
	unsigned int nr_rules;
	char **rules;
	char *features;			/* "cache limit=...", or NULL */
};

void dft_table_status_free(struct dft_table_status *ts);
int dft_parse_table_status(const char *params, struct dft_table_status *ts,
			   const char **err);
int dft_parse_compat_table(const char *type, const char *params, struct dft_table_status *ts,
			   const char **err);

struct dft_log_entry {
	char time[32];			/* SECONDS.USEC as the kernel printed it */
	uint64_t usec;			/* the same, in microseconds */
	char op[DFT_NAME_LEN];
	uint64_t sector;
	uint64_t bytes;
	unsigned int rule;
	char action[DFT_NAME_LEN];
};

int dft_parse_log_reply(const char *reply, struct dft_log_entry **entries,
			unsigned int *nr, const char **err);

struct dft_rule_info {
	unsigned int id;
	char action[DFT_NAME_LEN];
	bool enabled;
};

int dft_parse_rule(const char *rule, struct dft_rule_info *ri);
int dft_parse_kmsg(const char *record, int *level, uint64_t *usec, const char **text);
int dft_find_counter(const char *text, const char *key, uint64_t *val);
const char *dft_kernel_problem(const char *line);

/* ---- json.c ---------------------------------------------------------------- */

struct dft_json {
	FILE *f;
	int depth;
	bool first;
	bool compact;
};

void dft_json_init(struct dft_json *j, FILE *f, bool compact);
void dft_json_begin(struct dft_json *j, const char *key, char open);
void dft_json_end(struct dft_json *j, char close);
void dft_json_str(struct dft_json *j, const char *key, const char *val);
void dft_json_u64(struct dft_json *j, const char *key, uint64_t val);
void dft_json_num(struct dft_json *j, const char *key, const char *val);
void dft_json_double(struct dft_json *j, const char *key, double val);
void dft_json_bool(struct dft_json *j, const char *key, bool val);
void dft_json_null(struct dft_json *j, const char *key);
void dft_json_finish(struct dft_json *j);
void dft_json_quote(FILE *f, const char *s);

/* ---- dm.c: libdevmapper ------------------------------------------------------ */

struct dft_segment {
	uint64_t start, len;
	char type[DFT_NAME_LEN];
	char *params;
	bool fault;			/* dm-fault's: "fault" or a compatibility target */
};

struct dft_dev {
	char name[128];
	unsigned int major, minor;
	int open_count;
	bool suspended;
	unsigned int nr_segs;
	struct dft_segment *segs;
	int fault;			/* index of the first fault segment, -1: none */
};

bool dft_is_fault_target(const char *type);
void dft_dm_init(int verbose);
const char *dft_dm_last_error(void);
int dft_dm_target_loaded(void);
int dft_dm_names(char ***names, unsigned int *nr);
void dft_free_names(char **names, unsigned int nr);
int dft_dm_get(const char *name, bool table, struct dft_dev *dev);
void dft_dm_put(struct dft_dev *dev);
int dft_dm_create(const char *name, uint64_t len, const char *params);
int dft_dm_create_as(const char *name, uint64_t len, const char *type, const char *params);
int dft_dm_load(const char *name, uint64_t len, const char *type, const char *params);
int dft_dm_clear(const char *name);
int dft_dm_resume(const char *name);
int dft_dm_suspend(const char *name, bool noflush);
int dft_dm_remove(const char *name, bool retry);
int dft_dm_message(const char *name, uint64_t sector, const char *msg, char **reply);

/* ---- kmsg.c: what the kernel logged since a mark ------------------------------ */

struct dft_kmsg {
	int fd;
};

void dft_kmsg_mark(struct dft_kmsg *k);
int dft_kmsg_next(struct dft_kmsg *k, char *buf, size_t len, const char **text);
void dft_kmsg_close(struct dft_kmsg *k);
const char *dft_kmsg_dm_reason(struct dft_kmsg *k, char *out, size_t len);

/* ---- proc.c: child processes, started, held and waited for with a deadline ---- */

#define DFT_STEP_TIMEOUT	300	/* --step-timeout's default, seconds */

#define DFT_PROC_TRACE	0x1		/* held in its exec-stop (PTRACE_TRACEME) */
#define DFT_PROC_HOLD	0x2		/* held before its exec until dft_proc_release() */

/* What to start: @line with sh -c, or @argv (execvp of @path, else argv[0]). */
struct dft_spawn {
	const char *line;
	char *const *argv;
	const char *path;
	const char *out;		/* stdout and stderr appended to this file, */
	int fd1, fd2;			/* then stdout, stderr to these fds (0: left) */
	char *const *env;		/* "NAME=value" added, NULL-terminated */
	unsigned int flags;		/* DFT_PROC_* */
};

struct dft_proc {
	pid_t pid;
	bool traced;			/* in its exec-stop until released */
	int go;				/* write end: a held child execs when a byte comes */
	int err;			/* read end: errno of a failed exec */
	int exec_errno;			/* the exec failed: the child is gone */
	int status;			/* its wait status, once reaped */
	bool stuck;			/* killed but not dead: not reaped */
};

/*
 * Fork and start @sp.  Traced, it returns with the child held after a
 * successful exec, or reaped with @p->exec_errno set; held, the child waits
 * for dft_proc_release() before its exec.  0 or -errno.
 */
int dft_proc_spawn(struct dft_proc *p, const struct dft_spawn *sp);
/* Let a held or traced child go on, or (!@go) abort it; whether it goes. */
bool dft_proc_release(struct dft_proc *p, bool go);
/*
 * dft_wait_child() for @p, then @p->exec_errno from the child.  Not for a
 * child whose failed exec dft_proc_spawn() has reaped.
 */
int dft_proc_wait(struct dft_proc *p, unsigned int secs, char *hung, size_t len);
/*
 * Wait for @pid; with @secs and @hung, at most that long: then it and its
 * descendants are killed and @hung says what the stuck task was doing.  0: it exited
 * (*status), -ETIMEDOUT: killed after the deadline (*status), -EDEADLK: not
 * dead after SIGKILL (not reaped), or another -errno.
 */
int dft_wait_child(pid_t pid, int *status, unsigned int secs, char *hung, size_t len);
/* Seconds on the monotonic clock, for durations. */
double dft_now(void);
/* Sleep @ms milliseconds, signals or not. */
void dft_sleep_ms(uint64_t ms);
/* A wait status as a shell's $?: the exit status, or 128 + the signal. */
int dft_exit_code(int status);
/*
 * sh -c @line with dft_wait_child(): its output appended to the file @out
 * (NULL: to stderr), @env ("NAME=value" strings, NULL-terminated, or NULL)
 * added to its environment.
 */
int dft_sh_timeout(const char *line, const char *out, char *const *env, unsigned int secs,
		   int *status, char *hung, size_t len);
/*
 * The last @len - 1 bytes of the file at @path, NUL-terminated ("" if it
 * cannot be read): the end of a child's output, where a failed shell line
 * says why.  Returns how many bytes were read.
 */
size_t dft_file_tail(const char *path, char *buf, size_t len);

#endif /* _DMFAULT_BASE_H */
