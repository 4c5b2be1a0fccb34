/*
 * x86 port I/O, for the drivers of devices that live in I/O space (16550,
 * PIT, 8259, isa-debug-exit, ACPI PM1 registers).
 */
#ifndef GMK_ARCH_X86_64_IO_H
#define GMK_ARCH_X86_64_IO_H

#include <stdint.h>

/* outb/inb, outw/inw, outl/inl: sfx is the instruction's operand size. */
#define X86_PORT_IO(sfx, T)						\
	static inline void out##sfx(uint16_t port, T v)			\
	{								\
		asm volatile("out" #sfx " %0, %1" : : "a"(v), "Nd"(port) : "memory"); \
	}								\
	static inline T in##sfx(uint16_t port)				\
	{								\
		T v;							\
		asm volatile("in" #sfx " %1, %0" : "=a"(v) : "Nd"(port) : "memory"); \
		return v;						\
	}
X86_PORT_IO(b, uint8_t)
X86_PORT_IO(w, uint16_t)
X86_PORT_IO(l, uint32_t)
#undef X86_PORT_IO

#endif
