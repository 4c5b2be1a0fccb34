/*
 * The two 8259 PICs of a PC-compatible machine. gmk takes interrupts from
 * the local APIC only, so the PICs are masked; they are first moved off
 * the BIOS's vectors 0x08-0x0f (which are CPU exceptions in protected
 * mode) so that a spurious PIC interrupt cannot pose as a double fault.
 */
#include <stdint.h>

#include "arch/x86_64/io.h"
#include "boards/platform/pc/pic.h"

#define PIC1_CMD	0x20
#define PIC1_DATA	0x21
#define PIC2_CMD	0xa0
#define PIC2_DATA	0xa1
#define ICW1_INIT	0x11	/* edge, cascade, ICW4 follows */
#define ICW3_SLAVE_AT_IRQ2 0x04
#define ICW3_SLAVE_ID	0x02
#define ICW4_8086	0x01
#define MASK_ALL	0xff

void pic_disable(uint8_t vector_base)
{
	outb(PIC1_CMD, ICW1_INIT);
	outb(PIC2_CMD, ICW1_INIT);
	outb(PIC1_DATA, vector_base);
	outb(PIC2_DATA, vector_base + 8);
	outb(PIC1_DATA, ICW3_SLAVE_AT_IRQ2);
	outb(PIC2_DATA, ICW3_SLAVE_ID);
	outb(PIC1_DATA, ICW4_8086);
	outb(PIC2_DATA, ICW4_8086);
	outb(PIC1_DATA, MASK_ALL);
	outb(PIC2_DATA, MASK_ALL);
}
