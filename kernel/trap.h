/*
 * Exceptions and interrupts as the kernel sees them. Each arch's
 * trap_arch.h defines struct trapframe (the full register state saved at
 * entry, FP/SIMD included) and, as static inlines,
 *
 *   uintptr_t arch_frame_pc(tf)      where execution resumes
 *   uintptr_t arch_frame_fp(tf)      its frame pointer
 *   uintptr_t arch_frame_sp(tf)      its stack pointer
 *   uintptr_t arch_frame_lr(tf)      its link register (0 where the arch
 *                                    has none)
 *   ARCH_STACK_RED_ZONE              bytes below a stack pointer that may
 *                                    be live (the ABI's red zone)
 */
#ifndef GMK_KERNEL_TRAP_H
#define GMK_KERNEL_TRAP_H

#include <stdint.h>

#include "trap_arch.h"

struct trapframe;

/* Arch: print every register of the frame (several lines, through printf). */
void arch_dump_frame(const struct trapframe *tf);

/*
 * Kernel: an exception nobody expected. `kind` names it ("data abort",
 * "page fault", "general protection", ...), `detail` may add the decoded
 * syndrome, `addr` is the faulting address (FAULT_NO_ADDR when the kind
 * has none: a divide error, an invalid opcode, a #GP).
 * Prints the core, kind, address, registers and a backtrace, stops every
 * core and exits with a failing status. Never returns.
 */
#define FAULT_NO_ADDR UINTPTR_MAX
__attribute__((noreturn)) void kernel_fault(struct trapframe *tf,
					    const char *kind,
					    const char *detail,
					    uintptr_t addr);

#endif
