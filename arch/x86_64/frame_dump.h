/*
 * The general registers of an x86-64 trap frame, four lines through
 * printf: the middle of arch_dump_frame for the kernel (trap.c) and for
 * x86-64 code in a Linux process (arch/x86_64-linux/cpu.c), whose frames
 * have the same layout.
 */
#ifndef GMK_ARCH_X86_64_FRAME_DUMP_H
#define GMK_ARCH_X86_64_FRAME_DUMP_H

#include <stdio.h>

#include "trap_arch.h"

static inline void x86_dump_gprs(const struct trapframe *tf)
{
	printf("  rax %016lx  rbx %016lx  rcx %016lx  rdx %016lx\n",
	       tf->rax, tf->rbx, tf->rcx, tf->rdx);
	printf("  rsi %016lx  rdi %016lx  rbp %016lx  r8  %016lx\n",
	       tf->rsi, tf->rdi, tf->rbp, tf->r8);
	printf("  r9  %016lx  r10 %016lx  r11 %016lx  r12 %016lx\n",
	       tf->r9, tf->r10, tf->r11, tf->r12);
	printf("  r13 %016lx  r14 %016lx  r15 %016lx\n", tf->r13, tf->r14, tf->r15);
}

#endif
