/* First object of the hosted link: the start of gmk's own text (see
 * arch_frame_preemptible in arch/x86_64-linux/cpu.c). */
	.text
	.global gmk_text_begin
gmk_text_begin:
	.section .note.GNU-stack, "", @progbits
