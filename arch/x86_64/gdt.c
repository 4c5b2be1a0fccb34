/*
 * Per-core GDT and TSS. In long mode segments are flat; the GDT is only
 * there for the code segment's L bit and for the TSS descriptor, and the
 * TSS only for its IST stack pointers: the stacks the CPU switches to for
 * the vectors the IDT marks (idt.c):
 *   IST1  device interrupts: the core's irq_stack_top (kernel/layout.h)
 *   IST2  #DF: a kernel stack overflow ends here, so it needs its own stack
 *   IST3  NMI, IST4 #MC: may arrive at any instruction, even mid-switch
 * Each core has its own TSS (the busy bit and IST pointers are per core),
 * hence its own GDT.
 */
#include <stdint.h>
#include <string.h>

#include "arch/x86_64/gdt.h"
#include "arch/x86_64/x86.h"
#include "kernel/layout.h"
#include "kernel/percpu.h"

#define DF_STACK_SIZE	(16 * 1024)	/* #DF calls kernel_fault: printf */
#define NMI_STACK_SIZE	(8 * 1024)
#define MC_STACK_SIZE	(8 * 1024)

struct tss {
	uint32_t reserved0;
	uint64_t rsp[3];		/* ring 0-2 stacks: unused (ring 0 only) */
	uint64_t reserved1;
	uint64_t ist[7];		/* ist[0] is IST1 */
	uint64_t reserved2;
	uint16_t reserved3;
	uint16_t iomap_base;
} __attribute__((packed));

_Static_assert(sizeof(struct tss) == 104, "TSS layout");

/* GDT slots: null, kernel code, kernel data, TSS (two slots). */
#define GDT_ENTRIES 5

#define GDT_KCODE64 0x00af9a000000ffffull	/* P, DPL0, code, L=1 */
#define GDT_KDATA   0x00cf92000000ffffull	/* P, DPL0, data, writable */
#define TSS_TYPE_AVAILABLE 0x89ull		/* P, 64-bit TSS, available */

struct x86_cpu {
	uint64_t gdt[GDT_ENTRIES];
	struct tss tss;
	uint8_t df_stack[DF_STACK_SIZE] __attribute__((aligned(16)));
	uint8_t nmi_stack[NMI_STACK_SIZE] __attribute__((aligned(16)));
	uint8_t mc_stack[MC_STACK_SIZE] __attribute__((aligned(16)));
};

static struct x86_cpu x86_cpus[MAX_CPUS] __attribute__((aligned(4096)));

struct descriptor_ptr {
	uint16_t limit;
	uint64_t base;
} __attribute__((packed));

static uint64_t tss_desc_low(uintptr_t base, uint32_t limit)
{
	return (limit & 0xffffull) | ((base & 0xffffffull) << 16) |
	       (TSS_TYPE_AVAILABLE << 40) | (((uint64_t)limit >> 16 & 0xf) << 48) |
	       ((base >> 24 & 0xffull) << 56);
}

/* Load the GDT, reload every segment register, then the task register. */
static void gdt_load(struct x86_cpu *xc)
{
	struct descriptor_ptr p = { sizeof xc->gdt - 1, (uintptr_t)xc->gdt };

	asm volatile("lgdt %0" : : "m"(p));
	/* CS can only be reloaded by a far transfer: return to the next
	 * instruction through lretq with the new selector. */
	asm volatile("pushq %0\n\t"
		     "leaq 1f(%%rip), %%rax\n\t"
		     "pushq %%rax\n\t"
		     "lretq\n"
		     "1:"
		     : : "i"(SEL_KCODE) : "rax", "memory");
	/* Loading GS or FS with a selector clears its base: callers set the
	 * GS base (arch_set_this_cpu) after this. */
	asm volatile("movw %w0, %%ds\n\t"
		     "movw %w0, %%es\n\t"
		     "movw %w0, %%ss\n\t"
		     "movw %w1, %%fs\n\t"
		     "movw %w1, %%gs"
		     : : "r"(SEL_KDATA), "r"(0) : "memory");
	asm volatile("ltr %w0" : : "r"(SEL_TSS) : "memory");
}

void gdt_init_cpu(struct cpu *c)
{
	struct x86_cpu *xc = &x86_cpus[c->id];
	uintptr_t irq_top = c->irq_stack_top;

	if (!irq_top)		/* kmain normally sets it; be safe */
		irq_top = (uintptr_t)irq_stacks[c->id] + IRQ_STACK_SIZE;

	memset(&xc->tss, 0, sizeof xc->tss);
	xc->tss.ist[IST_IRQ - 1] = irq_top;
	xc->tss.ist[IST_DF - 1] = (uintptr_t)xc->df_stack + DF_STACK_SIZE;
	xc->tss.ist[IST_NMI - 1] = (uintptr_t)xc->nmi_stack + NMI_STACK_SIZE;
	xc->tss.ist[IST_MC - 1] = (uintptr_t)xc->mc_stack + MC_STACK_SIZE;
	xc->tss.iomap_base = sizeof xc->tss;	/* no I/O bitmap */

	uintptr_t tss = (uintptr_t)&xc->tss;
	xc->gdt[0] = 0;
	xc->gdt[SEL_KCODE / 8] = GDT_KCODE64;
	xc->gdt[SEL_KDATA / 8] = GDT_KDATA;
	xc->gdt[SEL_TSS / 8] = tss_desc_low(tss, sizeof xc->tss - 1);
	xc->gdt[SEL_TSS / 8 + 1] = tss >> 32;
	c->arch = xc;
	gdt_load(xc);
}
