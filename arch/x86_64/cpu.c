/*
 * Per-core CPU set-up (arch_cpu_init, declared in cpu.h).
 */
#include <stdint.h>

#include "arch/x86_64/gdt.h"
#include "arch/x86_64/x86.h"
#include "kernel/percpu.h"

/*
 * SSE: the compiler and newlib use xmm registers anywhere, and interrupt
 * entry saves them with FXSAVE, so SSE must be on before any C runs. The
 * entry code (start.S, trampoline.S) already did it; this is idempotent and
 * also resets the x87/SSE control state to the ABI's defaults.
 */
static void sse_enable(void)
{
	uint32_t mxcsr = X86_MXCSR_DEFAULT;

	write_cr0((read_cr0() & ~(uint64_t)CR0_EM) | CR0_MP | CR0_WP);
	write_cr4(read_cr4() | CR4_OSFXSR | CR4_OSXMMEXCPT);
	asm volatile("fninit; ldmxcsr %0" : : "m"(mxcsr));
}

void arch_cpu_init(struct cpu *c)
{
	static int idt_ready;

	if (!idt_ready) {	/* the boot core comes first, alone */
		idt_init();
		idt_ready = 1;
	}
	sse_enable();
	wrmsr(MSR_EFER, rdmsr(MSR_EFER) | EFER_NXE);
	gdt_init_cpu(c);	/* clears the GS base: set it after */
	arch_set_this_cpu(c);
	idt_load();
}
