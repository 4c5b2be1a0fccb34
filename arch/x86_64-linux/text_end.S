/* Last object of the hosted link: the end of gmk's own text. */
	.text
	.global gmk_text_end
gmk_text_end:
	.section .note.GNU-stack, "", @progbits
