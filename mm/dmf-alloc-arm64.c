// SPDX-License-Identifier: GPL-2.0-only
/*
 * dmf_alloc, the arm64 part: a probed function's arguments at its entry,
 * failing it by returning at once with a chosen value, and its callers.
 * dmf-alloc-x86.c is the same for x86-64.
 *
 * With DYNAMIC_FTRACE_WITH_ARGS (arm64 from 6.2; Debian's 6.1 has only
 * WITH_REGS, where Kbuild leaves dmf_alloc out), a traced function starts
 * with an optional "bti c" and then "mov x9, x30; bl ftrace_caller".  The
 * trampoline saves x0-x8, fp, the function's own return address (x9) as
 * lr, sp and the call site as pc, passes the callback the address of the
 * bl, and returns to pc with x0 and lr as the callback left them.  Nothing
 * of the function has run: not even its paciasp, so lr is the plain return
 * address.
 */
#include <linux/ftrace.h>
#include <linux/stacktrace.h>
#include <linux/uaccess.h>
#include <asm/insn-def.h>

#include "dmf-alloc.h"

/* bti, bti c, bti j, bti jc: hint #32, #34, #36, #38 */
#define DMFA_BTI_MASK	0xffffff3fU
#define DMFA_BTI	0xd503241fU

static unsigned long *dmfa_lr(struct ftrace_regs *fregs)
{
#ifdef DMFA_ARCH_FTRACE_REGS
	return &arch_ftrace_regs(fregs)->lr;
#else
	return &fregs->lr;
#endif
}

/* The probed function's return address: in lr on entry. */
unsigned long dmfa_arch_caller(struct ftrace_regs *fregs)
{
	return *dmfa_lr(fregs);
}

/* Make the probed function return @ret to its caller without running. */
void dmfa_arch_fail(struct ftrace_regs *fregs, unsigned long ret)
{
	ftrace_regs_set_return_value(fregs, ret);
	ftrace_regs_set_instruction_pointer(fregs, *dmfa_lr(fregs));
}

/*
 * The ftrace call site of the function that starts at @func, as the
 * callback's ip names it: the bl, the second instruction of the patched
 * pair, after the landing pad where the kernel is built for BTI.
 */
unsigned long dmfa_arch_ftrace_site(unsigned long func)
{
	u32 insn;

	if (copy_from_kernel_nofault(&insn, (void *)func, sizeof(insn)))
		return func + AARCH64_INSN_SIZE;
	if ((le32_to_cpu((__force __le32)insn) & DMFA_BTI_MASK) == DMFA_BTI)
		func += AARCH64_INSN_SIZE;
	return func + AARCH64_INSN_SIZE;
}

/*
 * The probed function's callers.  The trampoline makes a frame record for
 * the call site (the function's fp and return address) below its own, so
 * the unwinder run from here passes the callback, the trampoline and an
 * address in the probed function before it reaches the return address:
 * the chain starts there, as x86-64's does.  If the unwinder never reaches
 * it, the chain is the caller alone.
 */
unsigned int dmfa_arch_stack(struct ftrace_regs *fregs, unsigned long *entries, unsigned int max)
{
	unsigned long trace[DMF_STACK_DEPTH_MAX + 16], caller = dmfa_arch_caller(fregs);
	unsigned int i, n, k = 0;

	if (!max)
		return 0;
	n = stack_trace_save(trace, ARRAY_SIZE(trace), 0);
	for (i = 0; i < n && trace[i] != caller; i++)
		;
	if (i == n) {
		entries[0] = caller;
		return 1;
	}
	while (i < n && k < max)
		entries[k++] = trace[i++];
	return k;
}
