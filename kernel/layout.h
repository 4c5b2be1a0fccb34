/*
 * Sizes and struct offsets that assembly needs too. Kept in one place and
 * checked against the C structs with _Static_assert in kernel/main.c.
 */
#ifndef GMK_KERNEL_LAYOUT_H
#define GMK_KERNEL_LAYOUT_H

#define KSTACK_SIZE	(32 * 1024)	/* per-core boot stack, later its g0 stack */
#define IRQ_STACK_SIZE	(16 * 1024)	/* per-core exception/interrupt stack */

/* struct cpu (kernel/percpu.h) */
#define CPU_SELF		0
#define CPU_CURG		8
#define CPU_ID			16
#define CPU_HWID		20
#define CPU_STACK_TOP		24
#define CPU_IRQ_STACK_TOP	32
#define CPU_LIBC_TLS		40
#define CPU_PREEMPT_OFF		108

#ifndef __ASSEMBLY__
#include <stdint.h>
/* kernel/main.c: every core's stacks. Core 0's is set up by the arch entry
 * before any C runs: sp = cpu_stacks[0] + KSTACK_SIZE. */
extern uint8_t cpu_stacks[][KSTACK_SIZE];
extern uint8_t irq_stacks[][IRQ_STACK_SIZE];
#endif

#endif
