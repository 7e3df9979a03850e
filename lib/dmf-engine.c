// SPDX-License-Identifier: GPL-2.0-only
/*
 * The dm-fault decision engine.
 *
 * Every injector (the dm target's rules, the slab and page allocator hooks)
 * describes its policy with a struct dmf_attr and asks dmf_should_fail()
 * whether this call fails.  The predicate never sleeps, never allocates and
 * takes no lock, so it is safe from an ftrace callback or a bio's map path.
 *
 * Compared with lib/fault-inject.c: probability is a fraction finer than a
 * percent and compared against a 64-bit draw (no modulo bias); draws come
 * from a counter-based generator keyed by a seed, one stream an attribute
 * (or, as a stated choice, one a CPU), so runs replay; times and
 * space are claimed with atomic operations and never overshoot; filters are
 * applied before interval and probability so those count eligible calls
 * only; every attribute counts what it evaluated and injected.
 */
#define pr_fmt(fmt) "dmf: " fmt

#include <dmf/engine.h>

#define DMF_GOLDEN	0x9e3779b97f4a7c15ULL

/* splitmix64's finaliser: a bijective 64-bit mix of the draw position. */
static u64 dmf_mix(u64 z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/**
 * dmf_attr_draw - next 64-bit pseudo-random value of an attribute
 * @a: the attribute
 *
 * By default the attribute has one stream: the k-th draw, in the order
 * calls reach the attribute, is a pure function of (seed, k), the
 * position taken with one atomic increment.  So a single submitter
 * replays its faults wherever the scheduler runs it, and several replay
 * as far as their interleaving does; the cost is a cache line that every
 * CPU drawing writes, and only calls that need a draw touch it (not
 * probability 0 or 1, nor a call the interval or a filter settled).
 *
 * With DMF_STREAMS_PERCPU (streams=percpu) each CPU draws from a stream of
 * its own: the k-th draw on CPU c is a pure function of (seed, c, k), the
 * position a per-CPU counter starting at c << DMF_STREAM_SHIFT, so streams
 * never meet and a draw writes only its CPU's cache line.  Replay then
 * needs the same sequence of calls on each CPU: a submitter pinned to a
 * CPU, or several pinned to CPUs of their own; one that moves between
 * CPUs gets other draws each run.
 *
 * Return: the draw.
 */
u64 dmf_attr_draw(struct dmf_attr *a)
{
	u64 n;

	if (READ_ONCE(a->flags) & DMF_STREAMS_PERCPU)
		n = this_cpu_inc_return(a->stats->draws) - 1;
	else
		n = atomic64_inc_return(&a->stream->pos) - 1;
	return dmf_mix(a->seed + n * DMF_GOLDEN);
}
EXPORT_SYMBOL_GPL(dmf_attr_draw);

/* floor(num * 2^64 / den) for num < den <= 10^18, by long division. */
static u64 dmf_prob_threshold(u64 num, u64 den)
{
	u64 q = 0, r = num;
	int i;

	for (i = 0; i < 64; i++) {
		r <<= 1;
		q <<= 1;
		if (r >= den) {
			r -= den;
			q |= 1;
		}
	}
	return q;
}

/**
 * dmf_prob_set - set a probability from a fraction
 * @p: the probability
 * @num: numerator, at most @den
 * @den: denominator, 1 to 10^18
 *
 * Return: 0, or -ERANGE if the fraction is not a probability we can hold.
 */
int dmf_prob_set(struct dmf_prob *p, u64 num, u64 den)
{
	u64 g;

	if (!den || den > DMF_PROB_MAX_DEN || num > den)
		return -ERANGE;
	if (!num) {
		den = 1;
	} else {
		g = gcd(num, den);
		num /= g;
		den /= g;
	}
	p->num = num;
	p->den = den;
	p->thresh = num == den ? U64_MAX : dmf_prob_threshold(num, den);
	return 0;
}
EXPORT_SYMBOL_GPL(dmf_prob_set);

/* Parse the decimal digits at *s into *v; returns the number of digits. */
static int dmf_parse_digits(const char **s, u64 *v, int *dropped)
{
	int n = 0;

	for (; **s >= '0' && **s <= '9'; (*s)++, n++) {
		unsigned int d = **s - '0';

		if (*v > (U64_MAX - d) / 10) {
			/* more precision than we hold: only zeros may be lost */
			if (d)
				return -ERANGE;
			(*dropped)++;
			continue;
		}
		*v = *v * 10 + d;
	}
	return n;
}

/* "A/B": a fraction, reduced first so that 2/2000000000000000000 still fits. */
static int dmf_prob_parse_fraction(const char *s, struct dmf_prob *p)
{
	int dropped = 0, n;
	u64 m = 0, b = 0, g;

	n = dmf_parse_digits(&s, &m, &dropped);
	if (n <= 0 || *s != '/')
		return n < 0 ? n : -EINVAL;
	s++;
	n = dmf_parse_digits(&s, &b, &dropped);
	if (n <= 0 || *s || !b)
		return n < 0 ? n : -EINVAL;
	if (dropped)
		return -ERANGE;
	if (m) {
		g = gcd(m, b);
		m /= g;
		b /= g;
	} else {
		b = 1;		/* zero is zero over any denominator */
	}
	return dmf_prob_set(p, m, b);
}

/* The exponent after 'e' or 'E', at most 1000 either way. */
static int dmf_parse_exp10(const char **s, int *exp10)
{
	bool neg = false;

	if (**s == '-' || **s == '+')
		neg = *(*s)++ == '-';
	if (**s < '0' || **s > '9')
		return -EINVAL;
	for (*exp10 = 0; **s >= '0' && **s <= '9'; (*s)++) {
		*exp10 = *exp10 * 10 + (**s - '0');
		if (*exp10 > 1000)
			return -ERANGE;
	}
	if (neg)
		*exp10 = -*exp10;
	return 0;
}

/* Set @p to m * 10^k, or -ERANGE if that is above 1 or finer than 10^-18. */
static int dmf_prob_set_pow10(struct dmf_prob *p, u64 m, int k)
{
	u64 den = 1;

	if (!m)
		return dmf_prob_set(p, 0, 1);
	for (; k > 0; k--) {
		if (m > 1)
			return -ERANGE;
		m *= 10;
	}
	/* drop trailing zeros rather than lose a representable value */
	while (k < -18 && m % 10 == 0) {
		m /= 10;
		k++;
	}
	if (k < -18)
		return -ERANGE;
	for (; k < 0; k++)
		den *= 10;
	return dmf_prob_set(p, m, den);
}

/* "5", "0.25", "5%", "1e-3%", "1e-6", "2.5E-3": a decimal, percent unless an exponent. */
static int dmf_prob_parse_decimal(const char *s, struct dmf_prob *p)
{
	int frac = 0, exp10 = 0, dropped = 0, fdropped = 0, n, k, r;
	bool percent = true;
	u64 m = 0;

	n = dmf_parse_digits(&s, &m, &dropped);
	if (n < 0)
		return n;
	if (*s == '.') {
		s++;
		k = dmf_parse_digits(&s, &m, &fdropped);
		if (k < 0)
			return k;
		frac = k - fdropped;
		n += k;
	}
	if (!n)
		return -EINVAL;
	if (*s == 'e' || *s == 'E') {
		s++;
		r = dmf_parse_exp10(&s, &exp10);
		if (r)
			return r;
		percent = false;
	}
	if (*s == '%') {
		percent = true;
		s++;
	}
	if (*s)
		return -EINVAL;
	return dmf_prob_set_pow10(p, m, dropped + exp10 - frac - (percent ? 2 : 0));
}

/**
 * dmf_prob_parse - parse a probability
 * @s: the text
 * @p: the result
 *
 * Accepted forms: "A/B" (a fraction), "5" or "0.25" (percent, as the
 * kernel's fault-injection reads a bare number), "5%" or "1e-3%" (percent),
 * "1e-6" or "2.5E-3" (a fraction in scientific notation).
 *
 * Return: 0, -EINVAL for malformed text, -ERANGE for a value outside 0..1
 * or finer than 10^-18.
 */
int dmf_prob_parse(const char *s, struct dmf_prob *p)
{
	if (!s || !*s)
		return -EINVAL;
	if (strchr(s, '/'))
		return dmf_prob_parse_fraction(s, p);
	return dmf_prob_parse_decimal(s, p);
}
EXPORT_SYMBOL_GPL(dmf_prob_parse);

/**
 * dmf_prob_format - print a probability so that dmf_prob_parse() reads it back
 * @p: the probability
 * @buf: output
 * @len: size of @buf
 *
 * Terminating decimals print as a percentage ("0.1%"), others as a
 * fraction ("1/3").
 *
 * Return: what snprintf() returns.
 */
int dmf_prob_format(const struct dmf_prob *p, char *buf, size_t len)
{
	char digits[24];
	u64 r = p->num % p->den;
	u64 whole = p->num / p->den;
	int nd = 0, i;
	u64 ip;

	while (r && nd < 18) {
		digits[nd++] = '0' + (r * 10) / p->den;
		r = (r * 10) % p->den;
	}
	if (r)
		return snprintf(buf, len, "%llu/%llu", p->num, p->den);

	/* whole and the first two digits make the integral percent */
	while (nd < 2)
		digits[nd++] = '0';
	ip = whole * 100 + (digits[0] - '0') * 10 + (digits[1] - '0');
	/* strip trailing zeros of the fractional percent */
	while (nd > 2 && digits[nd - 1] == '0')
		nd--;
	if (nd == 2)
		return snprintf(buf, len, "%llu%%", ip);
	i = nd - 2;
	digits[nd] = '\0';
	return snprintf(buf, len, "%llu.%.*s%%", ip, i, digits + 2);
}
EXPORT_SYMBOL_GPL(dmf_prob_format);

/**
 * dmf_prob_publish - change a probability that callers may be deciding on
 * @dst: the attribute's probability
 * @src: the new value
 *
 * The predicate reads thresh only, one aligned word, so one store
 * publishes the new value without a torn read: no seqcount (an allocator
 * hook's callback in an interrupt on the writer's CPU would spin on it for
 * good) and no RCU-freed copy per write.  num and den, which only the
 * printing paths read, are written first; those readers hold the lock
 * the writer holds.
 */
void dmf_prob_publish(struct dmf_prob *dst, const struct dmf_prob *src)
{
	dst->num = src->num;
	dst->den = src->den;
	WRITE_ONCE(dst->thresh, src->thresh);
}
EXPORT_SYMBOL_GPL(dmf_prob_publish);

/**
 * dmf_attr_init - initialise an attribute with no fault configured
 * @a: the attribute
 * @name: name shown in log lines (kept by reference)
 *
 * Defaults: probability 0, interval 1, times -1 (no limit), space 0, a
 * random seed, one stream, verbose 0.  Must be paired with dmf_attr_destroy().
 *
 * Return: 0 or -ENOMEM.
 */
int dmf_attr_init(struct dmf_attr *a, const char *name)
{
	memset(a, 0, sizeof(*a));
	a->stats = alloc_percpu(struct dmf_pcpu_counters);
	if (!a->stats)
		return -ENOMEM;
	a->stream = kzalloc(sizeof(*a->stream), GFP_KERNEL);
	if (!a->stream) {
		dmf_attr_destroy(a);
		return -ENOMEM;
	}
	a->name = name;
	a->interval = 1;
	a->times = -1;
	a->seed = get_random_u64();
	dmf_prob_set(&a->prob, 0, 1);
	ratelimit_state_init(&a->rs, DEFAULT_RATELIMIT_INTERVAL,
			     DEFAULT_RATELIMIT_BURST);
	dmf_attr_reset(a);
	return 0;
}
EXPORT_SYMBOL_GPL(dmf_attr_init);

void dmf_attr_destroy(struct dmf_attr *a)
{
	free_percpu(a->stats);
	a->stats = NULL;
	kfree(a->stream);
	a->stream = NULL;
}
EXPORT_SYMBOL_GPL(dmf_attr_destroy);

/* The generator back to the first draw: the shared stream and every CPU's. */
static void dmf_draws_rewind(struct dmf_attr *a)
{
	int cpu;

	atomic64_set(&a->stream->pos, 0);
	for_each_possible_cpu(cpu)
		WRITE_ONCE(per_cpu_ptr(a->stats, cpu)->draws, (u64)cpu << DMF_STREAM_SHIFT);
}

/**
 * dmf_attr_reset - rewind the run-time state to the configuration
 * @a: the attribute
 *
 * times and space start again, the interval counter and the generator go
 * back to their first position.  Counters are left alone.
 */
void dmf_attr_reset(struct dmf_attr *a)
{
	atomic64_set(&a->times_left, a->times);
	atomic64_set(&a->space_left, a->space);
	atomic64_set(&a->count, 0);
	dmf_draws_rewind(a);
}
EXPORT_SYMBOL_GPL(dmf_attr_reset);

static int dmf_attr_set_seed(struct dmf_attr *a, u64 seed)
{
	a->seed = seed;
	a->flags |= DMF_SEED_SET;
	dmf_draws_rewind(a);
	return 0;
}

static int dmf_attr_set_streams(struct dmf_attr *a, const char *val)
{
	unsigned int flags = a->flags & ~DMF_STREAMS_PERCPU;

	if (!strcmp(val, "percpu"))
		flags |= DMF_STREAMS_PERCPU;
	else if (strcmp(val, "shared"))
		return -EINVAL;
	WRITE_ONCE(a->flags, flags);
	dmf_draws_rewind(a);
	return 0;
}

/**
 * dmf_attr_streams_name - the value of an attribute's streams key
 * @a: the attribute
 *
 * Return: "percpu" or "shared", as dmf_attr_parse_kv() reads it.
 */
const char *dmf_attr_streams_name(const struct dmf_attr *a)
{
	return READ_ONCE(a->flags) & DMF_STREAMS_PERCPU ? "percpu" : "shared";
}
EXPORT_SYMBOL_GPL(dmf_attr_streams_name);

void dmf_attr_counters(const struct dmf_attr *a, struct dmf_counters *sum)
{
	u64 filtered = 0;
	int cpu;

	memset(sum, 0, sizeof(*sum));
	for_each_possible_cpu(cpu) {
		const struct dmf_pcpu_counters *c = per_cpu_ptr(a->stats, cpu);

		sum->evaluated += READ_ONCE(c->evaluated);
		filtered += READ_ONCE(c->filtered);
		sum->injected += READ_ONCE(c->injected);
	}
	/* A racing decision may be in filtered and not yet in evaluated. */
	sum->passed = sum->evaluated > filtered ? sum->evaluated - filtered : 0;
}
EXPORT_SYMBOL_GPL(dmf_attr_counters);

void dmf_attr_clear_counters(struct dmf_attr *a)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		struct dmf_pcpu_counters *c = per_cpu_ptr(a->stats, cpu);

		/* the generator's position is state, not a counter */
		WRITE_ONCE(c->evaluated, 0);
		WRITE_ONCE(c->filtered, 0);
		WRITE_ONCE(c->injected, 0);
	}
}
EXPORT_SYMBOL_GPL(dmf_attr_clear_counters);

static bool dmf_in_ranges(const struct dmf_range *r, unsigned long addr)
{
	int i;

	for (i = 0; i < DMF_STACK_RANGES; i++)
		if (addr >= r[i].start && addr < r[i].end)
			return true;
	return false;
}

static bool dmf_ranges_empty(const struct dmf_range *r)
{
	int i;

	for (i = 0; i < DMF_STACK_RANGES; i++)
		if (r[i].start < r[i].end)
			return false;
	return true;
}

/**
 * dmf_stack_allows - does a call chain pass a stack filter?
 * @f: the filter
 * @entries: return addresses, innermost first
 * @n: how many
 *
 * Looks at no more than @f->depth addresses (at most DMF_STACK_DEPTH_MAX).
 * The injector collects the chain (the allocator hooks unwind from the
 * probed function's caller) and applies the filter before asking the
 * engine.
 *
 * Return: true if the filter is off or the chain passes it.
 */
bool dmf_stack_allows(const struct dmf_stack_filter *f, const unsigned long *entries,
		      unsigned int n)
{
	unsigned int depth = min_t(unsigned int, READ_ONCE(f->depth), DMF_STACK_DEPTH_MAX);
	unsigned int i;
	bool found;

	if (!depth)
		return true;
	n = min(n, depth);
	found = dmf_ranges_empty(f->require);
	for (i = 0; i < n; i++) {
		if (dmf_in_ranges(f->reject, entries[i]))
			return false;
		if (!found && dmf_in_ranges(f->require, entries[i]))
			found = true;
	}
	return found;
}
EXPORT_SYMBOL_GPL(dmf_stack_allows);

/* Consume space: true while the attribute still lets @size through. */
static bool dmf_space_consumed(struct dmf_attr *a, u64 size)
{
	s64 left = atomic64_read(&a->space_left);

	while (left > 0 && (u64)left > size)
		if (atomic64_try_cmpxchg(&a->space_left, &left, left - size))
			return true;
	return false;
}

/**
 * dmf_log_fault - the engine's line for a fault
 * @a: the attribute the fault was decided by
 *
 * For an injector without a line of its own (the dm target's rules):
 * nothing while verbose is 0, else one rate-limited line, and a stack dump
 * at verbose 2.  Call it in the context of the fault.
 */
void dmf_log_fault(struct dmf_attr *a)
{
	unsigned int verbose = READ_ONCE(a->verbose);

	if (!verbose || !__ratelimit(&a->rs))
		return;
	pr_notice("%s: injecting fault (probability %llu/%llu, interval %llu, times left %lld, seed %llu)\n",
		  a->name ? a->name : "?", a->prob.num, a->prob.den, a->interval,
		  (long long)atomic64_read(&a->times_left), a->seed);
	if (verbose > 1)
		dump_stack();
}
EXPORT_SYMBOL_GPL(dmf_log_fault);

/* Interval, then probability (@thresh, read once per decision): is this call due to fail? */
static __always_inline bool dmf_due(struct dmf_attr *a, u64 thresh)
{
	u64 interval = READ_ONCE(a->interval);

	if (interval > 1 && atomic64_inc_return(&a->count) % interval)
		return false;
	return thresh == U64_MAX || dmf_attr_draw(a) < thresh;
}

/*
 * Claim one of times and count the fault.  Out of line, like the space
 * filter below, so that a decision that does not fail touches no
 * callee-saved register.
 */
static noinline bool dmf_fire(struct dmf_attr *a)
{
	if (READ_ONCE(a->times) >= 0 && atomic64_dec_if_positive(&a->times_left) < 0)
		return false;
	this_cpu_inc(a->stats->injected);
	return true;
}

/* __dmf_should_fail() for an attribute with a space limit. */
static noinline bool dmf_should_fail_space(struct dmf_attr *a, u64 size, u64 thresh)
{
	if (dmf_space_consumed(a, size))
		return false;
	return dmf_due(a, thresh) && dmf_fire(a);
}

/**
 * __dmf_should_fail - dmf_should_fail() past its inline test of probability 0
 * @a: the attribute
 * @size: bytes at stake, counted against space
 *
 * Return: true to inject a fault.
 */
bool __dmf_should_fail(struct dmf_attr *a, u64 size)
{
	u64 thresh;

	this_cpu_inc(a->stats->evaluated);
	thresh = READ_ONCE(a->prob.thresh);
	if (!thresh || !atomic64_read(&a->times_left)) {
		this_cpu_inc(a->stats->filtered);
		return false;
	}
	if (unlikely(READ_ONCE(a->space)))
		return dmf_should_fail_space(a, size, thresh);
	return dmf_due(a, thresh) && dmf_fire(a);
}
EXPORT_SYMBOL_GPL(__dmf_should_fail);

/**
 * dmf_force_fail - count a fault the injector decided on (fail-nth)
 * @a: the attribute
 *
 * Bypasses probability, interval and space, but uses up one of times if
 * any is left, as the kernel's fail-nth does.  Counted as evaluated,
 * passed and injected; the caller logs it like any fault.
 */
void dmf_force_fail(struct dmf_attr *a)
{
	this_cpu_inc(a->stats->evaluated);
	if (READ_ONCE(a->times) >= 0)
		atomic64_dec_if_positive(&a->times_left);
	this_cpu_inc(a->stats->injected);
}
EXPORT_SYMBOL_GPL(dmf_force_fail);

static int dmf_parse_s64(const char *val, s64 min, s64 *out)
{
	s64 v;

	if (kstrtos64(val, 10, &v) || v < min)
		return -EINVAL;
	*out = v;
	return 0;
}

/**
 * dmf_attr_parse_kv - set one attribute field from its text form
 * @a: the attribute
 * @key: p (or probability), interval, times, space, seed, streams or verbose
 * @val: the value
 *
 * streams is shared (the default: one stream for the attribute) or percpu
 * (one a CPU, see dmf_attr_draw()); setting it, as setting the seed,
 * rewinds the generator.
 * Shared by table arguments, messages and module parameters so that every
 * injector spells a policy the same way.
 *
 * Return: 0, -ENOENT for an unknown key, -EINVAL or -ERANGE for a bad value.
 */
int dmf_attr_parse_kv(struct dmf_attr *a, const char *key, const char *val)
{
	s64 v;
	u64 u;
	int r;

	if (!strcmp(key, "p") || !strcmp(key, "probability"))
		return dmf_prob_parse(val, &a->prob);
	if (!strcmp(key, "interval")) {
		if (kstrtou64(val, 10, &u) || !u)
			return -EINVAL;
		a->interval = u;
		atomic64_set(&a->count, 0);
		return 0;
	}
	if (!strcmp(key, "times")) {
		r = dmf_parse_s64(val, -1, &v);
		if (!r) {
			a->times = v;
			atomic64_set(&a->times_left, v);
		}
		return r;
	}
	if (!strcmp(key, "space")) {
		r = dmf_parse_s64(val, 0, &v);
		if (!r) {
			a->space = v;
			atomic64_set(&a->space_left, v);
		}
		return r;
	}
	if (!strcmp(key, "seed")) {
		if (kstrtou64(val, 0, &u))
			return -EINVAL;
		return dmf_attr_set_seed(a, u);
	}
	if (!strcmp(key, "streams"))
		return dmf_attr_set_streams(a, val);
	if (!strcmp(key, "verbose")) {
		if (kstrtou64(val, 10, &u) || u > 2)
			return -EINVAL;
		a->verbose = u;
		return 0;
	}
	return -ENOENT;
}
EXPORT_SYMBOL_GPL(dmf_attr_parse_kv);

/**
 * dmf_attr_parse_kernel_interval - set interval as the kernel's knob does
 * @a: the attribute
 * @val: a decimal count; 0 is taken as 1, every call, as the kernel does
 *
 * dmf_attr_parse_kv() refuses "interval=0" in our own syntax; the
 * kernel's debugfs file and boot parameter take it, so their stand-ins
 * here do too.
 *
 * Return: 0 or -EINVAL.
 */
int dmf_attr_parse_kernel_interval(struct dmf_attr *a, const char *val)
{
	u64 u;

	if (kstrtou64(val, 10, &u))
		return -EINVAL;
	a->interval = max_t(u64, u, 1);
	atomic64_set(&a->count, 0);
	return 0;
}
EXPORT_SYMBOL_GPL(dmf_attr_parse_kernel_interval);

/**
 * dmf_attr_parse_legacy - parse "<interval>,<probability>,<space>,<times>"
 * @a: the attribute
 * @str: the kernel's fault-injection parameter string
 *
 * The probability accepts every form dmf_prob_parse() does, so the kernel's
 * whole percent keeps its meaning.  On error @a is left unchanged.
 *
 * Return: 0 or -EINVAL/-ERANGE.
 */
int dmf_attr_parse_legacy(struct dmf_attr *a, const char *str)
{
	/* a field without a parser of its own is parsed as key=value */
	static const struct {
		const char *key;
		int (*parse)(struct dmf_attr *a, const char *val);
	} fields[] = {
		{ "interval", dmf_attr_parse_kernel_interval },
		{ "p", NULL }, { "space", NULL }, { "times", NULL },
	};
	struct dmf_attr tmp = *a;
	char field[48];
	const char *s = str;
	unsigned int i;
	int r;

	for (i = 0; i < ARRAY_SIZE(fields); i++) {
		const char *end = strchr(s, ',');
		const bool last = i == ARRAY_SIZE(fields) - 1;
		size_t n = end ? (size_t)(end - s) : strlen(s);

		if (!!end == last || !n || n >= sizeof(field))
			return -EINVAL;
		memcpy(field, s, n);
		field[n] = '\0';
		if (fields[i].parse)
			r = fields[i].parse(&tmp, field);
		else
			r = dmf_attr_parse_kv(&tmp, fields[i].key, field);
		if (r)
			return r == -ENOENT ? -EINVAL : r;
		s += n + 1;
	}
	a->prob = tmp.prob;
	a->interval = tmp.interval;
	a->times = tmp.times;
	a->space = tmp.space;
	dmf_attr_reset(a);
	return 0;
}
EXPORT_SYMBOL_GPL(dmf_attr_parse_legacy);

/**
 * dmf_attr_format - print an attribute as comma-separated key=value pairs
 * @a: the attribute
 * @buf: output
 * @len: size of @buf
 *
 * Prints p and seed always, the other keys when they differ from the
 * defaults (streams=percpu, not streams=shared); dmf_attr_parse_kv() reads
 * every pair back.
 *
 * Return: the number of characters written, as scnprintf().
 */
int dmf_attr_format(const struct dmf_attr *a, char *buf, size_t len)
{
	char prob[48];
	int n;

	dmf_prob_format(&a->prob, prob, sizeof(prob));
	n = scnprintf(buf, len, "p=%s", prob);
	if (a->interval > 1)
		n += scnprintf(buf + n, len - n, ",interval=%llu", a->interval);
	if (a->times != -1)
		n += scnprintf(buf + n, len - n, ",times=%lld", (long long)a->times);
	if (a->space)
		n += scnprintf(buf + n, len - n, ",space=%lld", (long long)a->space);
	if (a->verbose)
		n += scnprintf(buf + n, len - n, ",verbose=%u", a->verbose);
	if (a->flags & DMF_STREAMS_PERCPU)
		n += scnprintf(buf + n, len - n, ",streams=percpu");
	n += scnprintf(buf + n, len - n, ",seed=%llu", a->seed);
	return n;
}
EXPORT_SYMBOL_GPL(dmf_attr_format);

MODULE_DESCRIPTION("dm-fault decision engine");
MODULE_AUTHOR("dm-fault developers");
MODULE_LICENSE("GPL");
