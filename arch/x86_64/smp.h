/* Secondary-core start-up (smp.c). */
#ifndef GMK_ARCH_X86_64_SMP_H
#define GMK_ARCH_X86_64_SMP_H

#include <stdbool.h>

struct cpu;

/* Start core c (local APIC id c->hwid) through the trampoline; returns once
 * it runs kernel code, or false (with a message) after a timeout. */
bool x86_start_ap(struct cpu *c);

#endif
