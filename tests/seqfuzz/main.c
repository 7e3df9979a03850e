// SPDX-License-Identifier: GPL-2.0-only
/*
 * dmf-seqfuzz: random operation sequences against the live fault target.
 *
 *   dmf-seqfuzz run [-v] [--seed S] [--lines N] [--seconds T] [--sequences M]
 *                   [--alloc] [--out FILE] [--minimise] [--minimise-seconds U]
 *                   [--problem TEXT] DISK...
 *   dmf-seqfuzz replay [-v] [--problem TEXT] [--out FILE] [--minimise]
 *                   [--minimise-seconds U] SEQ DISK...
 *   dmf-seqfuzz print [--seed S] [--lines N] [--alloc] DISK...
 *
 * run: sequences of N lines (default 200) from seeds S, S+1, ... until T
 * seconds have passed (default: one sequence), or M sequences have run.  Each sequence starts with
 * no device of its own and ends with every device removed.  The first
 * finding stops the run: its sequence, cut after the line that found it,
 * is written to FILE (default seqfuzz-fail.txt); with --minimise, lines
 * are then dropped while the same kind of finding remains, and the short
 * sequence is written to FILE.min; minimising stops after U seconds
 * (default 900: on a debug kernel a replay takes seconds and minimising
 * hundreds of them), with what it has shrunk so far.  replay runs a written sequence SEQ,
 * and writes out and minimises what it finds as run does.  print
 * writes a sequence's lines without running them (the same seed and disks
 * give the same lines anywhere).  --problem TEXT makes a kernel log line
 * that holds TEXT a finding, as a WARN or an oops is.
 *
 * DISKs are block devices the sequences may overwrite (d0, d1, ... in the
 * lines); the first 4 are used.  Output is TAP, one test per sequence, and
 * a summary: lines run, messages sent and refused, I/Os and their errors,
 * sectors whose data was checked, and, per message of the target's table,
 * how often it was sent and taken.
 * Exit status: 0 no finding, 1 a finding, 2 usage or setup error.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "base/rule.h"
#include "seqfuzz.h"

#define SF_NAMES	64	/* the target's messages, counted */

struct sf_run {
	struct sf_disk disks[SF_DISKS];
	unsigned int nr_disks;
	int verbose;
	bool alloc, minimise;
	unsigned int min_secs;		/* --minimise-seconds */
	unsigned int hung_secs;		/* --hung-seconds */
	const char *out, *problem;
	uint64_t ops, msgs, refused, ios, uring_ios, io_errors, verified, skipped;
	unsigned long sent[SF_NAMES], taken[SF_NAMES];
};

static int usage(void)
{
	fprintf(stderr,
		"usage: dmf-seqfuzz run [-v] [--seed S] [--lines N] [--seconds T] [--sequences M]\n"
		"                       [--alloc] [--out FILE] [--minimise] [--minimise-seconds U]\n"
		"                       [--problem TEXT] [--hung-seconds H] DISK...\n"
		"       dmf-seqfuzz replay [-v] [--problem TEXT] [--out FILE] [--minimise]\n"
		"                       [--minimise-seconds U] [--hung-seconds H] SEQ DISK...\n"
		"       dmf-seqfuzz print [--seed S] [--lines N] [--alloc] DISK...\n");
	return 2;
}

static int open_disks(struct sf_run *run, int argc, char **argv)
{
	int i;

	for (i = 0; i < argc && run->nr_disks < SF_DISKS; i++) {
		struct sf_disk *d = &run->disks[run->nr_disks];
		uint64_t bytes = 0;
		int lbs = 0, fd = open(argv[i], O_RDONLY | O_CLOEXEC);

		if (fd < 0 || ioctl(fd, BLKGETSIZE64, &bytes) || ioctl(fd, BLKSSZGET, &lbs)) {
			fprintf(stderr, "dmf-seqfuzz: %s: %s\n", argv[i], strerror(errno));
			if (fd >= 0)
				close(fd);
			return -1;
		}
		close(fd);
		snprintf(d->path, sizeof(d->path), "%s", argv[i]);
		d->sectors = bytes >> 9;
		d->lbs = (unsigned int)lbs;
		d->shadow = calloc(d->sectors, sizeof(uint32_t));
		if (!d->shadow || d->sectors < 2048) {
			fprintf(stderr, "dmf-seqfuzz: %s: %s\n", argv[i],
				d->shadow ? "smaller than 1 MiB" : "out of memory");
			return -1;
		}
		run->nr_disks++;
	}
	if (!run->nr_disks) {
		usage();
		return -1;
	}
	return 0;
}

/* The lines of the sequence from @seed. */
static char **make_lines(struct sf_run *run, uint64_t seed, unsigned int n)
{
	struct sf_gen g;
	char **l = calloc(n, sizeof(*l));
	unsigned int i;

	if (!l)
		return NULL;
	sf_gen_init(&g, seed, run->disks, run->nr_disks, run->alloc);
	for (i = 0; i < n; i++) {
		l[i] = malloc(SF_LINE);
		if (!l[i])
			return NULL;	/* the process ends on it: nothing to free */
		sf_gen_line(&g, l[i], SF_LINE);
	}
	return l;
}

static void count_msg(struct sf_run *run, const char *line, int taken)
{
	const char *name, *t;
	unsigned int i;

	if (strncmp(line, "msg ", 4))
		return;
	name = dft_msg_name(line + 10);	/* after "msg dmfzD " */
	if (!name)
		return;
	for (i = 0; i < SF_NAMES && (t = dft_msg_table_name(i)); i++) {
		if (strcmp(t, name))
			continue;
		run->sent[i]++;
		run->taken[i] += taken;
		return;
	}
}

/*
 * Run @lines (the @use-marked ones, or all): 0 no finding, 1 a finding
 * (*@at: the line after which it was found; @kind: what kind), -1 a finding
 * that leaves an I/O thread running (nothing more can run in this process).
 */
static int run_lines(struct sf_run *run, char **lines, const bool *use, unsigned int n,
		     unsigned int *at, char *kind, size_t kind_len, char *why, size_t why_len)
{
	/* on the heap: I/O threads still held when a sequence gives up keep it */
	struct sf_exec *x = malloc(sizeof(*x));
	unsigned int i;
	int r;

	if (!x || sf_exec_init(x, run->disks, run->nr_disks, run->verbose, run->problem,
				run->hung_secs)) {
		snprintf(why, why_len, "cannot start: %s", strerror(errno));
		return -1;
	}
	for (i = 0; i < n && !x->fail[0]; i++) {
		uint64_t refused = x->refused;

		if (use && !use[i])
			continue;
		*at = i;
		if (sf_exec_line(x, lines[i])) {
			sf_exec_end(x);
			sf_exec_free(x);
			free(x);
			snprintf(why, why_len, "line %u does not parse: %s", i + 1, lines[i]);
			return -1;
		}
		count_msg(run, lines[i], x->refused == refused);
	}
	r = sf_exec_end(x);
	run->ops += x->ops;
	run->msgs += x->msgs;
	run->refused += x->refused;
	run->ios += x->ios;
	run->uring_ios += x->uring_ios;
	run->io_errors += x->io_errors;
	run->verified += x->verified_sectors;
	run->skipped += x->skipped;
	snprintf(why, why_len, "%s", x->fail);
	snprintf(kind, kind_len, "%.*s", (int)strcspn(x->fail, ":"), x->fail);
	if (!strncmp(x->fail, "kernel: ", 8))
		snprintf(kind, kind_len, "kernel %s", dft_kernel_problem(x->fail) ?: "");
	if (strstr(x->fail, "held for")) {
		sf_exec_stop(x);
		return -1;	/* an I/O thread still runs: @x stays */
	}
	r = x->fail[0] ? 1 : 0;
	sf_exec_free(x);
	free(x);
	return r;
}

static int write_lines(const char *path, char **lines, const bool *use, unsigned int n,
		       const char *head)
{
	FILE *f = fopen(path, "w");
	unsigned int i;

	if (!f)
		return -errno;
	fprintf(f, "# dmf-seqfuzz sequence\n# %s\n", head);
	for (i = 0; i < n; i++)
		if (!use || use[i])
			fprintf(f, "%s\n", lines[i]);
	return fclose(f) ? -errno : 0;
}

/* Do the lines in @use still give a finding of @kind?  One more run. */
static bool same_finding(struct sf_run *run, char **lines, const bool *use, unsigned int n,
			 const char *kind, unsigned int *runs)
{
	char k2[128], why[1024];
	unsigned int at;

	(*runs)++;
	return run_lines(run, lines, use, n, &at, k2, sizeof(k2), why, sizeof(why)) == 1 &&
	       !strcmp(k2, kind);
}

/*
 * Drop lines while a finding of the same kind remains: halves, then
 * quarters, down to single lines (ddmin's complement steps).
 */
static unsigned int minimise(struct sf_run *run, char **lines, bool *use, unsigned int n,
			     const char *kind)
{
	unsigned int chunk, i, j, left, runs = 0;
	double t0 = dft_now();
	bool late = false;
	int v = run->verbose;

	run->verbose = 0;
	for (chunk = n / 2; chunk >= 1 && !late; chunk /= 2) {
		for (i = 0; i < n && !late; i += chunk) {
			bool saved[chunk], any = false;

			for (j = 0; j < chunk && i + j < n; j++) {
				saved[j] = use[i + j];
				any |= use[i + j];
				use[i + j] = false;
			}
			if (!any)
				continue;
			late = dft_now() - t0 >= run->min_secs;
			if (!late && same_finding(run, lines, use, n, kind, &runs))
				continue;
			for (j = 0; j < chunk && i + j < n; j++)
				use[i + j] = saved[j];
		}
	}
	run->verbose = v;
	for (i = 0, left = 0; i < n; i++)
		left += use[i];
	printf("# minimised to %u of %u lines in %u runs", left, n, runs);
	if (late)
		printf(" (stopped at --minimise-seconds %u)", run->min_secs);
	printf("\n");
	return left;
}

/* Write out the @n lines that found something and, with --minimise, their short form. */
static void report(struct sf_run *run, char **lines, unsigned int n, int r, const char *kind,
		   const char *head)
{
	char path[512];
	bool *use;

	if (write_lines(run->out, lines, NULL, n, head)) {
		fprintf(stderr, "dmf-seqfuzz: %s: %s\n", run->out, strerror(errno));
		return;
	}
	printf("# written to %s\n", run->out);
	if (r != 1 || !run->minimise)
		return;
	use = malloc(n * sizeof(*use));
	if (!use)
		return;
	memset(use, 1, n * sizeof(*use));
	minimise(run, lines, use, n, kind);
	snprintf(path, sizeof(path), "%s.min", run->out);
	if (!write_lines(path, lines, use, n, head))
		printf("# minimised sequence in %s\n", path);
	free(use);
}

static void summary(const struct sf_run *run, unsigned int seqs, double secs)
{
	const char *t;
	unsigned int i;

	printf("# %u sequences, %" PRIu64 " lines in %.0f s: %" PRIu64 " messages (%" PRIu64
	       " refused), %" PRIu64 " I/Os (%" PRIu64 " failed), %" PRIu64 " through io_uring, %"
	       PRIu64 " sectors checked, %" PRIu64 " skipped\n", seqs, run->ops, secs,
	       run->msgs, run->refused, run->ios, run->io_errors, run->uring_ios, run->verified,
	       run->skipped);
	for (i = 0; i < SF_NAMES && (t = dft_msg_table_name(i)); i++)
		printf("# message %-12s sent %lu taken %lu\n", t, run->sent[i], run->taken[i]);
}

static int cmd_run(struct sf_run *run, uint64_t seed, unsigned int n, unsigned int secs,
		   uint64_t seqs)
{
	double start = dft_now();
	unsigned int seq = 0, at = 0;
	char kind[128], why[1024], head[1200];
	int r = 0;

	do {
		char **lines = make_lines(run, seed + seq, n);

		if (!lines)
			return 2;
		seq++;
		printf("# sequence %u: seed %" PRIu64 "\n", seq, seed + seq - 1);
		fflush(stdout);
		r = run_lines(run, lines, NULL, n, &at, kind, sizeof(kind), why, sizeof(why));
		if (!r) {
			printf("ok %u - seed %" PRIu64 "\n", seq, seed + seq - 1);
			for (at = 0; at < n; at++)
				free(lines[at]);
			free(lines);
			continue;
		}
		printf("not ok %u - seed %" PRIu64 ": line %u: %s\n# %s\n", seq, seed + seq - 1,
		       at + 1, lines[at], why);
		snprintf(head, sizeof(head), "seed %" PRIu64 ", %u lines: %s", seed + seq - 1,
			 at + 1, why);
		report(run, lines, at + 1, r, kind, head);
		break;
	} while (dft_now() - start < secs && (!seqs || seq < seqs));
	printf("1..%u\n", seq);
	summary(run, seq, dft_now() - start);
	return r ? 1 : 0;
}

static int cmd_replay(struct sf_run *run, const char *path)
{
	char **lines = NULL, buf[SF_LINE], kind[128], why[1024];
	unsigned int n = 0, at = 0;
	FILE *f = fopen(path, "r");
	int r;

	if (!f) {
		fprintf(stderr, "dmf-seqfuzz: %s: %s\n", path, strerror(errno));
		return 2;
	}
	while (fgets(buf, sizeof(buf), f)) {
		buf[strcspn(buf, "\n")] = '\0';
		if (buf[0] == '#' || !buf[0])
			continue;
		lines = realloc(lines, (n + 1) * sizeof(*lines));
		if (!lines || !(lines[n] = strdup(buf))) {
			fclose(f);
			return 2;
		}
		n++;
	}
	fclose(f);
	r = run_lines(run, lines, NULL, n, &at, kind, sizeof(kind), why, sizeof(why));
	if (r < 0 && !why[0])
		r = 0;
	printf("%s 1 - %s: %u lines%s%s\n", r ? "not ok" : "ok", path, n, r ? ": " : "", why);
	if (r) {
		char head[1200];

		snprintf(head, sizeof(head), "%s, %u lines: %s", path, at + 1, why);
		report(run, lines, at + 1, r, kind, head);
	}
	printf("1..1\n");
	summary(run, 1, 0);
	return r ? 1 : 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "seed", required_argument, NULL, 's' },
		{ "lines", required_argument, NULL, 'n' },
		{ "seconds", required_argument, NULL, 't' },
		{ "sequences", required_argument, NULL, 'S' },
		{ "alloc", no_argument, NULL, 'a' },
		{ "out", required_argument, NULL, 'o' },
		{ "minimise", no_argument, NULL, 'm' },
		{ "minimise-seconds", required_argument, NULL, 'M' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "problem", required_argument, NULL, 'p' },
		{ "hung-seconds", required_argument, NULL, 'H' },
		{ NULL, 0, NULL, 0 },
	};
	static struct sf_run run = { .out = "seqfuzz-fail.txt", .min_secs = 900,
				     .hung_secs = 60 };
	uint64_t seed = 1, n = 200, secs = 0, seqs = 0, u;
	const char *cmd;
	int c;

	if (argc < 2)
		return usage();
	cmd = argv[1];
	argv++;
	argc--;
	while ((c = getopt_long(argc, argv, "v", opts, NULL)) != -1) {
		switch (c) {
		case 's':
			if (dft_parse_u64(optarg, &seed))
				return usage();
			break;
		case 'n':
			if (dft_parse_u64(optarg, &n) || !n || n > 1000000)
				return usage();
			break;
		case 't':
			if (dft_parse_u64(optarg, &secs) || secs > 7 * 86400)
				return usage();
			break;
		case 'S':
			if (dft_parse_u64(optarg, &seqs) || !seqs)
				return usage();
			break;
		case 'a':
			run.alloc = true;
			break;
		case 'o':
			run.out = optarg;
			break;
		case 'm':
			run.minimise = true;
			break;
		case 'M':
			if (dft_parse_u64(optarg, &u) || !u || u > 7 * 86400)
				return usage();
			run.min_secs = (unsigned int)u;
			break;
		case 'v':
			run.verbose++;
			break;
		case 'p':
			run.problem = optarg;
			break;
		case 'H':
			if (dft_parse_u64(optarg, &u) || !u || u > 86400)
				return usage();
			run.hung_secs = (unsigned int)u;
			break;
		default:
			return usage();
		}
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	dft_dm_init(0);
	if (!strcmp(cmd, "replay")) {
		if (optind >= argc)
			return usage();
		if (open_disks(&run, argc - optind - 1, argv + optind + 1))
			return 2;
		return cmd_replay(&run, argv[optind]);
	}
	if (open_disks(&run, argc - optind, argv + optind))
		return 2;
	if (!strcmp(cmd, "print")) {
		char **lines = make_lines(&run, seed, (unsigned int)n);
		unsigned int i;

		if (!lines)
			return 2;
		for (i = 0; i < n; i++)
			printf("%s\n", lines[i]);
		return 0;
	}
	if (strcmp(cmd, "run"))
		return usage();
	return cmd_run(&run, seed, (unsigned int)n, (unsigned int)secs, seqs);
}
