// SPDX-License-Identifier: GPL-2.0-only
/*
 * dmf_alloc per-task decisions: marked tasks (the kernel's make-it-fail)
 * and fail-nth counts, which the probe handler reads under RCU, without
 * locks or allocation.  The probe handler asks dmfa_task_decide() before
 * the engine, as the kernel's should_fail_ex() looks at the task before
 * the attribute.
 *
 * A mark is inherited by the tasks a marked task forks after it was marked
 * (sched_process_fork) and goes away when the task exits
 * (sched_process_exit).  A fail-nth count is not inherited, as the
 * kernel's is not, and it outlives its task so that whoever set it can read
 * back whether the fault fired, as /proc/PID/fail-nth tells the task.
 * Entries hold no reference: the task pointer is only compared with
 * current, and the exit hook clears it before the task can be freed.
 *
 * The two tracepoint probes run with preemption off, where PREEMPT_RT
 * allows neither a spinlock_t (it sleeps there) nor an allocation, so
 * they take no lock but a raw spinlock and allocate nothing: a marked
 * task's child gets an entry from a pool that a work item refills
 * (dmfa_on_fork()), and the exit probe clears a fail-nth count's task
 * without the xarray's lock (dmfa_on_exit()).
 */
#define pr_fmt(fmt) "dmf_alloc: " fmt

#include <linux/hash.h>
#include <linux/irq_work.h>
#include <linux/pid.h>
#include <linux/rculist.h>
#include <linux/sched.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/tracepoint.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>

#include "dmf-alloc.h"

/*
 * Forks of marked tasks the pool serves before its refill has run: a
 * marked shell script or make forks a few at a time, a fork bomb more
 * than any pool.  Refilled when half is gone.
 */
#define DMFA_MARK_POOL	128

/* A marked task, in the bucket of dmfa_marks that hashes its pointer. */
struct dmfa_mark {
	struct hlist_node node;
	struct task_struct *task;
	struct rcu_head rcu;
};

/*
 * The marked tasks, hashed by task pointer (dmfa_mark_bucket()).  The
 * probe handler walks current's bucket under RCU; an empty bucket tells
 * every trapped call of an armed hook with the task filter on that current
 * is not marked without a walk (dmfa_task_surely_filtered()).  Keyed by
 * the task rather than its pid, which a thread's exec changes.
 */
struct hlist_head dmfa_marks[DMFA_MARK_BUCKETS];

/*
 * Writers of dmfa_marks and the pool: a raw spinlock, the one lock the
 * fork and exit probes may take on PREEMPT_RT.  Taken with interrupts off
 * only for the few instructions that link or unlink an entry.
 */
static DEFINE_RAW_SPINLOCK(dmfa_marks_lock);

/* Entries for the children of marked tasks, dmfa_pooled of them. */
static struct dmfa_mark *dmfa_pool[DMFA_MARK_POOL];
static unsigned int dmfa_pooled;
/* Children of marked tasks left unmarked: the pool was empty. */
static unsigned long dmfa_mark_missed;

static void dmfa_pool_fill(struct work_struct *work);
static DECLARE_WORK(dmfa_pool_work, dmfa_pool_fill);

/* pid -> struct dmfa_nth */
static DEFINE_XARRAY(dmfa_nths);

struct dmfa_nth {
	struct task_struct *task;	/* NULL once the task has exited */
	atomic_t left;			/* allocations to go; 0: the fault fired */
	struct rcu_head rcu;
};

/* A fail-nth count is pending in a live task: look up current's. */
bool dmfa_nth_on;

static struct tracepoint *dmfa_tp_fork;
static struct tracepoint *dmfa_tp_exit;

/* @t's entry.  Caller holds rcu_read_lock() or dmfa_marks_lock. */
static struct dmfa_mark *dmfa_mark_find(const struct task_struct *t)
{
	struct dmfa_mark *m;

	hlist_for_each_entry_rcu(m, dmfa_mark_bucket(t), node,
				 lockdep_is_held(&dmfa_marks_lock))
		if (m->task == t)
			return m;
	return NULL;
}

static bool dmfa_marked(const struct task_struct *t)
{
	bool r;

	rcu_read_lock();
	r = dmfa_mark_find(t);
	rcu_read_unlock();
	return r;
}

static bool dmfa_task_marked(void)
{
	return in_task() && !hlist_empty(dmfa_mark_bucket(current)) && dmfa_marked(current);
}

/* Mark @t with the entry @m.  Caller holds dmfa_marks_lock. */
static void __dmfa_mark_add(struct dmfa_mark *m, struct task_struct *t)
{
	m->task = t;
	hlist_add_head_rcu(&m->node, dmfa_mark_bucket(t));
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

/*
 * Top the pool up to DMFA_MARK_POOL entries: after a mark write (no fork
 * needs an entry before a task is marked), and from the work item that
 * dmfa_on_fork() queues when the pool runs low.  A failed allocation ends
 * the refill: the next fork of a marked task asks again.
 */
static void dmfa_pool_fill(struct work_struct *work)
{
	struct dmfa_mark *m;
	unsigned long flags;
	bool full;

	for (;;) {
		m = kmalloc(sizeof(*m), GFP_KERNEL | __GFP_NOWARN);
		if (!m)
			return;
		raw_spin_lock_irqsave(&dmfa_marks_lock, flags);
		full = dmfa_pooled == DMFA_MARK_POOL;
		if (!full)
			dmfa_pool[dmfa_pooled++] = m;
		raw_spin_unlock_irqrestore(&dmfa_marks_lock, flags);
		if (full) {
			kfree(m);
			return;
		}
	}
}

/**
 * dmfa_on_fork - sched_process_fork, in the parent: a marked task's child is marked
 * @data: unused
 * @parent: current
 * @child: the new task, not yet woken: it cannot have exited
 *
 * The entry comes from the pool, as nothing may be allocated here on
 * PREEMPT_RT; with the pool empty the child stays unmarked and is counted
 * in mark-missed.  queue_work() is safe with preemption off on every
 * kernel: the refill runs in a worker.
 */
static void dmfa_on_fork(void *data, struct task_struct *parent, struct task_struct *child)
{
	unsigned long flags;
	bool low;

	if (!dmfa_marked(parent))
		return;
	raw_spin_lock_irqsave(&dmfa_marks_lock, flags);
	if (dmfa_pooled)
		__dmfa_mark_add(dmfa_pool[--dmfa_pooled], child);
	else
		WRITE_ONCE(dmfa_mark_missed, dmfa_mark_missed + 1);
	low = dmfa_pooled < DMFA_MARK_POOL / 2;
	raw_spin_unlock_irqrestore(&dmfa_marks_lock, flags);
	if (low)
		queue_work(system_wq, &dmfa_pool_work);
}

/**
 * dmfa_on_exit - sched_process_exit, in the exiting task: drop its mark and count
 * @data: unused
 * @p: current, PF_EXITING set
 *
 * A mark is unlinked under dmfa_marks_lock, which orders this against a
 * mark write: that checks PF_EXITING under the same lock.  A fail-nth
 * count is looked up without the xarray's lock (a spinlock_t): the full
 * barrier here and the one in dmfa_nth_set() between storing an entry and
 * reading PF_EXITING make one side see the other, and both may clear the
 * entry's task.
 */
static void dmfa_on_exit(void *data, struct task_struct *p)
{
	struct dmfa_mark *m;
	struct dmfa_nth *e;
	unsigned long flags;

	raw_spin_lock_irqsave(&dmfa_marks_lock, flags);
	m = dmfa_mark_find(p);
	if (m)
		hlist_del_rcu(&m->node);
	raw_spin_unlock_irqrestore(&dmfa_marks_lock, flags);
	if (m)
		kfree_rcu(m, rcu);

	smp_mb();	/* PF_EXITING before the lookup; pairs with dmfa_nth_set() */
	rcu_read_lock();
	e = xa_load(&dmfa_nths, p->pid);
	/* nothing may be pending now: disarm if that was all */
	if (e && cmpxchg(&e->task, p, NULL) == p)
		dmfa_rearm_soon();
	rcu_read_unlock();
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
 * a task not marked (unmark), -ENOMEM.
 */
static int dmfa_mark(pid_t nr, bool mark, bool apply)
{
	struct task_struct *t = dmfa_get_task(nr);
	struct dmfa_mark *m = NULL, *old;
	unsigned long flags;
	int r = 0;

	if (!t)
		return -ESRCH;
	if (mark && apply) {
		m = kmalloc(sizeof(*m), GFP_KERNEL);
		if (!m) {
			put_task_struct(t);
			return -ENOMEM;
		}
	}
	raw_spin_lock_irqsave(&dmfa_marks_lock, flags);
	old = dmfa_mark_find(t);
	if (!mark) {
		if (!old)
			r = -ENOENT;
		else if (apply)
			hlist_del_rcu(&old->node);
	} else if (t->flags & PF_EXITING) {
		r = -ESRCH;
	} else if (apply && !old) {
		__dmfa_mark_add(m, t);
		m = NULL;
	}
	raw_spin_unlock_irqrestore(&dmfa_marks_lock, flags);
	put_task_struct(t);
	kfree(m);
	if (!mark && apply && old)
		kfree_rcu(old, rcu);
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

	/* a task marked here may fork at once: its child needs an entry */
	if (mark)
		dmfa_pool_fill(NULL);
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

/* One pid a line, in no particular order. */
int dmfa_marks_list(struct seq_file *m)
{
	struct dmfa_mark *e;
	unsigned int i;

	/* a task outlives its entry by a grace period (dmfa_on_exit()) */
	rcu_read_lock();
	for (i = 0; i < DMFA_MARK_BUCKETS; i++)
		hlist_for_each_entry_rcu(e, &dmfa_marks[i], node)
			seq_printf(m, "%d\n", e->task->pid);
	rcu_read_unlock();
	return 0;
}

int dmfa_mark_missed_show(struct seq_file *m)
{
	seq_printf(m, "%lu\n", READ_ONCE(dmfa_mark_missed));
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
	if (t->flags & PF_EXITING) {
		r = -ESRCH;
	} else {
		old = xa_store(&dmfa_nths, t->pid, e, GFP_KERNEL);
		r = xa_err(old);
		if (!r) {
			smp_mb();	/* the entry before PF_EXITING; pairs with dmfa_on_exit() */
			if (t->flags & PF_EXITING)
				WRITE_ONCE(e->task, NULL);
			e = old;	/* freed below */
		}
	}
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
 * no tracepoint or probe handler can call dmfa_rearm_soon() or queue a
 * refill any more.
 */
void dmfa_task_stop(void)
{
	tracepoint_probe_unregister(dmfa_tp_fork, (void *)dmfa_on_fork, NULL);
	tracepoint_probe_unregister(dmfa_tp_exit, (void *)dmfa_on_exit, NULL);
	tracepoint_synchronize_unregister();
	cancel_work_sync(&dmfa_pool_work);
}

/* Free every entry; nothing reads them any more. */
void dmfa_task_exit(void)
{
	struct dmfa_mark *m;
	struct hlist_node *tmp;
	struct dmfa_nth *e;
	unsigned long pid;
	unsigned int i;

	for (i = 0; i < DMFA_MARK_BUCKETS; i++)
		hlist_for_each_entry_safe(m, tmp, &dmfa_marks[i], node)
			kfree(m);
	while (dmfa_pooled)
		kfree(dmfa_pool[--dmfa_pooled]);
	xa_for_each(&dmfa_nths, pid, e) {
		xa_erase(&dmfa_nths, pid);
		kfree(e);
	}
	xa_destroy(&dmfa_nths);
}
