/*
 * The context switch of the hosted board: arch/x86_64/switch.S itself,
 * assembled with the running G in a thread-local variable instead of
 * %gs:8 (arch/host/cpu.h says why). gogo and mcall are
 * user-mode code and need nothing else.
 *
 * The sanitizer builds (GMK_SAN_FIBERS) rename the two switches: C
 * wrappers in arch/host/san.c tell the sanitizer which stack comes next
 * and then call these.
 */
#define PERCPU_CURG %fs:host_curg@tpoff
#ifdef GMK_SAN_FIBERS
#define gogo host_gogo_raw
#define mcall host_mcall_raw
#endif
#include "arch/x86_64/switch.S"
	.section .note.GNU-stack, "", @progbits
