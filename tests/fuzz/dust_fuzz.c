// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer target for dm-dust's messages on a fault-dust device
 * (fault_dust_msg_parse() in drivers/md/dm-fault-compat-args.c, the file
 * the module compiles, built unchanged against tools/kshim):
 *
 *  - the first byte picks the device's size in blocks (0, 1, 1024 or
 *    2^64 - 1); the rest is the message's words, split at blanks as dmsetup
 *    message passes them;
 *  - the parser returns 0, -ENOTTY (no word of dm-dust's: the fault
 *    target's messages read it) or -EINVAL; a refusal carries the line
 *    dm-dust logs, whole in its buffer or as "unrecognized" (not both), or
 *    none only where a number did not read (two or three words) or there
 *    are no words;
 *  - an accepted message has a word count its command takes, a block not
 *    past the device, a write fail count to 255 and only with three words;
 *  - an accepted message printed back (its first word, the block, the
 *    count) reads the same; the words in the other case read the same.
 *
 * A broken invariant aborts; libFuzzer saves the input as crash-<sha1>.
 * With -DDMF_FUZZ_STANDALONE, fuzz-main.c's main() replays the files given.
 */
#include <stdint.h>

#include "../../drivers/md/dm-fault-compat-args.h"
#include "fuzz-words.h"

#define FZ_MAX_INPUT	4096
#define FZ_MAX_ARGS	64

static const char *fz_in;

static void __noreturn fz_fail(const char *what, const char *detail)
{
	fprintf(stderr, "dust_fuzz: input \"%s\": %s: %s\n", fz_in, what, detail);
	abort();
}

static bool fz_same(const struct fault_dust_msg *a, const struct fault_dust_msg *b)
{
	return a->cmd == b->cmd && a->block == b->block && a->wr_fail == b->wr_fail &&
	       a->unrecognized == b->unrecognized &&
	       !strcmp(a->why, b->why);
}

static void fz_check(const struct fault_dust_msg *m, int r, unsigned int argc, u64 nr_blocks)
{
	bool takes_block = m->cmd == FAULT_DUST_ADD || m->cmd == FAULT_DUST_REMOVE ||
			   m->cmd == FAULT_DUST_QUERY;
	size_t len = strnlen(m->why, FAULT_DUST_WHY_MAX);

	if (r && r != -ENOTTY && r != -EINVAL)
		fz_fail("returned", "not 0, -ENOTTY or -EINVAL");
	if (m->cmd >= FAULT_NR_DUST_CMDS || (r == -ENOTTY) != (m->cmd == FAULT_DUST_NONE))
		fz_fail("command", "none where a word was taken, or one where none was");
	if (len >= FAULT_DUST_WHY_MAX - 1)
		fz_fail("log line", "fills its buffer: cut short");
	if ((len || m->unrecognized) && !r)
		fz_fail("log line", "given with no refusal");
	if (len && m->unrecognized)
		fz_fail("log line", "two for one refusal");
	if (r && argc && !len && !m->unrecognized && argc != 2 && argc != 3)
		fz_fail("refused", "with no log line, not for a number");
	if (strchr(m->why, '\n'))
		fz_fail("log line", "holds a newline");
	if (r)
		return;
	if (takes_block ? argc < 2 || argc > (m->cmd == FAULT_DUST_ADD ? 3 : 2) : argc != 1)
		fz_fail("accepted", "a word count the message does not take");
	if (m->block > nr_blocks || m->wr_fail > 255 || (m->wr_fail && argc != 3))
		fz_fail("accepted", "a block past the device or a write fail count past 255");
	if (!takes_block && m->block)
		fz_fail("accepted", "a block where none belongs");
}

static int fz_parse(char *s, struct fault_dust_msg *m, char **argv, unsigned int *argc,
		    u64 nr_blocks)
{
	*argc = fz_split(s, argv, FZ_MAX_ARGS);
	if (*argc > FZ_MAX_ARGS)
		return 1;
	return fault_dust_msg_parse(m, *argc, argv, nr_blocks);
}

/* The message printed back: its first word as given, then its numbers. */
static void fz_again(const struct fault_dust_msg *m, const char *word, unsigned int argc,
		     u64 nr_blocks)
{
	static char s[FZ_MAX_INPUT + 64];
	struct fault_dust_msg b;
	char *argv[FZ_MAX_ARGS + 1];
	unsigned int n = 0;

	n = snprintf(s, sizeof(s), "%s", word);
	if (argc >= 2)
		n += snprintf(s + n, sizeof(s) - n, " %llu", m->block);
	if (argc == 3)
		snprintf(s + n, sizeof(s) - n, " %u", m->wr_fail);
	if (fz_parse(s, &b, argv, &n, nr_blocks) || !fz_same(m, &b))
		fz_fail("printed back", "reads otherwise");
}

static void fz_one(const char *in, u64 nr_blocks)
{
	static char s[FZ_MAX_INPUT + 1], u[FZ_MAX_INPUT + 1];
	struct fault_dust_msg m, b;
	char *argv[FZ_MAX_ARGS + 1];
	unsigned int argc, i;
	int r, rb;

	strcpy(s, in);
	r = fz_parse(s, &m, argv, &argc, nr_blocks);
	if (r == 1)
		return;
	fz_check(&m, r, argc, nr_blocks);
	if (!r)
		fz_again(&m, argv[0], argc, nr_blocks);
	/* words are matched in any case, and numbers have none */
	for (i = 0; in[i]; i++)
		u[i] = islower((unsigned char)in[i]) ? toupper((unsigned char)in[i]) :
			tolower((unsigned char)in[i]);
	u[i] = '\0';
	rb = fz_parse(u, &b, argv, &argc, nr_blocks);
	if (rb != r || b.cmd != m.cmd || (!r && (b.block != m.block || b.wr_fail != m.wr_fail)))
		fz_fail("in the other case", "reads otherwise");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const u64 sizes[] = { 0, 1, 1024, U64_MAX };
	static char s[FZ_MAX_INPUT + 1];

	if (!size)
		return 0;
	fz_in = fz_text(data + 1, size - 1, s, FZ_MAX_INPUT);
	if (fz_in)
		fz_one(fz_in, sizes[data[0] & 3]);
	return 0;
}
