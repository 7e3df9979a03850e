// SPDX-License-Identifier: GPL-2.0-only
/*
 * dmf_alloc, the x86-64 part: a probed function's arguments at its entry,
 * failing it by returning at once with a chosen value, and its callers.
 * dmf-alloc-arm64.c is the same for arm64.
 */
#include <linux/ftrace.h>
#include <linux/linkage.h>
#include <linux/objtool.h>
#include <linux/uaccess.h>
#include <asm/ibt.h>
#include <asm/ptrace.h>
#include <asm/unwind.h>

#include "dmf-alloc.h"

asmlinkage void dmfa_return_stub(void);

/*
 * The ftrace callback sends the probed function here instead of into its
 * body (the trampoline returns to regs->ip): a bare return to the
 * function's caller, with %rax as the callback set it.  Never called, only
 * returned into, so it has no ENDBR; ASM_RET is the return thunk where the
 * kernel has one.
 */
asm(".pushsection .text, \"ax\"\n"
	".type dmfa_return_stub, @function\n"
	"dmfa_return_stub:\n"
	ANNOTATE_NOENDBR
	ASM_RET
	".size dmfa_return_stub, .-dmfa_return_stub\n"
	".popsection\n");

static unsigned long dmfa_caller(struct pt_regs *regs)
{
	unsigned long ip;

	if (copy_from_kernel_nofault(&ip, (void *)kernel_stack_pointer(regs), sizeof(ip)))
		return 0;
	return ip;
}

/* The probed function's return address: at the top of the stack on entry. */
unsigned long dmfa_arch_caller(struct ftrace_regs *fregs)
{
	return dmfa_caller(dmfa_pt_regs(fregs));
}

/* Make the probed function return @ret to its caller without running. */
void dmfa_arch_fail(struct ftrace_regs *fregs, unsigned long ret)
{
	struct pt_regs *regs = dmfa_pt_regs(fregs);

	regs_set_return_value(regs, ret);
	instruction_pointer_set(regs, (unsigned long)dmfa_return_stub);
}

/*
 * The ftrace call site of the function that starts at @func, as the
 * callback's ip names it: the first instruction, or the one after ENDBR64
 * (or the NOP that seals it) where the kernel is built for IBT.
 */
unsigned long dmfa_arch_ftrace_site(unsigned long func)
{
	u32 insn;

	if (copy_from_kernel_nofault(&insn, (void *)func, sizeof(insn)))
		return func;
	return is_endbr(insn) ? func + ENDBR_INSN_SIZE : func;
}

/*
 * The probed function's callers, from its registers at the ftrace call
 * site (regs->sp points at the return address, as at the entry).  The
 * unwinder starts in the caller, as if the probed function had already
 * returned: neither the ftrace trampoline nor the probed function's first
 * instruction is unwound through.
 */
unsigned int dmfa_arch_stack(struct ftrace_regs *fregs, unsigned long *entries, unsigned int max)
{
	struct pt_regs *probe = dmfa_pt_regs(fregs);
	struct pt_regs regs = {};
	struct unwind_state state;
	unsigned long addr;
	unsigned int n = 0;

	if (!max)
		return 0;
	/* the trampoline saved no more than these three of the unwinder's */
	regs.ip = dmfa_caller(probe);
	regs.sp = probe->sp + sizeof(unsigned long);
	regs.bp = probe->bp;
	if (!regs.ip)
		return 0;
	entries[n++] = regs.ip;
	/* unwind_start() skips the frame of @regs itself: on to the callers */
	for (unwind_start(&state, current, &regs, NULL); n < max && !unwind_done(&state);
	     unwind_next_frame(&state)) {
		addr = unwind_get_return_address(&state);
		if (!addr)
			break;
		entries[n++] = addr;
	}
	return n;
}
