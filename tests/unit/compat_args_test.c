// SPDX-License-Identifier: GPL-2.0-only
/*
 * Host tests of the compat targets' table lines (drivers/md/dm-fault-
 * args.c, compiled unchanged against the shim, flakey as in 6.6 and later):
 * lines read and printed back as dm-flakey and dm-delay print them, and
 * the reasons lines are refused with.  Feature names are read in any case,
 * as dm-flakey reads them: "DROP_WRITES" was taken for error_writes and
 * "RANDOM_READ_CORRUPT" for random_write_corrupt.
 */
#include "../../drivers/md/dm-fault-args.h"
#include "ktap.h"

#define MAX_ARGS	32

/* Read "<dev> <offset> <args>" for fault-flakey (or fault-delay): 0 or -errno. */
static int line(bool flakey, const char *text, struct fault_compat_args *ca, char **error)
{
	static char buf[512];
	char *argv[MAX_ARGS], *s = buf, *tok;
	struct dm_arg_set as;
	unsigned int argc = 0;

	memset(ca, 0, sizeof(*ca));
	*error = NULL;
	snprintf(buf, sizeof(buf), "%s", text);
	while ((tok = strsep(&s, " ")) && argc < MAX_ARGS)
		if (*tok)
			argv[argc++] = tok;
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

static const struct ktap_case cases[] = {
	KTAP_CASE(test_flakey),
	KTAP_CASE(test_flakey_refused),
	KTAP_CASE(test_delay),
};

int main(void)
{
	return ktap_run("compat_args", cases, ARRAY_SIZE(cases));
}
