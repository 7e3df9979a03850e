// SPDX-License-Identifier: GPL-2.0-only
/*
 * dmfault: what a fault device reports: stats (once, or --watch with rates
 * per second), the fault log, and the reset and release messages.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dev/dev.h"

/* One device's counters at one moment. */
struct dft_sample {
	char name[128];
	char disk[128];
	char type[DFT_NAME_LEN];	/* fault, or a compatibility target */
	struct dft_stats st;
	bool ok;
};

/*
 * The counters of one device, from its INFO status (DM_DEVICE_STATUS).  A
 * device found by listing (@listed) that is gone, or no longer a fault
 * device, when it is read is left out (s->ok false), not an error: a
 * script removing devices must not make "dmfault stats" fail.
 */
static int dft_sample_one(struct dft_sample *s, bool listed)
{
	struct dft_listed l;
	struct dft_dev dev;
	const char *err;
	int r;

	dft_stats_free(&s->st);
	s->ok = false;
	r = dft_list_one(s->name, &l);
	if (listed && (r == -ENXIO || r == -DFT_ENOTFAULT))
		return 0;
	if (r)
		return r == -EPROTO ? DFT_EXIT_FAIL : dft_dev_err(s->name, r);
	snprintf(s->disk, sizeof(s->disk), "%s", l.disk);
	snprintf(s->type, sizeof(s->type), "%s", l.type);
	r = dft_dm_get(s->name, false, &dev);
	if (!r && dev.fault < 0) {
		dft_dm_put(&dev);
		r = -DFT_ENOTFAULT;
	}
	if (listed && (r == -ENXIO || r == -DFT_ENOTFAULT))
		return 0;
	if (r)
		return dft_dev_err(s->name, r);
	r = dft_parse_info(dev.segs[dev.fault].params, &s->st, &err);
	if (r) {
		dft_err("%s: cannot parse the status '%s': %s", s->name,
			dev.segs[dev.fault].params, err);
		dft_dm_put(&dev);
		return DFT_EXIT_FAIL;
	}
	dft_dm_put(&dev);
	s->ok = true;
	return 0;
}

/* Op @name in the previous sample; all zeros if it was not there. */
static const struct dft_op_stat *dft_prev_op(const struct dft_stats *st, const char *name)
{
	static const struct dft_op_stat zero;
	unsigned int i;

	for (i = 0; st && i < st->nr_ops; i++)
		if (!strcmp(st->ops[i].name, name))
			return &st->ops[i];
	return &zero;
}

/* Rule @id in the previous sample; all zeros if it was not there. */
static const struct dft_rule_stat *dft_prev_rule(const struct dft_stats *st, unsigned int id)
{
	static const struct dft_rule_stat zero;
	unsigned int i;

	for (i = 0; st && i < st->nr_rules; i++)
		if (st->rules[i].id == id)
			return &st->rules[i];
	return &zero;
}

static double dft_rate(uint64_t now, uint64_t before, double secs)
{
	return now >= before ? (now - before) / secs : 0;
}

static void dft_num(const struct dft_opts *o, uint64_t v, bool bytes, char *buf, size_t len)
{
	if (bytes && !o->bytes)
		dft_human_size(v, buf, len);
	else
		snprintf(buf, len, "%llu", (unsigned long long)v);
}

static void dft_rate_str(const struct dft_opts *o, double v, bool bytes, char *buf, size_t len)
{
	if (bytes && !o->bytes)
		dft_human_size((uint64_t)(v + 0.5), buf, len);
	else
		snprintf(buf, len, v < 10 ? "%.1f" : "%.0f", v);
}


/* The op table: counts, or rates per second against @prev. */
static void dft_stats_human_ops(const struct dft_opts *o, const struct dft_sample *s,
				const struct dft_stats *prev, double secs)
{
	const struct dft_op_stat *op, *pop;
	char a[32], b[32], c[32], d[32];
	unsigned int i;

	if (prev)
		printf("  %-13s %10s %10s %10s %12s\n", "OP", "BIOS/s", "BYTES/s", "FAILED/s",
		       "FAILED_B/s");
	else
		printf("  %-13s %10s %10s %10s %12s\n", "OP", "BIOS", "BYTES", "FAILED",
		       "FAILED_BYTES");
	for (i = 0; i < s->st.nr_ops; i++) {
		op = &s->st.ops[i];
		if (prev) {
			pop = dft_prev_op(prev, op->name);
			dft_rate_str(o, dft_rate(op->bios, pop->bios, secs), false, a, sizeof(a));
			dft_rate_str(o, dft_rate(op->bytes, pop->bytes, secs), true, b, sizeof(b));
			dft_rate_str(o, dft_rate(op->failed, pop->failed, secs), false, c,
				     sizeof(c));
			dft_rate_str(o, dft_rate(op->failed_bytes, pop->failed_bytes, secs), true,
				     d, sizeof(d));
		} else {
			dft_num(o, op->bios, false, a, sizeof(a));
			dft_num(o, op->bytes, true, b, sizeof(b));
			dft_num(o, op->failed, false, c, sizeof(c));
			dft_num(o, op->failed_bytes, true, d, sizeof(d));
		}
		printf("  %-13s %10s %10s %10s %12s\n", op->name, a, b, c, d);
	}
}

/* One row of the rule table: counts, or rates per second against @prev. */
static void dft_stats_human_rule(const struct dft_opts *o, const struct dft_rule_stat *rs,
				 const struct dft_stats *prev, double secs)
{
	const struct dft_rule_stat *prs;
	char a[32], b[32], c[32];

	if (!prev) {
		printf("  %-4u %-8s %-7s %10llu %10llu %10llu  %llu\n", rs->id,
		       rs->action, rs->enabled ? "yes" : "no",
		       (unsigned long long)rs->seen,
		       (unsigned long long)rs->matched, (unsigned long long)rs->injected,
		       (unsigned long long)rs->seed);
		return;
	}
	prs = dft_prev_rule(prev, rs->id);
	dft_rate_str(o, dft_rate(rs->seen, prs->seen, secs), false, a, sizeof(a));
	dft_rate_str(o, dft_rate(rs->matched, prs->matched, secs), false, b, sizeof(b));
	dft_rate_str(o, dft_rate(rs->injected, prs->injected, secs), false, c, sizeof(c));
	printf("  %-4u %-8s %-7s %10s %10s %10s\n", rs->id, rs->action,
	       rs->enabled ? "yes" : "no", a, b, c);
}

/* Named counters: " name=value..." on a line, or members of the JSON object. */
static void dft_stats_counters(struct dft_json *j, const uint64_t *v, unsigned int n,
			       const char *(*name)(unsigned int))
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		if (j)
			dft_json_u64(j, name(i), v[i]);
		else
			printf(" %s=%llu", name(i), (unsigned long long)v[i]);
	}
	if (!j)
		printf("\n");
}

/* The cache's line or object: its state and counters, as the kernel gave them. */
static void dft_stats_cache(struct dft_json *j, const struct dft_sample *s)
{
	struct dft_cache_stat c;

	if (dft_parse_cache(s->st.cache, &c))
		return;
	if (j) {
		dft_json_begin(j, "cache", '{');
		dft_json_str(j, "state", c.state);
	} else {
		printf("  cache %s", c.state);
	}
	dft_stats_counters(j, c.v, DFT_NR_CACHE, dft_cache_stat_name);
	if (j)
		dft_json_end(j, '}');
}

/* The bad-block map's line or object: on or off, partial completion, counters. */
static void dft_stats_bad(struct dft_json *j, const struct dft_sample *s)
{
	struct dft_bad_stat b;

	if (dft_parse_bad(s->st.bad, &b))
		return;
	if (j) {
		dft_json_begin(j, "bad", '{');
		dft_json_bool(j, "enabled", b.enabled);
		dft_json_bool(j, "partial", b.partial);
	} else {
		printf("  bad %s partial=%d", b.enabled ? "on" : "off", b.partial);
	}
	dft_stats_counters(j, b.v, DFT_NR_BAD, dft_bad_stat_name);
	if (j)
		dft_json_end(j, '}');
}

static void dft_stats_human(const struct dft_opts *o, const struct dft_sample *s,
			    const struct dft_stats *prev, double secs)
{
	unsigned int i;

	printf("%s: %s on %s, %u rule%s, held %llu\n", s->name, s->type, s->disk,
	       s->st.nr_rules, s->st.nr_rules == 1 ? "" : "s", (unsigned long long)s->st.held);
	dft_stats_human_ops(o, s, prev, secs);
	dft_stats_cache(NULL, s);
	dft_stats_bad(NULL, s);
	if (!s->st.nr_rules)
		return;
	printf("  %-4s %-8s %-7s %10s %10s %10s%s\n", "RULE", "ACTION", "ENABLED",
	       prev ? "SEEN/s" : "SEEN", prev ? "MATCHED/s" : "MATCHED",
	       prev ? "INJECTED/s" : "INJECTED", prev ? "" : "  SEED");
	for (i = 0; i < s->st.nr_rules; i++)
		dft_stats_human_rule(o, &s->st.rules[i], prev, secs);
}

/* One op of the JSON object: its counters, and its rates against @prev. */
static void dft_stats_json_op(struct dft_json *j, const struct dft_op_stat *op,
			      const struct dft_stats *prev, double secs)
{
	const struct dft_op_stat *pop;

	dft_json_begin(j, op->name, '{');
	dft_json_u64(j, "bios", op->bios);
	dft_json_u64(j, "bytes", op->bytes);
	dft_json_u64(j, "failed", op->failed);
	dft_json_u64(j, "failed_bytes", op->failed_bytes);
	if (prev) {
		pop = dft_prev_op(prev, op->name);
		dft_json_double(j, "bios_per_s", dft_rate(op->bios, pop->bios, secs));
		dft_json_double(j, "bytes_per_s", dft_rate(op->bytes, pop->bytes, secs));
		dft_json_double(j, "failed_per_s", dft_rate(op->failed, pop->failed, secs));
		dft_json_double(j, "failed_bytes_per_s",
				dft_rate(op->failed_bytes, pop->failed_bytes, secs));
	}
	dft_json_end(j, '}');
}

/* One rule of the JSON array. */
static void dft_stats_json_rule(struct dft_json *j, const struct dft_rule_stat *rs,
				const struct dft_stats *prev, double secs)
{
	const struct dft_rule_stat *prs;

	dft_json_begin(j, NULL, '{');
	dft_json_u64(j, "id", rs->id);
	dft_json_str(j, "action", rs->action);
	dft_json_bool(j, "enabled", rs->enabled);
	dft_json_u64(j, "seen", rs->seen);
	dft_json_u64(j, "matched", rs->matched);
	dft_json_u64(j, "injected", rs->injected);
	dft_json_u64(j, "seed", rs->seed);
	if (prev) {
		prs = dft_prev_rule(prev, rs->id);
		dft_json_double(j, "seen_per_s", dft_rate(rs->seen, prs->seen, secs));
		dft_json_double(j, "matched_per_s", dft_rate(rs->matched, prs->matched, secs));
		dft_json_double(j, "injected_per_s", dft_rate(rs->injected, prs->injected, secs));
	}
	dft_json_end(j, '}');
}

static void dft_stats_json(struct dft_json *j, const struct dft_sample *s,
			   const struct dft_stats *prev, double secs)
{
	unsigned int i;

	dft_json_begin(j, NULL, '{');
	dft_json_str(j, "name", s->name);
	dft_json_str(j, "disk", s->disk);
	dft_json_str(j, "target", s->type);
	dft_json_u64(j, "held", s->st.held);
	dft_stats_cache(j, s);
	dft_stats_bad(j, s);
	dft_json_begin(j, "ops", '{');
	for (i = 0; i < s->st.nr_ops; i++)
		dft_stats_json_op(j, &s->st.ops[i], prev, secs);
	dft_json_end(j, '}');
	dft_json_begin(j, "rules", '[');
	for (i = 0; i < s->st.nr_rules; i++)
		dft_stats_json_rule(j, &s->st.rules[i], prev, secs);
	dft_json_end(j, ']');
	dft_json_end(j, '}');
}

/* Print one report of every sample (rates against @prev when watching). */
static void dft_stats_report(const struct dft_opts *o, struct dft_sample *s,
			     struct dft_stats *prev, unsigned int n, double secs)
{
	struct dft_json j;
	unsigned int i;

	if (o->json) {
		dft_json_init(&j, stdout, prev != NULL);
		dft_json_begin(&j, NULL, '{');
		if (prev) {
			dft_json_u64(&j, "time", (uint64_t)time(NULL));
			dft_json_double(&j, "interval", secs);
		}
		dft_json_begin(&j, "devices", '[');
		for (i = 0; i < n; i++)
			if (s[i].ok)
				dft_stats_json(&j, &s[i], prev ? &prev[i] : NULL, secs);
		dft_json_end(&j, ']');
		dft_json_end(&j, '}');
		dft_json_finish(&j);
		return;
	}
	if (prev && dft_tty(stdout))
		printf("\033[H\033[2J");
	if (prev)
		printf("every %.1fs, rates per second\n", secs);
	for (i = 0; i < n; i++) {
		if (!s[i].ok)
			continue;
		if (i)
			printf("\n");
		dft_stats_human(o, &s[i], prev ? &prev[i] : NULL, secs);
	}
	if (prev)
		printf("\n");
	fflush(stdout);
}

/* --watch: sample every interval, report rates against the last sample. */
static int dft_stats_watch(const struct dft_opts *o, struct dft_sample *s,
			   struct dft_stats *prev, unsigned int n, bool listed, int ret)
{
	double t0 = dft_now(), t1;
	long long done = 0;
	unsigned int i;
	int r;

	while (o->count < 0 || done < o->count) {
		for (i = 0; i < n; i++) {
			dft_stats_free(&prev[i]);
			prev[i] = s[i].st;
			memset(&s[i].st, 0, sizeof(s[i].st));
		}
		dft_sleep_ms(o->watch_ms);
		t1 = dft_now();
		for (i = 0; i < n; i++) {
			r = dft_sample_one(&s[i], listed);
			if (r)
				ret = r;
		}
		dft_stats_report(o, s, prev, n, t1 - t0);
		t0 = t1;
		done++;
		if (ret)
			break;
	}
	return ret;
}

DFT_HANDLER(dft_cmd_stats)
{
	struct dft_sample *s;
	struct dft_stats *prev = NULL;
	char **names = NULL;
	unsigned int n, i;
	int r, ret = DFT_EXIT_OK;

	(void)cmd;
	if (o->count >= 0 && !o->watch_ms)
		return dft_usage_err(cmd, "--count needs --watch");
	if (argc) {
		n = argc;
	} else {
		r = dft_fault_names(&names, &n);
		if (r)
			return dft_dev_err(NULL, r);
	}
	s = calloc(n ? n : 1, sizeof(*s));
	prev = calloc(n ? n : 1, sizeof(*prev));
	if (!s || !prev) {
		ret = dft_err("out of memory");
		goto out;
	}
	for (i = 0; i < n; i++) {
		snprintf(s[i].name, sizeof(s[i].name), "%s", argc ? argv[i] : names[i]);
		r = dft_sample_one(&s[i], !argc);
		if (r)
			ret = r;
	}
	if (o->watch_ms)
		ret = dft_stats_watch(o, s, prev, n, !argc, ret);
	else
		dft_stats_report(o, s, NULL, n, 0);
out:
	for (i = 0; s && i < n; i++) {
		dft_stats_free(&s[i].st);
		dft_stats_free(&prev[i]);
	}
	free(s);
	free(prev);
	if (names)
		dft_free_names(names, n);
	return ret;
}

static int dft_simple_msg(int argc, char **argv, const char *msg)
{
	char kreason[512], *reply;
	int i, r, e = 0, ret = DFT_EXIT_OK;

	for (i = 0; i < argc; i++) {
		r = dft_send(argv[i], msg, &reply, kreason, sizeof(kreason), &e);
		if (r > 0)
			ret = r;
		else if (r < 0)
			ret = dft_msg_failed(argv[i], msg, e, kreason);
		else
			free(reply);
	}
	return ret;
}

DFT_HANDLER(dft_cmd_reset)
{
	(void)cmd;
	(void)o;
	return dft_simple_msg(argc, argv, "reset");
}

DFT_HANDLER(dft_cmd_release)
{
	char msg[64];
	int r;

	(void)o;
	if (argc > 1) {
		r = dft_check_id(cmd, argv[1]);
		if (r)
			return r;
	}
	snprintf(msg, sizeof(msg), "release%s%s", argc > 1 ? " " : "", argc > 1 ? argv[1] : "");
	return dft_simple_msg(1, argv, msg);
}

/* One device's log entries, as JSON or as table rows (after one header). */
static void dft_log_print(const struct dft_opts *o, struct dft_json *j, const char *name,
			  const struct dft_log_entry *e, unsigned int n, bool *header)
{
	unsigned int k;

	if (o->json) {
		dft_json_begin(j, NULL, '{');
		dft_json_str(j, "name", name);
		dft_json_begin(j, "entries", '[');
	}
	for (k = 0; k < n; k++) {
		if (o->json) {
			dft_json_begin(j, NULL, '{');
			dft_json_num(j, "time", e[k].time);
			dft_json_str(j, "op", e[k].op);
			dft_json_u64(j, "sector", e[k].sector);
			dft_json_u64(j, "bytes", e[k].bytes);
			dft_json_u64(j, "rule", e[k].rule);
			dft_json_str(j, "action", e[k].action);
			dft_json_end(j, '}');
			continue;
		}
		if (!*header) {
			printf("%-16s %-16s %-12s %12s %8s %5s  %s\n", "TIME", "DEVICE", "OP",
			       "SECTOR", "BYTES", "RULE", "ACTION");
			*header = true;
		}
		printf("%-16s %-16s %-12s %12llu %8llu %5u  %s\n", e[k].time, name, e[k].op,
		       (unsigned long long)e[k].sector, (unsigned long long)e[k].bytes,
		       e[k].rule, e[k].action);
	}
	if (o->json) {
		dft_json_end(j, ']');
		dft_json_end(j, '}');
	}
}

DFT_HANDLER(dft_cmd_log)
{
	struct dft_log_entry *e;
	char kreason[512], *reply;
	const char *err;
	struct dft_json j;
	unsigned int n;
	bool header = false;
	int i, r, er = 0, ret = DFT_EXIT_OK;

	(void)cmd;
	if (o->json) {
		dft_json_init(&j, stdout, false);
		dft_json_begin(&j, NULL, '{');
		dft_json_begin(&j, "devices", '[');
	}
	for (i = 0; i < argc; i++) {
		r = dft_send(argv[i], "log", &reply, kreason, sizeof(kreason), &er);
		if (r > 0) {
			ret = r;
			continue;
		}
		if (r < 0) {
			ret = dft_msg_failed(argv[i], "log", er, kreason);
			continue;
		}
		e = NULL;
		r = dft_parse_log_reply(reply, &e, &n, &err);
		free(reply);
		if (r) {
			ret = dft_err("%s: cannot parse the log reply: %s", argv[i], err);
			continue;
		}
		dft_log_print(o, &j, argv[i], e, n, &header);
		free(e);
	}
	if (o->json) {
		dft_json_end(&j, ']');
		dft_json_end(&j, '}');
		dft_json_finish(&j);
	}
	return ret;
}
