// SPDX-License-Identifier: GPL-2.0-only
/*
 * Child processes: every command the tool starts is started, held and
 * waited for here.  run's command (held in its exec-stop by ptrace, or
 * before its exec, while it is marked), the sweep's sanity probe, and the
 * shell lines of the sweep, hunt and crashtest.
 *
 * The sweeps of run --nth-sweep and hunt, and crashtest's setup, workload
 * and check lines, run code under injected faults and power cuts.  A step that hangs (a task stuck in the kernel, a
 * file system waiting forever for I/O that failed) is a finding, not a
 * reason for the tool to hang with it: after the deadline the child and
 * everything it started are killed, and what the stuck task was doing (its
 * state, wait channel and kernel stack) is kept for the report.  A task
 * that SIGKILL cannot end (uninterruptible sleep) is reported as such and
 * not waited for.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/base.h"

#define DFT_TREE_MAX	256
#define DFT_REAP_MS	10000		/* after SIGKILL */

double dft_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

void dft_sleep_ms(uint64_t ms)
{
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* Parent, state and name of @pid from /proc/PID/stat; -1 if it is gone. */
static int dft_proc_stat(pid_t pid, pid_t *ppid, char *state, char *comm, size_t len)
{
	char path[64], buf[512], *open_, *close_;
	FILE *f;
	int p;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return -1;
	if (!fgets(buf, sizeof(buf), f)) {
		fclose(f);
		return -1;
	}
	fclose(f);
	/* "PID (COMM) S PPID ...": COMM may hold spaces and parentheses */
	open_ = strchr(buf, '(');
	close_ = strrchr(buf, ')');
	if (!open_ || !close_ || close_ < open_ || sscanf(close_ + 1, " %c %d", state, &p) != 2)
		return -1;
	snprintf(comm, len, "%.*s", (int)(close_ - open_ - 1), open_ + 1);
	*ppid = p;
	return 0;
}

/* @root and its descendants (from every task's parent), @root first. */
static unsigned int dft_proc_tree(pid_t root, pid_t *tree, unsigned int max)
{
	struct { pid_t pid, ppid; } *all = NULL, *grown;
	unsigned int n = 0, cap = 0, nt = 0, i, j;
	char state, comm[64];
	struct dirent *d;
	pid_t pid, ppid;
	DIR *dir;

	tree[nt++] = root;
	dir = opendir("/proc");
	if (!dir)
		return nt;
	while ((d = readdir(dir)) != NULL) {
		pid = (pid_t)strtol(d->d_name, NULL, 10);
		if (pid <= 0 || dft_proc_stat(pid, &ppid, &state, comm, sizeof(comm)))
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 256;
			grown = realloc(all, cap * sizeof(*all));
			if (!grown)
				break;
			all = grown;
		}
		all[n].pid = pid;
		all[n++].ppid = ppid;
	}
	closedir(dir);
	/* breadth first: each pass adds the children of what is in tree[] */
	for (i = 0; i < nt && nt < max; i++)
		for (j = 0; j < n && nt < max; j++)
			if (all[j].ppid == tree[i])
				tree[nt++] = all[j].pid;
	free(all);
	return nt;
}

/* "f1 < f2 < ..." from /proc/PID/stack ("[<0>] f1+0x1a/0x40 [mod]"). */
static void dft_proc_stack(pid_t pid, char *buf, size_t len)
{
	char path[64], line[256];
	size_t n = 0;
	FILE *f;

	buf[0] = '\0';
	snprintf(path, sizeof(path), "/proc/%d/stack", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f) && n < len - 1) {
		char *fn = strchr(line, ']');

		if (!fn)
			continue;
		fn += strspn(fn + 1, " ") + 1;
		fn[strcspn(fn, "+ \n")] = '\0';
		if (!*fn)
			continue;
		n += snprintf(buf + n, len - n, "%s%s", n ? " < " : "", fn);
	}
	fclose(f);
	if (n >= len)
		buf[len - 1] = '\0';
}

/*
 * What the tree of @root is doing, for the report: the first task in
 * uninterruptible sleep (the one a hang is about), else the deepest (a
 * shell's child doing the work, not the shell waiting for it).
 */
static void dft_proc_describe(const pid_t *tree, unsigned int nt, char *buf, size_t len)
{
	char state = '?', comm[64] = "", st, c[64], stack[400];
	pid_t ppid, who = tree[0];
	unsigned int i;

	/* breadth first: the last one alive is among the deepest */
	for (i = 0; i < nt; i++) {
		if (dft_proc_stat(tree[i], &ppid, &st, c, sizeof(c)))
			continue;
		who = tree[i];
		state = st;
		snprintf(comm, sizeof(comm), "%s", c);
		if (st == 'D')
			break;
	}
	dft_proc_stack(who, stack, sizeof(stack));
	snprintf(buf, len, "pid %d (%s) state %c%s%s", (int)who, comm, state,
		 *stack ? ": " : "", stack);
}

/* waitpid() for at most @ms (0: just look); 1 reaped, 0 not yet, -1 error. */
static int dft_wait_ms(pid_t pid, int *status, long long ms)
{
	long long waited = 0;
	pid_t r;

	for (;;) {
		r = waitpid(pid, status, WNOHANG);
		if (r == pid)
			return 1;
		if (r < 0 && errno != EINTR)
			return -1;
		if (waited >= ms)
			return 0;
		dft_sleep_ms(20);
		waited += 20;
	}
}

/* The first task of @tree still alive (not gone, not a zombie), or 0. */
static pid_t dft_tree_alive(const pid_t *tree, unsigned int nt, char *comm, size_t len)
{
	char state;
	pid_t ppid;
	unsigned int i;

	for (i = 0; i < nt; i++)
		if (!dft_proc_stat(tree[i], &ppid, &state, comm, len) && state != 'Z' &&
		    state != 'X')
			return tree[i];
	return 0;
}

int dft_wait_child(pid_t pid, int *status, unsigned int secs, char *hung, size_t len)
{
	pid_t tree[DFT_TREE_MAX], left = 0;
	bool reaped = false;
	char what[512], comm[64];
	unsigned int nt, i;
	int r, ms;

	if (hung && len)
		*hung = '\0';
	if (!secs || !hung) {
		while (waitpid(pid, status, 0) < 0)
			if (errno != EINTR)
				return -errno;
		return 0;
	}
	r = dft_wait_ms(pid, status, secs * 1000LL);
	if (r)
		return r < 0 ? -errno : 0;
	/* look at the tree as it is, stop it (no new children), kill it */
	nt = dft_proc_tree(pid, tree, DFT_TREE_MAX);
	dft_proc_describe(tree, nt, what, sizeof(what));
	for (i = 0; i < nt; i++)
		kill(tree[i], SIGSTOP);
	nt = dft_proc_tree(pid, tree, DFT_TREE_MAX);
	for (i = 0; i < nt; i++)
		kill(tree[i], SIGKILL);
	/* every task of it must die: one in D state outlives its killed parent */
	for (ms = 0; ms <= DFT_REAP_MS; ms += 20) {
		if (!reaped) {
			r = dft_wait_ms(pid, status, 0);
			if (r < 0)
				return -errno;
			reaped = r;
		}
		left = dft_tree_alive(tree, nt, comm, sizeof(comm));
		if (reaped && !left)
			break;
		dft_sleep_ms(20);
	}
	if (reaped && !left) {
		snprintf(hung, len, "killed after %u s (--step-timeout); %s", secs, what);
		return -ETIMEDOUT;
	}
	snprintf(hung, len, "killed after %u s (--step-timeout), but pid %d (%s) is not dead %d s after SIGKILL (stuck in the kernel); %s",
		 secs, (int)(left ? left : pid), left ? comm : "", DFT_REAP_MS / 1000, what);
	return -EDEADLK;
}

/*
 * In the child: its output where @sp says, its environment, then held
 * (traced: PTRACE_TRACEME, the parent holds it in its exec-stop; held: until
 * a byte comes on @go) and exec.  A failed exec writes its errno to @err.
 */
static void __noreturn dft_proc_child(const struct dft_spawn *sp, int go, int err)
{
	char *const *env;
	int fd, e;
	char b;

	if (sp->out) {
		fd = open(sp->out, O_WRONLY | O_CREAT | O_APPEND, 0600);
		if (fd >= 0 && (dup2(fd, 1) < 0 || dup2(fd, 2) < 0))
			_exit(127);
	}
	if ((sp->fd1 && dup2(sp->fd1, 1) < 0) || (sp->fd2 && dup2(sp->fd2, 2) < 0))
		_exit(127);
	for (env = sp->env; env && *env; env++)
		putenv(*env);
	if (sp->flags & DFT_PROC_TRACE) {
		if (ptrace(PTRACE_TRACEME, 0, NULL, NULL))
			_exit(127);
	} else if ((sp->flags & DFT_PROC_HOLD) && read(go, &b, 1) != 1) {
		_exit(127);	/* EOF without a byte: abort */
	}
	if (sp->line)
		execl("/bin/sh", "sh", "-c", sp->line, (char *)NULL);
	else
		execvp(sp->path ? sp->path : sp->argv[0], sp->argv);
	e = errno;
	if (write(err, &e, sizeof(e)) < 0)
		_exit(127);
	_exit(127);
}

/* The errno a failed exec left in @p->err, once the child is gone. */
static void dft_proc_exec_errno(struct dft_proc *p)
{
	int e;

	if (p->err < 0)
		return;
	if (read(p->err, &e, sizeof(e)) == sizeof(e))
		p->exec_errno = e;
	close(p->err);
	p->err = -1;
}

/* Wait for a traced child's exec-stop, or its exit if the exec failed. */
static int dft_proc_wait_exec(struct dft_proc *p)
{
	int st;

	while (waitpid(p->pid, &st, 0) < 0)
		if (errno != EINTR)
			return -errno;
	if (WIFSTOPPED(st))
		return 0;
	p->status = st;
	dft_proc_exec_errno(p);
	if (!p->exec_errno)
		p->exec_errno = ENOEXEC;
	return 0;
}

int dft_proc_spawn(struct dft_proc *p, const struct dft_spawn *sp)
{
	int go[2], err[2], e;

	memset(p, 0, sizeof(*p));
	p->go = -1;
	p->err = -1;
	if (pipe2(go, O_CLOEXEC))
		return -errno;
	if (pipe2(err, O_CLOEXEC)) {
		e = -errno;
		close(go[0]);
		close(go[1]);
		return e;
	}
	fflush(NULL);
	p->pid = fork();
	if (p->pid < 0) {
		e = -errno;
		close(go[0]);
		close(go[1]);
		close(err[0]);
		close(err[1]);
		return e;
	}
	if (!p->pid) {
		close(go[1]);
		close(err[0]);
		dft_proc_child(sp, go[0], err[1]);
	}
	close(go[0]);
	close(err[1]);
	p->err = err[0];
	p->traced = sp->flags & DFT_PROC_TRACE;
	if (sp->flags & DFT_PROC_HOLD && !p->traced) {
		p->go = go[1];
		return 0;
	}
	close(go[1]);
	return p->traced ? dft_proc_wait_exec(p) : 0;
}

bool dft_proc_release(struct dft_proc *p, bool go)
{
	if (p->traced) {
		if (go)
			ptrace(PTRACE_DETACH, p->pid, NULL, NULL);
		else
			kill(p->pid, SIGKILL);
	} else if (p->go >= 0) {
		if (go && write(p->go, "g", 1) != 1)
			go = false;
		close(p->go);
		p->go = -1;
	}
	return go;
}

int dft_proc_wait(struct dft_proc *p, unsigned int secs, char *hung, size_t len)
{
	int r;

	r = dft_wait_child(p->pid, &p->status, secs, hung, len);
	if (r == -EDEADLK)
		p->stuck = true;
	else if (!r || r == -ETIMEDOUT)
		dft_proc_exec_errno(p);
	if (p->err >= 0) {
		close(p->err);
		p->err = -1;
	}
	return r;
}

int dft_exit_code(int status)
{
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

int dft_sh_timeout(const char *line, const char *out, char *const *env, unsigned int secs,
		   int *status, char *hung, size_t len)
{
	struct dft_spawn sp = { .line = line, .out = out, .fd1 = out ? 0 : 2, .env = env };
	struct dft_proc p;
	int r;

	*hung = '\0';
	r = dft_proc_spawn(&p, &sp);
	if (r)
		return r;
	r = dft_proc_wait(&p, secs, hung, len);
	*status = p.status;
	return r;
}

size_t dft_file_tail(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY);
	ssize_t n = 0;
	off_t end;

	if (fd >= 0) {
		end = lseek(fd, 0, SEEK_END);
		if (end > (off_t)(len - 1))
			lseek(fd, end - (off_t)(len - 1), SEEK_SET);
		else
			lseek(fd, 0, SEEK_SET);
		n = read(fd, buf, len - 1);
		close(fd);
	}
	buf[n > 0 ? n : 0] = '\0';
	return n > 0 ? n : 0;
}
