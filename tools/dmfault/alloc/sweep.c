// SPDX-License-Identifier: GPL-2.0-only
/*
 * dmfault: the fail-nth sweep of run --nth-sweep and hunt.  Step N runs
 * the command with its Nth allocation failed (dft_run_once() in
 * step.c), until a step runs with no fault, a sanity probe finds
 * lasting damage, or --max-steps.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "alloc/alloc.h"

/*
 * The sweep's sanity probe, run before step 1 and after every step: a step
 * can leave the system broken without an oops (a failed TCLUNK allocation
 * leaves a 9p mount answering EINVAL for good).  It opens and reads the
 * command's executable, our own and the files in $DMFAULT_PROBE_FILES
 * (colon-separated), execs ourselves ("version", which loads our shared
 * libraries from the root), and compares our open fds with the start: a
 * few system calls and one fork+exec, small next to a run of the command.
 * Slab object counts of caches a leaked process or file would grow are
 * compared too, but only reported: they move by a slab's worth with no
 * leak at all, so they are no verdict.
 */
#define DFT_PROBE_FILES	8

static const char *const dft_probe_caches[] = {
	"task_struct", "mm_struct", "files_cache", "signal_cache", "cred_jar", "pid", "filp",
};

struct dft_probe {
	char *files[DFT_PROBE_FILES];
	unsigned int nr_files;
	int fds;
	long long slab[ARRAY_SIZE(dft_probe_caches)];
};

static int dft_count_fds(void)
{
	struct dirent *e;
	DIR *d = opendir("/proc/self/fd");
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)) != NULL)
		if (e->d_name[0] != '.')
			n++;
	closedir(d);
	return n - 1;	/* the directory's own */
}

/* Active objects of the probe's caches, -1 where unknown. */
static void dft_slab_counts(long long *out)
{
	char line[512], name[128];
	long long active;
	unsigned int i;
	FILE *f;

	for (i = 0; i < ARRAY_SIZE(dft_probe_caches); i++)
		out[i] = -1;
	f = fopen("/proc/slabinfo", "re");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%127s %lld", name, &active) != 2)
			continue;
		for (i = 0; i < ARRAY_SIZE(dft_probe_caches); i++)
			if (!strcmp(name, dft_probe_caches[i]))
				out[i] = active;
	}
	fclose(f);
}

/* @cmd as execvp() would find it, or NULL. */
static char *dft_which(const char *cmd)
{
	const char *path = getenv("PATH"), *p, *end;
	char buf[4096];
	struct stat st;

	if (strchr(cmd, '/'))
		return strdup(cmd);
	for (p = path ? path : "/usr/local/bin:/usr/bin:/bin"; *p; p = *end ? end + 1 : end) {
		end = strchrnul(p, ':');
		if (snprintf(buf, sizeof(buf), "%.*s/%s", (int)(end - p), end == p ? "." : p,
			     cmd) >= (int)sizeof(buf))
			continue;
		if (!stat(buf, &st) && S_ISREG(st.st_mode) && !access(buf, X_OK))
			return strdup(buf);
	}
	return NULL;
}

static void dft_probe_add(struct dft_probe *pr, const char *path)
{
	if (pr->nr_files < DFT_PROBE_FILES && path && *path)
		pr->files[pr->nr_files] = strdup(path);
	if (pr->nr_files < DFT_PROBE_FILES && pr->files[pr->nr_files])
		pr->nr_files++;
}

static void dft_probe_free(struct dft_probe *pr)
{
	while (pr->nr_files)
		free(pr->files[--pr->nr_files]);
}

/* Open and read each of the probe's files. */
static int dft_probe_files(struct dft_probe *pr, char *why, size_t len)
{
	char buf[4096];
	unsigned int i;
	int fd;

	for (i = 0; i < pr->nr_files; i++) {
		fd = open(pr->files[i], O_RDONLY | O_CLOEXEC);
		if (fd < 0 || read(fd, buf, sizeof(buf)) < 0) {
			snprintf(why, len, "%s %s: %s", fd < 0 ? "open" : "read", pr->files[i],
				 strerror(errno));
			if (fd >= 0)
				close(fd);
			return -1;
		}
		close(fd);
	}
	return 0;
}

/* The first line of what comes through @fd until EOF, in @buf. */
static void dft_read_first_line(int fd, char *buf, size_t len)
{
	size_t n = 0;
	ssize_t r;

	while (n < len - 1 && (r = read(fd, buf + n, len - 1 - n)) != 0) {
		if (r < 0 && errno != EINTR)
			break;
		if (r > 0)
			n += r;
	}
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
}

/* Exec ourselves ("dmfault version"), ld.so's complaints on stderr kept. */
static int dft_probe_exec(char *why, size_t len)
{
	static char *const argv[] = { "dmfault", "version", NULL };
	struct dft_spawn sp = { .argv = argv, .path = "/proc/self/exe", .out = "/dev/null" };
	struct dft_proc c;
	char buf[512];
	int r, st, p[2];

	if (pipe2(p, O_CLOEXEC)) {
		snprintf(why, len, "pipe: %s", strerror(errno));
		return -1;
	}
	sp.fd2 = p[1];
	r = dft_proc_spawn(&c, &sp);
	close(p[1]);
	if (r) {
		snprintf(why, len, "fork: %s", strerror(-r));
		close(p[0]);
		return -1;
	}
	dft_read_first_line(p[0], buf, sizeof(buf));
	close(p[0]);
	r = dft_proc_wait(&c, 0, NULL, 0);
	if (r) {
		snprintf(why, len, "wait: %s", strerror(-r));
		return -1;
	}
	st = c.status;
	if (c.exec_errno)
		snprintf(buf, sizeof(buf), "%s", strerror(c.exec_errno));
	if (WIFSIGNALED(st))
		snprintf(why, len, "exec of dmfault version: killed by signal %d", WTERMSIG(st));
	else if (WEXITSTATUS(st))
		snprintf(why, len, "exec of dmfault version: exit %d%s%.300s", WEXITSTATUS(st),
			 *buf ? ": " : "", buf);
	return WIFEXITED(st) && !WEXITSTATUS(st) ? 0 : -1;
}

/* Run the probe; 0 if all is well, else what failed in @why. */
static int dft_probe_run(struct dft_probe *pr, char *why, size_t len)
{
	int n;

	if (dft_probe_files(pr, why, len) || dft_probe_exec(why, len))
		return -1;
	n = dft_count_fds();
	if (n != pr->fds) {
		snprintf(why, len, "dmfault has %d open files, %d at the start", n, pr->fds);
		return -1;
	}
	return 0;
}

static int dft_probe_init(struct dft_probe *pr, const struct dft_opts *o, char *why, size_t len)
{
	const char *env = getenv("DMFAULT_PROBE_FILES");
	char *list, *s, *f;

	memset(pr, 0, sizeof(*pr));
	f = dft_which(o->cmd_argv[0]);
	if (f && !access(f, R_OK))	/* a command that cannot be found fails at step 1 */
		dft_probe_add(pr, f);
	free(f);
	dft_probe_add(pr, "/proc/self/exe");
	if (env && *env) {
		list = strdup(env);
		for (s = list; s && (f = strsep(&s, ":")) != NULL;)
			dft_probe_add(pr, f);
		free(list);
	}
	pr->fds = dft_count_fds();
	dft_slab_counts(pr->slab);
	return dft_probe_run(pr, why, len);
}

/* One line: how the probe's caches moved since the start; "possible leak"
 * where one grew by at least a slab's worth and one object a faulted run. */
static void dft_probe_slab_report(FILE *out, struct dft_probe *pr, long long runs)
{
	long long now[ARRAY_SIZE(dft_probe_caches)], d;
	unsigned int i, shown = 0;

	dft_slab_counts(now);
	for (i = 0; i < ARRAY_SIZE(dft_probe_caches); i++) {
		if (now[i] < 0 || pr->slab[i] < 0)
			continue;
		d = now[i] - pr->slab[i];
		fprintf(out, "%s %s %+lld", shown++ ? "," : "nth-sweep: slab objects since the start:",
			dft_probe_caches[i], d);
		if (d >= 64 && d >= runs)
			fprintf(out, " (possible leak)");
	}
	if (shown)
		fprintf(out, "\n");
}

/* The sweep's last line: "nth-sweep: CMD <what>; ... exited non-zero; ... kernel problems" */
static void dft_sweep_summary(const struct dft_opts *o, const struct dft_sweep *sw,
			      const char *what)
{
	if (sw->out)
		fprintf(sw->out, "nth-sweep: %s %s; %lld exited non-zero; %u kernel problem%s\n",
			o->cmd_argv[0], what, sw->failed, sw->trouble, sw->trouble == 1 ? "" : "s");
}

static const char *dft_runs(long long n)
{
	return n == 1 ? "" : "s";
}

/*
 * Undo what a step did (a mount, a device): @sw->post, its output dropped.
 * A post line that hangs is lasting damage of the step (@s->damage).
 */
static void dft_sweep_post(const struct dft_opts *o, const struct dft_sweep *sw,
			   struct dft_step *s)
{
	char hung[sizeof(s->damage) - 32];
	int r, st;

	if (!sw->post)
		return;
	r = dft_sh_timeout(sw->post, "/dev/null", NULL, o->step_timeout, &st, hung, sizeof(hung));
	if (*hung)
		snprintf(s->damage, sizeof(s->damage), "the post line hung: %s", hung);
	else if (r)
		dft_err("cannot run '%s': %s", sw->post, strerror(-r));
}

/*
 * What the kernel logged during a step: its problems (printed) and the
 * fault's chain.  The stack dump of the kernel's report of the failed
 * allocation itself (warn_alloc, dft_alloc_failure_report) is not a problem.
 */
static void dft_step_log(struct dft_kmsg *km, struct dft_sweep *sw, struct dft_step *s)
{
	char rec[1024];
	const char *text, *kind;
	bool alloc_report = false;

	while (dft_kmsg_next(km, rec, sizeof(rec), &text) > 0) {
		if (dft_chain_feed(&s->chain, text))
			continue;
		if (dft_alloc_failure_report(text))
			alloc_report = true;
		kind = dft_kernel_problem(text);
		if (!kind || (alloc_report && !strcmp(kind, "Call Trace")))
			continue;
		alloc_report = false;
		if (sw->out)
			fprintf(sw->out, "step %lld: kernel: %s\n", s->step, text);
		if (!s->problems++) {
			s->kind = kind;
			snprintf(s->problem, sizeof(s->problem), "%s", text);
		}
	}
	sw->trouble += s->problems;
}

/*
 * A step that injected nothing ends the sweep: it completed, or its exec
 * failed, which at step 1 means the command cannot be run and later that an
 * earlier step broke something (as a failed 9p TCLUNK allocation does).
 */
static int dft_sweep_unfaulted(const struct dft_opts *o, struct dft_sweep *sw,
			       struct dft_probe *pr, const struct dft_step *s, int exec_errno)
{
	char what[800];
	FILE *out = sw->out;

	if (!exec_errno) {
		if (out)
			fprintf(out, "step %lld: %s, no fault injected: done\n", s->step, s->status);
		if (out)
			dft_probe_slab_report(out, pr, s->step - 1);
		snprintf(what, sizeof(what), "completed without a fault after %lld faulted run%s",
			 sw->steps, dft_runs(sw->steps));
		sw->end = DFT_SWEEP_DONE;
		dft_sweep_summary(o, sw, what);
		return sw->trouble ? DFT_EXIT_FAIL : DFT_EXIT_OK;
	}
	if (out)
		fprintf(out, "step %lld: %s, no fault injected: the command did not run\n",
			s->step, s->status);
	if (s->step == 1)
		snprintf(what, sizeof(what), "could not be run (exec failed: %s): nothing swept",
			 strerror(exec_errno));
	else
		snprintf(what, sizeof(what),
			 "did not run at step %lld (exec failed: %s) with no fault injected: the system is broken (lasting damage from an earlier step?); stopped after %lld faulted run%s",
			 s->step, strerror(exec_errno), sw->steps, dft_runs(sw->steps));
	sw->end = s->step == 1 ? DFT_SWEEP_NORUN : DFT_SWEEP_BROKEN;
	snprintf(sw->why, sizeof(sw->why), "%s", s->status);
	dft_sweep_summary(o, sw, what);
	return DFT_EXIT_FAIL;
}

/*
 * A step past --step-timeout that must end the sweep: it ran that long
 * without a fault (the command is slow or hangs by itself), or SIGKILL did
 * not end it (a task stuck in the kernel: the next steps would pile up).
 */
static int dft_sweep_stuck(const struct dft_opts *o, struct dft_sweep *sw,
			   const struct dft_step *s)
{
	char what[800];

	if (s->faults)
		snprintf(what, sizeof(what),
			 "step %lld hung and SIGKILL did not end it; stopped after %lld faulted run%s",
			 s->step, sw->steps, dft_runs(sw->steps));
	else
		snprintf(what, sizeof(what),
			 "step %lld ran past --step-timeout with no fault injected (the command is slow or hangs by itself); stopped after %lld faulted run%s",
			 s->step, sw->steps, dft_runs(sw->steps));
	if (sw->out && !s->faults)
		fprintf(sw->out, "step %lld: %s: %s\n", s->step, s->status, s->hung);
	sw->end = DFT_SWEEP_BROKEN;
	snprintf(sw->why, sizeof(sw->why), "%s", s->hung);
	dft_sweep_summary(o, sw, what);
	return DFT_EXIT_FAIL;
}

/*
 * After a faulted step: report it (a hang is a finding), then the probe.
 * -1 to go on, or an exit status.
 */
static int dft_sweep_faulted(const struct dft_opts *o, struct dft_sweep *sw,
			     struct dft_probe *pr, struct dft_step *s, bool failed)
{
	char what[800];

	sw->steps++;
	sw->faults += s->faults;
	if (failed)
		sw->failed++;
	if (sw->out) {
		fprintf(sw->out, "step %lld: %s, %llu fault%s injected\n", s->step, s->status,
			(unsigned long long)s->faults, s->faults == 1 ? "" : "s");
		fflush(sw->out);
	}
	if (*s->hung) {
		sw->trouble++;
		if (sw->out)
			fprintf(sw->out, "step %lld: hang: %s\n", s->step, s->hung);
		if (s->stuck)
			return dft_sweep_stuck(o, sw, s);
	}
	/* a post line that hung has said what is broken */
	if (!*s->damage && !dft_probe_run(pr, s->damage, sizeof(s->damage)))
		return -1;
	if (sw->out) {
		fprintf(sw->out, "step %lld: lasting damage: %s\n", s->step, s->damage);
		dft_probe_slab_report(sw->out, pr, s->step);
	}
	snprintf(what, sizeof(what),
		 "left lasting damage at step %lld (%s); stopped after %lld faulted run%s",
		 s->step, s->damage, s->step, dft_runs(s->step));
	sw->end = DFT_SWEEP_DAMAGE;
	snprintf(sw->why, sizeof(sw->why), "%s", s->damage);
	dft_sweep_summary(o, sw, what);
	return DFT_EXIT_FAIL;
}

/* Step @s->step of the sweep: -1 to go on, or the sweep's exit status. */
static int dft_sweep_step(struct dft_opts *o, unsigned int mask, struct dft_sweep *sw,
			  struct dft_probe *pr, struct dft_step *s)
{
	bool tty = sw->out == stdout && dft_tty(stderr) && !o->verbose;
	struct dft_kmsg km;
	int r, st = 0, ee = 0;

	if (tty)
		fprintf(stderr, "\rnth-sweep: step %lld ...", s->step);
	dft_kmsg_mark(&km);
	r = dft_run_once(o, mask, s->step, &st, &ee, &s->faults, s);
	dft_sweep_post(o, sw, s);
	dft_step_log(&km, sw, s);
	dft_kmsg_close(&km);
	if (tty)
		fprintf(stderr, "\r\033[K");
	sw->end = DFT_SWEEP_ERROR;
	if (r)
		return r;
	if (s->faults == UINT64_MAX)
		return dft_err("cannot tell whether a fault was injected: no 'injected' counter under %s",
			       dft_debugfs());
	dft_describe_status(st, ee, s->status, sizeof(s->status));
	if (*s->hung)
		snprintf(s->status, sizeof(s->status), "hung past --step-timeout %u s, %s",
			 o->step_timeout, s->stuck ? "not dead after SIGKILL" : "killed");
	if (!s->faults)
		r = *s->hung ? dft_sweep_stuck(o, sw, s) : dft_sweep_unfaulted(o, sw, pr, s, ee);
	else
		r = dft_sweep_faulted(o, sw, pr, s, st || ee || *s->hung);
	if (sw->on_step)
		sw->on_step(sw, s);
	return r;
}

/*
 * fail-nth 1, 2, ... until a step runs without a fault, the probe finds
 * lasting damage or --max-steps; what happened is in @sw (o->sweep for
 * hunt), the step lines go to its out.
 */
int dft_sweep(struct dft_opts *o, unsigned int mask)
{
	struct dft_sweep own = { .out = stdout }, *sw = o->sweep ? o->sweep : &own;
	struct dft_probe pr;
	struct dft_step s;
	long long n;
	int r = -1;

	if (dft_probe_init(&pr, o, sw->why, sizeof(sw->why))) {
		dft_probe_free(&pr);
		sw->end = DFT_SWEEP_NORUN;
		if (!sw->out)
			return DFT_EXIT_FAIL;
		return dft_err("nth-sweep: the sanity probe fails before the first step: %s",
			       sw->why);
	}
	for (n = 1; n <= o->max_steps && !dft_stop && r < 0; n++) {
		s = (struct dft_step){ .step = n };
		r = dft_sweep_step(o, mask, sw, &pr, &s);
	}
	dft_probe_free(&pr);
	if (r >= 0)
		return r;
	sw->end = dft_stop ? DFT_SWEEP_STOPPED : DFT_SWEEP_MAX;
	if (!sw->out)
		return DFT_EXIT_FAIL;
	if (dft_stop)
		return dft_err("nth-sweep interrupted at step %lld", n);
	return dft_err("nth-sweep: %s still hit a fault at step %lld (--max-steps)",
		       o->cmd_argv[0], o->max_steps);
}
