/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * dmfault's hunt (cmd_hunt.c): the paths of a catalogue (hunt.c, libc
 * only) swept with fail-nth by alloc/, and the findings, deduplicated by
 * the call chain of the injected fault.  Uses alloc/ and base/.
 */
#ifndef _DMFAULT_HUNT_H
#define _DMFAULT_HUNT_H

#include "alloc/alloc.h"

/* ---- hunt.c: the catalogue and the findings ------------------------------ */

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

int dft_findings_add(struct dft_findings *fs, const struct dft_finding *nf);
void dft_findings_free(struct dft_findings *fs);

DFT_HANDLER(dft_cmd_hunt);

#endif /* _DMFAULT_HUNT_H */
