/*
 * Entry points: _start on the boot core (from the loader), secondary_entry
 * on every other core (from PSCI CPU_ON). Both may arrive at EL2 or EL1
 * with the MMU off; both leave for C at EL1, on SP_EL0 (EL1t), with the
 * MMU and caches on, FP/SIMD enabled and SP_EL1 set to the core's
 * exception stack.
 *
 *   _start:          x0 = DTB address, or something else (0 from QEMU
 *                    -kernel with an ELF, ATAGs at 0x100 from QEMU's
 *                    raspi3b without -dtb): boot_dtb (mmu.c) finds one
 *   secondary_entry: x0 = struct cpu * (PSCI context argument, or
 *                    spin_table_entry in boards/platform/arm64-dt)
 */
#include "kernel/layout.h"

#define CURRENTEL_EL2		(2 << 2)
#define HCR_EL2_RW		(1 << 31)	/* EL1 is AArch64 */
#define CNTHCTL_EL1PCTEN	(1 << 0)	/* EL1 may read the physical count */
#define CNTHCTL_EL1PCEN		(1 << 1)	/* and use the physical timer */
#define CPTR_EL2_RES1		0x33ff		/* no FP/SIMD traps to EL2 */
#define SPSR_EL1H_MASKED	0x3c5		/* EL1h, D A I F masked */
#define ICC_SRE_EL2_VALUE	0xf		/* SRE, DFB, DIB, Enable (EL1 may use SRE) */
#define SCTLR_EL1_MMU_OFF	0x30d00800	/* RES1 bits only: MMU, caches off */
#define CPACR_FPEN		(3 << 20)	/* no FP/SIMD traps at EL1/EL0 */

/* x = address of sym (PC-relative, +-4 GiB) */
.macro adr_l reg, sym
	adrp	\reg, \sym
	add	\reg, \reg, :lo12:\sym
.endm

/*
 * If we are at EL2, configure it to stay out of the way and drop to EL1h.
 * (EL3 entry, QEMU's secure=on, is not supported.) Clobbers x9.
 */
.macro drop_to_el1
	mrs	x9, CurrentEL
	cmp	x9, #CURRENTEL_EL2
	b.ne	1f
	mov	x9, #HCR_EL2_RW
	msr	hcr_el2, x9
	mov	x9, #(CNTHCTL_EL1PCTEN | CNTHCTL_EL1PCEN)
	msr	cnthctl_el2, x9
	msr	cntvoff_el2, xzr		/* virtual count = physical count */
	mov	x9, #CPTR_EL2_RES1
	msr	cptr_el2, x9
	msr	hstr_el2, xzr
	msr	vttbr_el2, xzr
	mrs	x9, midr_el1			/* EL1 sees the real ids */
	msr	vpidr_el2, x9
	mrs	x9, mpidr_el1
	msr	vmpidr_el2, x9
	/* GICv3 system registers: without SRE_EL2.Enable EL1 cannot turn
	 * on its own system-register interface. */
	mrs	x9, id_aa64pfr0_el1
	ubfx	x9, x9, #24, #4
	cbz	x9, 2f
	mov	x9, #ICC_SRE_EL2_VALUE
	msr	S3_4_C12_C9_5, x9		/* ICC_SRE_EL2 */
	isb
2:	ldr	x9, =SCTLR_EL1_MMU_OFF
	msr	sctlr_el1, x9
	mov	x9, #SPSR_EL1H_MASKED
	msr	spsr_el2, x9
	adr	x9, 1f
	msr	elr_el2, x9
	eret
1:
.endm

/* Per-core EL1 state that must exist before any C runs. Clobbers x9. */
.macro el1_basics
	mov	x9, #CPACR_FPEN
	msr	cpacr_el1, x9			/* C may use FP/SIMD registers */
	adr_l	x9, vectors
	msr	vbar_el1, x9
	isb
.endm

/*
 * The arm64 Linux image header (Documentation/arm64/booting.rst), so that a
 * raw binary (objcopy -O binary) is loaded 2 MiB into RAM by QEMU or
 * U-Boot's booti, exactly where it is linked, with the DTB in x0. As an
 * ELF the header is just a branch over 64 bytes.
 */
#define IMAGE_TEXT_OFFSET	0x200000	/* LOAD_ADDR - RAM start */
#define IMAGE_FLAGS_4K		(1 << 1)	/* little-endian, 4 KiB pages */
#define IMAGE_MAGIC		0x644d5241	/* "ARM\x64" */

	.section .text.boot, "ax"
	.global _start
_start:
	b	boot_entry			/* code0 */
	.long	0				/* code1 */
	.quad	IMAGE_TEXT_OFFSET
	.quad	_image_size			/* bss included (linker script) */
	.quad	IMAGE_FLAGS_4K
	.quad	0, 0, 0				/* reserved */
	.long	IMAGE_MAGIC
	.long	0				/* reserved (PE header offset) */

boot_entry:
	msr	daifset, #0xf
	mov	x19, x0				/* DTB (callee-saved across C) */
	drop_to_el1
	el1_basics

	/* Stacks: exceptions on SP_EL1, everything else on SP_EL0. */
	msr	spsel, #1
	adr_l	x9, irq_stacks
	add	x9, x9, #IRQ_STACK_SIZE
	mov	sp, x9
	msr	spsel, #0
	adr_l	x9, cpu_stacks
	add	x9, x9, #KSTACK_SIZE
	mov	sp, x9

	/* Clear BSS, with the cache off: first drop any stale lines, whose
	 * eviction could otherwise overwrite the zeros. */
	adr_l	x0, _bss_start
	adr_l	x1, _bss_end
	mrs	x2, ctr_el0
	ubfx	x2, x2, #16, #4			/* DminLine: log2(words) */
	mov	x3, #4
	lsl	x2, x3, x2			/* line size in bytes */
	sub	x3, x2, #1
	bic	x3, x0, x3
1:	dc	ivac, x3
	add	x3, x3, x2
	cmp	x3, x1
	b.lo	1b
	dsb	sy
2:	cmp	x0, x1				/* bss is 16-byte aligned and sized */
	b.hs	3f
	stp	xzr, xzr, [x0], #16
	b	2b
3:
	mov	x0, x19
	bl	boot_dtb			/* x0, or another: see mmu.c */
	mov	x19, x0
	mov	x0, x19
	bl	mmu_boot_setup			/* C with the MMU off: see mmu.c */
	bl	mmu_enable_this_cpu

	adr_l	x9, cpus			/* cpus[0] until arch_cpu_init */
	msr	tpidr_el1, x9
	msr	tpidrro_el0, xzr		/* no G yet */
	mov	x0, #0
	bl	tls_boot_setup			/* errno & co for this core */
	mov	x0, x19
	bl	kmain
5:	wfe
	b	5b

/*
 * Secondary cores, from PSCI CPU_ON with x0 = struct cpu *. The struct is
 * read only after the MMU is on: the boot core wrote it with the cache
 * on, and a read with the cache off could miss those writes.
 */
	.global secondary_entry
secondary_entry:
	msr	daifset, #0xf
	mov	x19, x0
	drop_to_el1
	el1_basics
	bl	mmu_enable_this_cpu
	msr	spsel, #1
	ldr	x9, [x19, #CPU_IRQ_STACK_TOP]
	mov	sp, x9
	msr	spsel, #0
	ldr	x9, [x19, #CPU_STACK_TOP]
	mov	sp, x9
	msr	tpidr_el1, x19
	msr	tpidrro_el0, xzr
	ldr	w0, [x19, #CPU_ID]
	bl	tls_boot_setup
	mov	x0, x19
	bl	cpu_start
6:	wfe
	b	6b

/*
 * Turn the MMU on with the tables and settings mmu_boot_setup left in
 * mmu_regs. Uses no stack (it runs before this core has a usable one on
 * the secondary path). Clobbers x9-x12.
 */
	.global mmu_enable_this_cpu
mmu_enable_this_cpu:
	adr_l	x9, mmu_regs
	ldp	x10, x11, [x9]			/* mair, tcr */
	ldp	x12, x9, [x9, #16]		/* ttbr0, sctlr */
	msr	mair_el1, x10
	msr	tcr_el1, x11
	msr	ttbr0_el1, x12
	isb
	tlbi	vmalle1				/* nothing from firmware survives */
	dsb	nsh
	isb
	ic	iallu
	dsb	nsh
	isb
	msr	sctlr_el1, x9
	isb
	ret

	.ltorg
