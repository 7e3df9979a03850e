// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer target for the compat targets' table lines (drivers/md/dm-
 * fault-compat-args.c, the file the module compiles, built unchanged
 * against tools/kshim, once as 6.6+'s flakey and once as the older one:
 * FAULT_FLAKEY_V2 is set by the Makefile):
 *
 *  - the input is one table line after the target name, "<dev> <offset>
 *    <args>...", split at blanks as dm_split_args() splits it (no escapes);
 *    the first byte picks the target: even for fault-flakey, odd for
 *    fault-delay;
 *  - the parser either refuses with -EINVAL and a reason, or accepts, and
 *    what it accepts is in range (intervals, feature conflicts, delays);
 *  - an accepted line prints (as the status TABLE line is printed) to a
 *    line that parses back to the same arguments and prints the same again;
 *  - case does not matter to flakey (it reads its words with strcasecmp()):
 *    a flakey line in lower case reads the same, or is refused the same way.
 *
 * A broken invariant aborts; libFuzzer saves the input as crash-<sha1>.
 * With -DDMF_FUZZ_STANDALONE, fuzz-main.c's main() replays the files given.
 */
#include <stdint.h>

#include "../../drivers/md/dm-fault-compat-args.h"
#include "fuzz-words.h"

#define FZ_MAX_INPUT	4096
#define FZ_MAX_ARGS	64

static void __noreturn fz_fail(const char *input, const char *what, const char *detail)
{
	fprintf(stderr, "compat_fuzz (flakey v%d): input \"%s\": %s: %s\n",
		FAULT_FLAKEY_V2 + 1, input, what, detail);
	abort();
}

/* Parse the line in @s (split in place) into @ca: the parser's return. */
static int fz_parse(bool flakey, char *s, struct fault_compat_args *ca, char **error)
{
	char *argv[FZ_MAX_ARGS];
	struct dm_arg_set as;
	unsigned int argc;

	memset(ca, 0, sizeof(*ca));
	*error = NULL;
	argc = fz_split(s, argv, FZ_MAX_ARGS);
	if (argc > FZ_MAX_ARGS)
		return 1;
	if (!flakey)
		return fault_delay_parse(ca, argc, argv, error);
	/* the constructor wants 4 and has read "<dev> <offset>" */
	if (argc < 4)
		return 1;
	as.argc = argc - 2;
	as.argv = argv + 2;
	return fault_flakey_parse(ca, &as, error);
}

static void fz_check_flakey(const char *in, const struct fault_compat_args *ca)
{
	unsigned long wflags = FAULT_FL_DROP_WRITES | FAULT_FL_ERROR_WRITES;

	if (!ca->up && !ca->down)
		fz_fail(in, "accepted", "up and down both 0");
	if (ca->up + ca->down < ca->up)
		fz_fail(in, "accepted", "up + down overflows");
	if ((ca->flags & wflags) == wflags)
		fz_fail(in, "accepted", "drop_writes and error_writes");
	if (!FAULT_FLAKEY_V2 && (ca->flags & FAULT_FL_ERROR_READS || ca->rrc || ca->rwc))
		fz_fail(in, "accepted", "a 6.6 feature before 6.6");
	if (ca->rrc > FAULT_FLAKEY_PROB_BASE || ca->rwc > FAULT_FLAKEY_PROB_BASE)
		fz_fail(in, "accepted", "random corrupt past 10^9");
	if (ca->corrupt_byte &&
	    ((ca->corrupt_dir != 'r' && ca->corrupt_dir != 'w') || ca->corrupt_value > 255 ||
	     ca->corrupt_flags || (ca->corrupt_dir == 'w' && (ca->flags & wflags))))
		fz_fail(in, "accepted", "a bad corrupt_bio_byte");
}

static void fz_check_delay(const char *in, const struct fault_compat_args *ca)
{
	unsigned int i;

	if (ca->nr_delay < 1 || ca->nr_delay > 3)
		fz_fail(in, "accepted", "not 1 to 3 delay classes");
	for (i = 0; i < ca->nr_delay; i++)
		if (ca->delay_ms[i] > FAULT_DELAY_MAX_MS)
			fz_fail(in, "accepted", "a delay past a day");
}

/* Flakey line @in in lower case reads as @in did: @r, then @ca or the same @why. */
static void fz_lower(const char *in, char *s, int r, const struct fault_compat_args *ca,
		     const char *why)
{
	struct fault_compat_args b;
	char *error;
	size_t i;

	for (i = 0; in[i]; i++)
		s[i] = tolower((unsigned char)in[i]);
	s[i] = '\0';
	if (fz_parse(true, s, &b, &error) != r)
		fz_fail(in, "in lower case, read otherwise", error ? error : "accepted");
	if (!r && memcmp(ca, &b, sizeof(b)))
		fz_fail(in, "in lower case, read to other arguments", "");
	if (r && error != why)
		fz_fail(in, "in lower case, refused for another reason", error);
}

static void fz_line(bool flakey, const char *in)
{
	struct fault_compat_args a, b;
	char pa[512], pb[512], copy[512];
	char *s, *error;
	int r;

	s = strdup(in);
	if (!s)
		abort();
	r = fz_parse(flakey, s, &a, &error);
	if (flakey && r != 1)
		fz_lower(in, s, r, &a, error);
	free(s);
	if (r == 1)
		return;
	if (r) {
		if (r != -EINVAL || !error)
			fz_fail(in, "refusal", error ? error : "no reason");
		return;
	}
	if (flakey)
		fz_check_flakey(in, &a);
	else
		fz_check_delay(in, &a);

	if (flakey)
		fault_flakey_format(&a, "253:0", 0, pa, sizeof(pa));
	else
		fault_delay_format(&a, "253:0", 0, pa, sizeof(pa));
	strcpy(copy, pa);
	r = fz_parse(flakey, copy, &b, &error);
	if (r)
		fz_fail(in, "printed line refused", error ? error : pa);
	if (memcmp(&a, &b, sizeof(a)))
		fz_fail(in, "printed line reads back differently", pa);
	if (flakey)
		fault_flakey_format(&b, "253:0", 0, pb, sizeof(pb));
	else
		fault_delay_format(&b, "253:0", 0, pb, sizeof(pb));
	if (strcmp(pa, pb))
		fz_fail(in, "printed twice differently", pb);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char s[FZ_MAX_INPUT + 1];

	if (!size || size > FZ_MAX_INPUT)
		return 0;
	memcpy(s, data + 1, size - 1);
	s[size - 1] = '\0';
	fz_line(!(data[0] & 1), s);
	return 0;
}
