/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * dmfault's allocator hooks: alloc show/set/mark/unmark and run
 * (cmd_alloc.c), the fail-nth sweep of run --nth-sweep (sweep.c), one run
 * of the command (step.c), the module's debugfs files (knobs.c) and the
 * call chain of an injected fault (chain.c, libc only).  Uses base/; the
 * hunt uses dft_alloc_run().
 */
#ifndef _DMFAULT_ALLOC_H
#define _DMFAULT_ALLOC_H

#include "base/base.h"

#define DFT_DEBUGFS		"/sys/kernel/debug/dm-fault"
#define DFT_KNOB_MAX		4096	/* a knob file's text */
#define DFT_NR_HOOKS		2

/* ---- chain.c: the call chain of an injected fault ------------------------ */

#define DFT_CHAIN_LEN		1024

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
bool dft_alloc_failure_report(const char *line);

/* ---- knobs.c: the module's debugfs files --------------------------------- */

/* The hooks, as their debugfs directories are named; bit h of a mask is dft_hooks[h]. */
extern const char *const dft_hooks[DFT_NR_HOOKS];

/* The module's debugfs directory; $DMFAULT_DEBUGFS points elsewhere (tests). */
const char *dft_debugfs(void);
const char *dft_top_file(char *buf, size_t len, const char *name);
int dft_alloc_present(void);
int dft_read_file(const char *path, char *buf, size_t len);
int dft_write_file(const char *path, const char *val);
int dft_knob_path(char *buf, size_t len, const char *hook, const char *knob);
int dft_apply_knobs(const struct dft_kv *set, unsigned int nr, unsigned int mask, char ***saved,
		    bool quiet_missing);
void dft_restore_knobs(unsigned int h, const struct dft_kv *set, unsigned int nr, char **saved);
int dft_mark(pid_t pid, bool mark);
int dft_injected(unsigned int mask, uint64_t *total);
int dft_nth_fired(pid_t pid);

/* ---- sweep.c: the fail-nth sweep, for run --nth-sweep and hunt; step.c runs its steps ---- */
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

int dft_sweep(struct dft_opts *o, unsigned int mask);

/* ---- step.c: one run of the command -------------------------------------- */

extern volatile sig_atomic_t dft_stop;		/* SIGINT or SIGTERM: stop at the next step */
int dft_run_once(struct dft_opts *o, unsigned int mask, long long nth, int *cmd_status,
		 int *exec_errno, uint64_t *faults, struct dft_step *s);
void dft_describe_status(int st, int exec_errno, char *buf, size_t len);

/* ---- cmd_alloc.c: the commands, and run for the hunt --------------------- */

int dft_alloc_run(struct dft_opts *o);
DFT_HANDLER(dft_cmd_alloc_show);
DFT_HANDLER(dft_cmd_alloc_set);
DFT_HANDLER(dft_cmd_alloc_mark);
DFT_HANDLER(dft_cmd_run);

#endif /* _DMFAULT_ALLOC_H */
