// SPDX-License-Identifier: GPL-2.0-only
/*
 * Host tests of dmf-seqfuzz's generator (tests/seqfuzz/gen.c, included
 * here so that the tests see its model of the devices as it makes each
 * line).  The disks are those of the VM suite 70-seqfuzz: null_blk of
 * 512-byte and of 4 KiB blocks, a loop device and a virtio disk.
 */
#include <inttypes.h>
#include <stdlib.h>

#include "../seqfuzz/gen.c"
#include "ktap.h"

#define SEEDS	2000
#define LINES	300

static const struct sf_disk disks[] = {
	{ "/dev/nullb0", 64 << 11, 512, NULL },
	{ "/dev/nullb1", 64 << 11, 4096, NULL },
	{ "/dev/loop0", 48 << 11, 512, NULL },
	{ "/dev/vdb", 256 << 11, 512, NULL },
};

/* "io dmfzD KIND OFF LEN ...": the device, offset and length, or false. */
static bool io_line(const char *line, int *d, uint64_t *off, uint64_t *len)
{
	char kind[16];

	return sscanf(line, "io dmfz%d %15s %" SCNu64 " %" SCNu64, d, kind, off, len) == 4;
}

/*
 * An I/O to a device whose own block is smaller than one below it, that
 * is not whole blocks of the one below, is shorter than that block: dm
 * would otherwise pass pieces of it on to the disk whole by their sectors
 * but with their memory cut inside a block, which null_blk copies past
 * its page.  Such I/O must still be made, for the refusal.
 */
static void test_unaligned_io_is_shorter_than_the_path_block(void)
{
	unsigned long stale = 0, refused = 0, bad = 0;
	char line[SF_LINE];
	uint64_t seed, off, len, plbs;
	struct sf_gen g;
	unsigned int i;
	int d;

	for (seed = 1; seed <= SEEDS; seed++) {
		sf_gen_init(&g, seed, disks, ARRAY_SIZE(disks), true);
		for (i = 0; i < LINES; i++) {
			sf_gen_line(&g, line, sizeof(line));
			if (!io_line(line, &d, &off, &len))
				continue;
			plbs = path_lbs(&g, d);
			if (g.dev[d].lbs >= plbs)
				continue;
			stale++;
			if (!((off | len) & (plbs - 1)))
				continue;
			refused++;
			if (len >= plbs && bad++ < 5)
				ktap_check(false, "seed %" PRIu64 " line %u: '%s': path block %" PRIu64,
					   seed, i + 1, line, plbs);
		}
	}
	ktap_check(!bad, "%lu I/Os of a path block or more, not whole path blocks", bad);
	ktap_check(refused > 100, "only %lu of %lu I/Os on a device of a smaller block are refused",
		   refused, stale);
	printf("# %lu I/Os on devices whose block is smaller than one below, %lu of them "
	       "not whole blocks of it\n", stale, refused);
}

/* The lines are a function of the seed and the disks alone. */
static void test_same_seed_same_lines(void)
{
	char a[SF_LINE], b[SF_LINE];
	struct sf_gen g1, g2, g3;
	unsigned int i, same = 0;

	sf_gen_init(&g1, 77, disks, ARRAY_SIZE(disks), true);
	sf_gen_init(&g2, 77, disks, ARRAY_SIZE(disks), true);
	sf_gen_init(&g3, 78, disks, ARRAY_SIZE(disks), true);
	for (i = 0; i < LINES; i++) {
		sf_gen_line(&g1, a, sizeof(a));
		sf_gen_line(&g2, b, sizeof(b));
		ktap_check(!strcmp(a, b), "line %u: '%s' then '%s'", i + 1, a, b);
		sf_gen_line(&g3, b, sizeof(b));
		same += !strcmp(a, b);
	}
	ktap_check(same < LINES / 2, "seeds 77 and 78 share %u of %u lines", same, LINES);
}

static const struct ktap_case cases[] = {
	KTAP_CASE(test_unaligned_io_is_shorter_than_the_path_block),
	KTAP_CASE(test_same_seed_same_lines),
};

int main(void)
{
	return ktap_run("seqfuzz_gen", cases, ARRAY_SIZE(cases));
}
