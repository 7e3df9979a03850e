// SPDX-License-Identifier: GPL-2.0-only
/*
 * Host tests of the compat targets' words (drivers/md/dm-fault-compat-
 * args.c, compiled unchanged against the shim, flakey as in 6.6 and later):
 * table lines read and printed back as dm-flakey, dm-delay and dm-dust
 * print them, and the reasons lines are refused with; dm-dust's messages
 * and the lines dm-dust logs when it refuses one.  Feature names are read
 * in any case, as dm-flakey reads them: "DROP_WRITES" was taken for
 * error_writes and "RANDOM_READ_CORRUPT" for random_write_corrupt.
 */
#include "../../drivers/md/dm-fault-compat-args.h"
#include "ktap.h"
#include "words.h"

#define MAX_ARGS	32

/* Read "<dev> <offset> <args>" for fault-flakey (or fault-delay): 0 or -errno. */
static int line(bool flakey, const char *text, struct fault_compat_args *ca, char **error)
{
	static char buf[512];
	char *argv[MAX_ARGS];
	struct dm_arg_set as;
	unsigned int argc;

	memset(ca, 0, sizeof(*ca));
	*error = NULL;
	argc = words_split(text, buf, sizeof(buf), argv, MAX_ARGS);
	if (!flakey)
		return fault_delay_parse(ca, argc, argv, error);
	as.argc = argc - 2;
	as.argv = argv + 2;
	return fault_flakey_parse(ca, &as, error);
}

/* @text is taken and printed back as @want. */
static void same(bool flakey, const char *text, const char *want)
{
	struct fault_compat_args ca;
	char out[256], *error;
	int r;

	r = line(flakey, text, &ca, &error);
	if (!ktap_check(!r, "'%s' refused: %s", text, error ? error : "?"))
		return;
	if (flakey)
		fault_flakey_format(&ca, "253:0", 0, out, sizeof(out));
	else
		fault_delay_format(&ca, "253:0", 0, out, sizeof(out));
	ktap_check(!strcmp(out, want), "'%s' printed '%s', want '%s'", text, out, want);
}

static void refused(bool flakey, const char *text, const char *why)
{
	struct fault_compat_args ca;
	char *error;
	int r;

	r = line(flakey, text, &ca, &error);
	ktap_check(r == -EINVAL && error && !strcmp(error, why), "'%s': %d '%s', want '%s'",
		   text, r, error ? error : "(none)", why);
}

static void test_flakey(void)
{
	same(true, "dev 0 1 2", "253:0 0 1 2 0");
	same(true, "dev 0 1 1 1 DROP_WRITES", "253:0 0 1 1 1 drop_writes");
	same(true, "dev 0 1 1 5 corrupt_bio_byte 32 R 1 0", "253:0 0 1 1 5 corrupt_bio_byte 32 r 1 0");
	same(true, "dev 0 1 1 4 random_write_corrupt 7 error_reads error_writes",
	     "253:0 0 1 1 4 error_reads error_writes random_write_corrupt 7");
	same(true, "dev 0 4294967295 0", "253:0 0 4294967295 0 0");
	/* features in upper case were read by their first letter's case */
	same(true, "dev 0 1 1 2 RANDOM_READ_CORRUPT 5", "253:0 0 1 1 2 random_read_corrupt 5");
	same(true, "dev 0 1 1 1 Drop_Writes", "253:0 0 1 1 1 drop_writes");
}

static void test_flakey_refused(void)
{
	static const char * const cases[][2] = {
		{ "dev 0 4294967296 1", "Invalid up interval" },
		{ "dev 0 +1 1", "Invalid up interval" },
		{ "dev 0 1 -1", "Invalid down interval" },
		{ "dev 0 0 0", "Invalid up and down intervals" },
		{ "dev 0 4294967295 1", "Invalid up and down intervals" },
		{ "dev 0 1 1 12", "Invalid number of feature args" },
		{ "dev 0 1 1 2 drop_writes", "Invalid number of feature args" },
		{ "dev 0 1 1 1 bogus", "Unrecognised flakey feature requested" },
		{ "dev 0 1 1 2 drop_writes error_writes",
		  "Only one of drop_writes and error_writes is allowed" },
		{ "dev 0 1 1 4 corrupt_bio_byte 1 r 0",
		  "Feature corrupt_bio_byte requires parameters" },
		{ "dev 0 1 1 5 corrupt_bio_byte 0 r 0 0", "Invalid corrupt bio byte" },
		{ "dev 0 1 1 5 corrupt_bio_byte 1 x 0 0", "Invalid corrupt bio direction (r or w)" },
		{ "dev 0 1 1 5 corrupt_bio_byte 1 r 256 0",
		  "Invalid corrupt value to write into bio byte (0-255)" },
		{ "dev 0 1 1 5 corrupt_bio_byte 1 r 0 1",
		  "corrupt_bio_byte bio flags are not supported" },
		{ "dev 0 1 1 6 drop_writes corrupt_bio_byte 1 w 0 0",
		  "drop_writes and error_writes are incompatible with corrupt_bio_byte w" },
		{ "dev 0 1 1 2 random_read_corrupt 1000000001", "Invalid random corrupt argument" },
		{ "dev 0 1 1 1 random_read_corrupt", "Unrecognised flakey feature requested" },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++)
		refused(true, cases[i][0], cases[i][1]);
}

static void test_delay(void)
{
	same(false, "dev 0 10", "253:0 0 10");
	same(false, "dev 0 0 dev 0 5 dev 0 86400000", "253:0 0 0 253:0 0 5 253:0 0 86400000");
	refused(false, "dev 0 86400001", "Invalid delay");
	refused(false, "dev 0 +5", "Invalid delay");
	refused(false, "dev 0 4294967296", "Invalid delay");
	refused(false, "dev 0 10 other 0 20", "Every delay class must map the same device and offset");
	refused(false, "dev 0 10 dev 1 20", "Every delay class must map the same device and offset");
	refused(false, "dev 0 10 dev", "Requires exactly 3, 6 or 9 arguments");
}

/* A dust table on a target of @len sectors: printed back as @want, or refused for @why. */
static void dust_table(const char *text, u64 len, const char *want, const char *why)
{
	struct fault_compat_args ca = { .blksz = 0 };
	char buf[128], out[128], *argv[MAX_ARGS], *error = NULL;
	unsigned int argc = words_split(text, buf, sizeof(buf), argv, MAX_ARGS);
	int r;

	r = fault_dust_parse(&ca, argc, argv, len, &error);
	if (why) {
		ktap_check(r == -EINVAL && error && !strcmp(error, why), "'%s': %d '%s', want '%s'",
			   text, r, error ? error : "(none)", why);
		return;
	}
	if (!ktap_check(!r, "'%s' refused: %s", text, error ? error : "?"))
		return;
	fault_dust_format(&ca, "253:0", 0, out, sizeof(out));
	ktap_check(!strcmp(out, want), "'%s' printed '%s', want '%s'", text, out, want);
}

static void test_dust_table(void)
{
	dust_table("dev 0 512", 8, "253:0 0 512", NULL);
	dust_table("dev 0 4096", 8, "253:0 0 4096", NULL);
	/* kstrtouint(), as fault-dust reads it: a '+' is taken */
	dust_table("dev 0 +512", 8, "253:0 0 512", NULL);
	dust_table("dev 0 1073741824", 1ULL << 40, "253:0 0 1073741824", NULL);
	dust_table("dev 0", 8, NULL, "Invalid argument count");
	dust_table("dev 0 512 1", 8, NULL, "Invalid argument count");
	dust_table("dev 0 x", 8, NULL, "Invalid block size parameter");
	dust_table("dev 0 0", 8, NULL, "Invalid block size parameter");
	dust_table("dev 0 -512", 8, NULL, "Invalid block size parameter");
	dust_table("dev 0 4294967296", 8, NULL, "Invalid block size parameter");
	dust_table("dev 0 256", 8, NULL, "Block size must be at least 512");
	dust_table("dev 0 1536", 8, NULL, "Block size must be a power of 2");
	dust_table("dev 0 8192", 8, NULL, "Block size is too large");
	dust_table("dev 0 2147483648", 1ULL << 40, NULL, "Block size is too large");
	dust_table("dev 2048 512", 8, "253:0 0 512", NULL);
	/* the offset as dm-dust's sscanf() reads it: digits only, after the block size */
	dust_table("dev abc 512", 8, NULL, "Invalid device offset sector");
	dust_table("dev +8 512", 8, NULL, "Invalid device offset sector");
	dust_table("dev -1 512", 8, NULL, "Invalid device offset sector");
	dust_table("dev 8x 512", 8, NULL, "Invalid device offset sector");
	dust_table("dev abc 256", 8, NULL, "Block size must be at least 512");
	/* past 2^64: dm-dust takes it modulo 2^64, fault-dust refuses it */
	dust_table("dev 18446744073709551616 512", 8, NULL, "Invalid device offset sector");
}

/* What a dm-dust message reads as: r, and cmd, block and wr_fail or the log line. */
struct dust_case {
	const char *text;
	int r;
	enum fault_dust_cmd cmd;
	unsigned long long block;
	unsigned int wr_fail;
	const char *why;
};

static void test_dust_msg(void)
{
	static const struct dust_case cases[] = {
		{ "addbadblock 60", 0, FAULT_DUST_ADD, 60, 0, "" },
		{ "ADDBADBLOCK 60 2", 0, FAULT_DUST_ADD, 60, 2, "" },
		{ "addbadblock 80 255", 0, FAULT_DUST_ADD, 80, 255, "" },
		{ "addbadblock 1024", 0, FAULT_DUST_ADD, 1024, 0, "" },
		/* a block past 2^64 wraps, as the kernel's sscanf() reads it */
		{ "addbadblock 18446744073709551617", 0, FAULT_DUST_ADD, 1, 0, "" },
		{ "removebadblock 7", 0, FAULT_DUST_REMOVE, 7, 0, "" },
		{ "queryblock 72", 0, FAULT_DUST_QUERY, 72, 0, "" },
		{ "disable", 0, FAULT_DUST_DISABLE, 0, 0, "" },
		{ "Enable", 0, FAULT_DUST_ENABLE, 0, 0, "" },
		{ "countbadblocks", 0, FAULT_DUST_COUNT, 0, 0, "" },
		{ "clearbadblocks", 0, FAULT_DUST_CLEAR, 0, 0, "" },
		{ "quiet", 0, FAULT_DUST_QUIET, 0, 0, "" },
		{ "listbadblocks", 0, FAULT_DUST_LIST, 0, 0, "" },
		{ "", -ENOTTY, FAULT_DUST_NONE, 0, 0, "" },
		/* a word not dm-dust's: what dm-dust would log, should the fault target refuse it */
		{ "frob", -ENOTTY, FAULT_DUST_NONE, 0, 0, "unrecognized message 'frob' received" },
		{ "frob 5", -ENOTTY, FAULT_DUST_NONE, 0, 0, "unrecognized message 'frob' received" },
		{ "frob 5 255", -ENOTTY, FAULT_DUST_NONE, 0, 0,
		  "unrecognized message 'frob' received" },
		{ "frob 5000", -ENOTTY, FAULT_DUST_NONE, 0, 0, "selected block value out of range" },
		{ "frob 5 256", -ENOTTY, FAULT_DUST_NONE, 0, 0,
		  "selected write fail count out of range" },
		{ "frob 1 2 3", -ENOTTY, FAULT_DUST_NONE, 0, 0, "invalid number of arguments '4'" },
		{ "frob x", -ENOTTY, FAULT_DUST_NONE, 0, 0, "" },
		{ "rule add error", -ENOTTY, FAULT_DUST_NONE, 0, 0, "" },
		{ "addbadblock", -EINVAL, FAULT_DUST_ADD, 0, 0,
		  "addbadblock requires an additional argument" },
		{ "QueryBlock", -EINVAL, FAULT_DUST_QUERY, 0, 0,
		  "QueryBlock requires an additional argument" },
		{ "addbadblock 1 2 3", -EINVAL, FAULT_DUST_ADD, 0, 0,
		  "invalid number of arguments '4'" },
		{ "quiet 1 2 3 4", -EINVAL, FAULT_DUST_QUIET, 0, 0,
		  "invalid number of arguments '5'" },
		{ "addbadblock 80 256", -EINVAL, FAULT_DUST_ADD, 80, 256,
		  "selected write fail count out of range" },
		{ "addbadblock 1025", -EINVAL, FAULT_DUST_ADD, 1025, 0,
		  "selected block value out of range" },
		{ "enable 5", -EINVAL, FAULT_DUST_ENABLE, 5, 0,
		  "unrecognized message 'enable' received" },
		{ "removebadblock 5 1", -EINVAL, FAULT_DUST_REMOVE, 5, 1,
		  "unrecognized message 'removebadblock' received" },
		/* the range before the word count, as dm-dust checks them */
		{ "enable 5000", -EINVAL, FAULT_DUST_ENABLE, 5000, 0,
		  "selected block value out of range" },
		/* numbers that do not read: refused with no log line */
		{ "enable x", -EINVAL, FAULT_DUST_ENABLE, 0, 0, "" },
		{ "addbadblock -1", -EINVAL, FAULT_DUST_ADD, 0, 0, "" },
		{ "addbadblock +1", -EINVAL, FAULT_DUST_ADD, 0, 0, "" },
		{ "addbadblock 5x", -EINVAL, FAULT_DUST_ADD, 5, 0, "" },
		{ "addbadblock 5 x", -EINVAL, FAULT_DUST_ADD, 5, 0, "" },
		{ "addbadblock 5 -1", -EINVAL, FAULT_DUST_ADD, 5, 0, "" },
	};
	const struct dust_case *c;
	struct fault_dust_msg m;
	char buf[128], why[160], *argv[MAX_ARGS];
	unsigned int i, argc;
	int r;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		c = &cases[i];
		argc = words_split(c->text, buf, sizeof(buf), argv, MAX_ARGS);
		r = fault_dust_msg_parse(&m, argc, argv, 1024);
		if (m.unrecognized)
			snprintf(why, sizeof(why), "unrecognized message '%s' received", argv[0]);
		else
			snprintf(why, sizeof(why), "%s", m.why);
		ktap_check(r == c->r && m.cmd == c->cmd && !strcmp(why, c->why),
			   "'%s': %d %d '%s', want %d %d '%s'", c->text, r, m.cmd, why, c->r,
			   c->cmd, c->why);
		if (m.cmd == FAULT_DUST_ADD || m.cmd == FAULT_DUST_REMOVE ||
		    m.cmd == FAULT_DUST_QUERY)
			ktap_check(m.block == c->block && m.wr_fail == c->wr_fail,
				   "'%s': block %llu wr_fail %u, want %llu %u", c->text, m.block,
				   m.wr_fail, c->block, c->wr_fail);
	}
}

static const struct ktap_case cases[] = {
	KTAP_CASE(test_flakey),
	KTAP_CASE(test_flakey_refused),
	KTAP_CASE(test_delay),
	KTAP_CASE(test_dust_table),
	KTAP_CASE(test_dust_msg),
};

int main(void)
{
	return ktap_run("compat_args", cases, ARRAY_SIZE(cases));
}
