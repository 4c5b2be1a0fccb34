/* TEMPORARY until sched/ lands: run the main G's work on the boot core. */
#include "kernel/cpu.h"
#include "kernel/kernel.h"
__attribute__((weak, noreturn)) void sched_main(bool boot_core)
{
	if (boot_core) {
		smp_release_cores();
		kernel_main_g(0);
	}
	for (;;) {
		arch_irq_disable();
		arch_wait_for_interrupt();
		arch_irq_enable();
	}
}
