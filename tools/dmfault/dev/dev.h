/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * dmfault's fault devices: create, remove, list and table (cmd_dev.c),
 * rules on a live device (cmd_rule.c), stats, log, reset and release
 * (cmd_stats.c), bad blocks (cmd_bad.c, with badfile.c reading badblocks(8)
 * lists), and what they share about one device (device.c).  Uses base/.
 */
#ifndef _DMFAULT_DEV_H
#define _DMFAULT_DEV_H

#include "base/base.h"

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

/* ---- device.c: one fault device, as the commands share it ---------------- */

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

/* ---- the commands -------------------------------------------------------- */

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
DFT_HANDLER(dft_cmd_reset);
DFT_HANDLER(dft_cmd_release);
DFT_HANDLER(dft_cmd_log);
DFT_HANDLER(dft_cmd_bad_msg);
DFT_HANDLER(dft_cmd_bad_list);
DFT_HANDLER(dft_cmd_bad_load);

#endif /* _DMFAULT_DEV_H */
