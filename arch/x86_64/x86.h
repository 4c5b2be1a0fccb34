/*
 * x86-64 architectural constants and privileged-instruction wrappers used
 * by arch/x86_64 and the x86 boards. C and assembly share the constants.
 */
#ifndef GMK_ARCH_X86_64_X86_H
#define GMK_ARCH_X86_64_X86_H

/* Control registers (plain hex: these are shared with assembly). */
#define CR0_PE		0x00000001	/* protected mode */
#define CR0_MP		0x00000002	/* WAIT/FWAIT honour TS */
#define CR0_EM		0x00000004	/* x87 emulation: must be clear for SSE */
#define CR0_WP		0x00010000	/* read-only pages apply to ring 0 too */
#define CR0_PG		0x80000000
#define CR4_PAE		0x00000020
#define CR4_OSFXSR	0x00000200	/* FXSAVE/FXRSTOR and SSE enabled */
#define CR4_OSXMMEXCPT	0x00000400	/* SIMD FP exceptions as #XM, not #UD */

/* Model-specific registers. */
#define MSR_APIC_BASE	0x1b
#define MSR_TSC_DEADLINE 0x6e0
#define MSR_EFER	0xc0000080
#define MSR_GS_BASE	0xc0000101
#define EFER_LME	0x00000100	/* long mode enable */
#define EFER_NXE	0x00000800	/* the NX bit in page tables */

#define RFLAGS_IF	0x00000200	/* interrupts enabled */

/* Segment selectors of the kernel's GDT (gdt.c, start.S, trampoline.S). */
#define SEL_KCODE	0x08
#define SEL_KDATA	0x10
#define SEL_TSS		0x18

/* Where the AP trampoline is copied: below 1 MiB, page aligned, and a
 * SIPI vector is its page number. */
#define TRAMPOLINE_BASE	0x8000

/* Power-on defaults (Intel SDM vol. 1, 10.2.3.1 and 8.1.5): all SIMD FP
 * exceptions masked, round to nearest; x87 double-extended precision.
 * Every G and the scheduler run with them (gobuf_arch.h says why). */
#define X86_MXCSR_DEFAULT	0x1f80
#define X86_FPUCW_DEFAULT	0x037f

/* Multiboot 1 */
#define MULTIBOOT_HEADER_MAGIC	0x1badb002
#define MULTIBOOT_BOOT_MAGIC	0x2badb002

#ifdef __ASSEMBLY__
/*
 * From 32-bit protected mode with paging off and CR3 already holding the
 * PML4: PAE and SSE on, long mode and NX in EFER, then paging on with
 * CR0 |= cr0 (x87 emulation off). The caller's far jump to a 64-bit code
 * segment comes next. The boot core (start.S) and the APs
 * (trampoline.S) both enter long mode so. Clobbers eax, ecx, edx.
 */
.macro x86_long_mode_on cr0
	movl	%cr4, %eax
	orl	$(CR4_PAE | CR4_OSFXSR | CR4_OSXMMEXCPT), %eax
	movl	%eax, %cr4
	movl	$MSR_EFER, %ecx
	rdmsr
	orl	$(EFER_LME | EFER_NXE), %eax
	wrmsr
	movl	%cr0, %eax
	andl	$~CR0_EM, %eax
	orl	$(\cr0), %eax
	movl	%eax, %cr0
.endm
#else
#include <stdint.h>

static inline uint64_t rdmsr(uint32_t msr)
{
	uint32_t lo, hi;

	asm volatile("rdmsr" : "=a"(lo), "=d"(hi) : "c"(msr));
	return ((uint64_t)hi << 32) | lo;
}

static inline void wrmsr(uint32_t msr, uint64_t v)
{
	asm volatile("wrmsr" : : "c"(msr), "a"((uint32_t)v),
		     "d"((uint32_t)(v >> 32)) : "memory");
}

static inline void cpuid(uint32_t leaf, uint32_t sub, uint32_t r[4])
{
	asm volatile("cpuid"
		     : "=a"(r[0]), "=b"(r[1]), "=c"(r[2]), "=d"(r[3])
		     : "a"(leaf), "c"(sub));
}

/* Control registers: read_cr0, write_cr0, read_cr2, read_cr3, write_cr3,
 * read_cr4, write_cr4. */
#define X86_CR_READ(n)							\
	static inline uint64_t read_cr##n(void)				\
	{								\
		uint64_t v;						\
		asm volatile("mov %%cr" #n ", %0" : "=r"(v));		\
		return v;						\
	}
#define X86_CR_WRITE(n)							\
	static inline void write_cr##n(uint64_t v)			\
	{								\
		asm volatile("mov %0, %%cr" #n : : "r"(v) : "memory");	\
	}
X86_CR_READ(0)
X86_CR_WRITE(0)
X86_CR_READ(2)
X86_CR_READ(3)
X86_CR_WRITE(3)
X86_CR_READ(4)
X86_CR_WRITE(4)
#undef X86_CR_READ
#undef X86_CR_WRITE

/*
 * The TSC. rdtsc may execute before earlier instructions finish; lfence
 * makes it wait for them, so a reading taken after some work really is
 * later than the work (time stamps and timeouts, not cycle counting).
 */
static inline uint64_t x86_rdtsc_ordered(void)
{
	uint32_t lo, hi;

	asm volatile("lfence; rdtsc" : "=a"(lo), "=d"(hi) : : "memory");
	return ((uint64_t)hi << 32) | lo;
}

static inline void invlpg(uintptr_t va)
{
	asm volatile("invlpg (%0)" : : "r"(va) : "memory");
}

#endif

#endif
