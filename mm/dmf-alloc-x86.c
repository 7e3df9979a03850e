// SPDX-License-Identifier: GPL-2.0-only
/*
 * dmf_alloc, the x86-64 part: a probed function's arguments at its entry,
 * failing it by returning at once with a chosen value, and telling module
 * memory from the kernel image.  An arm64 port replaces this file.
 */
#include <linux/ftrace.h>
#include <linux/kprobes.h>
#include <linux/linkage.h>
#include <linux/objtool.h>
#include <linux/preempt.h>
#include <asm/pgtable_types.h>
#include <asm/ptrace.h>
#include <asm/unwind.h>

#include "dmf-alloc.h"

asmlinkage void dmfa_return_stub(void);

/*
 * The probe handler sends the probed function here instead of into its
 * body: a bare return to the function's caller, with %rax as the handler
 * set it.  Never called, only returned into, so it has no ENDBR; ASM_RET
 * is the return thunk where the kernel has one.
 */
asm(".pushsection .text, \"ax\"\n"
	".type dmfa_return_stub, @function\n"
	"dmfa_return_stub:\n"
	ANNOTATE_NOENDBR
	ASM_RET
	".size dmfa_return_stub, .-dmfa_return_stub\n"
	".popsection\n");

/* Argument @n (from 0) of the function whose entry @regs was taken at. */
unsigned long dmfa_arch_arg(struct pt_regs *regs, unsigned int n)
{
	return regs_get_kernel_argument(regs, n);
}

/* The probed function's return address: at the top of the stack on entry. */
unsigned long dmfa_arch_caller(struct pt_regs *regs)
{
	unsigned long ip;

	if (copy_from_kernel_nofault(&ip, (void *)kernel_stack_pointer(regs), sizeof(ip)))
		return 0;
	return ip;
}

/* Make the probed function return @ret to its caller without running. */
void dmfa_arch_fail(struct pt_regs *regs, unsigned long ret)
{
	regs_set_return_value(regs, ret);
	instruction_pointer_set(regs, (unsigned long)dmfa_return_stub);
}

/* Module text and data live in [MODULES_VADDR, MODULES_END). */
bool dmfa_arch_module_addr(unsigned long addr)
{
	return addr >= MODULES_VADDR && addr < MODULES_END;
}

/*
 * The first instruction after the ftrace call site at @addr.  A kprobe
 * there is a breakpoint, not an ftrace callback: nothing has run yet, the
 * arguments are in their registers and the return address is on top of
 * the stack, exactly as at the entry.
 */
kprobe_opcode_t *dmfa_arch_past_ftrace(kprobe_opcode_t *addr)
{
	return addr + MCOUNT_INSN_SIZE;
}

/*
 * in_task() as the probed function saw it.  A breakpoint handler runs as
 * an NMI (irqentry_nmi_enter() adds NMI_OFFSET + HARDIRQ_OFFSET); take
 * that level off to see the interrupted context.
 */
bool dmfa_arch_in_task(void)
{
	unsigned long pc = preempt_count();

	if (pc & NMI_MASK)
		pc -= NMI_OFFSET + HARDIRQ_OFFSET;
	return !(pc & (NMI_MASK | HARDIRQ_MASK | SOFTIRQ_OFFSET));
}

/*
 * The probed function's callers, from its registers at the entry.  The
 * unwinder starts in the caller, as if the probed function had already
 * returned: neither the breakpoint's exception frame nor the probed
 * function's first instruction is unwound through (6.12's ORC unwinder
 * stops at both when asked from a kprobe handler).
 */
unsigned int dmfa_arch_stack(struct pt_regs *probe, unsigned long *entries, unsigned int max)
{
	struct pt_regs regs;
	struct unwind_state state;
	unsigned long addr;
	unsigned int n = 0;

	if (!max)
		return 0;
	regs = *probe;
	regs.ip = dmfa_arch_caller(probe);
	regs.sp = probe->sp + sizeof(unsigned long);
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
