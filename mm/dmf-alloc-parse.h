/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * dmf_alloc knob values read without side effects: name lists, the
 * cache-filter, the pids of mark and unmark, fail-nth entries.  This header
 * and dmf-alloc-parse.c use only the engine's environment, so the host
 * fuzzers build them unchanged; the knobs (dmf-alloc-debugfs.c) and the
 * per-task state (dmf-alloc-task.c) act on what they return.
 */
#ifndef _DMF_ALLOC_PARSE_H
#define _DMF_ALLOC_PARSE_H

#include <dmf/kernel.h>

/* A list of names from a knob (caches, modules, symbols), RCU-freed. */
#define DMFA_NAMES_MAX	16
#define DMFA_NAME_LEN	128

struct dmfa_names {
	struct rcu_head rcu;
	unsigned int nr;
	const char *name[DMFA_NAMES_MAX];
	char buf[];
};

struct dmfa_names *dmfa_names_parse(const char *s, unsigned int max, bool modules);
struct dmfa_names *dmfa_cache_filter_parse(const char *val, bool names_known);
int dmfa_pid_next(const char **s, int *pid, bool *unmark);
int dmfa_nth_parse(const char *val, int *pid, int *n);

#endif /* _DMF_ALLOC_PARSE_H */
