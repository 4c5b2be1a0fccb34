/*
 * The x86-64 trap frame: everything an interrupted context had, saved by
 * isr.S on the stack the CPU switched to (IST or current). From low to high
 * addresses it is what isr.S pushes (in reverse), then what the CPU pushed.
 *
 * The CPU aligns RSP to 16 bytes before pushing its 5-word frame, so the
 * layout below, 16-byte aligned as a whole, keeps `fx` 16-byte aligned as
 * FXSAVE requires. TF_* are the byte offsets isr.S uses; trap.c checks them
 * against the struct.
 */
#ifndef GMK_ARCH_X86_64_TRAP_ARCH_H
#define GMK_ARCH_X86_64_TRAP_ARCH_H

#define TF_FX		0	/* 512-byte FXSAVE area: x87, MXCSR, xmm0-15 */
#define TF_CR2		520	/* page-fault / double-fault address, else 0 */
#define TF_R15		528
#define TF_RBP		592	/* saved like every other GPR */
#define TF_RDI		600
#define TF_RAX		640
#define TF_VECTOR	648
#define TF_ERROR	656
#define TF_RIP		664
#define TF_CS		672
#define TF_RFLAGS	680
#define TF_RSP		688
#define TF_SS		696
#define TF_SIZE		704

#ifdef __ASSEMBLY__
/* %rsp at a struct trapframe: every register back from it, then iretq pops
 * RIP, CS, RFLAGS, RSP and SS. isr.S's exit (trap_return) and the hosted
 * board's preempted-G resume (arch/x86_64-linux/preempt.S; iretq to the same
 * privilege level works in user mode too). */
.macro TRAPFRAME_RESTORE_IRETQ
	fxrstor64 (%rsp)
	addq	$(TF_R15 - TF_FX), %rsp		/* FXSAVE area, pad, cr2 */
	popq	%r15
	popq	%r14
	popq	%r13
	popq	%r12
	popq	%r11
	popq	%r10
	popq	%r9
	popq	%r8
	popq	%rbp
	popq	%rdi
	popq	%rsi
	popq	%rdx
	popq	%rcx
	popq	%rbx
	popq	%rax
	addq	$16, %rsp			/* vector, error code */
	iretq
.endm
#else
#include <stdbool.h>
#include <stdint.h>

struct trapframe {
	uint8_t fx[512];		/* FXSAVE image */
	uint64_t pad;			/* keeps fx 16-byte aligned */
	uint64_t cr2;
	uint64_t r15, r14, r13, r12, r11, r10, r9, r8;
	uint64_t rbp, rdi, rsi, rdx, rcx, rbx, rax;
	uint64_t vector;		/* pushed by the isr.S stub */
	uint64_t error;			/* CPU's error code, or 0 */
	/* pushed by the CPU */
	uint64_t rip, cs, rflags, rsp, ss;
} __attribute__((aligned(16)));

/* kernel/trap.h's accessors. */
static inline uintptr_t arch_frame_pc(const struct trapframe *tf) { return tf->rip; }
static inline uintptr_t arch_frame_fp(const struct trapframe *tf) { return tf->rbp; }
static inline uintptr_t arch_frame_sp(const struct trapframe *tf) { return tf->rsp; }
/* No link register: a return address is on the stack. A function that
 * makes no frame record (a leaf: gcc omits it there even with
 * -fno-omit-frame-pointer), or one stopped before its prologue made it,
 * has its return address at the stack pointer (kernel/traceback.c). */
static inline uintptr_t arch_frame_lr(const struct trapframe *tf) { return 0; }

/* Is ret a return address of a call to callee: a direct call (e8 rel32)
 * to it, or an indirect one (ff /2, with a register, a disp8 or a
 * disp32/RIP-relative operand) just before ret? ret lies in the text (the
 * caller checked), so reading the 6 bytes before it cannot fault. */
static inline bool arch_returns_from_call(uintptr_t ret, uintptr_t callee)
{
	const uint8_t *p = (const uint8_t *)ret;

	if (p[-5] == 0xe8) {
		int32_t rel;
		__builtin_memcpy(&rel, p - 4, 4);
		return ret + (intptr_t)rel == callee;
	}
	return (p[-2] == 0xff && (p[-1] & 0xf8) == 0xd0) ||	/* call *%reg */
	       (p[-3] == 0xff && (p[-2] & 0xf8) == 0x50) ||	/* call *d8(%reg) */
	       (p[-6] == 0xff && ((p[-5] & 0xf8) == 0x90 || p[-5] == 0x15));
}
#endif

/* The SysV red zone: what code may keep below its stack pointer, which an
 * interrupted G's frame copy must not overwrite. The kernel is built with
 * -mno-red-zone and the hosted build is not; the copy skips it in both, in
 * case some assembly below the C ABI uses it. */
#define ARCH_STACK_RED_ZONE	128

#endif
