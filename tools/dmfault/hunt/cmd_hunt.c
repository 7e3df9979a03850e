// SPDX-License-Identifier: GPL-2.0-only
/*
 * dmfault hunt: sweep each path of a catalogue (a file, parsed by hunt.c)
 * with fail-nth over the slab and page hooks, as run --nth-sweep does one
 * command, and collect what the kernel reported (oops, BUG, WARN, KASAN,
 * hung task) and what the sanity probe found broken after a step,
 * deduplicated by the call chain of the injected fault.  A table of paths
 * and findings, or --json.
 *
 * The catalogue and the helper dmf-hunt are found beside the tool: in
 * PREFIX/share/dmfault and PREFIX/libexec/dmfault when it runs from
 * PREFIX/sbin, else in the build tree: hunt/hunt.catalog and dmf-hunt under
 * its own directory.  A path's lines
 * run with DMF_DIR (the scratch directory), DMF_HUNT (the helper) and
 * DMF_ENV (a file where the setup leaves KEY=VALUE lines, which the tool
 * puts in the environment of the path's other lines) set.
 */
#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "hunt/hunt.h"

#define DFT_HUNT_ARGS		32	/* words of a step */
#define DFT_HUNT_LINE		1024	/* a step or knobs line with its variables */
#define DFT_HUNT_ENV_MAX	16	/* KEY=VALUE lines a setup may leave */

/*
 * Knobs of every path: the chain of each fault in the log, every one.
 * Nothing is kept out of the sweep here; --set reject-module=... does that
 * where a machine cannot lose a module, e.g. the 9p client under a root on
 * 9p: a failed clunk breaks a 9p mount for good, a known kernel bug that
 * every path would find again (the "What it found" section of
 * Documentation/fault-injection/dm-fault-allocators.rst).
 */
static const struct dft_kv dft_hunt_defaults[] = {
	{ "verbose", "2", NULL },
	{ "verbose_ratelimit_interval_ms", "0", NULL },
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
	struct dft_hunt_catalog cat;
	struct dft_hunt_path_result *res;
	unsigned int nr_res;
	struct dft_findings findings;
	struct dft_hunt_path_result *cur;
	bool oom;
	bool made_dir;			/* the scratch directory is ours to remove */
	char dir[PATH_MAX];		/* the scratch directory: $DMF_DIR */
	char out[PATH_MAX];		/* where setup and teardown lines write */
	char helper[PATH_MAX];		/* $DMF_HUNT */
	struct {
		char *key, *old;	/* a variable the setup set, its old value */
	} env[DFT_HUNT_ENV_MAX];
	unsigned int nr_env;
};

/* The catalogue (--catalog, or the tool's), and the helper. */
static int dft_hunt_files(struct dft_hunt *h)
{
	char file[PATH_MAX], alt[PATH_MAX], err[PATH_MAX + 256];
	int r;

	if (h->o->catalog) {
		snprintf(file, sizeof(file), "%s", h->o->catalog);
	} else {
		r = dft_beside("share/dmfault/hunt.catalog", "hunt/hunt.catalog", R_OK, file, alt,
			       sizeof(file));
		if (r == -ENOENT)
			return dft_err("hunt: no catalogue: neither %s nor %s is there",
				       file, alt);
		if (r)
			return dft_err("/proc/self/exe: %s", strerror(-r));
	}
	r = dft_hunt_catalog_read(&h->cat, file, err, sizeof(err));
	if (r)
		return dft_err("hunt: %s", err);
	r = dft_beside("libexec/dmfault/dmf-hunt", "dmf-hunt", X_OK, h->helper, alt,
		       sizeof(h->helper));
	if (r == -ENOENT)
		return dft_err("hunt: no helper: neither %s nor %s is there", h->helper, alt);
	return r ? dft_err("/proc/self/exe: %s", strerror(-r)) : 0;
}

/* The catalogue, and the paths to sweep: those named, or all. */
static int dft_hunt_select(const struct dft_cmd *cmd, struct dft_hunt *h, int argc,
			   char **argv)
{
	unsigned int i;
	int a, r;

	r = dft_hunt_files(h);
	if (r)
		return r;
	h->res = calloc(h->cat.nr + argc, sizeof(*h->res));
	if (!h->res)
		return dft_err("out of memory");
	for (a = 0; a < argc; a++) {
		for (i = 0; i < h->cat.nr && strcmp(h->cat.paths[i].name, argv[a]); i++)
			;
		if (i == h->cat.nr)
			return dft_usage_err(cmd, "no path '%s' in the catalogue", argv[a]);
		h->res[h->nr_res++].p = &h->cat.paths[i];
	}
	for (i = 0; !argc && i < h->cat.nr; i++)
		h->res[h->nr_res++].p = &h->cat.paths[i];
	return 0;
}

/*
 * The scratch directory: --dir (made if missing, kept), or a new one in
 * $TMPDIR or /var/tmp, removed at the end.  $DMF_DIR and $DMF_HUNT set.
 */
static int dft_hunt_mkdir(struct dft_hunt *h)
{
	const char *tmp = getenv("TMPDIR");
	struct stat st;

	if (h->o->hunt_dir) {
		if (mkdir(h->o->hunt_dir, 0700) && errno != EEXIST)
			return dft_err("hunt: %s: %s", h->o->hunt_dir, strerror(errno));
		if (!realpath(h->o->hunt_dir, h->dir) || stat(h->dir, &st))
			return dft_err("hunt: %s: %s", h->o->hunt_dir, strerror(errno));
		if (!S_ISDIR(st.st_mode))
			return dft_err("hunt: %s: %s", h->o->hunt_dir, strerror(ENOTDIR));
	} else {
		snprintf(h->dir, sizeof(h->dir), "%s/dmf-hunt.XXXXXX",
			 tmp && *tmp ? tmp : "/var/tmp");
		if (!mkdtemp(h->dir))
			return dft_err("hunt: %s: %s", h->dir, strerror(errno));
		h->made_dir = true;
	}
	if (snprintf(h->out, sizeof(h->out), "%s/sh.out", h->dir) >= (int)sizeof(h->out))
		return dft_err("hunt: %s: %s", h->dir, strerror(ENAMETOOLONG));
	if (setenv("DMF_DIR", h->dir, 1) || setenv("DMF_HUNT", h->helper, 1))
		return dft_err("out of memory");
	return 0;
}

static char dft_hunt_rm_err[PATH_MAX + 64];
static dev_t dft_hunt_rm_dev;

/* A directory on another file system than the scratch directory: mounted. */
static int dft_hunt_find_mount(const char *path, const struct stat *st, int type,
			       struct FTW *ftw)
{
	(void)ftw;
	if (type != FTW_D || st->st_dev == dft_hunt_rm_dev)
		return FTW_CONTINUE;
	snprintf(dft_hunt_rm_err, sizeof(dft_hunt_rm_err), "%s is mounted", path);
	return FTW_STOP;
}

static int dft_hunt_rm_one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st;
	(void)type;
	(void)ftw;
	if (remove(path) && errno != ENOENT && !*dft_hunt_rm_err)
		snprintf(dft_hunt_rm_err, sizeof(dft_hunt_rm_err), "%s: %s", path,
			 strerror(errno));
	return 0;
}

/*
 * Remove the scratch directory we made, unless something is mounted in it
 * (a teardown that failed): then all of it stays, and that is said.  Only
 * directories are compared: on overlayfs a file's st_dev is its layer's.
 */
static void dft_hunt_rmdir(const struct dft_hunt *h)
{
	struct stat st;

	if (!h->made_dir || lstat(h->dir, &st))
		return;
	*dft_hunt_rm_err = '\0';
	dft_hunt_rm_dev = st.st_dev;
	if (nftw(h->dir, dft_hunt_find_mount, 16, FTW_PHYS | FTW_ACTIONRETVAL) != FTW_STOP)
		nftw(h->dir, dft_hunt_rm_one, 16, FTW_DEPTH | FTW_PHYS);
	if (*dft_hunt_rm_err)
		dft_err("hunt: %s is left: %s", h->dir, dft_hunt_rm_err);
}

/*
 * Put the KEY=VALUE lines a path's setup left in @file ($DMF_ENV) in the
 * environment of the lines that follow; dft_hunt_env_restore() undoes it.
 * 0, or -errno with why in @why.
 */
static int dft_hunt_env_load(struct dft_hunt *h, const char *file, char *why, size_t len)
{
	char *line = NULL, *key, *val;
	unsigned int ln = 0;
	size_t size = 0;
	int r = 0;
	FILE *f;

	f = fopen(file, "re");
	if (!f) {
		if (errno == ENOENT)
			return 0;
		r = -errno;
		snprintf(why, len, "setup: $DMF_ENV: %s", strerror(-r));
		return r;
	}
	while (!r && getline(&line, &size, f) > 0) {
		ln++;
		r = dft_hunt_env_line(line, &key, &val);
		if (r > 0) {
			r = 0;
			continue;
		}
		if (!r && h->nr_env == DFT_HUNT_ENV_MAX) {
			snprintf(why, len, "setup: $DMF_ENV line %u: more than %u variables", ln,
				 DFT_HUNT_ENV_MAX);
			r = -E2BIG;
		} else if (r) {
			snprintf(why, len, "setup: $DMF_ENV line %u: '%.200s' is not KEY=VALUE", ln,
				 line);
		} else {
			h->env[h->nr_env].key = strdup(key);
			h->env[h->nr_env].old = getenv(key) ? strdup(getenv(key)) : NULL;
			h->nr_env++;
			if (setenv(key, val, 1))
				r = -errno;
		}
	}
	free(line);
	fclose(f);
	return r;
}

static void dft_hunt_env_restore(struct dft_hunt *h)
{
	while (h->nr_env) {
		h->nr_env--;
		if (h->env[h->nr_env].key && h->env[h->nr_env].old)
			setenv(h->env[h->nr_env].key, h->env[h->nr_env].old, 1);
		else if (h->env[h->nr_env].key)
			unsetenv(h->env[h->nr_env].key);
		free(h->env[h->nr_env].key);
		free(h->env[h->nr_env].old);
	}
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
	const char *out = h->o->verbose ? NULL : h->out;
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
		r = dft_exit_code(st);
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

/* @in with its variables expanded into @out; else why not in @why. */
static int dft_hunt_expand_line(const char *what, const char *in, char *out, size_t len,
				char *why, size_t wlen)
{
	char bad[128];
	int r;

	r = dft_hunt_expand(in, out, len, bad, sizeof(bad));
	if (r == -ENOENT)
		snprintf(why, wlen, "%s: $%s is not set (a setup sets it in $DMF_ENV)", what, bad);
	else if (r)
		snprintf(why, wlen, "%s: longer than %zu bytes with its variables", what, len - 1);
	return r;
}

/*
 * The options of one path's sweep: hunt defaults, the path's knobs, the
 * user's; its step's words.  Variables are expanded in the knobs and the
 * step (@knobs and @argv[DFT_HUNT_ARGS] hold them).  0, or -errno with why
 * in @why.
 */
static int dft_hunt_path_opts(const struct dft_hunt *h, const struct dft_hunt_path *p,
			      struct dft_opts *po, char *knobs, char **argv, const char **probe,
			      char *why, size_t wlen)
{
	unsigned int i, n = 0;
	char *s, *k;

	*po = *h->o;
	po->set = NULL;
	if (dft_hunt_expand_line("knobs", p->knobs ? p->knobs : "", knobs, DFT_HUNT_LINE, why,
				 wlen) ||
	    dft_hunt_expand_line("step", p->cmd, argv[DFT_HUNT_ARGS], DFT_HUNT_LINE, why, wlen))
		return -EINVAL;
	if (h->o->verbose)
		fprintf(stderr, "hunt: %s: %s\n", p->name, argv[DFT_HUNT_ARGS]);
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
		if (!po->set[n].val) {
			snprintf(why, wlen, "knobs: '%s' is not KNOB=VALUE", k);
			return -EINVAL;
		}
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
	for (po->cmd_argc = 0, s = argv[DFT_HUNT_ARGS];
	     po->cmd_argc < DFT_HUNT_ARGS - 1 && (k = strsep(&s, " \t")) != NULL;)
		if (*k)
			argv[po->cmd_argc++] = k;
	argv[po->cmd_argc] = NULL;
	if (s || !po->cmd_argc) {
		snprintf(why, wlen, "step: %s words", po->cmd_argc ? "more than 31" : "no");
		return -EINVAL;
	}
	return 0;
}

/*
 * Sweep one path: setup, the sweep with its post line after each step,
 * teardown; what the setup left in $DMF_ENV is in the environment of the
 * step, post and teardown lines (the teardown's even if the setup failed
 * half-way, to undo that half).
 */
static void dft_hunt_path(struct dft_hunt *h, struct dft_hunt_path_result *res)
{
	const struct dft_hunt_path *p = res->p;
	char knobs[DFT_HUNT_LINE], cmdline[DFT_HUNT_LINE], *argv[DFT_HUNT_ARGS + 1];
	const char *probe = NULL, *old = getenv("DMFAULT_PROBE_FILES");
	char env[PATH_MAX + 64], why[sizeof(res->skipped)];
	struct dft_opts po = { .set = NULL };
	double t0 = dft_now();
	bool setup_ok;

	h->cur = res;
	res->sw = (struct dft_sweep){ .post = p->post, .on_step = dft_hunt_on_step, .ctx = h,
				      .out = h->o->verbose ? stderr : NULL,
				      .end = DFT_SWEEP_ERROR };
	argv[DFT_HUNT_ARGS] = cmdline;
	snprintf(env, sizeof(env), "%s/%s.env", h->dir, p->name);
	unlink(env);
	setenv("DMF_ENV", env, 1);
	setup_ok = !dft_hunt_sh(h, "setup", p->setup, res->skipped, sizeof(res->skipped));
	if (dft_hunt_env_load(h, env, why, sizeof(why)) && setup_ok) {
		snprintf(res->skipped, sizeof(res->skipped), "%s", why);
		setup_ok = false;
	}
	if (setup_ok && !dft_hunt_path_opts(h, p, &po, knobs, argv, &probe, res->skipped,
					    sizeof(res->skipped))) {
		po.sweep = &res->sw;
		if (probe)
			setenv("DMFAULT_PROBE_FILES", probe, 1);
		dft_alloc_run(&po);
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
	dft_hunt_env_restore(h);
	unlink(env);
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

/* "dmfault hunt [--catalog FILE] [--slab] [--page] [--set K=V]... --max-steps N PATH" */
static void dft_hunt_repro(const struct dft_hunt *h, const struct dft_finding *f, char *buf,
			   size_t len)
{
	const char *cat = h->o->catalog;
	unsigned int i;
	size_t n;

	n = snprintf(buf, len, "dmfault hunt%s%s%s%s", cat ? " --catalog " : "", cat ? cat : "",
		     h->o->slab ? " --slab" : "", h->o->page ? " --page" : "");
	for (i = 0; i < h->o->nr_set && n < len; i++) {
		/* a value of several words stays one argument */
		const char *q = strpbrk(h->o->set[i].val, " \t") ? "'" : "";

		n += snprintf(buf + n, len - n, " --set %s%s=%s%s", q, h->o->set[i].key,
			      h->o->set[i].val, q);
	}
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
	dft_hunt_catalog_free(&h->cat);
}

DFT_HANDLER(dft_cmd_hunt)
{
	struct dft_hunt h = { .o = o };
	double t0 = dft_now();
	unsigned int i;
	int r;

	r = dft_hunt_select(cmd, &h, argc, argv);
	if (!r)
		r = dft_hunt_mkdir(&h);
	if (!r && !o->json)
		dft_hunt_row(NULL);
	for (i = 0; !r && i < h.nr_res; i++) {
		dft_hunt_path(&h, &h.res[i]);
		if (!o->json)
			dft_hunt_row(&h.res[i]);
		/* interrupted, or an error of ours (dft_alloc_run said which) */
		if (h.res[i].sw.end == DFT_SWEEP_STOPPED ||
		    (h.res[i].sw.end == DFT_SWEEP_ERROR && !*h.res[i].skipped)) {
			h.nr_res = i + 1;
			break;
		}
	}
	dft_hunt_rmdir(&h);
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
