/*
 * Exceptions and interrupts as the kernel sees them. Each arch defines
 * struct trapframe (the full register state saved at entry, FP/SIMD
 * included) in its trap_arch.h (arch/<arch>/) and these accessors.
 */
#ifndef GMK_KERNEL_TRAP_H
#define GMK_KERNEL_TRAP_H

#include <stdint.h>

#include "trap_arch.h"

struct trapframe;

/* Arch: print every register of the frame (several lines, through printf). */
void arch_dump_frame(const struct trapframe *tf);
/* Arch: where execution resumes, and its frame pointer / stack pointer. */
uintptr_t arch_frame_pc(const struct trapframe *tf);
uintptr_t arch_frame_fp(const struct trapframe *tf);
uintptr_t arch_frame_sp(const struct trapframe *tf);
/* Arch: make the frame resume in fn(arg) on stack sp when it returns. */
void arch_frame_redirect(struct trapframe *tf, void (*fn)(void *), void *arg,
			 uintptr_t sp);

/*
 * Kernel: an exception nobody expected. `kind` names it ("data abort",
 * "page fault", "general protection", ...), `detail` may add the decoded
 * syndrome, `addr` is the faulting address (or 0 when the kind has none).
 * Prints the core, kind, address, registers and a backtrace, stops every
 * core and exits with a failing status. Never returns.
 */
__attribute__((noreturn)) void kernel_fault(struct trapframe *tf,
					    const char *kind,
					    const char *detail,
					    uintptr_t addr);

#endif
