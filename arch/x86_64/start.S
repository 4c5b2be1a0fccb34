/*
 * Boot entry. QEMU's -kernel (and GRUB's multiboot command) load the image
 * at its physical addresses and enter _start in 32-bit protected mode with
 * paging off, EAX = multiboot magic, EBX = multiboot info address.
 *
 * _start: clear BSS, identity-map the first 4 GiB with 2 MiB pages (enough
 * for the image, the multiboot data, ACPI tables and the local APIC until
 * paging.c builds the real tables), enable PAE, long mode with NX, paging
 * with write protection, SSE, and jump to 64-bit code, which sets up the
 * boot core's stack (cpu_stacks[0]), its per-core state (arch_cpu_init, so
 * that faults are reported from the first line of C) and calls
 * kmain(multiboot info).
 *
 * ap_start64: where trampoline.S lands each secondary core in long mode.
 */
#include "arch/x86_64/x86.h"
#include "kernel/layout.h"

#define MB_FLAG_ALIGN	0x1		/* modules page aligned */
#define MB_FLAG_MEMINFO	0x2		/* we want mem_* and the memory map */
#define MB_FLAGS	(MB_FLAG_ALIGN | MB_FLAG_MEMINFO)

#define PTE_P		0x1
#define PTE_W		0x2
#define PTE_PS		0x80		/* 2 MiB page in a page directory */
#define BOOT_PDS	4		/* page directories: 4 x 1 GiB */
#define PAGE_2M		0x200000

/* Multiboot 2 (GRUB's `multiboot2`, BIOS or UEFI): 8-byte aligned tags. */
#define MB2_HEADER_MAGIC	0xe85250d6
#define MB2_ARCH_I386		0
#define MB2_TAG_OPTIONAL	1
#define MB2_TAG_INFO_REQUEST	1
#define MB2_TAG_FRAMEBUFFER	5
#define FB_WIDTH		1024	/* a preference: the loader may pick */
#define FB_HEIGHT		768	/* another mode, or text mode */
#define FB_DEPTH		32

/* Both headers must lie early in the file: multiboot 1 within 8 KiB,
 * multiboot 2 within 32 KiB (they are first in the text). A loader looks
 * for its own magic only. */
	.section .text.multiboot, "a"
	.balign 4
multiboot_header:
	.long	MULTIBOOT_HEADER_MAGIC
	.long	MB_FLAGS
	.long	-(MULTIBOOT_HEADER_MAGIC + MB_FLAGS)

	.balign 8
multiboot2_header:
	.long	MB2_HEADER_MAGIC
	.long	MB2_ARCH_I386
	.long	multiboot2_end - multiboot2_header
	.long	-(MB2_HEADER_MAGIC + MB2_ARCH_I386 + (multiboot2_end - multiboot2_header))
	/* Ask for: command line, memory map, framebuffer, both ACPI RSDPs.
	 * Optional: a loader without one still boots us. */
	.balign 8
1:	.short	MB2_TAG_INFO_REQUEST, MB2_TAG_OPTIONAL
	.long	2f - 1b
	.long	1, 6, 8, 14, 15
2:	.balign 8
	.short	MB2_TAG_FRAMEBUFFER, MB2_TAG_OPTIONAL
	.long	20
	.long	FB_WIDTH, FB_HEIGHT, FB_DEPTH
	.balign 8
	.short	0, 0			/* end tag */
	.long	8
multiboot2_end:

	.section .text.boot, "ax"
	.code32
	.globl	_start
_start:
	cli
	cld
	movl	%eax, x86_boot_magic
	movl	%ebx, x86_boot_info

	/* BSS: the C code and the boot page tables below expect zeroes. */
	movl	$__bss_start, %edi
	movl	$__bss_end, %ecx
	subl	%edi, %ecx
	xorl	%eax, %eax
	rep stosb

	/* PML4[0] -> PDPT; PDPT[0..3] -> PD0..PD3; PDs map 0..4 GiB. */
	movl	$(boot_pdpt + PTE_P + PTE_W), boot_pml4
	movl	$boot_pdpt, %edi
	movl	$(boot_pd + PTE_P + PTE_W), %eax
	movl	$BOOT_PDS, %ecx
1:	movl	%eax, (%edi)
	addl	$4096, %eax
	addl	$8, %edi
	loop	1b
	movl	$boot_pd, %edi
	movl	$(PTE_P + PTE_W + PTE_PS), %eax
	movl	$(BOOT_PDS * 512), %ecx
2:	movl	%eax, (%edi)			/* high half stays 0 */
	addl	$PAGE_2M, %eax
	addl	$8, %edi
	loop	2b

	movl	$boot_pml4, %eax
	movl	%eax, %cr3
	x86_long_mode_on CR0_PE|CR0_MP|CR0_WP|CR0_PG	/* compatibility submode */
	lgdt	boot_gdt_ptr
	ljmp	$SEL_KCODE, $start64

	.code64
start64:
	movw	$SEL_KDATA, %ax
	movw	%ax, %ds
	movw	%ax, %es
	movw	%ax, %ss
	xorl	%eax, %eax
	movw	%ax, %fs
	movw	%ax, %gs
	leaq	cpu_stacks + KSTACK_SIZE(%rip), %rsp
	xorl	%ebp, %ebp			/* ends backtraces */
	leaq	cpus(%rip), %rdi
	call	arch_cpu_init			/* GDT, IDT, GS = &cpus[0] */
	movl	x86_boot_info(%rip), %edi	/* zero-extended */
	call	kmain
3:	cli
	hlt
	jmp	3b

/*
 * Secondary cores, from trampoline.S, in long mode on the kernel's page
 * tables, with %rdi = their struct cpu. GS must point at it before any C
 * runs (this_cpu(), __getreent()); x86_ap_started tells smp.c the core got
 * this far.
 */
	.globl	ap_start64
ap_start64:
	movq	CPU_STACK_TOP(%rdi), %rsp
	xorl	%ebp, %ebp
	movq	%rdi, CPU_SELF(%rdi)
	movl	$MSR_GS_BASE, %ecx
	movl	%edi, %eax
	movq	%rdi, %rdx
	shrq	$32, %rdx
	wrmsr
	movl	CPU_ID(%rdi), %eax
	movl	%eax, x86_ap_started(%rip)
	call	cpu_start
4:	cli
	hlt
	jmp	4b

	.section .rodata
	.balign 8
boot_gdt:
	.quad	0
	.quad	0x00af9a000000ffff		/* SEL_KCODE: 64-bit code */
	.quad	0x00cf92000000ffff		/* SEL_KDATA */
boot_gdt_ptr:
	.word	3 * 8 - 1
	.quad	boot_gdt

	.data
	.balign 4
	.globl	x86_boot_magic, x86_boot_info, x86_ap_started
x86_boot_magic:	.long 0
x86_boot_info:	.long 0
x86_ap_started:	.long 0

	.bss
	.balign 4096
boot_pml4:	.skip 4096
boot_pdpt:	.skip 4096
boot_pd:	.skip 4096 * BOOT_PDS
