// SPDX-License-Identifier: GPL-2.0-only
/*
 * The words of the compatibility targets: the table lines of dm-flakey,
 * dm-delay and dm-dust read into a struct fault_compat_args and printed
 * back as those targets print them, and dm-dust's messages read into a
 * struct fault_dust_msg, refused with the lines dm-dust logs.  Nothing
 * here opens a device or makes a rule (that is dm-fault-compat.c): the
 * host unit tests and fuzzers build this file.
 *
 * dm-flakey grew error_reads and random_{read,write}_corrupt in 6.6 and
 * changed how it prints its table; FAULT_FLAKEY_V2 (set by Kbuild from the
 * kernel version) picks the flakey of the kernel this is built for.
 */
#include "dm-fault-compat-args.h"

static const struct dm_arg fault_flakey_args[] = {
	{0, UINT_MAX, "Invalid up interval"},
	{0, UINT_MAX, "Invalid down interval"},
	{0, 11, "Invalid number of feature args"},
	{1, UINT_MAX, "Invalid corrupt bio byte"},
	{0, 255, "Invalid corrupt value to write into bio byte (0-255)"},
	{0, UINT_MAX, "Invalid corrupt bio flags mask"},
	{0, FAULT_FLAKEY_PROB_BASE, "Invalid random corrupt argument"},
};

#define FAULT_ARG_UP		(&fault_flakey_args[0])
#define FAULT_ARG_DOWN		(&fault_flakey_args[1])
#define FAULT_ARG_FEATURES	(&fault_flakey_args[2])
#define FAULT_ARG_CBYTE		(&fault_flakey_args[3])
#define FAULT_ARG_CVALUE	(&fault_flakey_args[4])
#define FAULT_ARG_CFLAGS	(&fault_flakey_args[5])
#define FAULT_ARG_RANDOM	(&fault_flakey_args[6])

/* corrupt_bio_byte <nth> <r|w> <value> <flags>, flags 0 only */
static int fault_flakey_corrupt_byte(struct fault_compat_args *ca, struct dm_arg_set *as,
				     char **error)
{
	const char *dir;
	int r;

	r = fault_read_arg(FAULT_ARG_CBYTE, as, &ca->corrupt_byte, error);
	if (r)
		return r;
	dir = dm_shift_arg(as);
	if (strcasecmp(dir, "r") && strcasecmp(dir, "w")) {
		*error = "Invalid corrupt bio direction (r or w)";
		return -EINVAL;
	}
	ca->corrupt_dir = dir[0] | 0x20;
	r = fault_read_arg(FAULT_ARG_CVALUE, as, &ca->corrupt_value, error);
	if (!r)
		r = fault_read_arg(FAULT_ARG_CFLAGS, as, &ca->corrupt_flags, error);
	if (r)
		return r;
	if (ca->corrupt_flags) {
		*error = "corrupt_bio_byte bio flags are not supported";
		return -EINVAL;
	}
	return 0;
}

/* The feature named @name, whose own arguments are among the @argc left. */
static int fault_flakey_feature(struct fault_compat_args *ca, struct dm_arg_set *as,
				const char *name, unsigned int *argc, char **error)
{
	int r;

	if (!strcasecmp(name, "drop_writes") || !strcasecmp(name, "error_writes")) {
		if (ca->flags & (FAULT_FL_DROP_WRITES | FAULT_FL_ERROR_WRITES)) {
			*error = "Only one of drop_writes and error_writes is allowed";
			return -EINVAL;
		}
		/* any case, as dm-flakey: "DROP_WRITES" is not error_writes */
		ca->flags |= tolower(name[0]) == 'd' ? FAULT_FL_DROP_WRITES : FAULT_FL_ERROR_WRITES;
	} else if (FAULT_FLAKEY_V2 && !strcasecmp(name, "error_reads")) {
		ca->flags |= FAULT_FL_ERROR_READS;
	} else if (!strcasecmp(name, "corrupt_bio_byte")) {
		if (*argc < 4) {
			*error = "Feature corrupt_bio_byte requires parameters";
			return -EINVAL;
		}
		r = fault_flakey_corrupt_byte(ca, as, error);
		if (r)
			return r;
		*argc -= 4;
	} else if (FAULT_FLAKEY_V2 && *argc &&
		   (!strcasecmp(name, "random_read_corrupt") ||
		    !strcasecmp(name, "random_write_corrupt"))) {
		r = fault_read_arg(FAULT_ARG_RANDOM, as,
				   tolower(name[7]) == 'r' ? &ca->rrc : &ca->rwc, error);
		if (r)
			return r;
		(*argc)--;
	} else {
		*error = "Unrecognised flakey feature requested";
		return -EINVAL;
	}
	return 0;
}

static int fault_flakey_features(struct fault_compat_args *ca, struct dm_arg_set *as,
				 char **error)
{
	unsigned int argc;
	int r;

	if (!as->argc)
		return 0;
	r = fault_read_arg_group(FAULT_ARG_FEATURES, as, &argc, error);
	if (r)
		return r;
	while (argc) {
		argc--;
		r = fault_flakey_feature(ca, as, dm_shift_arg(as), &argc, error);
		if (r)
			return r;
	}
	if ((ca->flags & (FAULT_FL_DROP_WRITES | FAULT_FL_ERROR_WRITES)) &&
	    ca->corrupt_byte && ca->corrupt_dir == 'w') {
		*error = "drop_writes and error_writes are incompatible with corrupt_bio_byte w";
		return -EINVAL;
	}
	return 0;
}

/**
 * fault_flakey_parse - read the arguments of a flakey table after its device
 * @ca: zeroed; filled in
 * @as: <up interval> <down interval> [<#feature args> [<arg>]*]
 * @error: set to the reason on failure
 *
 * Return: 0, or -EINVAL with *@error set.
 */
int fault_flakey_parse(struct fault_compat_args *ca, struct dm_arg_set *as, char **error)
{
	int r;

	r = fault_read_arg(FAULT_ARG_UP, as, &ca->up, error);
	if (!r)
		r = fault_read_arg(FAULT_ARG_DOWN, as, &ca->down, error);
	if (r)
		return r;
	if (!(ca->up + ca->down) || ca->up + ca->down < ca->up) {
		*error = "Invalid up and down intervals";
		return -EINVAL;
	}
	return fault_flakey_features(ca, as, error);
}

/* The table line as the flakey of this kernel prints it. */
void fault_flakey_format(const struct fault_compat_args *ca, const char *dev,
			 unsigned long long start, char *result, unsigned int maxlen)
{
	bool drop = ca->flags & FAULT_FL_DROP_WRITES, errw = ca->flags & FAULT_FL_ERROR_WRITES;
	bool errr = ca->flags & FAULT_FL_ERROR_READS;
	const char *sep = FAULT_FLAKEY_V2 ? "" : " ";
	unsigned int sz = 0;

	DMEMIT("%s %llu %u %u", dev, start, ca->up, ca->down);
	DMEMIT(" %u%s", errr + drop + errw + (ca->corrupt_byte ? 5 : 0) + (ca->rrc ? 2 : 0) +
	       (ca->rwc ? 2 : 0), sep);
	if (errr)
		DMEMIT(" error_reads");
	if (drop)
		DMEMIT(FAULT_FLAKEY_V2 ? " drop_writes" : "drop_writes ");
	else if (errw)
		DMEMIT(FAULT_FLAKEY_V2 ? " error_writes" : "error_writes ");
	if (ca->corrupt_byte)
		DMEMIT(FAULT_FLAKEY_V2 ? " corrupt_bio_byte %u %c %u %u" :
		       "corrupt_bio_byte %u %c %u %u ", ca->corrupt_byte, ca->corrupt_dir,
		       ca->corrupt_value, ca->corrupt_flags);
	if (ca->rrc)
		DMEMIT(" random_read_corrupt %u", ca->rrc);
	if (ca->rwc)
		DMEMIT(" random_write_corrupt %u", ca->rwc);
}

/**
 * fault_delay_parse - read the delays of a delay table
 * @ca: zeroed; nr_delay and delay_ms[] filled in
 * @argc: 3, 6 or 9
 * @argv: <dev> <offset> <ms> [<dev> <offset> <write ms> [<dev> <offset> <flush ms>]]
 * @error: set to the reason on failure
 *
 * Every class must name the same device and offset as the first (compared
 * as text): a fault device has one device below it.
 *
 * Return: 0, or -EINVAL with *@error set.
 */
int fault_delay_parse(struct fault_compat_args *ca, unsigned int argc, char **argv,
		      char **error)
{
	unsigned int i, ms;

	if (argc != 3 && argc != 6 && argc != 9) {
		*error = "Requires exactly 3, 6 or 9 arguments";
		return -EINVAL;
	}
	ca->nr_delay = argc / 3;
	for (i = 0; i < ca->nr_delay; i++) {
		if (i && (strcmp(argv[3 * i], argv[0]) || strcmp(argv[3 * i + 1], argv[1]))) {
			*error = "Every delay class must map the same device and offset";
			return -EINVAL;
		}
		if (!isdigit(argv[3 * i + 2][0]) || kstrtouint(argv[3 * i + 2], 10, &ms) ||
		    ms > FAULT_DELAY_MAX_MS) {
			*error = "Invalid delay";
			return -EINVAL;
		}
		ca->delay_ms[i] = ms;
	}
	return 0;
}

void fault_delay_format(const struct fault_compat_args *ca, const char *dev,
			unsigned long long start, char *result, unsigned int maxlen)
{
	unsigned int sz = 0, i;

	for (i = 0; i < ca->nr_delay; i++)
		DMEMIT("%s%s %llu %u", i ? " " : "", dev, start, ca->delay_ms[i]);
}

/**
 * fault_dust_parse - read a dust table
 * @ca: zeroed; blksz filled in
 * @argc: 3
 * @argv: <dev> <offset> <blksz>
 * @len: the target's length in sectors: a block is no longer
 * @error: set to the reason on failure, in dm-dust's words
 *
 * dm-dust's checks in dm-dust's order, the offset last.  The offset is
 * read as the fault target reads it: digits only, and a number past 2^64
 * is refused where dm-dust's sscanf() takes it modulo 2^64.
 *
 * Return: 0, or -EINVAL with *@error set.
 */
int fault_dust_parse(struct fault_compat_args *ca, unsigned int argc, char **argv, u64 len,
		     char **error)
{
	unsigned long long start;
	unsigned int blksz;

	if (argc != 3) {
		*error = "Invalid argument count";
		return -EINVAL;
	}
	if (kstrtouint(argv[2], 10, &blksz) || !blksz) {
		*error = "Invalid block size parameter";
		return -EINVAL;
	}
	if (blksz < 512) {
		*error = "Block size must be at least 512";
		return -EINVAL;
	}
	if (blksz & (blksz - 1)) {
		*error = "Block size must be a power of 2";
		return -EINVAL;
	}
	if (blksz >> SECTOR_SHIFT > min_t(u64, len, FAULT_DUST_MAX_BLOCK_SECTORS)) {
		*error = "Block size is too large";
		return -EINVAL;
	}
	if (!isdigit(argv[1][0]) || kstrtoull(argv[1], 10, &start)) {
		*error = "Invalid device offset sector";
		return -EINVAL;
	}
	ca->blksz = blksz;
	return 0;
}

/* dm-dust's table line: <dev> <offset> <blksz> */
void fault_dust_format(const struct fault_compat_args *ca, const char *dev,
		       unsigned long long start, char *result, unsigned int maxlen)
{
	unsigned int sz = 0;

	DMEMIT("%s %llu %u", dev, start, ca->blksz);
}

/*
 * dm-dust's messages by their first word, and how many words each takes:
 * a block to add (and its write fail count), remove or query, or none.
 */
static const struct {
	const char *word;
	unsigned int min_argc, max_argc;
} fault_dust_cmds[FAULT_NR_DUST_CMDS] = {
	[FAULT_DUST_ADD] = { "addbadblock", 2, 3 },
	[FAULT_DUST_REMOVE] = { "removebadblock", 2, 2 },
	[FAULT_DUST_QUERY] = { "queryblock", 2, 2 },
	[FAULT_DUST_DISABLE] = { "disable", 1, 1 },
	[FAULT_DUST_ENABLE] = { "enable", 1, 1 },
	[FAULT_DUST_COUNT] = { "countbadblocks", 1, 1 },
	[FAULT_DUST_CLEAR] = { "clearbadblocks", 1, 1 },
	[FAULT_DUST_QUIET] = { "quiet", 1, 1 },
	[FAULT_DUST_LIST] = { "listbadblocks", 1, 1 },
};

/**
 * fault_dust_msg_parse - read a dm-dust message
 * @m: filled in
 * @argc: number of words
 * @argv: the words, as the target's .message gets them
 * @nr_blocks: the blocks of the device below: a block past it is refused
 *
 * dm-dust's checks in dm-dust's order: the word count, the numbers (a
 * number that does not read is refused with no log line, as dm-dust
 * refuses it), their ranges, then the word count the message takes.
 * Words are matched in any case.  A first word that is none of dm-dust's
 * goes through the same checks, so that @m->why or @m->unrecognized tells
 * what dm-dust logs for it, should the fault target's messages not take it
 * either.
 *
 * Return: 0; -ENOTTY when the first word is none of dm-dust's (the fault
 * target's own messages then read the words); -EINVAL; with either
 * refusal, @m->why the line dm-dust logs, "" for none, or
 * @m->unrecognized.
 */
int fault_dust_msg_parse(struct fault_dust_msg *m, unsigned int argc, char **argv,
			 u64 nr_blocks)
{
	unsigned int i;
	int refused;
	char dummy;

	memset(m, 0, sizeof(*m));
	for (i = FAULT_DUST_NONE + 1; argc && i < FAULT_NR_DUST_CMDS; i++)
		if (!strcasecmp(argv[0], fault_dust_cmds[i].word))
			m->cmd = i;
	refused = m->cmd == FAULT_DUST_NONE ? -ENOTTY : -EINVAL;
	if (argc == 1 && m->cmd != FAULT_DUST_NONE) {
		if (fault_dust_cmds[m->cmd].min_argc == 1)
			return 0;
		scnprintf(m->why, sizeof(m->why), "%s requires an additional argument", argv[0]);
		return -EINVAL;
	}
	if (argc > 3) {
		scnprintf(m->why, sizeof(m->why), "invalid number of arguments '%u'", argc);
		return refused;
	}
	if (argc > 1 && sscanf(argv[1], "%llu%c", &m->block, &dummy) != 1)
		return refused;
	if (argc == 3) {
		if (sscanf(argv[2], "%u%c", &m->wr_fail, &dummy) != 1)
			return refused;
		if (m->wr_fail > 255) {
			scnprintf(m->why, sizeof(m->why), "selected write fail count out of range");
			return refused;
		}
	}
	if (m->block > nr_blocks) {
		scnprintf(m->why, sizeof(m->why), "selected block value out of range");
		return refused;
	}
	if (argc > fault_dust_cmds[m->cmd].max_argc) {
		m->unrecognized = true;
		return refused;
	}
	return m->cmd == FAULT_DUST_NONE ? -ENOTTY : 0;
}
