/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * dm-fault decision engine: one attribute type and one predicate shared by
 * the device-mapper target and the allocator hooks.
 *
 * An attribute says how often a fault fires (probability, interval, times,
 * space) and keeps its own counters.  Decisions draw from a counter-based
 * generator keyed by a seed, one stream an attribute, so a seed and a
 * single-threaded call sequence replay the same faults on any CPU.  The
 * engine decides and counts; it neither fetches a call chain nor logs.
 * Filters of the injector's own (the allocator hooks' task, cache, gfp and
 * call-chain filters, fail-nth) are applied by the injector first and
 * reported with dmf_count_filtered() or dmf_force_fail();
 * dmf_stack_allows() is the call-chain test, on a chain the injector
 * collected.  The injector logs a fault it was told to
 * inject, with dmf_log_fault() or a line of its own.
 *
 * Names carry a dmf_ prefix so that this builds next to a kernel that has
 * its own <linux/fault-inject.h>.
 */
#ifndef _DMF_ENGINE_H
#define _DMF_ENGINE_H

#include <dmf/kernel.h>

/* Probability is a reduced fraction num/den, den at most 10^18. */
#define DMF_PROB_MAX_DEN	1000000000000000000ULL

/*
 * thresh alone decides: 0 is never, U64_MAX always (num == den), else a
 * draw below it fails.  With den <= 10^18 no other probability maps to 0
 * or U64_MAX, so the predicate reads this one word; num and den are for
 * printing.  See dmf_prob_publish().
 */
struct dmf_prob {
	u64 num;
	u64 den;
	u64 thresh;
};

#define DMF_STACK_DEPTH_MAX	32
#define DMF_STACK_RANGES	8

struct dmf_range {
	unsigned long start;
	unsigned long end;	/* exclusive; start == end means unused */
};

/*
 * Call-chain filter.  require: at least one return address must fall in
 * one of the require ranges (no require range = anything goes).  reject: no
 * address may fall in a reject range.  depth: how many return addresses are
 * looked at, 0 = the filter is off.  Users fill the ranges (raw addresses,
 * a module's text, a symbol's extent) and set depth to enable it.
 */
struct dmf_stack_filter {
	unsigned int depth;
	struct dmf_range require[DMF_STACK_RANGES];
	struct dmf_range reject[DMF_STACK_RANGES];
};

struct dmf_counters {
	u64 evaluated;		/* calls decided, forced or filtered by the user */
	u64 passed;		/* calls that passed the filters */
	u64 injected;		/* faults returned */
};

/*
 * Per-CPU: the counters (passed is evaluated - filtered, so a passing call
 * adds nothing) and the generator's position on this CPU, used with
 * DMF_STREAMS_PERCPU.
 */
struct dmf_pcpu_counters {
	u64 evaluated;
	u64 filtered;		/* stopped by probability 0, a filter or times */
	u64 injected;
	u64 draws;		/* the generator's position on this CPU */
};

/* CPU c's stream of draws starts at c << DMF_STREAM_SHIFT: 2^48 draws a CPU. */
#define DMF_STREAM_SHIFT	48

/*
 * The attribute's one stream: its position, in a cache line of its own
 * (an allocation of its own, which kmalloc aligns to its power-of-two
 * size), so that the draws every CPU writes here do not evict the
 * read-mostly configuration the predicate reads on every call.
 */
struct dmf_stream {
	atomic64_t pos;
} ____cacheline_aligned_in_smp;

enum dmf_attr_flags {
	DMF_SEED_SET		= 1 << 0,	/* seed given by the user */
	DMF_STREAMS_PERCPU	= 1 << 1,	/* a stream a CPU (streams=percpu) */
};

struct dmf_attr {
	/* configuration, as given */
	struct dmf_prob prob;
	u64 interval;
	s64 times;		/* -1: no limit */
	s64 space;
	u64 seed;
	unsigned int flags;
	unsigned int verbose;	/* for the injector's log: 0 quiet, 1 a line, 2 and a chain */
	const char *name;

	/* run-time state */
	atomic64_t times_left;
	atomic64_t space_left;
	atomic64_t count;	/* interval counter */
	struct dmf_stream *stream;
	struct dmf_pcpu_counters __percpu *stats;
	struct ratelimit_state rs;	/* for the injector's log */
};

int dmf_attr_init(struct dmf_attr *a, const char *name);
void dmf_attr_destroy(struct dmf_attr *a);
void dmf_attr_reset(struct dmf_attr *a);

bool __dmf_should_fail(struct dmf_attr *a, u64 size);
void dmf_force_fail(struct dmf_attr *a);
void dmf_log_fault(struct dmf_attr *a);
bool dmf_stack_allows(const struct dmf_stack_filter *f, const unsigned long *entries,
		      unsigned int n);

/**
 * dmf_count_filtered - count a call that a filter stopped
 * @a: the attribute
 *
 * For a filter the injector applies before asking the engine but counts
 * as the engine's (the allocator hooks' task filter, a fail-nth count not
 * yet due), and for probability 0: evaluated, not passed.  Touches
 * nothing else.
 */
static inline void dmf_count_filtered(struct dmf_attr *a)
{
	struct dmf_pcpu_counters __percpu *stats = a->stats;

	this_cpu_inc(stats->evaluated);
	this_cpu_inc(stats->filtered);
}

/**
 * dmf_should_fail - decide whether this call fails
 * @a: the attribute
 * @size: bytes at stake, counted against space
 *
 * Order: probability 0 and times exhausted filter the call out; then
 * space, interval, probability, and times is claimed.  An injector with
 * filters of its own applies them first.  Probability 0 is decided
 * inline: a rule or hook switched off that way costs two per-CPU
 * increments and no call.
 *
 * Return: true to inject a fault; the caller logs it.
 */
static inline bool dmf_should_fail(struct dmf_attr *a, u64 size)
{
	if (!READ_ONCE(a->prob.thresh)) {
		dmf_count_filtered(a);
		return false;
	}
	return __dmf_should_fail(a, size);
}

u64 dmf_attr_draw(struct dmf_attr *a);
const char *dmf_attr_streams_name(const struct dmf_attr *a);
void dmf_attr_counters(const struct dmf_attr *a, struct dmf_counters *sum);
void dmf_attr_clear_counters(struct dmf_attr *a);

int dmf_prob_parse(const char *s, struct dmf_prob *p);
int dmf_prob_set(struct dmf_prob *p, u64 num, u64 den);
int dmf_prob_format(const struct dmf_prob *p, char *buf, size_t len);
void dmf_prob_publish(struct dmf_prob *dst, const struct dmf_prob *src);
static inline bool dmf_prob_is_zero(const struct dmf_prob *p)
{
	return !READ_ONCE(p->thresh);
}

int dmf_attr_parse_kv(struct dmf_attr *a, const char *key, const char *val);
int dmf_attr_parse_legacy(struct dmf_attr *a, const char *str);
int dmf_attr_parse_kernel_interval(struct dmf_attr *a, const char *val);
int dmf_attr_format(const struct dmf_attr *a, char *buf, size_t len);

#endif /* _DMF_ENGINE_H */
