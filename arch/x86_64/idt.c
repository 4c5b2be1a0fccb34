/*
 * The IDT, shared by every core: a gate for each of the 256 vectors to its
 * isr.S stub. All are interrupt gates (IF cleared on entry), ring 0 only.
 * Device interrupts (vector >= 32) switch to IST1, the core's interrupt
 * stack; #DF, NMI and #MC to their own IST stacks (gdt.c). The other
 * exceptions stay on the current stack, so a page fault inside an interrupt
 * handler nests on the interrupt stack and reports normally.
 */
#include <stdint.h>

#include "arch/x86_64/gdt.h"
#include "arch/x86_64/x86.h"

#define IDT_VECTORS	256
#define FIRST_IRQ	32
#define VEC_NMI		2
#define VEC_DF		8
#define VEC_MC		18
#define GATE_INTERRUPT	0x8e	/* present, DPL 0, 64-bit interrupt gate */

struct idt_gate {
	uint16_t offset_lo;
	uint16_t selector;
	uint8_t ist;
	uint8_t type;
	uint16_t offset_mid;
	uint32_t offset_hi;
	uint32_t reserved;
} __attribute__((packed));

_Static_assert(sizeof(struct idt_gate) == 16, "IDT gate layout");

static struct idt_gate idt[IDT_VECTORS] __attribute__((aligned(16)));
extern const uint64_t isr_stub_table[IDT_VECTORS];	/* isr.S */

static uint8_t ist_for(unsigned vec)
{
	if (vec >= FIRST_IRQ)
		return IST_IRQ;
	switch (vec) {
	case VEC_DF:  return IST_DF;
	case VEC_NMI: return IST_NMI;
	case VEC_MC:  return IST_MC;
	default:      return 0;
	}
}

void idt_init(void)
{
	for (unsigned v = 0; v < IDT_VECTORS; v++) {
		uint64_t a = isr_stub_table[v];

		idt[v] = (struct idt_gate){
			.offset_lo = a & 0xffff,
			.selector = SEL_KCODE,
			.ist = ist_for(v),
			.type = GATE_INTERRUPT,
			.offset_mid = (a >> 16) & 0xffff,
			.offset_hi = a >> 32,
		};
	}
}

void idt_load(void)
{
	struct {
		uint16_t limit;
		uint64_t base;
	} __attribute__((packed)) p = { sizeof idt - 1, (uintptr_t)idt };

	asm volatile("lidt %0" : : "m"(p));
}
