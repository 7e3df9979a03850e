// SPDX-License-Identifier: GPL-2.0-only
/*
 * dmfault: the allocator hook commands (alloc show/set/mark/unmark) and run,
 * which aims slab and page-allocator faults at one command the way the
 * kernel's tools/testing/fault-injection/failcmd.sh does, and with
 * --nth-sweep fails its 1st, 2nd, ... allocation until it runs clean.
 *
 * Everything goes through the dmf_alloc module's debugfs files:
 *   /sys/kernel/debug/dm-fault/{failslab,fail_page_alloc}/<knob>
 *   /sys/kernel/debug/dm-fault/mark       "PID" marks, "-PID" unmarks
 *   /sys/kernel/debug/dm-fault/fail-nth   "PID N"
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "dmfault.h"

#define DFT_KNOB_MAX	4096

static const char *const dft_hooks[] = { "failslab", "fail_page_alloc" };

/* The module's debugfs directory; $DMFAULT_DEBUGFS points elsewhere (tests). */
static const char *dft_debugfs(void)
{
	const char *dir = getenv("DMFAULT_DEBUGFS");

	return dir && *dir ? dir : DFT_DEBUGFS;
}

/* A file at the top of the debugfs directory: "mark", "fail-nth". */
static const char *dft_top_file(char *buf, size_t len, const char *name)
{
	snprintf(buf, len, "%s/%s", dft_debugfs(), name);
	return buf;
}

static bool dft_debugfs_mounted(void)
{
	char line[512];
	bool found = false;
	FILE *f = fopen("/proc/self/mounts", "re");

	if (!f)
		return true;	/* cannot tell: do not claim it is missing */
	while (!found && fgets(line, sizeof(line), f))
		found = strstr(line, " /sys/kernel/debug debugfs ") != NULL;
	fclose(f);
	return found;
}

/* Is the module there?  An exit status after the error, 0 if it is. */
static int dft_alloc_present(void)
{
	const char *dir = dft_debugfs();
	struct stat st;

	if (!stat(dir, &st) && S_ISDIR(st.st_mode))
		return 0;
	if (errno == EACCES)
		return dft_err("%s: permission denied (debugfs needs root)", dir);
	if (!strncmp(dir, "/sys/kernel/debug/", 18) && !dft_debugfs_mounted())
		return dft_err("debugfs is not mounted (mount -t debugfs none /sys/kernel/debug)");
	return dft_err("allocator hooks not loaded (dmf_alloc): no %s", dir);
}

/* The hooks the options select: --slab, --page, both, or @def. */
static unsigned int dft_hook_mask(const struct dft_opts *o, unsigned int def)
{
	unsigned int m = (o->slab ? 1 : 0) | (o->page ? 2 : 0);

	return m ? m : def;
}

static int dft_read_file(const char *path, char *buf, size_t len)
{
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	if (n < 0) {
		n = -errno;
		close(fd);
		return n;
	}
	close(fd);
	buf[n] = '\0';
	while (n && buf[n - 1] == '\n')
		buf[--n] = '\0';
	return 0;
}

static int dft_write_file(const char *path, const char *val)
{
	size_t n = strlen(val);
	char buf[512];
	ssize_t w;
	int fd;

	if (n + 2 > sizeof(buf))
		return -EINVAL;
	memcpy(buf, val, n);
	buf[n++] = '\n';
	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	w = write(fd, buf, n);
	if (w < 0) {
		w = -errno;
		close(fd);
		return w;
	}
	close(fd);
	return (size_t)w == n ? 0 : -EIO;
}

static int dft_knob_path(char *buf, size_t len, const char *hook, const char *knob)
{
	if (!*knob || strchr(knob, '/') || !strcmp(knob, ".") || !strcmp(knob, ".."))
		return -EINVAL;
	if (snprintf(buf, len, "%s/%s/%s", dft_debugfs(), hook, knob) >= (int)len)
		return -ENAMETOOLONG;
	return 0;
}

static int dft_knob_err(const char *hook, const char *knob, const char *val, int r)
{
	if (r == -ENOENT)
		return dft_err("%s: no knob '%s' (see dmfault alloc show)", hook, knob);
	if (r == -EINVAL || r == -ERANGE)
		return dft_err("%s/%s: invalid value '%s'", hook, knob, val);
	if (r == -EACCES || r == -EPERM)
		return dft_err("%s/%s: permission denied", hook, knob);
	return dft_err("%s/%s: %s", hook, knob, strerror(-r));
}

static int dft_name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorted names of the regular files in @dir. */
static int dft_list_files(const char *dir, char ***out, unsigned int *nr)
{
	char path[512], **arr = NULL, **p;
	struct dirent *e;
	struct stat st;
	DIR *d;

	*out = NULL;
	*nr = 0;
	d = opendir(dir);
	if (!d)
		return -errno;
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if (stat(path, &st) || !S_ISREG(st.st_mode))
			continue;
		p = realloc(arr, (*nr + 1) * sizeof(*arr));
		if (!p)
			break;
		arr = p;
		arr[*nr] = strdup(e->d_name);
		if (!arr[*nr])
			break;
		(*nr)++;
	}
	closedir(d);
	if (*nr)
		qsort(arr, *nr, sizeof(*arr), dft_name_cmp);
	*out = arr;
	return 0;
}

static void dft_show_dir(const struct dft_opts *o, struct dft_json *j, const char *dir,
			 const char *title)
{
	char path[512], val[DFT_KNOB_MAX], **files;
	unsigned int n, i;
	char *nl;

	if (dft_list_files(dir, &files, &n))
		return;
	if (o->json)
		dft_json_begin(j, title, '{');
	else if (n)
		printf("%s:\n", title);
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, files[i]);
		if (dft_read_file(path, val, sizeof(val))) {
			if (o->json)
				dft_json_null(j, files[i]);
			else
				printf("  %-22s (write-only)\n", files[i]);
			free(files[i]);
			continue;
		}
		if (o->json) {
			dft_json_str(j, files[i], val);
		} else {
			for (nl = val; (nl = strchr(nl, '\n')) != NULL; nl++)
				*nl = '\t';	/* one line per knob */
			printf("  %-22s %s\n", files[i], val);
		}
		free(files[i]);
	}
	free(files);
	if (o->json)
		dft_json_end(j, '}');
}

DFT_HANDLER(dft_cmd_alloc_show)
{
	unsigned int mask = dft_hook_mask(o, 3), i;
	char dir[256];
	struct dft_json j;
	struct stat st;
	int r;

	(void)cmd;
	(void)argc;
	(void)argv;
	r = dft_alloc_present();
	if (r)
		return r;
	if (o->json) {
		dft_json_init(&j, stdout, false);
		dft_json_begin(&j, NULL, '{');
		dft_json_begin(&j, "hooks", '{');
	}
	for (i = 0; i < ARRAY_SIZE(dft_hooks); i++) {
		if (!(mask & (1U << i)))
			continue;
		snprintf(dir, sizeof(dir), "%s/%s", dft_debugfs(), dft_hooks[i]);
		if (stat(dir, &st)) {
			if (o->json)
				dft_json_null(&j, dft_hooks[i]);
			else
				printf("%s: not present\n", dft_hooks[i]);
			continue;
		}
		dft_show_dir(o, &j, dir, dft_hooks[i]);
	}
	if (o->json)
		dft_json_end(&j, '}');
	dft_show_dir(o, &j, dft_debugfs(), "dm-fault");
	if (o->json) {
		dft_json_end(&j, '}');
		dft_json_finish(&j);
	}
	return DFT_EXIT_OK;
}

/* Write every o->set knob to the selected hooks; @saved gets old values. */
static int dft_apply_knobs(const struct dft_kv *set, unsigned int nr, unsigned int mask,
			   char ***saved, bool quiet_missing)
{
	char path[512], old[DFT_KNOB_MAX];
	unsigned int i, h;
	int r;

	for (i = 0; i < nr; i++) {
		for (h = 0; h < ARRAY_SIZE(dft_hooks); h++) {
			if (!(mask & (1U << h)))
				continue;
			r = dft_knob_path(path, sizeof(path), dft_hooks[h], set[i].key);
			if (r)
				return dft_err("'%s' is not a knob name", set[i].key);
			if (saved) {
				r = dft_read_file(path, old, sizeof(old));
				if (r == -ENOENT && quiet_missing)
					continue;
				if (r)
					return dft_knob_err(dft_hooks[h], set[i].key, set[i].val, r);
				saved[h][i] = strdup(old);
				if (!saved[h][i])
					return dft_err("out of memory");
			}
			r = dft_write_file(path, set[i].val);
			if (r)
				return dft_knob_err(dft_hooks[h], set[i].key, set[i].val, r);
		}
	}
	return 0;
}

DFT_HANDLER(dft_cmd_alloc_set)
{
	unsigned int mask = dft_hook_mask(o, 1);
	int i, r;

	r = dft_alloc_present();
	if (r)
		return r;
	for (i = 0; i < argc; i++) {
		r = dft_parse_setting(o, argv[i]);
		if (r == -EINVAL)
			return dft_usage_err(cmd, "'%s' is not KNOB=VALUE", argv[i]);
		if (r)
			return dft_err("out of memory");
	}
	return dft_apply_knobs(o->set, o->nr_set, mask, NULL, false);
}

static int dft_check_pid(const char *s, pid_t *pid)
{
	char path[64];
	uint64_t v;

	if (dft_parse_u64(s, &v) || !v || v > 4194304)
		return -EINVAL;
	snprintf(path, sizeof(path), "/proc/%llu", (unsigned long long)v);
	if (access(path, F_OK))
		return -ESRCH;
	*pid = v;
	return 0;
}

/* Mark (or unmark) @pid through DFT_DEBUGFS/mark. */
static int dft_mark(pid_t pid, bool mark)
{
	char val[32];

	snprintf(val, sizeof(val), "%s%d", mark ? "" : "-", (int)pid);

	char path[512];

	return dft_write_file(dft_top_file(path, sizeof(path), "mark"), val);
}

DFT_HANDLER(dft_cmd_alloc_mark)
{
	bool mark = !strcmp(cmd->name, "alloc mark");
	int i, r, ret = DFT_EXIT_OK;
	pid_t pid;

	(void)o;
	for (i = 0; i < argc; i++) {
		r = dft_check_pid(argv[i], &pid);
		if (r == -EINVAL)
			return dft_usage_err(cmd, "'%s' is not a process id", argv[i]);
	}
	r = dft_alloc_present();
	if (r)
		return r;
	for (i = 0; i < argc; i++) {
		r = dft_check_pid(argv[i], &pid);
		if (r == -ESRCH) {
			ret = dft_err("%s: no such process", argv[i]);
			continue;
		}
		r = dft_mark(pid, mark);
		if (r)
			ret = dft_err("%s %s: %s", mark ? "mark" : "unmark", argv[i], strerror(-r));
	}
	return ret;
}

/* ---- run ------------------------------------------------------------------ */

/* Injected faults so far in the selected hooks, from their counters files. */
static int dft_injected(unsigned int mask, uint64_t *total)
{
	char path[512], text[DFT_KNOB_MAX];
	unsigned int h;
	uint64_t v;

	*total = 0;
	for (h = 0; h < ARRAY_SIZE(dft_hooks); h++) {
		if (!(mask & (1U << h)))
			continue;
		snprintf(path, sizeof(path), "%s/%s/counters", dft_debugfs(), dft_hooks[h]);
		if (dft_read_file(path, text, sizeof(text)) ||
		    dft_find_counter(text, "injected", &v))
			return -ENOENT;
		*total += v;
	}
	return 0;
}

struct dft_child {
	pid_t pid;
	bool traced;		/* stopped by ptrace after its exec */
	int go;			/* write end: the child execs when a byte comes */
	int err;		/* read end: errno of a failed exec */
	int exec_errno;		/* the exec failed: the child is gone */
	int status;		/* its wait status, once it is gone */
	unsigned int timeout;	/* seconds once it runs, 0: none */
	char *hung;		/* with a timeout: what it hung in, or "" */
	size_t hung_len;
	bool stuck;		/* killed but not dead: not reaped */
};

/*
 * In the child: stdout and stderr to /dev/null if @quiet, then wait (traced:
 * PTRACE_TRACEME, the parent holds it in its exec-stop; untraced: a byte on
 * @go) and exec @argv.  A failed exec writes its errno to @err.
 */
static void __noreturn dft_child_exec(char **argv, int go, int err, bool traced, bool quiet)
{
	int e;
	char b;

	if (quiet) {
		int null = open("/dev/null", O_RDWR);

		if (null >= 0 && (dup2(null, 1) < 0 || dup2(null, 2) < 0))
			_exit(127);
	}
	if (traced) {
		if (ptrace(PTRACE_TRACEME, 0, NULL, NULL))
			_exit(127);
	} else if (read(go, &b, 1) != 1) {
		_exit(127);	/* EOF without a byte: abort */
	}
	execvp(argv[0], argv);
	e = errno;
	if (write(err, &e, sizeof(e)) < 0)
		_exit(127);
	_exit(127);
}

/* Wait for a traced child's exec-stop, or its exit if the exec failed. */
static int dft_wait_exec(struct dft_child *c)
{
	int e, st;
	ssize_t n;

	while (waitpid(c->pid, &st, 0) < 0)
		if (errno != EINTR)
			return -errno;
	if (WIFSTOPPED(st))
		return 0;
	n = read(c->err, &e, sizeof(e));
	c->exec_errno = n == sizeof(e) ? e : ENOEXEC;
	c->status = st;
	close(c->err);
	c->err = -1;
	return 0;
}

/*
 * Fork a child for @argv and hold it where it can be marked.  Traced (the
 * default), it execs at once under PTRACE_TRACEME and is held in the stop
 * after a successful exec: the faults hit the command, not the exec, whose
 * allocation failures some kernels do not survive (TOMOYO panics when one
 * fails before its policy is loaded).  Untraced (--exec), it waits on a
 * pipe before the exec, as failcmd.sh marks the shell that execs.
 */
static int dft_spawn(char **argv, struct dft_child *c, bool traced, bool quiet)
{
	int go[2], err[2], e;

	memset(c, 0, sizeof(*c));
	c->traced = traced;
	c->go = -1;
	if (pipe2(go, O_CLOEXEC))
		return -errno;
	if (pipe2(err, O_CLOEXEC)) {
		e = -errno;
		close(go[0]);
		close(go[1]);
		return e;
	}
	fflush(NULL);
	c->pid = fork();
	if (c->pid < 0) {
		e = -errno;
		close(go[0]);
		close(go[1]);
		close(err[0]);
		close(err[1]);
		return e;
	}
	if (!c->pid) {
		close(go[1]);
		close(err[0]);
		dft_child_exec(argv, go[0], err[1], traced, quiet);
	}
	close(go[0]);
	close(err[1]);
	c->err = err[0];
	if (!traced) {
		c->go = go[1];
		return 0;
	}
	close(go[1]);
	return dft_wait_exec(c);
}

/* Let the child go on (or abort it before its exec) and wait for it. */
static int dft_release_wait(struct dft_child *c, bool go)
{
	int st, e = 0, r;
	ssize_t n;

	if (c->exec_errno)
		return 127;
	if (c->traced) {
		if (go)
			ptrace(PTRACE_DETACH, c->pid, NULL, NULL);
		else
			kill(c->pid, SIGKILL);
	} else {
		if (go && write(c->go, "g", 1) != 1)
			go = false;
		close(c->go);
	}
	n = read(c->err, &e, sizeof(e));
	if (n == sizeof(e))
		c->exec_errno = e;
	close(c->err);
	/* no deadline (and no @hung) for a plain run, or to reap an aborted child */
	r = dft_wait_child(c->pid, &st, go ? c->timeout : 0, c->hung, c->hung_len);
	if (r == -EDEADLK) {
		c->stuck = true;
		return 128 + SIGKILL;
	}
	if (r && r != -ETIMEDOUT) {
		errno = -r;
		return -1;
	}
	c->status = st;
	if (c->exec_errno)
		return 127;
	if (WIFSIGNALED(st))
		return 128 + WTERMSIG(st);
	return WEXITSTATUS(st);
}

/*
 * Did the fail-nth count of @pid fire?  The module keeps "PID LEFT" (and
 * " exited") after the task is gone; LEFT 0 means it fired.  The entry is
 * dropped.  1 fired, 0 not, -ENOENT if the file does not tell.
 */
static int dft_nth_fired(pid_t pid)
{
	char path[512], text[DFT_KNOB_MAX], val[32], *line, *s;
	uint64_t p, left;
	int r = -ENOENT;

	dft_top_file(path, sizeof(path), "fail-nth");
	if (dft_read_file(path, text, sizeof(text)))
		return -ENOENT;
	s = text;
	while ((line = strsep(&s, "\n")) != NULL) {
		char *pid_s = strsep(&line, " "), *left_s = strsep(&line, " ");

		if (!left_s || dft_parse_u64(pid_s, &p) || p != (uint64_t)pid ||
		    dft_parse_u64(left_s, &left))
			continue;
		r = left == 0;
		break;
	}
	snprintf(val, sizeof(val), "-%d", (int)pid);
	dft_write_file(path, val);
	return r;
}

static void dft_describe_status(int st, int exec_errno, char *buf, size_t len)
{
	if (exec_errno)
		snprintf(buf, len, "exec failed: %s", strerror(exec_errno));
	else if (st > 128)
		snprintf(buf, len, "killed by signal %d (%s)", st - 128, strsignal(st - 128));
	else
		snprintf(buf, len, "exit %d", st);
}

/* Kernel trouble logged since @km's mark; prints each line, returns the count. */
static unsigned int dft_kernel_trouble(struct dft_kmsg *km, long long step, FILE *out)
{
	char rec[1024];
	const char *text;
	unsigned int n = 0;

	while (dft_kmsg_next(km, rec, sizeof(rec), &text) > 0) {
		if (!dft_kernel_problem(text))
			continue;
		if (step >= 0)
			fprintf(out, "step %lld: kernel: %s\n", step, text);
		else
			fprintf(out, "dmfault: run: kernel: %s\n", text);
		n++;
	}
	return n;
}

static volatile sig_atomic_t dft_stop;

static void dft_on_signal(int sig)
{
	(void)sig;
	dft_stop = 1;
}

/* Defaults as failcmd.sh has them, for the knobs the user did not set. */
static int dft_run_defaults(struct dft_opts *o, unsigned int mask, struct dft_kv **out,
			    unsigned int *nr)
{
	static const struct dft_kv defaults[] = {
		{ "task-filter", "Y", NULL }, { "probability", "100", NULL },
		{ "interval", "1", NULL }, { "times", "1", NULL }, { "space", "0", NULL },
		{ "verbose", "0", NULL }, { "ignore-gfp-wait", "N", NULL },
		{ "ignore-gfp-highmem", "N", NULL }, { "min-order", "0", NULL },
	};
	struct dft_kv *kv;
	unsigned int i, k, n = 0;
	bool user;

	(void)mask;
	kv = calloc(ARRAY_SIZE(defaults) + o->nr_set, sizeof(*kv));
	if (!kv)
		return -ENOMEM;
	for (i = 0; i < ARRAY_SIZE(defaults); i++) {
		user = false;
		for (k = 0; k < o->nr_set; k++)
			if (!strcmp(o->set[k].key, defaults[i].key))
				user = true;
		if (user)
			continue;
		kv[n] = defaults[i];
		/* a sweep fails by fail-nth alone */
		if (o->nth_sweep && !strcmp(kv[n].key, "probability"))
			kv[n].val = "0";
		if (o->nth_sweep && !strcmp(kv[n].key, "times"))
			kv[n].val = "-1";
		n++;
	}
	*out = kv;
	*nr = n;
	return 0;
}

/* Restore what dft_apply_knobs() saved for hook @h, in reverse order. */
static void dft_restore_knobs(unsigned int h, const struct dft_kv *set, unsigned int nr,
			      char **saved)
{
	char path[512];
	unsigned int i;

	for (i = nr; i-- > 0;) {
		if (!saved[i])
			continue;
		if (!dft_knob_path(path, sizeof(path), dft_hooks[h], set[i].key))
			dft_write_file(path, saved[i]);
		free(saved[i]);
		saved[i] = NULL;
	}
}

/*
 * One run of the command; fail-nth @nth if > 0.  Returns an exit status of
 * ours (0: it ran).  *@faults: faults injected into it, UINT64_MAX if that
 * cannot be told.
 */
static int dft_run_once(struct dft_opts *o, unsigned int mask, long long nth, int *cmd_status,
			int *exec_errno, uint64_t *faults, struct dft_step *s)
{
	uint64_t before = 0, after = 0;
	char val[64], path[512];
	struct dft_child c;
	int r, fired;

	*faults = 0;
	*exec_errno = 0;
	/* a fail-nth count runs down in both hooks, whichever are chosen */
	if (nth > 0)
		mask = 3;
	if (dft_injected(mask, &before))
		before = UINT64_MAX;
	/* a sweep runs the command many times: its output only with -v */
	r = dft_spawn(o->cmd_argv, &c, !o->with_exec, nth > 0 && !o->verbose);
	if (r)
		return dft_err("cannot start %s: %s", o->cmd_argv[0], strerror(-r));
	if (s) {
		c.timeout = o->step_timeout;
		c.hung = s->hung;
		c.hung_len = sizeof(s->hung);
		s->hung[0] = '\0';
	}
	if (c.exec_errno) {
		/* the exec failed before the child was marked */
		*exec_errno = c.exec_errno;
		*cmd_status = 127;
		return 0;
	}
	r = dft_mark(c.pid, true);
	if (r) {
		dft_release_wait(&c, false);
		return dft_err("cannot mark process %d: %s/mark: %s", (int)c.pid, dft_debugfs(),
			       strerror(-r));
	}
	if (nth > 0) {
		snprintf(val, sizeof(val), "%d %lld", (int)c.pid, nth);
		r = dft_write_file(dft_top_file(path, sizeof(path), "fail-nth"), val);
		if (r) {
			dft_release_wait(&c, false);
			return dft_err("cannot set fail-nth of %d: %s: %s", (int)c.pid, path,
				       strerror(-r));
		}
	}
	*cmd_status = dft_release_wait(&c, true);
	*exec_errno = c.exec_errno;
	if (s)
		s->stuck = c.stuck;
	if (*cmd_status < 0)
		return dft_err("waiting for %s: %s", o->cmd_argv[0], strerror(errno));
	if (nth > 0) {
		fired = dft_nth_fired(c.pid);
		if (fired >= 0) {
			*faults = fired;
			return 0;
		}
	}
	if (before == UINT64_MAX || dft_injected(mask, &after))
		*faults = UINT64_MAX;
	else
		*faults = after - before;
	return 0;
}

/*
 * The sweep's sanity probe, run before step 1 and after every step: a step
 * can leave the system broken without an oops (a failed TCLUNK allocation
 * leaves the 9p root answering EINVAL).  It opens and reads the
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
	char buf[512];
	pid_t pid;
	int fd, st, p[2];

	if (pipe2(p, O_CLOEXEC)) {
		snprintf(why, len, "pipe: %s", strerror(errno));
		return -1;
	}
	fflush(NULL);
	pid = fork();
	if (!pid) {
		fd = open("/dev/null", O_WRONLY);
		if (fd >= 0)
			dup2(fd, 1);
		dup2(p[1], 2);
		execl("/proc/self/exe", "dmfault", "version", (char *)NULL);
		dprintf(2, "%s", strerror(errno));
		_exit(127);
	}
	close(p[1]);
	if (pid < 0) {
		snprintf(why, len, "fork: %s", strerror(errno));
		close(p[0]);
		return -1;
	}
	dft_read_first_line(p[0], buf, sizeof(buf));
	close(p[0]);
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR) {
			snprintf(why, len, "wait: %s", strerror(errno));
			return -1;
		}
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
static int dft_sweep(struct dft_opts *o, unsigned int mask)
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

/* One run of the command with the knobs set: its status and the faults. */
static int dft_run_report(struct dft_opts *o, unsigned int mask)
{
	int r, st = 0, ee = 0;
	struct dft_kmsg km;
	uint64_t faults;
	char desc[128];

	dft_kmsg_mark(&km);
	r = dft_run_once(o, mask, 0, &st, &ee, &faults, NULL);
	if (!r) {
		dft_describe_status(st, ee, desc, sizeof(desc));
		if (faults == UINT64_MAX)
			fprintf(stderr, "dmfault: run: %s: %s; injected faults unknown (no counter)\n",
				o->cmd_argv[0], desc);
		else
			fprintf(stderr, "dmfault: run: %s: %s; %llu fault%s injected\n",
				o->cmd_argv[0], desc, (unsigned long long)faults,
				faults == 1 ? "" : "s");
		dft_kernel_trouble(&km, -1, stderr);
		r = ee ? 127 : st;
	}
	dft_kmsg_close(&km);
	return r;
}

DFT_HANDLER(dft_cmd_run)
{
	unsigned int mask = dft_hook_mask(o, 1), nd = 0, h;
	struct dft_kv *defaults = NULL;
	char **saved[ARRAY_SIZE(dft_hooks)] = { NULL };
	struct sigaction sa = { .sa_handler = dft_on_signal }, oldint, oldterm;
	int r;

	(void)argc;
	(void)argv;
	if (!o->cmd_argc)
		return dft_usage_err(cmd, "no command to run");
	r = dft_alloc_present();
	if (r)
		return r;
	r = dft_run_defaults(o, mask, &defaults, &nd);
	if (r)
		return dft_err("out of memory");
	for (h = 0; h < ARRAY_SIZE(dft_hooks); h++) {
		saved[h] = calloc(nd + o->nr_set + 1, sizeof(char *));
		if (!saved[h]) {
			r = dft_err("out of memory");
			goto out_free;
		}
	}
	sigaction(SIGINT, &sa, &oldint);
	sigaction(SIGTERM, &sa, &oldterm);
	/* the defaults quietly skip knobs a hook does not have */
	r = dft_apply_knobs(defaults, nd, mask, saved, true);
	if (!r) {
		char **user[ARRAY_SIZE(dft_hooks)];

		for (h = 0; h < ARRAY_SIZE(dft_hooks); h++)
			user[h] = saved[h] + nd;
		r = dft_apply_knobs(o->set, o->nr_set, mask, user, false);
	}
	if (r)
		goto out_restore;
	r = o->nth_sweep ? dft_sweep(o, mask) : dft_run_report(o, mask);
out_restore:
	/* the user's knobs first, then the defaults: the reverse of setting */
	for (h = 0; h < ARRAY_SIZE(dft_hooks); h++) {
		dft_restore_knobs(h, o->set, o->nr_set, saved[h] + nd);
		dft_restore_knobs(h, defaults, nd, saved[h]);
	}
	sigaction(SIGINT, &oldint, NULL);
	sigaction(SIGTERM, &oldterm, NULL);
out_free:
	for (h = 0; h < ARRAY_SIZE(dft_hooks); h++)
		free(saved[h]);
	free(defaults);
	return r;
}
