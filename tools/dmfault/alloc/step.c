// SPDX-License-Identifier: GPL-2.0-only
/*
 * dmfault: one run of a command with the allocator hooks aimed at it, for
 * run and for each step of the fail-nth sweep (sweep.c): started held,
 * marked, fail-nth set, let go and waited for, and the faults it took.
 */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>

#include "alloc/alloc.h"

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

void dft_describe_status(int st, int exec_errno, char *buf, size_t len)
{
	if (exec_errno)
		snprintf(buf, len, "exec failed: %s", strerror(exec_errno));
	else if (st > 128)
		snprintf(buf, len, "killed by signal %d (%s)", st - 128, strsignal(st - 128));
	else
		snprintf(buf, len, "exit %d", st);
}

volatile sig_atomic_t dft_stop;

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
