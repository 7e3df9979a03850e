// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer target for the dm-fault engine's text interfaces
 * (lib/dmf-engine.c compiled unchanged against tools/kshim):
 *
 *  - dmf_prob_parse() agrees with the reference reading in
 *    tests/unit/dmf_ref.h; an accepted value is reduced, 0 <= num <= den,
 *    0 < den <= 10^18, has the exact threshold, and dmf_prob_format() of it
 *    parses back to the identical fraction;
 *  - "key=value" through dmf_attr_parse_kv() and a whole "k=v,k=v" list as
 *    a table line gives it: an error leaves the attribute unchanged, a
 *    success leaves a valid configuration that dmf_attr_format() prints and
 *    dmf_attr_parse_kv() reads back;
 *  - dmf_attr_parse_legacy() likewise, then a few decisions with the
 *    configuration it produced, whose counters must add up.
 *
 * A broken invariant aborts with a message, which libFuzzer reports as a
 * crash and saves as crash-<sha1>.  With -DDMF_FUZZ_STANDALONE a small
 * main() replays files and then feeds random text for a while, for hosts
 * without libFuzzer.
 */
#include <stdint.h>
#include <stdarg.h>

#include <dmf/engine.h>

#include "dmf_ref.h"

#define FZ_MAX_INPUT	4096

static struct dmf_attr fz_attr, fz_back;
static char fz_why[256];

static void __noreturn __printf(2, 3) fz_fail(const char *input, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "engine_fuzz: input \"%s\": ", input);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	abort();
}

#define FZ_ASSERT(input, cond, fmt, ...) \
	do { if (!(cond)) fz_fail(input, "%s: " fmt, #cond, ##__VA_ARGS__); } while (0)

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	shim_quiet = true;
	if (dmf_attr_init(&fz_attr, "fuzz") || dmf_attr_init(&fz_back, "fuzz-back"))
		abort();
	return 0;
}

/* Start from the default configuration: fresh state, known seed. */
static void fz_fresh(struct dmf_attr *a)
{
	const char *name = a->name;

	dmf_attr_destroy(a);
	if (dmf_attr_init(a, name) || dmf_attr_parse_kv(a, "seed", "1"))
		abort();
}

static void fz_prob(const char *s)
{
	struct dmf_prob p;
	char out[64];
	int r;

	memset(&p, 0, sizeof(p));
	r = dmf_prob_parse(s, &p);
	FZ_ASSERT(s, !r || r == -EINVAL || r == -ERANGE, "returned %d", r);
	FZ_ASSERT(s, dmf_ref_prob_agrees(s, r, &p, fz_why, sizeof(fz_why)), "%s", fz_why);
	if (r)
		return;
	FZ_ASSERT(s, p.den > 0 && p.den <= DMF_PROB_MAX_DEN && p.num <= p.den, "%llu/%llu",
		  p.num, p.den);
	FZ_ASSERT(s, dmf_ref_prob_valid(&p, fz_why, sizeof(fz_why)), "%s", fz_why);
	FZ_ASSERT(s, dmf_ref_prob_roundtrip(&p, out, sizeof(out), fz_why, sizeof(fz_why)), "%s",
		  fz_why);
}

/* A configuration parse_kv or parse_legacy may leave behind. */
static void fz_check_config(const char *s, struct dmf_attr *a)
{
	FZ_ASSERT(s, dmf_ref_prob_valid(&a->prob, fz_why, sizeof(fz_why)), "%s", fz_why);
	FZ_ASSERT(s, a->interval >= 1, "interval %llu", a->interval);
	FZ_ASSERT(s, a->times >= -1, "times %lld", a->times);
	FZ_ASSERT(s, a->space >= 0, "space %lld", a->space);
	FZ_ASSERT(s, a->verbose <= 2, "verbose %u", a->verbose);
	FZ_ASSERT(s, atomic64_read(&a->times_left) == a->times, "times_left");
	FZ_ASSERT(s, atomic64_read(&a->space_left) == a->space, "space_left");
	fz_fresh(&fz_back);
	FZ_ASSERT(s, dmf_ref_attr_roundtrip(a, &fz_back, fz_why, sizeof(fz_why)), "%s", fz_why);
}

/* A short run: counters must add up and nothing may overshoot. */
static void fz_decide(const char *s, struct dmf_attr *a)
{
	struct dmf_counters c;
	int i, injected = 0;

	a->verbose = 0;
	for (i = 0; i < 64; i++)
		injected += dmf_should_fail(a, i * 512);
	dmf_attr_counters(a, &c);
	FZ_ASSERT(s, c.evaluated == 64 && c.injected == (u64)injected &&
		  c.passed >= c.injected && c.passed <= c.evaluated,
		  "counters %llu/%llu/%llu, %d injected", c.evaluated, c.passed, c.injected,
		  injected);
	FZ_ASSERT(s, a->times < 0 || injected <= a->times, "%d faults, times %lld", injected,
		  a->times);
	FZ_ASSERT(s, a->prob.num || !injected, "p = 0 injected %d", injected);
}

/* One "key=value", as a message would send it. */
static void fz_kv(const char *s)
{
	struct dmf_ref_snap before;
	char buf[FZ_MAX_INPUT + 1], *val;
	int r;

	snprintf(buf, sizeof(buf), "%s", s);
	val = strchr(buf, '=');
	if (!val)
		return;
	*val++ = '\0';
	fz_fresh(&fz_attr);
	dmf_ref_snap(&fz_attr, &before);
	r = dmf_attr_parse_kv(&fz_attr, buf, val);
	FZ_ASSERT(s, !r || r == -EINVAL || r == -ERANGE || r == -ENOENT, "returned %d", r);
	if (r) {
		FZ_ASSERT(s, dmf_ref_unchanged(&fz_attr, &before), "failed (%d) but changed", r);
		return;
	}
	fz_check_config(s, &fz_attr);
}

/* "k=v,k=v,...", as a table line gives them; stop at the first error. */
static void fz_kv_list(const char *s)
{
	char buf[FZ_MAX_INPUT + 1], *rest = buf, *pair, *val;
	struct dmf_ref_snap before;
	int r;

	snprintf(buf, sizeof(buf), "%s", s);
	fz_fresh(&fz_attr);
	while ((pair = strsep(&rest, ","))) {
		val = strchr(pair, '=');
		if (!val)
			break;
		*val++ = '\0';
		dmf_ref_snap(&fz_attr, &before);
		r = dmf_attr_parse_kv(&fz_attr, pair, val);
		if (r) {
			FZ_ASSERT(s, dmf_ref_unchanged(&fz_attr, &before),
				  "%s=%s failed (%d) but changed", pair, val, r);
			break;
		}
	}
	fz_check_config(s, &fz_attr);
	fz_decide(s, &fz_attr);
}

static void fz_legacy(const char *s)
{
	struct dmf_ref_snap before;
	int r;

	fz_fresh(&fz_attr);
	dmf_ref_snap(&fz_attr, &before);
	r = dmf_attr_parse_legacy(&fz_attr, s);
	FZ_ASSERT(s, !r || r == -EINVAL || r == -ERANGE, "returned %d", r);
	if (r) {
		FZ_ASSERT(s, dmf_ref_unchanged(&fz_attr, &before), "failed (%d) but changed", r);
		return;
	}
	fz_check_config(s, &fz_attr);
	fz_decide(s, &fz_attr);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char s[FZ_MAX_INPUT + 1];

	if (size > FZ_MAX_INPUT)
		return -1;	/* not added to the corpus */
	memcpy(s, data, size);
	s[size] = '\0';		/* an embedded NUL ends the text, as in the kernel */

	fz_prob(s);
	fz_kv(s);
	fz_kv_list(s);
	fz_legacy(s);
	return 0;
}

#ifdef DMF_FUZZ_STANDALONE
/*
 * Without libFuzzer: replay the files named on the command line, then run
 * random text built from the grammar's symbols for $FUZZ_SECONDS (20 s).
 */
#include <time.h>

static u64 fz_rng = 0x853c49e6748fea9bULL;

static u64 fz_rand(void)
{
	fz_rng ^= fz_rng << 13;
	fz_rng ^= fz_rng >> 7;
	fz_rng ^= fz_rng << 17;
	return fz_rng;
}

static void fz_file(const char *path)
{
	static uint8_t buf[FZ_MAX_INPUT];
	FILE *f = fopen(path, "rb");
	size_t n;

	if (!f) {
		perror(path);
		exit(2);
	}
	n = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	LLVMFuzzerTestOneInput(buf, n);
}

int main(int argc, char **argv)
{
	static const char alpha[] = "0123456789000999.eE-+%/,=x \n"
				    "p=interval=times=space=seed=verbose=0x1/31e-";
	const char *secs = getenv("FUZZ_SECONDS");
	unsigned long runs = 0;
	time_t end;
	uint8_t in[64];
	int i;

	LLVMFuzzerInitialize(&argc, &argv);
	for (i = 1; i < argc; i++)
		fz_file(argv[i]);
	end = time(NULL) + (secs ? atoi(secs) : 20);
	fz_rng ^= (u64)time(NULL);
	while (time(NULL) < end) {
		for (i = 0; i < 1000; i++, runs++) {
			size_t n = fz_rand() % sizeof(in), j;

			for (j = 0; j < n; j++)
				in[j] = alpha[fz_rand() % (sizeof(alpha) - 1)];
			LLVMFuzzerTestOneInput(in, n);
		}
	}
	printf("Done %lu runs in %s second(s)\n", runs, secs ? secs : "20");
	return 0;
}
#endif
