// SPDX-License-Identifier: GPL-2.0-only
/*
 * dmfault hunt: sweep each path of a catalogue (hunt.c) with fail-nth over
 * the slab and page hooks, as run --nth-sweep does one command, and collect
 * what the kernel reported (oops, BUG, WARN, KASAN, hung task) and what the
 * sanity probe found broken after a step, deduplicated by the call chain
 * of the injected fault.  A table of paths and findings, or --json.
 *
 * $DMFAULT_HUNT_CATALOG names a file that replaces the built-in catalogue
 * (one path a line: NAME|SETUP|CMD|POST|TEARDOWN|KNOBS).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "dmfault.h"

#define DFT_HUNT_ARGS	32

/*
 * Knobs of every path: the chain of each fault in the log, every one; the
 * 9p client out of scope, since the root of tests/vm/run is 9p and a failed
 * clunk breaks it for good (the "What it found" section of
 * Documentation/fault-injection/dm-fault-allocators.rst).
 */
static const struct dft_kv dft_hunt_defaults[] = {
	{ "verbose", "2", NULL },
	{ "verbose_ratelimit_interval_ms", "0", NULL },
	{ "reject-module", "9p 9pnet", NULL },
};

struct dft_hunt_path_result {
	const struct dft_hunt_path *p;
	struct dft_sweep sw;
	double secs;
	unsigned int findings;		/* findings seen in this path, repeats included */
	char skipped[640];		/* why the path did not run, or "" */
	char teardown[640];		/* why its teardown failed, or "" */
};

struct dft_hunt {
	const struct dft_opts *o;
	struct dft_hunt_path *paths;	/* the catalogue */
	unsigned int nr_paths;
	char *catalog_text;		/* $DMFAULT_HUNT_CATALOG's contents */
	struct dft_hunt_path_result *res;
	unsigned int nr_res;
	struct dft_findings findings;
	struct dft_hunt_path_result *cur;
	bool oom;
};

static double dft_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int dft_hunt_read_catalog(struct dft_hunt *h, const char *file)
{
	char *line, *s;
	size_t size = 0;
	FILE *f;
	int r;

	f = fopen(file, "re");
	if (!f)
		return dft_err("%s: %s", file, strerror(errno));
	if (getdelim(&h->catalog_text, &size, '\0', f) < 0)
		h->catalog_text = strdup("");
	fclose(f);
	h->paths = calloc(strlen(h->catalog_text) / 2 + 1, sizeof(*h->paths));
	if (!h->catalog_text || !h->paths)
		return dft_err("out of memory");
	for (s = h->catalog_text; (line = strsep(&s, "\n")) != NULL;) {
		r = dft_hunt_parse_line(line, &h->paths[h->nr_paths]);
		if (r < 0)
			return dft_err("%s: '%s': not NAME|SETUP|CMD|POST|TEARDOWN|KNOBS", file,
				       line);
		if (!r)
			h->nr_paths++;
	}
	return 0;
}

/* The catalogue, and the paths to sweep: those named, or all. */
static int dft_hunt_select(const struct dft_cmd *cmd, struct dft_hunt *h, int argc,
			   char **argv)
{
	const char *file = getenv("DMFAULT_HUNT_CATALOG");
	unsigned int i;
	int a, r;

	if (file && *file) {
		r = dft_hunt_read_catalog(h, file);
		if (r)
			return r;
	} else {
		h->paths = calloc(dft_hunt_catalog_size, sizeof(*h->paths));
		if (!h->paths)
			return dft_err("out of memory");
		memcpy(h->paths, dft_hunt_catalog, dft_hunt_catalog_size * sizeof(*h->paths));
		h->nr_paths = dft_hunt_catalog_size;
	}
	h->res = calloc(h->nr_paths + argc, sizeof(*h->res));
	if (!h->res)
		return dft_err("out of memory");
	for (a = 0; a < argc; a++) {
		for (i = 0; i < h->nr_paths && strcmp(h->paths[i].name, argv[a]); i++)
			;
		if (i == h->nr_paths)
			return dft_usage_err(cmd, "no path '%s' in the catalogue", argv[a]);
		h->res[h->nr_res++].p = &h->paths[i];
	}
	for (i = 0; !argc && i < h->nr_paths; i++)
		h->res[h->nr_res++].p = &h->paths[i];
	return 0;
}

/*
 * Run a path's setup or teardown line (@what): 0 if it exited 0, else its
 * exit status or -errno (-ETIMEDOUT past --step-timeout) and in @why what
 * went wrong: "setup hung: " and where, or "setup failed (status 1): " and
 * the last line it printed (its output is kept in a file, or goes to stderr
 * with -v).  A teardown that fails leaves its device for the next path,
 * whose setup then fails: the report must name the first, not the second.
 */
static int dft_hunt_sh(const struct dft_hunt *h, const char *what, const char *line,
		       char *why, size_t len)
{
	const char *out = h->o->verbose ? NULL : DFT_HUNT_DIR "/sh.out";
	char hung[600], tail[256], *last;
	size_t n;
	int r, st;

	*why = '\0';
	if (!line)
		return 0;
	if (out)
		unlink(out);
	r = dft_sh_timeout(line, out, NULL, h->o->step_timeout, &st, hung, sizeof(hung));
	if (*hung) {
		snprintf(why, len, "%s hung: %s", what, hung);
		return -ETIMEDOUT;
	}
	if (!r)
		r = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	if (!r)
		return 0;
	n = out ? dft_file_tail(out, tail, sizeof(tail)) : 0;
	while (n && (tail[n - 1] == '\n' || tail[n - 1] == ' '))
		tail[--n] = '\0';
	last = strrchr(tail, '\n');
	last = last ? last + 1 : tail;
	snprintf(why, len, "%s failed (%s %d)%s%s", what, r < 0 ? "error" : "status", r,
		 n ? ": " : "", n ? last : "");
	return r;
}

static void dft_hunt_add(struct dft_hunt *h, const struct dft_step *s, const char *kind,
			 const char *what)
{
	struct dft_finding f;

	memset(&f, 0, sizeof(f));
	/* "WARNING:" and "BUG:" without their colon */
	snprintf(f.kind, sizeof(f.kind), "%.*s", (int)strcspn(kind, ":"), kind);
	snprintf(f.what, sizeof(f.what), "%s", what);
	snprintf(f.path, sizeof(f.path), "%s", h->cur->p->name);
	f.chain = s->chain;
	f.step = s->step;
	dft_chain_key(&s->chain, f.kind, what, f.key, sizeof(f.key));
	if (dft_findings_add(&h->findings, &f))
		h->oom = true;
	h->cur->findings++;
}

/* The sweep's report of each step: its kernel problems and lasting damage. */
static void dft_hunt_on_step(struct dft_sweep *sw, const struct dft_step *s)
{
	struct dft_hunt *h = sw->ctx;

	if (s->problems)
		dft_hunt_add(h, s, s->kind, s->problem);
	/* a hang without a fault is the command's own (the path's END says it) */
	if (*s->hung && s->faults)
		dft_hunt_add(h, s, "hang", s->hung);
	if (*s->damage)
		dft_hunt_add(h, s, "lasting damage", s->damage);
}

/* The options of one path's sweep: hunt defaults, the path's knobs, the user's. */
static int dft_hunt_path_opts(const struct dft_hunt *h, const struct dft_hunt_path *p,
			      struct dft_opts *po, char *knobs, char **argv, const char **probe)
{
	unsigned int i, n = 0;
	char *s, *k;

	*po = *h->o;
	po->set = calloc(ARRAY_SIZE(dft_hunt_defaults) + strlen(knobs) / 2 + h->o->nr_set + 1,
			 sizeof(*po->set));
	if (!po->set)
		return -ENOMEM;
	for (i = 0; i < ARRAY_SIZE(dft_hunt_defaults); i++)
		po->set[n++] = dft_hunt_defaults[i];
	for (s = knobs; (k = strsep(&s, " \t")) != NULL;) {
		if (!*k)
			continue;
		po->set[n].key = k;
		po->set[n].val = strchr(k, '=');
		if (!po->set[n].val)
			return -EINVAL;
		*(char *)po->set[n].val++ = '\0';
		if (!strcmp(k, "probe"))
			*probe = po->set[n].val;
		else
			n++;
	}
	for (i = 0; i < h->o->nr_set; i++)
		po->set[n++] = h->o->set[i];
	po->nr_set = n;
	po->nth_sweep = true;
	po->slab = po->page = true;
	if (h->o->slab || h->o->page) {
		po->slab = h->o->slab;
		po->page = h->o->page;
	}
	po->cmd_argv = argv;
	for (po->cmd_argc = 0, s = strcpy(argv[DFT_HUNT_ARGS], p->cmd);
	     po->cmd_argc < DFT_HUNT_ARGS - 1 && (k = strsep(&s, " ")) != NULL;)
		if (*k)
			argv[po->cmd_argc++] = k;
	argv[po->cmd_argc] = NULL;
	return 0;
}

/* Sweep one path: setup, the sweep with its post line after each step, teardown. */
static void dft_hunt_path(const struct dft_cmd *cmd, struct dft_hunt *h,
			  struct dft_hunt_path_result *res)
{
	const struct dft_hunt_path *p = res->p;
	char knobs[1024], cmdline[1024], *argv[DFT_HUNT_ARGS + 1];
	const char *probe = NULL, *old = getenv("DMFAULT_PROBE_FILES");
	struct dft_opts po;
	double t0 = dft_now();

	h->cur = res;
	res->sw = (struct dft_sweep){ .post = p->post, .on_step = dft_hunt_on_step, .ctx = h,
				      .out = h->o->verbose ? stderr : NULL,
				      .end = DFT_SWEEP_ERROR };
	snprintf(knobs, sizeof(knobs), "%s", p->knobs ? p->knobs : "");
	argv[DFT_HUNT_ARGS] = cmdline;
	po.set = NULL;
	if (strlen(p->cmd) >= sizeof(cmdline) ||
	    dft_hunt_path_opts(h, p, &po, knobs, argv, &probe)) {
		snprintf(res->skipped, sizeof(res->skipped), "bad knobs or command");
		free(po.set);
		return;
	}
	po.sweep = &res->sw;
	if (h->o->verbose)
		fprintf(stderr, "hunt: %s: %s\n", p->name, p->cmd);
	if (!dft_hunt_sh(h, "setup", p->setup, res->skipped, sizeof(res->skipped))) {
		if (probe)
			setenv("DMFAULT_PROBE_FILES", probe, 1);
		dft_cmd_run(cmd, &po, 0, NULL);
		if (probe && old)
			setenv("DMFAULT_PROBE_FILES", old, 1);
		else if (probe)
			unsetenv("DMFAULT_PROBE_FILES");
	}
	if (dft_hunt_sh(h, "teardown", p->teardown, res->teardown,
			sizeof(res->teardown)) == -ETIMEDOUT) {
		/* a finding of the path, after its last step */
		struct dft_step t = { .step = res->sw.steps ? res->sw.steps : 1 };

		dft_hunt_add(h, &t, "hang", res->teardown);
	}
	res->secs = dft_now() - t0;
	free(po.set);
}

static const char *dft_hunt_end(const struct dft_hunt_path_result *res)
{
	static const char *const ends[] = {
		[DFT_SWEEP_DONE] = "completed", [DFT_SWEEP_DAMAGE] = "lasting damage",
		[DFT_SWEEP_BROKEN] = "broken", [DFT_SWEEP_NORUN] = "not run",
		[DFT_SWEEP_MAX] = "max steps", [DFT_SWEEP_STOPPED] = "interrupted",
		[DFT_SWEEP_ERROR] = "error",
	};

	return *res->skipped ? "skipped" : ends[res->sw.end];
}

/* "dmfault hunt [--slab] [--page] [--set K=V]... --max-steps N PATH" */
static void dft_hunt_repro(const struct dft_hunt *h, const struct dft_finding *f, char *buf,
			   size_t len)
{
	const char *cat = getenv("DMFAULT_HUNT_CATALOG");
	unsigned int i;
	size_t n;

	n = snprintf(buf, len, "%s%s%sdmfault hunt%s%s", cat && *cat ? "DMFAULT_HUNT_CATALOG=" : "",
		     cat && *cat ? cat : "", cat && *cat ? " " : "", h->o->slab ? " --slab" : "",
		     h->o->page ? " --page" : "");
	for (i = 0; i < h->o->nr_set && n < len; i++)
		n += snprintf(buf + n, len - n, " --set %s=%s", h->o->set[i].key,
			      h->o->set[i].val);
	if (n < len && h->o->step_timeout != DFT_STEP_TIMEOUT)
		n += snprintf(buf + n, len - n, " --step-timeout %u", h->o->step_timeout);
	if (n < len)
		snprintf(buf + n, len - n, " --max-steps %lld %s", f->step, f->path);
}

static void dft_hunt_row(const struct dft_hunt_path_result *res)
{
	if (!res)
		printf("%-18s %6s %7s %8s  %-15s %s\n", "PATH", "STEPS", "FAULTS", "SECONDS",
		       "END", "FINDINGS");
	else
		printf("%-18s %6lld %7llu %8.1f  %-15s %u\n", res->p->name, res->sw.steps,
		       (unsigned long long)res->sw.faults, res->secs, dft_hunt_end(res),
		       res->findings);
	fflush(stdout);
}

/* Why a path was skipped or its sweep cut short; NULL if it ran its course. */
static const char *dft_hunt_why(const struct dft_hunt_path_result *res)
{
	if (*res->skipped)
		return res->skipped;
	switch (res->sw.end) {
	case DFT_SWEEP_BROKEN:
	case DFT_SWEEP_NORUN:
	case DFT_SWEEP_ERROR:
	case DFT_SWEEP_STOPPED:
		return *res->sw.why ? res->sw.why : NULL;
	default:
		return NULL;
	}
}

/*
 * After the rows: why paths ended early and whose teardown failed, each
 * finding, then the totals.
 */
static void dft_hunt_table(const struct dft_hunt *h, double secs)
{
	unsigned long long steps = 0, faults = 0;
	const struct dft_finding *f;
	unsigned int i, n = 0;
	char repro[1024];
	const char *why;

	for (i = 0; i < h->nr_res; i++) {
		steps += h->res[i].sw.steps;
		faults += h->res[i].sw.faults;
		why = dft_hunt_why(&h->res[i]);
		if (why)
			printf("%s%s: %s: %s\n", n++ ? "" : "\n", h->res[i].p->name,
			       dft_hunt_end(&h->res[i]), why);
		if (*h->res[i].teardown)
			printf("%s%s: %s\n", n++ ? "" : "\n", h->res[i].p->name,
			       h->res[i].teardown);
	}
	for (i = 0; i < h->findings.nr; i++) {
		f = &h->findings.f[i];
		dft_hunt_repro(h, f, repro, sizeof(repro));
		printf("\nfinding %u: %s: %s\n", i + 1, f->kind, f->what);
		printf("  seen %u time%s, in: %s; first at %s step %lld\n", f->hits,
		       f->hits == 1 ? "" : "s", f->paths, f->path, f->step);
		printf("  fault: %s\n", *f->chain.fault ? f->chain.fault : "(not logged)");
		printf("  chain: %s\n", f->chain.nr ? f->chain.frames : "(not logged)");
		printf("  reproduce: %s\n", repro);
	}
	printf("\nhunt: %u path%s, %llu faulted steps, %llu faults injected, %u finding%s in %.0f s\n",
	       h->nr_res, h->nr_res == 1 ? "" : "s", steps, faults, h->findings.nr,
	       h->findings.nr == 1 ? "" : "s", secs);
}

static void dft_hunt_json_paths(const struct dft_hunt *h, struct dft_json *j)
{
	const struct dft_hunt_path_result *res;
	unsigned int i;

	dft_json_begin(j, "paths", '[');
	for (i = 0; i < h->nr_res; i++) {
		res = &h->res[i];
		dft_json_begin(j, NULL, '{');
		dft_json_str(j, "path", res->p->name);
		dft_json_str(j, "command", res->p->cmd);
		dft_json_u64(j, "steps", res->sw.steps);
		dft_json_u64(j, "faults", res->sw.faults);
		dft_json_u64(j, "failed", res->sw.failed);
		dft_json_double(j, "seconds", res->secs);
		dft_json_str(j, "end", dft_hunt_end(res));
		dft_json_str(j, "why", *res->skipped ? res->skipped : res->sw.why);
		dft_json_str(j, "teardown", res->teardown);
		dft_json_u64(j, "findings", res->findings);
		dft_json_end(j, '}');
	}
	dft_json_end(j, ']');
}

static void dft_hunt_json(const struct dft_hunt *h, double secs)
{
	const struct dft_finding *f;
	struct dft_json j;
	char repro[1024];
	unsigned int i;

	dft_json_init(&j, stdout, false);
	dft_json_begin(&j, NULL, '{');
	dft_hunt_json_paths(h, &j);
	dft_json_begin(&j, "findings", '[');
	for (i = 0; i < h->findings.nr; i++) {
		f = &h->findings.f[i];
		dft_hunt_repro(h, f, repro, sizeof(repro));
		dft_json_begin(&j, NULL, '{');
		dft_json_str(&j, "kind", f->kind);
		dft_json_str(&j, "what", f->what);
		dft_json_str(&j, "fault", f->chain.fault);
		dft_json_str(&j, "chain", f->chain.frames);
		dft_json_u64(&j, "hits", f->hits);
		dft_json_str(&j, "paths", f->paths);
		dft_json_str(&j, "first_path", f->path);
		dft_json_u64(&j, "first_step", f->step);
		dft_json_str(&j, "reproduce", repro);
		dft_json_end(&j, '}');
	}
	dft_json_end(&j, ']');
	dft_json_double(&j, "seconds", secs);
	dft_json_end(&j, '}');
	dft_json_finish(&j);
}

static void dft_hunt_free(struct dft_hunt *h)
{
	dft_findings_free(&h->findings);
	free(h->res);
	free(h->paths);
	free(h->catalog_text);
}

DFT_HANDLER(dft_cmd_hunt)
{
	struct dft_hunt h = { .o = o };
	double t0 = dft_now();
	unsigned int i;
	int r;

	r = dft_hunt_select(cmd, &h, argc, argv);
	if (!r && mkdir(DFT_HUNT_DIR, 0755) && errno != EEXIST)
		r = dft_err("%s: %s", DFT_HUNT_DIR, strerror(errno));
	if (!r && !o->json)
		dft_hunt_row(NULL);
	for (i = 0; !r && i < h.nr_res; i++) {
		dft_hunt_path(cmd, &h, &h.res[i]);
		if (!o->json)
			dft_hunt_row(&h.res[i]);
		/* interrupted, or an error of ours (dft_cmd_run said which) */
		if (h.res[i].sw.end == DFT_SWEEP_STOPPED ||
		    (h.res[i].sw.end == DFT_SWEEP_ERROR && !*h.res[i].skipped)) {
			h.nr_res = i + 1;
			break;
		}
	}
	if (!r) {
		if (o->json)
			dft_hunt_json(&h, dft_now() - t0);
		else
			dft_hunt_table(&h, dft_now() - t0);
		r = h.oom ? dft_err("out of memory") : h.findings.nr ? DFT_EXIT_FAIL : DFT_EXIT_OK;
	}
	dft_hunt_free(&h);
	return r;
}
