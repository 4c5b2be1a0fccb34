/*
 * Local APIC (xAPIC through MMIO or x2APIC through MSRs, chosen once from
 * CPUID) and its timer, which counts down for the kernel's one-shot tick.
 */
#ifndef GMK_ARCH_X86_64_LAPIC_H
#define GMK_ARCH_X86_64_LAPIC_H

#include <stdbool.h>
#include <stdint.h>

/* Interrupt vectors. 0x20-0x2f are the remapped (and masked) 8259s. */
#define VEC_PIC_BASE		0x20
#define VEC_PIC_END		0x30
#define VEC_TIMER		0x40
#define VEC_IPI			0x41
#define VEC_SPURIOUS		0xff

/* Boot core, once, before lapic_cpu_init: choose the mode, enable this
 * core's APIC and calibrate its timer against the TSC (tsc_hz). */
void lapic_init(uint64_t mmio_base, uint64_t tsc_hz);
/* Every core, on itself: enable, spurious vector, timer vector unmasked
 * but not running. */
void lapic_cpu_init(void);

uint32_t lapic_id(void);
void lapic_eoi(void);
void lapic_send_ipi(uint32_t apic_id, uint8_t vector);
void lapic_send_init(uint32_t apic_id);
void lapic_send_sipi(uint32_t apic_id, uint8_t page);

/* One-shot timer at an absolute TSC value; 0 disarms. */
void lapic_timer_arm(uint64_t tsc_deadline);

bool lapic_x2apic(void);
bool lapic_tsc_deadline(void);
uint64_t lapic_timer_hz(void);

#endif
