/* Per-core GDT, TSS and IST stacks (gdt.c); the IDT (idt.c). */
#ifndef GMK_ARCH_X86_64_GDT_H
#define GMK_ARCH_X86_64_GDT_H

#include <stdbool.h>
#include <stdint.h>

struct cpu;

/* Interrupt stack table slots (1-based, as in an IDT gate). */
#define IST_IRQ	1	/* device interrupts: the core's irq_stack_top */
#define IST_DF	2	/* double fault */
#define IST_NMI	3
#define IST_MC	4	/* machine check */

void gdt_init_cpu(struct cpu *c);

void idt_init(void);		/* once, on the boot core */
void idt_load(void);		/* every core */

#endif
