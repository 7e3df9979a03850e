// SPDX-License-Identifier: GPL-2.0-only
/*
 * dmfault: the allocator hook commands (alloc show/set/mark/unmark) and run,
 * which aims slab and page-allocator faults at one command the way the
 * kernel's tools/testing/fault-injection/failcmd.sh does; with --nth-sweep
 * it hands the command to the sweep (sweep.c), which fails its 1st, 2nd,
 * ... allocation until it runs clean.
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
#include <sys/stat.h>
#include <unistd.h>

#include "base/dmfault.h"

#define DFT_KNOB_MAX	4096

static const char *const dft_hooks[] = { "failslab", "fail_page_alloc" };

/* The module's debugfs directory; $DMFAULT_DEBUGFS points elsewhere (tests). */
const char *dft_debugfs(void)
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
	char val[32], path[512];

	snprintf(val, sizeof(val), "%s%d", mark ? "" : "-", (int)pid);
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

/*
 * Start @argv held where it can be marked.  Traced (the default), it execs
 * at once under PTRACE_TRACEME and is held in the stop after a successful
 * exec: the faults hit the command, not the exec, whose allocation failures
 * some kernels do not survive (TOMOYO panics when one fails before its
 * policy is loaded).  Untraced (--exec), it waits before the exec, as
 * failcmd.sh marks the shell that execs.
 */
static int dft_run_spawn(struct dft_proc *p, char **argv, bool traced, bool quiet)
{
	struct dft_spawn sp = {
		.argv = argv,
		.out = quiet ? "/dev/null" : NULL,
		.flags = traced ? DFT_PROC_TRACE : DFT_PROC_HOLD,
	};

	return dft_proc_spawn(p, &sp);
}

/*
 * Let the child go on (or abort it before its exec) and wait for it, with
 * no deadline (and no @hung) for a plain run or to reap an aborted child.
 * Its exit status as a shell's $?, or -1 (errno).
 */
static int dft_run_wait(struct dft_proc *p, bool go, unsigned int secs, char *hung,
			size_t len)
{
	int r;

	if (p->exec_errno)
		return 127;
	go = dft_proc_release(p, go);
	r = dft_proc_wait(p, go ? secs : 0, hung, len);
	if (r == -EDEADLK)
		return 128 + SIGKILL;
	if (r && r != -ETIMEDOUT) {
		errno = -r;
		return -1;
	}
	return p->exec_errno ? 127 : dft_exit_code(p->status);
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

void dft_describe_status(int st, int exec_errno, char *buf, size_t len)
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

volatile sig_atomic_t dft_stop;

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
int dft_run_once(struct dft_opts *o, unsigned int mask, long long nth, int *cmd_status,
		 int *exec_errno, uint64_t *faults, struct dft_step *s)
{
	uint64_t before = 0, after = 0;
	char val[64], path[512];
	unsigned int secs = s ? o->step_timeout : 0;
	char *hung = s ? s->hung : NULL;
	size_t hung_len = s ? sizeof(s->hung) : 0;
	struct dft_proc c;
	int r, fired;

	*faults = 0;
	*exec_errno = 0;
	/* a fail-nth count runs down in both hooks, whichever are chosen */
	if (nth > 0)
		mask = 3;
	if (dft_injected(mask, &before))
		before = UINT64_MAX;
	/* a sweep runs the command many times: its output only with -v */
	r = dft_run_spawn(&c, o->cmd_argv, !o->with_exec, nth > 0 && !o->verbose);
	if (r)
		return dft_err("cannot start %s: %s", o->cmd_argv[0], strerror(-r));
	if (s)
		s->hung[0] = '\0';
	if (c.exec_errno) {
		/* the exec failed before the child was marked */
		*exec_errno = c.exec_errno;
		*cmd_status = 127;
		return 0;
	}
	r = dft_mark(c.pid, true);
	if (r) {
		dft_run_wait(&c, false, 0, NULL, 0);
		return dft_err("cannot mark process %d: %s/mark: %s", (int)c.pid, dft_debugfs(),
			       strerror(-r));
	}
	if (nth > 0) {
		snprintf(val, sizeof(val), "%d %lld", (int)c.pid, nth);
		r = dft_write_file(dft_top_file(path, sizeof(path), "fail-nth"), val);
		if (r) {
			dft_run_wait(&c, false, 0, NULL, 0);
			return dft_err("cannot set fail-nth of %d: %s: %s", (int)c.pid, path,
				       strerror(-r));
		}
	}
	*cmd_status = dft_run_wait(&c, true, secs, hung, hung_len);
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
