/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * dmfault's crash testing: crashtest (cmd_crash.c) records a workload on a
 * fault device and checks its states (run.c), explores its crash states
 * (explore.c, over the recording read by record.c), shrinks a failure and
 * gives its account (crash_report.c), naming the files that hold its
 * writes (fsmap.c); recovery.c checks a crash during the check's recovery.
 * save.c keeps a recorded run in a directory and makes it again on another
 * machine, where a shard of its states is checked; merge.c makes one report
 * of the shards' reports; svg.c draws an exploration; ctmsg.c talks to the
 * fault device.  record.c, explore.c, merge.c and svg.c use only libc,
 * base/rule.c and base/json.c, so the host unit tests link them as they
 * are.  Uses dev/ and base/.
 */
#ifndef _DMFAULT_CRASH_H
#define _DMFAULT_CRASH_H

#include "base/base.h"

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
bool dft_record_same(const struct dft_record *a, const struct dft_record *b, char *why,
		     size_t len);

/*
 * A state spec: a view spec ("keep=<all|none|n|n-m,...> [tear=<w>:<seed>,...]",
 * struct dft_spec in base/rule.h) and, when they are not those up to its last kept
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

/* ---- cmd_crash.c, run.c, recovery.c (the run), entry.c (--entry), crash_report.c ---- */

#define DFT_CT_NAME		"dmfault-crashtest"	/* the fault device's name */
#define DFT_CT_LIMIT		100000	/* --samples and --minimise; --shard I/N: N */
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

/* An entry of crashtest's catalogue (entry.c): a program's crash workload. */
struct dft_ct_entry {
	const char *name;
	const char *setup, *workload, *check;
	const char *settle;		/* seconds, or NULL */
	const char *fs;			/* the filesystems it runs on, blank-separated */
	unsigned int line;
};

#define DFT_CT_SETTLE_MAX	(7 * 24 * 3600)	/* seconds, as --settle */

/*
 * A crash during recovery: the check of a first state that passed was
 * recorded, and one of the crash states of that recording fails.
 */
struct dft_ct_rfail {
	const struct dft_state *first;	/* in the plan */
	char *spec;			/* the recovery state, on top of it */
	enum dft_state_kind kind;
	unsigned int epoch;		/* of the check's recording */
	uint64_t point;
	int status;
	char *tail;
};

/* The recovery explorations: their first states, writes and states. */
struct dft_ct_rc {
	unsigned int firsts;		/* first states whose check was recorded */
	uint64_t writes;		/* the writes of those checks */
	unsigned int checked, failed;
	uint64_t dups, capped;		/* skipped: the same as another, past the cap */
	struct dft_ct_rfail *fail;
	unsigned int nr_fail;
};

struct dft_ct {
	const struct dft_opts *o;
	const char *disk;
	const char *name;		/* the fault device's */
	char dev[64];
	char mnt[64];
	char out[80];			/* a command's output, one at a time */
	char hung[700];			/* what hung past --step-timeout, or "" */
	unsigned int major, minor;
	struct dft_explore_cfg cfg;
	unsigned int minimise;		/* checks per failure */
	unsigned int recovery, rc_max;	/* --recovery, --recovery-states */
	struct dft_ct_rc rc;
	struct dft_record rec;
	struct dft_plan plan;
	unsigned int *ep_failed;
	struct dft_ct_fail *fail;
	unsigned int nr_fail;
	unsigned int checked, failed, dd_checks;
	char map_note[160];		/* why no file could be named, or "" */
	struct timespec t0;
	struct dft_catalog cat;		/* --entry: the catalogue its lines point into */
	char fs[32];			/* --entry: $DMF_FS, or "" */
	char lib[4096];			/* --entry: $DMF_LIB, or "" */
	unsigned int *ep_checked;	/* states checked, by epoch */
	uint64_t sectors;		/* --load: the saved disk's; 0: all of DEV */
	unsigned int shard, shards;	/* --shard I/N: the states i % N == I; N 0: every state */
	char name_buf[32];		/* --shard: the fault device's name, with I */
	char run[17];			/* --load: the saved run's hash, or "" */
	uint64_t hash[3];		/* --load: of its disk.img, record and data */
	char *saved;			/* --load: the manifest, which the options point into */
};

/* ctmsg.c: crashtest's errors, and its messages to the device */
int dft_ct_err(const char *fmt, ...) __printf(1, 2);
int dft_ct_send(const struct dft_ct *ct, char **reply, const char *fmt, ...) __printf(3, 4);

/* run.c: the fault device, the recording, a state shown and checked */
int dft_ct_create(struct dft_ct *ct);
void dft_ct_free(struct dft_ct *ct);
int dft_ct_sh(struct dft_ct *ct, const char *what, const char *cmd, char *const *more);
int dft_ct_overflow(const struct dft_ct *ct, bool known);
void dft_ct_unmount(struct dft_ct *ct);
int dft_ct_drop_caches(struct dft_ct *ct);
void dft_ct_print_tail(struct dft_ct *ct);
int dft_ct_step_failed(struct dft_ct *ct, const char *what, int r);
int dft_ct_read(struct dft_ct *ct);
int dft_ct_record(struct dft_ct *ct);
int dft_ct_env(const struct dft_ct *ct, const char *spec, unsigned int marks, char **env);
int dft_ct_look(struct dft_ct *ct, const char *spec, char *const *env);
int dft_ct_check(struct dft_ct *ct, const char *spec, unsigned int marks);
int dft_ct_control(struct dft_ct *ct);
void dft_ct_progress(const struct dft_ct *ct, const char *fmt, ...) __printf(2, 3);
void dft_ct_verdict(const struct dft_ct *ct, int r);

/* recovery.c: a crash during the check's recovery of a first state */
int dft_ct_rc_run(struct dft_ct *ct, const struct dft_state *first, const char *rspec,
		  int *status);
int dft_ct_recovery(struct dft_ct *ct);

/* save.c: a recorded run in a directory, and checked from there */
#define DFT_CT_SAVE_VERSION	1
int dft_ct_saved_opts(const struct dft_cmd *cmd, struct dft_opts *o, struct dft_ct *ct);
int dft_ct_save(struct dft_ct *ct, const char *dir);
int dft_ct_restore(struct dft_ct *ct, const char *dir);
int dft_ct_replay(struct dft_ct *ct, const char *dir, struct dft_record *saved);
char *dft_ct_slurp(const char *path, size_t *len);

/* svg.c: a picture of an exploration (libc only) */
struct dft_svg_epoch {
	uint64_t checked, failed, skipped;
};

int dft_ct_svg(const char *file, const char *title, const struct dft_svg_epoch *ep,
	       unsigned int n, char *err, size_t len);

/* merge.c: the report of a run from its shards' reports (libc and base/json.c only) */
int dft_ct_merge(const char *const *name, const char *const *text, unsigned int n, FILE *out,
		 const char *svg, char *err, size_t len);

int dft_ct_catalog_read(struct dft_catalog *c, const char *file, char *err, size_t len);
int dft_ct_entry_load(const struct dft_cmd *cmd, struct dft_opts *o, struct dft_ct *ct);
void dft_ct_report(const struct dft_ct *ct);
void dft_ct_one_report(const struct dft_ct *ct, const char *spec, const char *rspec, int r);
int dft_ct_picture(const struct dft_ct *ct);

DFT_HANDLER(dft_cmd_crashtest);

#endif /* _DMFAULT_CRASH_H */
