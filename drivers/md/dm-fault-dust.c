// SPDX-License-Identifier: GPL-2.0-only
/*
 * fault-dust: dm-dust's table, messages, replies and status lines on the
 * bad-block map of dm-fault-bad.c, so that what drives dm-dust (fstests'
 * common/dmdust among it) drives a fault device unchanged.
 *
 *   <dev> <offset> <blksz>
 *
 * As dm-dust: blocks are numbered as the device below numbers them, bios
 * are split at block boundaries, the map starts disabled ("enable" makes
 * reads of bad blocks fail), a failure is an I/O error, a write to a bad
 * block fails its write fail count of times and then removes the block.
 * The replies and log lines are dm-dust's, word for word; the heal line
 * names the block written (dm-dust divides its number once more).  The
 * device also takes the fault target's own messages and rules.
 */
#include <linux/device-mapper.h>

#include "dm-fault.h"

#define DM_MSG_PREFIX "dust"

/* dm-dust's largest block: 1 GiB */
#define FAULT_DUST_MAX_BLOCK_SECTORS	2097152

/**
 * fault_dust_ctr - construct a fault-dust mapping: <dev> <offset> <blksz>
 * @ti: the target
 * @argc: 3
 * @argv: the words
 *
 * Return: 0 or -errno with ti->error set, in dm-dust's words.
 */
int fault_dust_ctr(struct dm_target *ti, unsigned int argc, char **argv)
{
	struct dm_arg_set as = { .argc = argc - 1, .argv = argv };
	unsigned int blksz;
	struct fault_c *fc;
	int r;

	if (argc != 3) {
		ti->error = "Invalid argument count";
		return -EINVAL;
	}
	if (kstrtouint(argv[2], 10, &blksz) || !blksz) {
		ti->error = "Invalid block size parameter";
		return -EINVAL;
	}
	if (blksz < 512) {
		ti->error = "Block size must be at least 512";
		return -EINVAL;
	}
	if (!is_power_of_2(blksz)) {
		ti->error = "Block size must be a power of 2";
		return -EINVAL;
	}
	if (to_sector(blksz) > min_t(sector_t, ti->len, FAULT_DUST_MAX_BLOCK_SECTORS)) {
		ti->error = "Block size is too large";
		return -EINVAL;
	}
	r = fault_ctx_create(ti, FAULT_DUST);
	if (r)
		goto bad;
	fc = ti->private;
	fc->cargs.blksz = blksz;
	r = fault_ctx_open(fc, &as);
	if (r)
		goto bad;
	r = fault_bad_create(fc, fc->start, false);
	if (r) {
		ti->error = "Cannot allocate context";
		goto bad;
	}
	fc->bad->dust = true;
	fc->bad->dust_shift = __ffs(blksz >> SECTOR_SHIFT);
	r = dm_set_target_max_io_len(ti, blksz >> SECTOR_SHIFT);
	if (r)
		goto bad;
	return 0;

bad:
	fault_ctx_destroy(ti);
	return r;
}

static unsigned long long fault_dust_count(struct fault_bad *bad)
{
	return READ_ONCE(bad->nr_sectors) >> bad->dust_shift;
}

static int fault_dust_add(struct fault_bad *bad, unsigned long long block, unsigned int wr_fail)
{
	struct fault_bad_attr a = {
		.mode = FAULT_BAD_HEAL, .status = FAULT_STS_IOERR, .wr_fail = wr_fail,
	};
	u64 first = block << bad->dust_shift;
	int r;

	r = fault_bad_insert(bad, first, first + BIT(bad->dust_shift) - 1, &a, true);
	if (r == -EEXIST) {
		if (!bad->quiet)
			DMERR("dust_add_block: block %llu already in badblocklist", block);
		return -EINVAL;
	}
	if (r) {
		if (!bad->quiet)
			DMERR("dust_add_block: badblock allocation failed");
		return r;
	}
	if (!bad->quiet)
		DMINFO("dust_add_block: badblock added at block %llu with write fail count %u",
		       block, wr_fail);
	return 0;
}

static int fault_dust_remove(struct fault_bad *bad, unsigned long long block)
{
	u64 first = block << bad->dust_shift;
	int r;

	r = fault_bad_erase(bad, first, first + BIT(bad->dust_shift) - 1, true);
	if (r == -ENOENT) {
		if (!bad->quiet)
			DMERR("dust_remove_block: block %llu not found in badblocklist", block);
		return -EINVAL;
	}
	if (!r && !bad->quiet)
		DMINFO("dust_remove_block: badblock removed at block %llu", block);
	return r;
}

static int fault_dust_query(struct fault_bad *bad, unsigned long long block, char *result,
			    unsigned int maxlen)
{
	u64 key = block << bad->dust_shift, first, last;
	struct fault_bad_attr a;
	unsigned int sz = 0;

	if (fault_bad_next(bad, key, &first, &last, &a) && first <= key)
		DMEMIT("dust_query_block: block %llu found in badblocklist", block);
	else
		DMEMIT("dust_query_block: block %llu not found in badblocklist", block);
	return 1;
}

/* Every bad block, one a line, as many as the buffer holds. */
static int fault_dust_list(struct fault_bad *bad, char *result, unsigned int maxlen)
{
	u64 pos = 0, first, last, b;
	struct fault_bad_attr a;
	unsigned int sz = 0;
	bool any = false;

	while (fault_bad_next(bad, pos, &first, &last, &a)) {
		for (b = first >> bad->dust_shift; b <= last >> bad->dust_shift; b++) {
			DMEMIT("%llu\n", b);
			if (sz + 1 >= maxlen)
				return 1;
		}
		any = true;
		if (last == ULONG_MAX)
			break;
		pos = last + 1;
	}
	if (!any)
		DMEMIT("No blocks in badblocklist");
	return 1;
}

/* One word: enable, disable, countbadblocks, clearbadblocks, quiet, listbadblocks. */
static int fault_dust_message_1(struct fault_bad *bad, const char *word, char *result,
				unsigned int maxlen)
{
	unsigned int sz = 0;

	if (!strcasecmp(word, "addbadblock") || !strcasecmp(word, "removebadblock") ||
	    !strcasecmp(word, "queryblock")) {
		DMERR("%s requires an additional argument", word);
		return -EINVAL;
	}
	if (!strcasecmp(word, "disable") || !strcasecmp(word, "enable")) {
		bool on = !strcasecmp(word, "enable");

		DMINFO("%s read failures on bad sectors", on ? "enabling" : "disabling");
		WRITE_ONCE(bad->enabled, on);
		return 0;
	}
	if (!strcasecmp(word, "countbadblocks")) {
		DMEMIT("countbadblocks: %llu badblock(s) found", fault_dust_count(bad));
		return 1;
	}
	if (!strcasecmp(word, "clearbadblocks")) {
		if (fault_dust_count(bad) && !fault_bad_clear(bad))
			DMEMIT("dust_clear_badblocks: badblocks cleared");
		else
			DMEMIT("dust_clear_badblocks: no badblocks found");
		return 1;
	}
	if (!strcasecmp(word, "quiet")) {
		WRITE_ONCE(bad->quiet, !bad->quiet);
		return 0;
	}
	return fault_dust_list(bad, result, maxlen);
}

static bool fault_dust_word(const char *word)
{
	static const char * const words[] = {
		"addbadblock", "removebadblock", "queryblock", "disable", "enable",
		"countbadblocks", "clearbadblocks", "quiet", "listbadblocks",
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(words); i++)
		if (!strcasecmp(word, words[i]))
			return true;
	return false;
}

/**
 * fault_dust_message - dm-dust's messages on a fault-dust device
 * @fc: the device
 * @argc: number of words
 * @argv: the words
 * @result: the reply buffer
 * @maxlen: its size
 *
 * Return: as dm-dust's .message, or -ENOTTY when the first word is none of
 * dm-dust's: the fault target's own messages then read the words.
 */
int fault_dust_message(struct fault_c *fc, unsigned int argc, char **argv, char *result,
		       unsigned int maxlen)
{
	struct fault_bad *bad = fc->bad;
	sector_t size = bdev_nr_sectors(fc->dev->bdev) >> bad->dust_shift;
	unsigned long long block;
	unsigned int wr_fail = 0;
	char dummy;

	if (!argc || !fault_dust_word(argv[0]))
		return -ENOTTY;
	if (argc == 1)
		return fault_dust_message_1(bad, argv[0], result, maxlen);
	if (argc > 3) {
		DMERR("invalid number of arguments '%d'", argc);
		return -EINVAL;
	}
	if (sscanf(argv[1], "%llu%c", &block, &dummy) != 1)
		return -EINVAL;
	if (argc == 3) {
		if (sscanf(argv[2], "%u%c", &wr_fail, &dummy) != 1)
			return -EINVAL;
		if (wr_fail > 255) {
			DMERR("selected write fail count out of range");
			return -EINVAL;
		}
	}
	if (block > size) {
		DMERR("selected block value out of range");
		return -EINVAL;
	}
	if (!strcasecmp(argv[0], "addbadblock"))
		return fault_dust_add(bad, block, wr_fail);
	if (argc == 2 && !strcasecmp(argv[0], "removebadblock"))
		return fault_dust_remove(bad, block);
	if (argc == 2 && !strcasecmp(argv[0], "queryblock"))
		return fault_dust_query(bad, block, result, maxlen);
	DMERR("unrecognized message '%s' received", argv[0]);
	return -EINVAL;
}

/* dm-dust's status lines: INFO "<dev> <fail mode> <verbosity>", TABLE "<dev> <offset> <blksz>". */
void fault_dust_status(struct fault_c *fc, status_type_t type, char *result, unsigned int maxlen)
{
	unsigned int sz = 0;

	if (type == STATUSTYPE_INFO)
		DMEMIT("%s %s %s", fc->dev->name,
		       READ_ONCE(fc->bad->enabled) ? "fail_read_on_bad_block" : "bypass",
		       READ_ONCE(fc->bad->quiet) ? "quiet" : "verbose");
	else
		DMEMIT("%s %llu %u", fc->dev->name, (unsigned long long)fc->start,
		       fc->cargs.blksz);
}
