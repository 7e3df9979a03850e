// SPDX-License-Identifier: GPL-2.0-only
/*
 * Instructions per dmf_should_fail() decision, on the host.
 *
 * lib/dmf-engine.c is compiled unchanged against the userspace shim
 * (tools/kshim/dmf/kernel.h).  bench/engine.sh runs this program under
 * callgrind, collecting only inside bench_loop(), for two values of N; the
 * instruction delta divided by the difference in N is the cost of one
 * decision plus the loop, and the "baseline" case (the same loop calling an
 * empty function) is subtracted from the others.
 *
 * usage: engine CASE N        prints "CASE N fired"
 *        engine --list        prints the cases
 */
#include <dmf/engine.h>

struct bench_case {
	const char *name;
	const char *what;
	int (*setup)(struct dmf_attr *a);
	int target;		/* instructions a decision may take, 0: none */
};

/* The empty decision of the baseline loop. */
static noinline bool bench_nop(struct dmf_attr *a, u64 size)
{
	__asm__ volatile("" : : "r"(a), "r"(size) : "memory");
	return false;
}

typedef bool (*decide_fn)(struct dmf_attr *a, u64 size);

/* The only code callgrind collects (--toggle-collect=bench_loop). */
static noinline unsigned long bench_loop(decide_fn fn, struct dmf_attr *a, unsigned long n)
{
	unsigned long i, fired = 0;

	for (i = 0; i < n; i++)
		fired += fn(a, 4096);
	return fired;
}

static int set(struct dmf_attr *a, const char *key, const char *val)
{
	int r = dmf_attr_parse_kv(a, key, val);

	if (r)
		fprintf(stderr, "engine: %s=%s: error %d\n", key, val, r);
	return r;
}

static int setup_none(struct dmf_attr *a)
{
	return 0;
}

static int setup_p0(struct dmf_attr *a)
{
	return set(a, "p", "0");
}

static int setup_p100(struct dmf_attr *a)
{
	return set(a, "p", "100%");
}

static int setup_p01(struct dmf_attr *a)
{
	return set(a, "p", "0.1%") || set(a, "seed", "1");
}

static int setup_p1(struct dmf_attr *a)
{
	return set(a, "p", "1%") || set(a, "seed", "1");
}

static int setup_p50(struct dmf_attr *a)
{
	return set(a, "p", "50%") || set(a, "seed", "1");
}

static int setup_p1_percpu(struct dmf_attr *a)
{
	return setup_p1(a) || set(a, "streams", "percpu");
}

static int setup_p50_percpu(struct dmf_attr *a)
{
	return setup_p50(a) || set(a, "streams", "percpu");
}

static int setup_p100_times(struct dmf_attr *a)
{
	/* times is claimed but never exhausted within the run */
	return set(a, "p", "100%") || set(a, "times", "1000000000000");
}

static int setup_interval(struct dmf_attr *a)
{
	return set(a, "p", "100%") || set(a, "interval", "1000");
}

static int setup_interval_p01(struct dmf_attr *a)
{
	return set(a, "p", "0.1%") || set(a, "interval", "10") || set(a, "seed", "1");
}

static int setup_space(struct dmf_attr *a)
{
	/* space never runs out within the run: every call consumes and passes */
	return set(a, "p", "100%") || set(a, "space", "9000000000000000000");
}

static const struct bench_case cases[] = {
	{ "baseline", "empty function, subtracted from the others", setup_none, 0 },
	{ "p0", "p=0: early out (no fault configured)", setup_p0, 50 },
	{ "p0.1%", "p=0.1%, not firing (0.1% of calls fire)", setup_p01, 50 },
	{ "p1%", "p=1%, the rule's one stream (1% of calls fire)", setup_p1, 0 },
	{ "p50%", "p=50%, the rule's one stream (half the calls fire)", setup_p50, 0 },
	{ "p1%-percpu", "p=1%, streams=percpu", setup_p1_percpu, 0 },
	{ "p50%-percpu", "p=50%, streams=percpu", setup_p50_percpu, 0 },
	{ "p100%", "p=100%, times unlimited: fires", setup_p100, 0 },
	{ "p100%-times", "p=100%, times=10^12: fires, claims times", setup_p100_times, 0 },
	{ "interval", "p=100%, interval=1000: not due (1 in 1000 fires)", setup_interval, 50 },
	{ "interval-p0.1%", "p=0.1%, interval=10 (1 in 10 draws)", setup_interval_p01, 50 },
	{ "space", "p=100%, space left: consumed, not firing", setup_space, 0 },
};

int main(int argc, char **argv)
{
	const struct bench_case *c = NULL;
	struct dmf_attr a;
	unsigned long n, fired;
	decide_fn fn;
	unsigned int i;

	if (argc == 2 && !strcmp(argv[1], "--list")) {
		for (i = 0; i < ARRAY_SIZE(cases); i++)
			printf("%s\t%d\t%s\n", cases[i].name, cases[i].target, cases[i].what);
		return 0;
	}
	if (argc != 3) {
		fprintf(stderr, "usage: %s CASE N | --list\n", argv[0]);
		return 2;
	}
	for (i = 0; i < ARRAY_SIZE(cases); i++)
		if (!strcmp(cases[i].name, argv[1]))
			c = &cases[i];
	n = strtoul(argv[2], NULL, 0);
	if (!c || !n) {
		fprintf(stderr, "engine: unknown case '%s' or bad N\n", argv[1]);
		return 2;
	}
	shim_quiet = true;
	shim_set_cpu(0);
	if (dmf_attr_init(&a, "bench") || c->setup(&a))
		return 1;
	dmf_attr_reset(&a);
	fn = dmf_should_fail;
	if (c == &cases[0])
		fn = bench_nop;
	fired = bench_loop(fn, &a, n);
	printf("%s %lu %lu\n", c->name, n, fired);
	dmf_attr_destroy(&a);
	return 0;
}
