/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * dmfault: the userspace tool for the dm-fault target and the dm-fault
 * allocator hooks.  Declarations shared by its files.
 *
 * Layout: main.c holds the command table, the argument parser, help and the
 * completion script; cmd_dev.c (create, remove, list, table), cmd_rule.c
 * (rules on a live device), cmd_stats.c (stats, log, reset, release),
 * cmd_alloc.c (allocator hooks, run) with sweep.c (the fail-nth sweep of
 * run --nth-sweep and hunt), cmd_hunt.c (hunt),
 * cmd_crash.c (crashtest, with crash_report.c for its account) and
 * cmd_bad.c (badblocks) are the handlers; hunt.c holds the hunt's
 * catalogue parser, call chains and findings; dm.c is the only file that talks to
 * libdevmapper and kmsg.c reads the kernel log; rule.c checks rules and
 * msg.c messages with the target's own parser (rule.h); spec.c (readable
 * options to table text), parse.c (status and message replies), json.c
 * (output), record.c (crashtest's recording), explore.c (its crash states
 * and delta debugging) and badfile.c (badblocks(8) lists to messages) use
 * only libc and rule.c, so the host unit tests link them as they are;
 * fsmap.c asks debugfs and xfs_db which files hold sectors.
 *
 * Conventions: our functions return 0 or -errno; libdevmapper's return 1
 * for success and are converted in dm.c, never passed on.
 */
#ifndef _DMFAULT_H
#define _DMFAULT_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>
#include <time.h>

#include "rule.h"

#define DFT_VERSION		"1.0.0"
#define DFT_TARGET		"fault"
#define DFT_MAX_RULES		256	/* the target's limit, for messages only */
#define DFT_DEBUGFS		"/sys/kernel/debug/dm-fault"

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

/* ---- hunt.c: the hunt's catalogue, call chains and findings (libc only) ----- */

#define DFT_CHAIN_LEN		1024

/* A kernel path of the hunt: shell lines (sh -c) around one command. */
struct dft_hunt_path {
	const char *name;
	const char *setup;		/* once, before the sweep */
	const char *cmd;		/* the swept command (step), split at blanks */
	const char *post;		/* after each step (undo what the step did) */
	const char *teardown;		/* once, after the sweep */
	const char *knobs;		/* KNOB=VALUE... for this path; probe=FILE */
	unsigned int line;		/* where its stanza starts in the file */
};

/* A catalogue file, parsed: the paths point into its text. */
struct dft_hunt_catalog {
	char *text;
	struct dft_hunt_path *paths;
	unsigned int nr;
};

int dft_hunt_catalog_parse(struct dft_hunt_catalog *c, const char *file, char *err, size_t len);
int dft_hunt_catalog_read(struct dft_hunt_catalog *c, const char *file, char *err, size_t len);
void dft_hunt_catalog_free(struct dft_hunt_catalog *c);
int dft_hunt_env_line(char *line, char **key, char **val);
int dft_hunt_expand(const char *in, char *out, size_t len, char *bad, size_t badlen);

/* The call chain of the fault a step injected, from the hook's log (verbose 2). */
struct dft_chain {
	char fault[256];		/* "failslab kmem_cache_alloc_noprof(cache ...)" */
	char frames[DFT_CHAIN_LEN];	/* "p9_tag_alloc < p9_client_prepare_req < ..." */
	unsigned int nr;
	bool seen;			/* a fault was logged */
};

bool dft_chain_feed(struct dft_chain *c, const char *text);
void dft_chain_key(const struct dft_chain *c, const char *kind, const char *what, char *key,
		   size_t len);

/* One finding of the hunt: a kernel problem or lasting damage, by call chain. */
struct dft_finding {
	char key[DFT_CHAIN_LEN + 96];
	char kind[32];			/* "WARNING:", "lasting damage", ... */
	char what[256];			/* the first log line, or what the probe saw */
	struct dft_chain chain;
	char path[64];			/* where it was seen first */
	long long step;
	unsigned int hits;
	char paths[256];		/* every path it was seen in */
};

struct dft_findings {
	struct dft_finding *f;
	unsigned int nr;
};

bool dft_alloc_failure_report(const char *line);
int dft_findings_add(struct dft_findings *fs, const struct dft_finding *nf);
void dft_findings_free(struct dft_findings *fs);

/* ---- sweep.c: the fail-nth sweep, for run --nth-sweep and hunt; cmd_alloc.c runs its steps ---- */

/* What one step of a sweep did and left behind. */
struct dft_step {
	long long step;
	uint64_t faults;
	char status[128];		/* "exit 1", "exec failed: ..." */
	unsigned int problems;		/* kernel problem lines logged */
	char problem[256];		/* the first */
	const char *kind;		/* its pattern (dft_kernel_problem) */
	char damage[640];		/* what the sanity probe found broken, or "" */
	char hung[640];			/* past --step-timeout: what it hung in, or "" */
	bool stuck;			/* and SIGKILL did not end it */
	struct dft_chain chain;
};

enum dft_sweep_end {
	DFT_SWEEP_DONE,			/* a step ran without a fault */
	DFT_SWEEP_DAMAGE,		/* the probe failed after a step */
	DFT_SWEEP_BROKEN,		/* an exec failed without a fault, or a step is stuck */
	DFT_SWEEP_NORUN,		/* step 1 could not exec, or the probe failed first */
	DFT_SWEEP_MAX,			/* --max-steps reached */
	DFT_SWEEP_STOPPED,		/* interrupted */
	DFT_SWEEP_ERROR,
};

struct dft_sweep {
	FILE *out;			/* step lines and summary; NULL: none */
	const char *post;		/* sh -c after each step, before the probe */
	void (*on_step)(struct dft_sweep *sw, const struct dft_step *s);
	void *ctx;
	/* results */
	enum dft_sweep_end end;
	long long steps;		/* faulted runs */
	long long failed;		/* of them, exited non-zero */
	uint64_t faults;
	unsigned int trouble;
	char why[640];
};

struct dft_opts;
extern volatile sig_atomic_t dft_stop;		/* SIGINT or SIGTERM: stop at the next step */
int dft_sweep(struct dft_opts *o, unsigned int mask);
int dft_run_once(struct dft_opts *o, unsigned int mask, long long nth, int *cmd_status,
		 int *exec_errno, uint64_t *faults, struct dft_step *s);
void dft_describe_status(int st, int exec_errno, char *buf, size_t len);
const char *dft_debugfs(void);

/* ---- record.c and explore.c: crashtest's recording, its states, ddmin (libc only) ---- */

#define DFT_LABEL_MAX		32	/* a mark's label, as the target takes it */
#define DFT_END_MARK		"dmfault-end"

enum dft_rw_kind {
	DFT_RW_WRITE,
	DFT_RW_FUA,
	DFT_RW_DISCARD,
	DFT_RW_ZEROES,
	DFT_NR_RW_KINDS
};

/* One recorded write; write n is rec->w[n - 1]. */
struct dft_rw {
	uint64_t sector;		/* relative to the device's start */
	uint64_t nr;			/* sectors */
	unsigned int epoch;
	enum dft_rw_kind kind;
};

/* A step mark: it follows write @after (0: before the first). */
struct dft_rmark {
	uint64_t after;
	char label[DFT_LABEL_MAX + 1];	/* "": none */
};

/* A recording as "record list" gives it, and its epochs. */
struct dft_record {
	uint64_t writes, flushes, marks;	/* the header's counts */
	uint64_t unit;			/* sectors: what a torn write keeps or loses */
	bool overflow;
	bool have_header;
	struct dft_rw *w;
	uint64_t nr_w;			/* listed so far */
	uint64_t *bar;			/* distinct flush points (writes 1..n durable) */
	size_t nr_bar;
	struct dft_rmark *m;
	size_t nr_m;
	uint64_t end;			/* writes explored: 1..end (the end mark) */
	unsigned int nr_epochs;		/* epochs of writes 1..end, at least 1 */
};

unsigned int dft_split_words(char *line, char **w, unsigned int max);
int dft_record_page(struct dft_record *rec, const char *reply, uint64_t from, uint64_t *next,
		    const char **err);
int dft_record_done(struct dft_record *rec, const char **err);
void dft_record_free(struct dft_record *rec);
const char *dft_rw_kind_name(enum dft_rw_kind kind);
void dft_epoch_span(const struct dft_record *rec, unsigned int k, uint64_t *first,
		    uint64_t *last);
uint64_t dft_durable_upto(const struct dft_record *rec, uint64_t point);
bool dft_is_durable(const struct dft_record *rec, uint64_t w, uint64_t point);
const char *dft_step(const struct dft_record *rec, uint64_t w);
unsigned int dft_marks_below(const struct dft_record *rec, uint64_t n);

/*
 * A state spec: a view spec ("keep=<all|none|n|n-m,...> [tear=<w>:<seed>,...]",
 * struct dft_spec in rule.h) and, when they are not those up to its last kept
 * write, the marks made before the crash ("marks=<n>").
 */
int dft_spec_parse(const char *text, struct dft_spec *s, const char **err);
void dft_spec_free(struct dft_spec *s);
bool dft_spec_keeps(const struct dft_spec *s, uint64_t w);
uint64_t dft_spec_point(const struct dft_spec *s, uint64_t writes);
unsigned int dft_spec_marks(const struct dft_record *rec, const struct dft_spec *s);
size_t dft_spec_view_len(const char *text);

/* A crash: after write @point, with @marks made, and the writes it tears. */
struct dft_crash {
	uint64_t point;
	unsigned int marks;
	const struct dft_tear *tear;
	unsigned int nr_tear;
};

char *dft_spec_lose(const struct dft_record *rec, const struct dft_crash *c, const uint64_t *lost,
		    size_t n);
int dft_spec_lost(const struct dft_record *rec, const struct dft_spec *s, uint64_t point,
		  uint64_t **lost, size_t *n);

enum dft_state_kind {
	DFT_ST_PREFIX,			/* the first j writes of the epoch */
	DFT_ST_OMIT,			/* the epoch without one write */
	DFT_ST_SUBSET,			/* a subset of its writes, every one or sampled */
	DFT_ST_TORN,			/* a prefix whose last write is torn */
	DFT_NR_ST_KINDS
};

struct dft_state {
	char *spec;			/* canonical: equal states, equal specs */
	unsigned int epoch;
	enum dft_state_kind kind;
	uint64_t point;			/* the crash point: after this write */
	unsigned int marks;		/* the workload's marks made before it */
};

struct dft_epoch {
	uint64_t first, last;		/* its writes; first > last: none */
	uint64_t fua;			/* FUA writes among them */
	uint64_t candidates;		/* states before dedupe and the cap */
	unsigned int states;		/* to check */
	uint64_t dups, capped;		/* skipped: the same as another, or past the cap */
};

struct dft_explore_cfg {
	unsigned int subset_max;	/* every subset of at most this many writes */
	unsigned int samples;		/* else this many seeded subsets */
	uint64_t seed;
	unsigned int max_states;
};

struct dft_plan {
	struct dft_state *st;
	unsigned int nr;
	struct dft_epoch *ep;
	unsigned int nr_epochs;
	uint64_t dups, capped;
};

int dft_plan_build(const struct dft_record *rec, const struct dft_explore_cfg *cfg,
		   struct dft_plan *plan);
void dft_plan_free(struct dft_plan *plan);
const char *dft_state_kind_name(enum dft_state_kind kind);

/* Delta debugging: the smallest set of lost writes that still fails. */
struct dft_ddmin {
	int (*test)(void *ctx, const uint64_t *set, size_t n);	/* 1 fails, 0 passes, -errno */
	void *ctx;
	unsigned int budget;		/* tests at most */
	unsigned int tests;		/* done */
	bool exhausted;			/* stopped by the budget */
};

int dft_ddmin(struct dft_ddmin *dd, uint64_t *set, size_t *n);

/* ---- fsmap.c: sectors of a file system to the files that hold them --------- */

struct dft_fsmap_req {
	uint64_t sector, nr;		/* in */
	char files[256];		/* out: "/db, <journal>", "" if nothing was found */
};

int dft_fsmap(const char *dev, struct dft_fsmap_req *req, unsigned int n, char *note,
	      size_t len);

/* ---- cmd_crash.c (the run) and crash_report.c (its account) ---------------------- */

#define DFT_CT_TAIL		2048	/* bytes of a failed check's output kept */
#define DFT_CT_SHOW		10	/* lines of it shown */
#define DFT_CT_NAMED		16	/* writes named in a failure's account */
#define DFT_CT_AFTER		8	/* writes after the crash point named, when none before it */

/* A write named in a failure's account, and the files that hold it. */
struct dft_ct_why {
	uint64_t w;
	char files[256];
};

/* A failing state, and what shrinking it and naming its writes found. */
struct dft_ct_fail {
	const struct dft_state *st;
	int status;			/* the check's exit status; 124: it hung */
	char *tail;			/* the end of its output */
	uint64_t *lost;			/* the writes not yet durable that it lost */
	size_t nr_lost;
	bool explained, minimised, exhausted;
	uint64_t *min;			/* the fewest of them that still fail */
	size_t nr_min;
	char *min_spec;
	unsigned int tests;		/* checks delta debugging took */
	struct dft_ct_why *why;
	unsigned int nr_why;
	bool after_point;		/* why[]: the writes after the crash point */
};

struct dft_ct {
	const struct dft_opts *o;
	const char *disk;
	char dev[64];
	char mnt[64];
	char out[80];			/* a command's output, one at a time */
	char hung[700];			/* what hung past --step-timeout, or "" */
	unsigned int major, minor;
	struct dft_explore_cfg cfg;
	unsigned int minimise;		/* checks per failure */
	struct dft_record rec;
	struct dft_plan plan;
	unsigned int *ep_failed;
	struct dft_ct_fail *fail;
	unsigned int nr_fail;
	unsigned int checked, failed, dd_checks;
	char map_note[160];		/* why no file could be named, or "" */
	struct timespec t0;
};

void dft_ct_report(const struct dft_ct *ct);
void dft_ct_one_report(const struct dft_ct *ct, const char *spec, int r);

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

/* ---- badfile.c: a badblocks(8) list to "bad add" messages (libc only) ------- */

/* Block numbers, as read. */
struct dft_badlist {
	uint64_t *blocks;
	size_t nr, size;
	uint64_t lines;			/* lines read */
};

int dft_badlist_read(FILE *f, const char *name, uint64_t nr_blocks, struct dft_badlist *bl,
		     char *err, size_t len);
int dft_badlist_ranges(struct dft_badlist *bl, uint64_t block_size, struct dft_range **ranges,
		       size_t *nr);
void dft_badlist_free(struct dft_badlist *bl);
int dft_bad_range_word(const struct dft_range *r, char *buf, size_t len);
size_t dft_bad_batch(struct dft_buf *b, const char *head, const struct dft_range *r, size_t n,
		     size_t max);

/* ---- main.c: the command table and output helpers --------------------------- */

struct dft_opts;

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
	char *hunt_catalog, *hunt_dir;		/* hunt --catalog, --dir */

	/* crashtest */
	char *ct_setup, *ct_workload, *ct_check, *ct_state;
	uint64_t ct_seed, ct_limit, ct_unit, ct_subset_max, ct_samples, ct_minimise;
	bool ct_have_seed, ct_have_limit, ct_have_unit, ct_have_subset_max, ct_have_samples;
	bool ct_have_minimise;
	long long ct_max_states;

	/* badblocks */
	char *bad_mode, *bad_status;
	uint64_t bad_wr_fail, bad_block_size;
	bool bad_have_wr_fail, bad_have_block_size;
};

int dft_parse_setting(struct dft_opts *o, char *arg);
int dft_err(const char *fmt, ...) __printf(1, 2);
int dft_usage_err(const struct dft_cmd *cmd, const char *fmt, ...)
	__printf(2, 3);
int dft_dev_err(const char *name, int r);
void dft_info(const struct dft_opts *o, const char *fmt, ...)
	__printf(2, 3);
void dft_human_size(uint64_t bytes, char *buf, size_t len);
bool dft_tty(FILE *f);

/* ---- cmd_*.c: the command handlers ------------------------------------------- */

#define DFT_HANDLER(fn) \
	int fn(const struct dft_cmd *cmd, struct dft_opts *o, int argc, char **argv)

DFT_HANDLER(dft_cmd_create);
DFT_HANDLER(dft_cmd_remove);
DFT_HANDLER(dft_cmd_list);
DFT_HANDLER(dft_cmd_table);
DFT_HANDLER(dft_cmd_rule_add);
DFT_HANDLER(dft_cmd_rule_id);
DFT_HANDLER(dft_cmd_rule_replace);
DFT_HANDLER(dft_cmd_rule_list);
DFT_HANDLER(dft_cmd_rule_check);
DFT_HANDLER(dft_cmd_stats);
DFT_HANDLER(dft_cmd_crashtest);
DFT_HANDLER(dft_cmd_reset);
DFT_HANDLER(dft_cmd_release);
DFT_HANDLER(dft_cmd_log);
DFT_HANDLER(dft_cmd_alloc_show);
DFT_HANDLER(dft_cmd_alloc_set);
DFT_HANDLER(dft_cmd_alloc_mark);
DFT_HANDLER(dft_cmd_run);
DFT_HANDLER(dft_cmd_hunt);
DFT_HANDLER(dft_cmd_bad_msg);
DFT_HANDLER(dft_cmd_bad_list);
DFT_HANDLER(dft_cmd_bad_load);

/* cmd_dev.c, shared by cmd_rule.c and cmd_stats.c */
/* A fault device as list shows it. */
struct dft_listed {
	char name[128];
	unsigned int major, minor;
	uint64_t size;			/* sectors */
	char disk[128];			/* "-": none (fault-error) */
	char type[DFT_NAME_LEN];	/* the first fault segment's target */
	unsigned int disk_major, disk_minor;
	uint64_t offset;		/* sectors */
	unsigned int rules, segments;
	bool suspended;
};

int dft_open_fault(const char *name, struct dft_dev *dev);
int dft_list_one(const char *name, struct dft_listed *l);
int dft_fault_names(char ***out, unsigned int *nr);
int dft_send(const char *name, const char *msg, char **reply, char *kreason, size_t klen,
	     int *err);
const char *dft_reason_tail(const char *kreason);
int dft_msg_failed(const char *name, const char *what, int r, const char *kreason);
int dft_rule_refused(const char *name, const char *rule, int r, const char *kreason);
int dft_check_rules(const struct dft_cmd *cmd, const struct dft_opts *o);
int dft_check_id(const struct dft_cmd *cmd, const char *id);

#endif /* _DMFAULT_H */
