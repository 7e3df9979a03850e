// SPDX-License-Identifier: GPL-2.0-only
/*
 * The out-of-line half of tools/kshim/dmf/kernel.h: kstrtox, printk,
 * ratelimit, RCU, per-CPU and slab allocation, random numbers.  What the
 * tests steer or count (shim-hooks.h) is in test-hooks.c, which the unit
 * tests, fuzzers and benchmarks link; the shipped tools/dmfault builds with
 * SHIM_NO_TEST_HOOKS and links this file alone.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dmf/kernel.h>
#include <dmf/dm.h>
#include "shim-hooks.h"

#include <stdarg.h>
#include <sys/random.h>
#include <time.h>

#if defined(__SANITIZE_ADDRESS__)
#define SHIM_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SHIM_ASAN 1
#endif
#endif

#ifdef SHIM_ASAN
#include <sanitizer/asan_interface.h>
#define shim_poison(p, n)	ASAN_POISON_MEMORY_REGION(p, n)
#define shim_unpoison(p, n)	ASAN_UNPOISON_MEMORY_REGION(p, n)
#else
#define shim_poison(p, n)	((void)(p), (void)(n))
#define shim_unpoison(p, n)	((void)(p), (void)(n))
#endif

/* lib/kstrtox.c, line for line where it matters. */
#define KSTRTOX_OVERFLOW	(1U << 31)

static const char *shim_parse_integer_fixup_radix(const char *s, unsigned int *base)
{
	if (*base == 0) {
		if (s[0] == '0') {
			if ((s[1] | 0x20) == 'x' &&
			    ((s[2] >= '0' && s[2] <= '9') ||
			     ((s[2] | 0x20) >= 'a' && (s[2] | 0x20) <= 'f')))
				*base = 16;
			else
				*base = 8;
		} else {
			*base = 10;
		}
	}
	if (*base == 16 && s[0] == '0' && (s[1] | 0x20) == 'x')
		s += 2;
	return s;
}

static unsigned int shim_parse_integer(const char *s, unsigned int base, unsigned long long *p)
{
	unsigned long long res = 0;
	unsigned int rv = 0;

	for (;; s++) {
		unsigned int c = (unsigned char)*s;
		unsigned int lc = c | 0x20;
		unsigned int val;

		if (c >= '0' && c <= '9')
			val = c - '0';
		else if (lc >= 'a' && lc <= 'f')
			val = lc - 'a' + 10;
		else
			break;
		if (val >= base)
			break;
		if (res & (~0ULL << 60)) {
			if (res > (ULLONG_MAX - val) / base)
				rv |= KSTRTOX_OVERFLOW;
		}
		res = res * base + val;
		rv++;
	}
	*p = res;
	return rv;
}

static int shim_kstrtoull(const char *s, unsigned int base, unsigned long long *res)
{
	unsigned long long r;
	unsigned int rv;

	s = shim_parse_integer_fixup_radix(s, &base);
	rv = shim_parse_integer(s, base, &r);
	if (rv & KSTRTOX_OVERFLOW)
		return -ERANGE;
	if (rv == 0)
		return -EINVAL;
	s += rv;
	if (*s == '\n')
		s++;
	if (*s)
		return -EINVAL;
	*res = r;
	return 0;
}

int kstrtoull(const char *s, unsigned int base, unsigned long long *res)
{
	if (s[0] == '+')
		s++;
	return shim_kstrtoull(s, base, res);
}

int kstrtoll(const char *s, unsigned int base, long long *res)
{
	unsigned long long tmp;
	int rv;

	if (s[0] == '-') {
		rv = shim_kstrtoull(s + 1, base, &tmp);
		if (rv < 0)
			return rv;
		if ((long long)-tmp > 0)
			return -ERANGE;
		*res = -tmp;
	} else {
		rv = kstrtoull(s, base, &tmp);
		if (rv < 0)
			return rv;
		if ((long long)tmp < 0)
			return -ERANGE;
		*res = tmp;
	}
	return 0;
}

int kstrtouint(const char *s, unsigned int base, unsigned int *res)
{
	unsigned long long tmp;
	int rv = kstrtoull(s, base, &tmp);

	if (rv < 0)
		return rv;
	if (tmp != (unsigned int)tmp)
		return -ERANGE;
	*res = tmp;
	return 0;
}

int kstrtoint(const char *s, unsigned int base, int *res)
{
	long long tmp;
	int rv = kstrtoll(s, base, &tmp);

	if (rv < 0)
		return rv;
	if (tmp != (int)tmp)
		return -ERANGE;
	*res = tmp;
	return 0;
}

int scnprintf(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	if (n < 0)
		return 0;
	if ((size_t)n < size)
		return n;
	return size ? size - 1 : 0;
}

/* lib/ctype.c's isspace(): Latin-1's no-break space too. */
static bool shim_kernel_isspace(char c)
{
	return c == ' ' || (c >= '\t' && c <= '\r') || (unsigned char)c == 0xa0;
}

static bool shim_kernel_isdigit(char c)
{
	return c >= '0' && c <= '9';
}

/* simple_strntoull() in base 10: digits, wrapping, *end past them. */
static unsigned long long shim_simple_strtoull(const char *s, const char **end)
{
	unsigned long long res = 0;

	for (; shim_kernel_isdigit(*s); s++)
		res = res * 10 + (unsigned int)(*s - '0');
	*end = s;
	return res;
}

/* lib/vsprintf.c's vsscanf(), line for line, for %d, %u and %c only. */
int shim_sscanf(const char *buf, const char *fmt, ...)
{
	const char *str = buf;
	unsigned long long v;
	int num = 0;
	bool is_sign, neg, ll;
	va_list ap;
	char digit;

	va_start(ap, fmt);
	while (*fmt) {
		if (shim_kernel_isspace(*fmt)) {
			while (shim_kernel_isspace(*++fmt))
				;
			while (shim_kernel_isspace(*str))
				str++;
		}
		if (*fmt != '%' && *fmt) {
			if (*fmt++ != *str++)
				break;
			continue;
		}
		if (!*fmt)
			break;
		++fmt;
		ll = fmt[0] == 'l' && fmt[1] == 'l';
		fmt += ll ? 2 : 0;
		if (!*str)
			break;
		switch (*fmt++) {
		case 'c':
			if (ll)
				goto unsupported;
			*va_arg(ap, char *) = *str++;
			num++;
			continue;
		case 'd':
			is_sign = true;
			break;
		case 'u':
			is_sign = false;
			break;
		default:
unsupported:
			fprintf(stderr, "shim_sscanf: unsupported format \"%s\"\n", fmt - 2);
			abort();
		}
		while (shim_kernel_isspace(*str))
			str++;
		digit = *str;
		if (is_sign && digit == '-')
			digit = str[1];
		if (!shim_kernel_isdigit(digit))
			break;
		neg = *str == '-';
		v = shim_simple_strtoull(str + neg, &str);
		if (ll && is_sign)
			*va_arg(ap, long long *) = (long long)(neg ? -v : v);
		else if (ll)
			*va_arg(ap, unsigned long long *) = v;
		else if (is_sign)
			*va_arg(ap, int *) = (int)(neg ? -v : v);
		else
			*va_arg(ap, unsigned int *) = (unsigned int)v;
		num++;
	}
	va_end(ap);
	return num;
}

char *skip_spaces(const char *str)
{
	while (shim_kernel_isspace(*str))
		++str;
	return (char *)str;
}

char *strreplace(char *str, char old, char new)
{
	for (; *str; ++str)
		if (*str == old)
			*str = new;
	return str;
}

/* drivers/md/dm-table.c's argument readers, for dm-fault-args.c */
const char *dm_shift_arg(struct dm_arg_set *as)
{
	if (!as->argc)
		return NULL;
	as->argc--;
	return *as->argv++;
}

void dm_consume_args(struct dm_arg_set *as, unsigned int num_args)
{
	if (as->argc < num_args)
		abort();	/* BUG_ON() */
	as->argc -= num_args;
	as->argv += num_args;
}

static int shim_validate_next_arg(const struct dm_arg *arg, struct dm_arg_set *arg_set,
				  unsigned int *value, char **error, unsigned int grouped)
{
	const char *arg_str = dm_shift_arg(arg_set);
	char dummy;

	if (!arg_str || sscanf(arg_str, "%u%c", value, &dummy) != 1 ||
	    *value < arg->min || *value > arg->max || (grouped && arg_set->argc < *value)) {
		*error = arg->error;
		return -EINVAL;
	}
	return 0;
}

int dm_read_arg(const struct dm_arg *arg, struct dm_arg_set *arg_set, unsigned int *value,
		char **error)
{
	return shim_validate_next_arg(arg, arg_set, value, error, 0);
}

int dm_read_arg_group(const struct dm_arg *arg, struct dm_arg_set *arg_set,
		      unsigned int *num_args, char **error)
{
	return shim_validate_next_arg(arg, arg_set, num_args, error, 1);
}

int printk(const char *fmt, ...)
{
	char line[256];
	const char *text;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	text = line[0] == '<' && line[1] && line[2] == '>' ? line + 3 : line;
	if (shim_printk_seen(text))
		fprintf(stderr, "[kernel] %s", text);
	return n;
}

void dump_stack(void)
{
	shim_dump_stack_seen();
}

void shim_warn(const char *file, int line, const char *cond)
{
	shim_warn_seen();
	fprintf(stderr, "[kernel] WARNING: %s:%d: %s\n", file, line, cond);
}

u64 get_random_u64(void)
{
	u64 v;
	ssize_t n;

	do {
		n = getrandom(&v, sizeof(v), 0);
	} while (n < 0 && errno == EINTR);
	if (n != (ssize_t)sizeof(v))
		abort();
	return v;
}

u32 get_random_u32(void)
{
	return get_random_u64();
}

unsigned long shim_jiffies(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000UL + ts.tv_nsec / 1000000 + shim_clock_offset();
}

void ratelimit_state_init(struct ratelimit_state *rs, int interval, int burst)
{
	memset(rs, 0, sizeof(*rs));
	rs->interval = interval;
	rs->burst = burst;
}

/* lib/ratelimit.c: burst messages per interval, the rest counted as missed. */
int ___ratelimit(struct ratelimit_state *rs, const char *func)
{
	unsigned long now = jiffies;
	int ret;

	if (!rs->interval)
		return 1;
	if (__atomic_test_and_set(&rs->lock, __ATOMIC_ACQUIRE))
		return 0;	/* contended: the kernel drops the message too */
	if (!rs->begin)
		rs->begin = now;
	if ((long)(rs->begin + rs->interval - now) < 0) {
		if (rs->missed && !shim_is_quiet())
			fprintf(stderr, "[kernel] %s: %d callbacks suppressed\n",
				func, rs->missed);
		rs->begin = now;
		rs->printed = 0;
		rs->missed = 0;
	}
	if (rs->burst && rs->burst > rs->printed) {
		rs->printed++;
		ret = 1;
	} else {
		rs->missed++;
		ret = 0;
	}
	__atomic_clear(&rs->lock, __ATOMIC_RELEASE);
	return ret;
}

void mutex_init(struct mutex *lock)
{
	pthread_mutex_init(&lock->m, NULL);
}

void mutex_destroy(struct mutex *lock)
{
	pthread_mutex_destroy(&lock->m);
}

void mutex_lock(struct mutex *lock)
{
	if (pthread_mutex_lock(&lock->m))
		abort();
}

void mutex_unlock(struct mutex *lock)
{
	if (pthread_mutex_unlock(&lock->m))
		abort();
}

int mutex_trylock(struct mutex *lock)
{
	return pthread_mutex_trylock(&lock->m) == 0;
}

static pthread_rwlock_t shim_rcu = PTHREAD_RWLOCK_WRITER_NONRECURSIVE_INITIALIZER_NP;
static __thread unsigned int shim_rcu_nesting;

void rcu_read_lock(void)
{
	if (!shim_rcu_nesting++ && pthread_rwlock_rdlock(&shim_rcu))
		abort();
}

void rcu_read_unlock(void)
{
	if (!shim_rcu_nesting)
		abort();
	if (!--shim_rcu_nesting && pthread_rwlock_unlock(&shim_rcu))
		abort();
}

void synchronize_rcu(void)
{
	if (shim_rcu_nesting)
		abort();	/* would deadlock in the kernel too */
	if (pthread_rwlock_wrlock(&shim_rcu) || pthread_rwlock_unlock(&shim_rcu))
		abort();
}

void *shim_alloc_percpu(size_t size, size_t align)
{
	char *p;
	int cpu;

	if (size > SHIM_PCPU_UNIT || align > 64) {
		fprintf(stderr, "shim: per-CPU type of %zu bytes exceeds SHIM_PCPU_UNIT\n", size);
		abort();
	}
	if (!shim_alloc_allowed())
		return NULL;
	p = aligned_alloc(64, SHIM_NR_CPUS * SHIM_PCPU_UNIT);
	if (!p)
		return NULL;
	memset(p, 0, SHIM_NR_CPUS * SHIM_PCPU_UNIT);
	for (cpu = 0; cpu < SHIM_NR_CPUS; cpu++)
		shim_poison(p + cpu * SHIM_PCPU_UNIT + size, SHIM_PCPU_UNIT - size);
	shim_alloc_count(1);
	return p;
}

void free_percpu(void *ptr)
{
	if (!ptr)
		return;
	shim_unpoison(ptr, SHIM_NR_CPUS * SHIM_PCPU_UNIT);
	shim_alloc_count(-1);
	free(ptr);
}

__thread int shim_cpu;

/* As the kernel's kmalloc(): a power-of-two size up to a page is aligned to itself. */
void *kmalloc(size_t size, gfp_t gfp)
{
	void *p;

	(void)gfp;
	if (!shim_alloc_allowed())
		return NULL;
	if (size >= sizeof(void *) && size <= 4096 && !(size & (size - 1))) {
		if (posix_memalign(&p, size, size))
			p = NULL;
	} else {
		p = malloc(size ? size : 1);
	}
	if (p)
		shim_alloc_count(1);
	return p;
}

void *kzalloc(size_t size, gfp_t gfp)
{
	void *p = kmalloc(size, gfp);

	if (p)
		memset(p, 0, size);
	return p;
}

void *kcalloc(size_t n, size_t size, gfp_t gfp)
{
	if (size && n > SIZE_MAX / size)
		return NULL;
	return kzalloc(n * size, gfp);
}

char *kstrdup(const char *s, gfp_t gfp)
{
	size_t n;
	char *p;

	if (!s)
		return NULL;
	n = strlen(s) + 1;
	p = kmalloc(n, gfp);
	if (p)
		memcpy(p, s, n);
	return p;
}

void kfree(const void *ptr)
{
	if (!ptr)
		return;
	shim_alloc_count(-1);
	free((void *)ptr);
}
