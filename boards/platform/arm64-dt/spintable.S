/*
 * Where a core released from its spin table lands (platform.c,
 * spin_table_release): MMU off, at EL2 or EL1, x0 = 0. Its struct cpu *
 * waits in spin_table_cpu[Aff0], written to memory by the boot core;
 * secondary_entry (arch/aarch64/start.S) does the rest.
 */
	.section .text, "ax"
	.global	spin_table_entry
spin_table_entry:
	mrs	x9, mpidr_el1
	and	x9, x9, #0xff
	adrp	x10, spin_table_cpu
	add	x10, x10, :lo12:spin_table_cpu
	ldr	x0, [x10, x9, lsl #3]
	b	secondary_entry
