/*
 * The Arm generic timer, virtual view (CNTV): a per-core comparator on the
 * virtual count CNTVCT_EL0, which is what arch_counter() reads. One-shot
 * use: the comparator fires once the count reaches CVAL and keeps its
 * (level-triggered) interrupt asserted until it is re-armed or disabled,
 * so the board disables it before handing the tick to the kernel.
 *
 * CNTV rather than CNTP: EL1 may always use it (CNTP needs EL2's
 * CNTHCTL_EL2.EL1PCEN), and with CNTVOFF_EL2 = 0, which start.S sets when
 * it owns EL2, virtual and physical counts are equal.
 */
#ifndef GMK_ARCH_AARCH64_TIMER_H
#define GMK_ARCH_AARCH64_TIMER_H

#include <stdint.h>

#define CNTV_CTL_ENABLE		(1u << 0)
#define CNTV_CTL_IMASK		(1u << 1)
#define CNTV_CTL_ISTATUS	(1u << 2)

/* Counter frequency in Hz, as firmware (or QEMU) programmed CNTFRQ_EL0. */
static inline uint64_t gtimer_freq(void)
{
	uint64_t f;

	asm volatile("mrs %0, cntfrq_el0" : "=r"(f));
	return f & 0xffffffffu;
}

/* Fire once when CNTVCT_EL0 >= deadline. */
static inline void gtimer_arm(uint64_t deadline)
{
	asm volatile("msr cntv_cval_el0, %0\n\t"
		     "msr cntv_ctl_el0, %1\n\t"
		     "isb"
		     : : "r"(deadline), "r"((uint64_t)CNTV_CTL_ENABLE) : "memory");
}

/* Disabled: no interrupt, and a pending one is withdrawn. */
static inline void gtimer_disarm(void)
{
	asm volatile("msr cntv_ctl_el0, xzr\n\tisb" : : : "memory");
}

#endif
