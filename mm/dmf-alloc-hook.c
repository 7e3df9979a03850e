// SPDX-License-Identifier: GPL-2.0-only
/*
 * dmf_alloc hooks, their lock and their arming.
 *
 * A hook is armed while its ftrace_ops is registered: a call to the ops'
 * trampoline at the ftrace site of each probed function.  The ops' filter
 * is set once, at load, while it is not registered (dmf-alloc.c), and
 * never changed: changing it allocates through the very functions it
 * patches.  Registration allocates only before the ops is live, and
 * unregistration not at all, so no allocation of ftrace's own is failed
 * by arming or disarming a hook.
 *
 * This file calls nothing else of dmf_alloc: whoever knows whether a hook
 * should be armed (dmfa_rearm()) says so.
 */
#define pr_fmt(fmt) "dmf_alloc: " fmt

#include <linux/ftrace.h>
#include <linux/mutex.h>
#include <linux/seq_file.h>

#include "dmf-alloc.h"

struct dmfa_hook dmfa_hooks[DMFA_NR_HOOKS] = {
	[DMFA_FAILSLAB] = {
		.name = "failslab",
		.id = DMFA_FAILSLAB,
	},
	[DMFA_FAIL_PAGE_ALLOC] = {
		.name = "fail_page_alloc",
		.id = DMFA_FAIL_PAGE_ALLOC,
	},
};

/* Serialises configuration (debugfs, module events) and arming. */
DEFINE_MUTEX(dmfa_lock);

/* Set for good when the module goes: no hook is armed again. */
static bool dmfa_exiting;

/*
 * Arm or disarm one hook to match its configuration: armed while a
 * fail-nth count is pending (@nth), or the probability is not zero and
 * times is not used up.  Arming registers the ops, then lets the callback
 * fail calls; disarming stops the callback failing anything first, then
 * unregisters the ops: the sites are NOPs again.
 */
static int dmfa_hook_arm(struct dmfa_hook *h, bool nth)
{
	bool want;
	int r;

	want = !dmfa_exiting && (nth || (!dmf_prob_is_zero(&h->attr.prob) &&
					 atomic64_read(&h->attr.times_left)));
	if (want == h->armed)
		return 0;
	if (want && !h->nr_probes)
		return -ENODEV;
	if (want) {
		r = register_ftrace_function(&h->ops);
		if (r) {
			pr_warn("%s: cannot arm: %d\n", h->name, r);
			return r;
		}
		WRITE_ONCE(h->live, true);
		h->arms++;
	} else {
		WRITE_ONCE(h->live, false);
		r = unregister_ftrace_function(&h->ops);
		if (r)
			pr_warn("%s: cannot disarm: %d\n", h->name, r);
	}
	h->armed = want;
	return 0;
}

/**
 * dmfa_hooks_arm - arm or disarm every hook to match its configuration
 * @nth: a fail-nth count is pending, which arms every hook
 *
 * Caller holds dmfa_lock.
 *
 * Return: 0, or the first error of a hook that could not be armed.
 */
int dmfa_hooks_arm(bool nth)
{
	unsigned int i;
	int r = 0, e;

	lockdep_assert_held(&dmfa_lock);
	for (i = 0; i < DMFA_NR_HOOKS; i++) {
		e = dmfa_hook_arm(&dmfa_hooks[i], nth);
		r = r ?: e;
	}
	return r;
}

/* For good: at unload, or a load that failed half way. */
void dmfa_hooks_disarm(void)
{
	mutex_lock(&dmfa_lock);
	dmfa_exiting = true;
	dmfa_hooks_arm(false);
	mutex_unlock(&dmfa_lock);
}

void dmfa_hook_list_probes(struct seq_file *m, struct dmfa_hook *h)
{
	unsigned int i;

	for (i = 0; i < h->nr_probes; i++)
		seq_printf(m, "%s %s arms=%lu missed=%lu site=ftrace\n", h->probes[i].desc->symbol,
			   h->armed ? "armed" : "off", h->arms, READ_ONCE(h->probes[i].missed));
}
