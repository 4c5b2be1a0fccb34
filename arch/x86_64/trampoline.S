/*
 * Secondary-core trampoline. smp.c copies trampoline_start..trampoline_end
 * to TRAMPOLINE_BASE (below 1 MiB), fills tramp_cr3 and tramp_cpu, and
 * sends INIT-SIPI-SIPI with vector TRAMPOLINE_BASE >> 12: the core starts
 * here in real mode at CS:IP = (TRAMPOLINE_BASE >> 4):0. It goes to 32-bit
 * protected mode, turns on PAE, NX, long mode and paging on the kernel's
 * own page tables (the trampoline page is mapped executable there), and
 * jumps to ap_start64 (start.S) with %rdi = its struct cpu.
 *
 * The code runs at TRAMPOLINE_BASE, not where it was linked: every address
 * in it goes through TADDR(). It is never executed in place.
 */
#include "arch/x86_64/x86.h"

#define TADDR(sym)	(TRAMPOLINE_BASE + (sym) - trampoline_start)

/* Selectors of the trampoline's own GDT. */
#define T_CODE32	0x08
#define T_DATA		0x10
#define T_CODE64	0x18

	.section .rodata.trampoline, "a"
	.balign 16
	.globl	trampoline_start, trampoline_end, tramp_cr3, tramp_cpu

	.code16
trampoline_start:
	cli
	cld
	xorw	%ax, %ax
	movw	%ax, %ds
	lgdtl	TADDR(tramp_gdt_ptr)
	movl	%cr0, %eax
	orl	$CR0_PE, %eax
	movl	%eax, %cr0
	ljmpl	$T_CODE32, $TADDR(tramp32)

	.code32
tramp32:
	movw	$T_DATA, %ax
	movw	%ax, %ds
	movw	%ax, %es
	movw	%ax, %ss
	movl	TADDR(tramp_cr3), %eax
	movl	%eax, %cr3
	x86_long_mode_on CR0_MP|CR0_WP|CR0_PG
	ljmp	$T_CODE64, $TADDR(tramp64)

	.code64
tramp64:
	movw	$T_DATA, %ax
	movw	%ax, %ds
	movw	%ax, %es
	movw	%ax, %ss
	movq	TADDR(tramp_cpu), %rdi
	movabsq	$ap_start64, %rax
	jmp	*%rax

	.balign 8
tramp_gdt:
	.quad	0
	.quad	0x00cf9a000000ffff		/* T_CODE32 */
	.quad	0x00cf92000000ffff		/* T_DATA */
	.quad	0x00af9a000000ffff		/* T_CODE64 */
tramp_gdt_ptr:
	.word	4 * 8 - 1
	.long	TADDR(tramp_gdt)
	.balign 8
tramp_cpu:	.quad 0			/* struct cpu * of the core starting */
tramp_cr3:	.long 0			/* the kernel's PML4 (below 4 GiB) */
trampoline_end:
