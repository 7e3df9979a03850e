// SPDX-License-Identifier: GPL-2.0-only
/*
 * dmf_alloc per-task decisions: marked tasks (the kernel's make-it-fail)
 * and fail-nth counts, in two xarrays keyed by pid that the probe handler
 * reads under RCU, without locks or allocation.  The probe handler asks
 * dmfa_task_decide() before the engine, as the kernel's should_fail_ex()
 * looks at the task before the attribute.
 *
 * A mark is inherited by the tasks a marked task forks after it was marked
 * (sched_process_fork) and goes away when the task exits
 * (sched_process_exit).  A fail-nth count is not inherited, as the
 * kernel's is not, and it outlives its task so that whoever set it can read
 * back whether the fault fired, as /proc/PID/fail-nth tells the task.
 * Entries hold no reference: the task pointer is only compared with
 * current, and the exit hook clears it before the task can be freed.
 */
#define pr_fmt(fmt) "dmf_alloc: " fmt

#include <linux/irq_work.h>
#include <linux/pid.h>
#include <linux/sched.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/tracepoint.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>

#include "dmf-alloc.h"

/* pid -> the marked task */
static DEFINE_XARRAY(dmfa_marks);

/*
 * How many marked pids there are in each bucket (dmfa_mark_bucket()),
 * changed with dmfa_marks under its lock: a task whose bucket is empty is
 * not marked, which every trapped call of an armed hook with the task
 * filter on learns without an xarray lookup (dmfa_task_surely_filtered()).
 */
unsigned int dmfa_mark_count[DMFA_MARK_BUCKETS];
/* pid -> struct dmfa_nth */
static DEFINE_XARRAY(dmfa_nths);

struct dmfa_nth {
	struct task_struct *task;	/* NULL once the task has exited */
	atomic_t left;			/* allocations to go; 0: the fault fired */
	struct rcu_head rcu;
};

/* Set while this CPU updates the marks: its allocations are not failed. */
DEFINE_PER_CPU(unsigned int, dmfa_busy);

/* A fail-nth count is pending in a live task: look up current's. */
bool dmfa_nth_on;

static struct tracepoint *dmfa_tp_fork;
static struct tracepoint *dmfa_tp_exit;

static bool dmfa_task_marked(void)
{
	return in_task() && READ_ONCE(*dmfa_mark_bucket(current->pid)) &&
	       xa_load(&dmfa_marks, current->pid) == current;
}

/* Mark @t, counted in its bucket.  Caller holds the xa_lock of dmfa_marks. */
static int __dmfa_mark_store(struct task_struct *t, gfp_t gfp)
{
	unsigned int *n = dmfa_mark_bucket(t->pid);
	void *old = __xa_store(&dmfa_marks, t->pid, t, gfp);

	if (xa_is_err(old))
		return xa_err(old);
	if (!old)
		WRITE_ONCE(*n, *n + 1);
	return 0;
}

/* Unmark pid @pid.  Caller holds the xa_lock of dmfa_marks. */
static void __dmfa_mark_erase(pid_t pid)
{
	unsigned int *n = dmfa_mark_bucket(pid);

	if (__xa_erase(&dmfa_marks, pid))
		WRITE_ONCE(*n, *n - 1);
}

/* Caller holds rcu_read_lock(). */
static struct dmfa_nth *dmfa_nth_current(void)
{
	struct dmfa_nth *e;

	if (!in_task())
		return NULL;
	e = xa_load(&dmfa_nths, current->pid);
	return e && READ_ONCE(e->task) == current ? e : NULL;
}

/*
 * current's fail-nth count: only calls in the stack filter's scope count
 * (DMFA_TASK_SKIP for the others); the one that takes it to 0 fails.
 */
static enum dmfa_task_verdict dmfa_nth_decide(struct dmfa_hook *h, struct dmfa_call *c)
{
	enum dmfa_task_verdict v = DMFA_TASK_NONE;
	struct dmfa_nth *e;
	int left;

	rcu_read_lock();
	e = dmfa_nth_current();
	if (e && atomic_read(&e->left) > 0 && !dmfa_stack_allows(h, c)) {
		v = DMFA_TASK_SKIP;
	} else if (e) {
		left = atomic_dec_if_positive(&e->left);
		if (left > 0)
			v = DMFA_TASK_PASS;
		if (!left) {
			v = DMFA_TASK_FAIL;
			dmfa_rearm_soon();
		}
	}
	rcu_read_unlock();
	return v;
}

/**
 * dmfa_task_decide - what current's per-task state says of a call
 * @h: the hook
 * @c: the call, past the domain filters
 *
 * fail-nth first: a count that comes due fails the call whatever the
 * hook's policy, one not yet due lets it pass.  Without a count, the
 * task filter passes a task that is not marked.
 *
 * Return: a verdict; DMFA_TASK_NONE leaves the call to the engine.
 */
enum dmfa_task_verdict dmfa_task_decide(struct dmfa_hook *h, struct dmfa_call *c)
{
	enum dmfa_task_verdict v = DMFA_TASK_NONE;

	if (READ_ONCE(dmfa_nth_on))
		v = dmfa_nth_decide(h, c);
	if (v == DMFA_TASK_NONE && READ_ONCE(h->task_filter) && !dmfa_task_marked())
		v = DMFA_TASK_PASS;
	return v;
}

/*
 * Is a fail-nth count pending in a live task?  Remembered for
 * dmfa_task_decide(), which looks up no count while there is none.
 */
static bool dmfa_nth_refresh(void)
{
	struct dmfa_nth *e;
	unsigned long pid;
	bool r = false;

	rcu_read_lock();
	xa_for_each(&dmfa_nths, pid, e) {
		if (READ_ONCE(e->task) && atomic_read(&e->left) > 0) {
			r = true;
			break;
		}
	}
	rcu_read_unlock();
	WRITE_ONCE(dmfa_nth_on, r);
	return r;
}

/**
 * dmfa_rearm - arm or disarm the hooks to match their state
 *
 * The one place arming is decided: after a knob that can change it is
 * written (probability, times, fail-nth), from dmfa_rearm_soon(), and at
 * load.  A pending fail-nth count arms both hooks.
 *
 * Caller holds dmfa_lock.
 *
 * Return: 0, or the first error of a hook that could not be armed.
 */
int dmfa_rearm(void)
{
	lockdep_assert_held(&dmfa_lock);
	return dmfa_hooks_arm(dmfa_nth_refresh());
}

static void dmfa_rearm_fn(struct work_struct *work)
{
	mutex_lock(&dmfa_lock);
	dmfa_rearm();
	mutex_unlock(&dmfa_lock);
}

static DECLARE_WORK(dmfa_rearm_work, dmfa_rearm_fn);

static void dmfa_rearm_queue(struct irq_work *w)
{
	queue_work(system_wq, &dmfa_rearm_work);
}

static DEFINE_IRQ_WORK(dmfa_rearm_irq, dmfa_rearm_queue);

/**
 * dmfa_rearm_soon - have dmfa_rearm() run shortly
 *
 * For the ftrace callback and the task exit hook, which cannot take
 * dmfa_lock: when times runs out, a fail-nth count fires or its task
 * exits, the hooks may have nothing left to do.  An irq_work, safe in any
 * context the allocators run in, queues the work.
 */
void dmfa_rearm_soon(void)
{
	irq_work_queue(&dmfa_rearm_irq);
}

/* Wait for a pending dmfa_rearm_soon(); nothing can queue one any more. */
void dmfa_rearm_sync(void)
{
	irq_work_sync(&dmfa_rearm_irq);
	cancel_work_sync(&dmfa_rearm_work);
}

/* sched_process_fork, in the parent: a marked task's child is marked. */
static void dmfa_on_fork(void *data, struct task_struct *parent, struct task_struct *child)
{
	int r;

	if (xa_load(&dmfa_marks, parent->pid) != parent)
		return;
	this_cpu_inc(dmfa_busy);
	xa_lock(&dmfa_marks);
	r = __dmfa_mark_store(child, GFP_ATOMIC | __GFP_NOWARN);
	xa_unlock(&dmfa_marks);
	this_cpu_dec(dmfa_busy);
	if (r)
		pr_warn_ratelimited("cannot mark %d, forked by marked %d: %d\n",
				    child->pid, parent->pid, r);
}

/*
 * sched_process_exit, in the exiting task.  The locks order this against
 * a concurrent mark or fail-nth write, which checks PF_EXITING under them.
 */
static void dmfa_on_exit(void *data, struct task_struct *p)
{
	struct dmfa_nth *e;

	xa_lock(&dmfa_marks);
	if (xa_load(&dmfa_marks, p->pid) == p)
		__dmfa_mark_erase(p->pid);
	xa_unlock(&dmfa_marks);

	xa_lock(&dmfa_nths);
	e = xa_load(&dmfa_nths, p->pid);
	if (e && e->task == p) {
		WRITE_ONCE(e->task, NULL);
		/* nothing may be pending now: disarm if that was all */
		dmfa_rearm_soon();
	}
	xa_unlock(&dmfa_nths);
}

/* The task of pid @nr in the caller's namespace, with a reference. */
static struct task_struct *dmfa_get_task(pid_t nr)
{
	struct pid *pid;
	struct task_struct *t;

	if (nr <= 0)
		return NULL;
	pid = find_get_pid(nr);
	t = pid ? get_pid_task(pid, PIDTYPE_PID) : NULL;
	put_pid(pid);
	return t;
}

/*
 * Mark the task of pid @nr (unmark it if !@mark); if !@apply, only say
 * whether that would succeed.
 *
 * Return: 0; -ESRCH for no such task or one exiting (mark), -ENOENT for
 * a task not marked (unmark), or the xarray's error.
 */
static int dmfa_mark(pid_t nr, bool mark, bool apply)
{
	struct task_struct *t = dmfa_get_task(nr);
	int r = 0;

	if (!t)
		return -ESRCH;
	xa_lock(&dmfa_marks);
	if (!mark) {
		if (xa_load(&dmfa_marks, t->pid) != t)
			r = -ENOENT;
		else if (apply)
			__dmfa_mark_erase(t->pid);
	} else if (t->flags & PF_EXITING) {
		r = -ESRCH;
	} else if (apply) {
		r = __dmfa_mark_store(t, GFP_KERNEL);
		/* __xa_store() may drop the lock to allocate: exiting now? */
		if (!r && (t->flags & PF_EXITING)) {
			__dmfa_mark_erase(t->pid);
			r = -ESRCH;
		}
	}
	xa_unlock(&dmfa_marks);
	put_task_struct(t);
	return r;
}

/*
 * "PID" marks (unmarks if !@mark), "-PID" unmarks; several separated by
 * blanks or commas.  Every PID is checked before any is applied, so a bad
 * one changes nothing (unless a task exits in between).
 */
int dmfa_marks_write(char *val, bool mark)
{
	unsigned int pass;
	const char *s;
	bool unmark;
	int pid, r;

	for (pass = 0; pass < 2; pass++) {
		s = val;
		while ((r = dmfa_pid_next(&s, &pid, &unmark)) > 0) {
			r = dmfa_mark(pid, mark && !unmark, pass);
			if (r)
				return r;
		}
		if (r)
			return r;
	}
	return 0;
}

int dmfa_marks_list(struct seq_file *m)
{
	unsigned long pid;
	void *t;

	xa_for_each(&dmfa_marks, pid, t)
		seq_printf(m, "%lu\n", pid);
	return 0;
}

static void dmfa_nth_remove(unsigned long pid)
{
	struct dmfa_nth *e = xa_erase(&dmfa_nths, pid);

	if (e)
		kfree_rcu(e, rcu);
}

static int dmfa_nth_set(pid_t nr, int n)
{
	struct task_struct *t = dmfa_get_task(nr);
	struct dmfa_nth *e, *old;
	int r = 0;

	if (!t)
		return -ESRCH;
	e = kzalloc(sizeof(*e), GFP_KERNEL);
	if (!e) {
		put_task_struct(t);
		return -ENOMEM;
	}
	e->task = t;
	atomic_set(&e->left, n);
	xa_lock(&dmfa_nths);
	if (t->flags & PF_EXITING) {
		r = -ESRCH;
	} else {
		old = __xa_store(&dmfa_nths, t->pid, e, GFP_KERNEL);
		r = xa_err(old);
		if (!r) {
			if (t->flags & PF_EXITING)
				WRITE_ONCE(e->task, NULL);
			e = old;	/* freed below */
		}
	}
	xa_unlock(&dmfa_nths);
	put_task_struct(t);
	if (r)
		kfree(e);
	else if (e)
		kfree_rcu(e, rcu);
	return r;
}

/*
 * "PID N": the Nth allocation of task PID that reaches a hook and passes
 * its filters fails; "PID 0" or "-PID" drops the entry.
 */
int dmfa_nths_write(char *val)
{
	struct task_struct *t;
	int pid, n;

	if (dmfa_nth_parse(val, &pid, &n))
		return -EINVAL;
	if (n)
		return dmfa_nth_set(pid, n);
	t = dmfa_get_task(pid);
	if (t) {
		pid = t->pid;
		put_task_struct(t);
	}
	dmfa_nth_remove(pid);
	return 0;
}

/* "PID LEFT" per entry, " exited" once the task is gone; LEFT 0: it fired. */
int dmfa_nths_list(struct seq_file *m)
{
	struct dmfa_nth *e;
	unsigned long pid;

	rcu_read_lock();
	xa_for_each(&dmfa_nths, pid, e)
		seq_printf(m, "%lu %d%s\n", pid, atomic_read(&e->left),
			   READ_ONCE(e->task) ? "" : " exited");
	rcu_read_unlock();
	return 0;
}

static void dmfa_find_tracepoint(struct tracepoint *tp, void *priv)
{
	if (!strcmp(tp->name, "sched_process_fork"))
		dmfa_tp_fork = tp;
	else if (!strcmp(tp->name, "sched_process_exit"))
		dmfa_tp_exit = tp;
}

int dmfa_task_init(void)
{
	int r;

	for_each_kernel_tracepoint(dmfa_find_tracepoint, NULL);
	if (!dmfa_tp_fork || !dmfa_tp_exit) {
		pr_err("sched_process_fork/exit tracepoints not found\n");
		return -ENOENT;
	}
	r = tracepoint_probe_register(dmfa_tp_exit, (void *)dmfa_on_exit, NULL);
	if (r)
		return r;
	r = tracepoint_probe_register(dmfa_tp_fork, (void *)dmfa_on_fork, NULL);
	if (r) {
		tracepoint_probe_unregister(dmfa_tp_exit, (void *)dmfa_on_exit, NULL);
		tracepoint_synchronize_unregister();
	}
	return r;
}

/*
 * Stop the tracepoints; the hooks are disarmed.  After the grace period
 * no tracepoint or probe handler can call dmfa_rearm_soon() any more.
 */
void dmfa_task_stop(void)
{
	tracepoint_probe_unregister(dmfa_tp_fork, (void *)dmfa_on_fork, NULL);
	tracepoint_probe_unregister(dmfa_tp_exit, (void *)dmfa_on_exit, NULL);
	tracepoint_synchronize_unregister();
}

void dmfa_task_exit(void)
{
	struct dmfa_nth *e;
	unsigned long pid;

	xa_destroy(&dmfa_marks);
	xa_for_each(&dmfa_nths, pid, e) {
		xa_erase(&dmfa_nths, pid);
		kfree(e);
	}
	xa_destroy(&dmfa_nths);
}
