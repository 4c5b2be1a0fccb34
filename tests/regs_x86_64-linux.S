/* The hosted board runs the x86-64 register test as it is. */
#include "tests/regs_x86_64.S"
	.section .note.GNU-stack, "", @progbits
