/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * dmfault: the fault target's rule grammar, as the target itself reads it.
 * rule.c compiles drivers/md/dm-fault-parse.c and lib/dmf-engine.c on the
 * host (against tools/kshim, as the unit tests do) and is the only file of
 * the tool that sees kernel types; this interface uses libc types only.
 */
#ifndef _DMFAULT_RULE_H
#define _DMFAULT_RULE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Where a rule went wrong: the part of the text, and the target's reason. */
struct dft_rule_err {
	char word[128];
	const char *reason;
};

int dft_rule_check(const char *rule, struct dft_rule_err *err);
const char *dft_rule_where(const struct dft_rule_err *err, const char *rule, char *buf,
			   size_t len);
bool dft_is_status_name(const char *s);
bool dft_is_op_list(const char *s);
int dft_parse_duration(const char *s, uint64_t *ns);
int dft_cache_option_check(const char *word, const char **why);

/* A crash state of a recording, as the "view" message takes it. */
#define DFT_TEARS_MAX		64	/* torn writes in one view */

struct dft_range {
	uint64_t first, last;
};

struct dft_tear {
	uint64_t w, seed;
};

struct dft_spec {
	bool all;
	struct dft_range *r;		/* ascending, apart; malloc()ed */
	size_t nr_r;
	struct dft_tear tear[DFT_TEARS_MAX];	/* ascending by write */
	unsigned int nr_tear;
	/* crashtest's own word, not the view's: the marks made before the crash */
	bool have_marks;
	unsigned int marks;
};

int dft_view_parse(const char *keep, const char *tear, struct dft_spec *s, const char **why);

/*
 * The counters of the status's cache word, in the target's order (enum
 * fault_cache_stat: rule.c checks that the two agree), and their names.
 */
enum {
	DFT_C_BLOCKS, DFT_C_BYTES, DFT_C_HWM, DFT_C_LIMIT, DFT_C_WRITES, DFT_C_FLUSHES,
	DFT_C_FUA, DFT_C_FORCED, DFT_C_WRITTEN_BACK, DFT_C_CRASHES, DFT_C_LOST_WRITES,
	DFT_C_LOST_SECTORS, DFT_C_RECORDED, DFT_NR_CACHE
};

const char *dft_cache_stat_name(unsigned int i);

/*
 * The counters of the status's bad word, in the target's order (enum
 * fault_bad_stat: rule.c checks that the two agree), and their names.
 */
enum {
	DFT_B_RANGES, DFT_B_SECTORS, DFT_B_LOOKUPS, DFT_B_HITS, DFT_B_HEALS, DFT_NR_BAD
};

const char *dft_bad_stat_name(unsigned int i);

/* msg.c: a message checked with the target's message parser */
int dft_msg_check(const char *msg, char *word, size_t len, const char **why);
const char *dft_msg_name(const char *msg);
const char *dft_msg_table_name(unsigned int i);

#endif /* _DMFAULT_RULE_H */
