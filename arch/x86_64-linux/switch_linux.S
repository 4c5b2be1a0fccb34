/*
 * The context switch of the hosted board: arch/x86_64/switch.S itself,
 * assembled with the running G in a thread-local variable instead of
 * %gs:8 (arch/x86_64-linux/cpu_arch.h says why). gogo and mcall are
 * user-mode code and need nothing else.
 *
 * The sanitizer builds (GMK_SAN_FIBERS) rename the two switches: C
 * wrappers in arch/x86_64-linux/san.c tell the sanitizer which stack comes next
 * and then call these.
 */
#define PERCPU_CURG %fs:host_curg@tpoff
#define PERCPU_PREEMPT_DEC movq %fs:host_this_cpu@tpoff, %rdx; decl CPU_PREEMPT_OFF(%rdx)
#ifdef GMK_SAN_FIBERS
#define gogo host_gogo_raw
#define mcall host_mcall_raw
#endif
#include "switch.S"	/* arch/x86_64/, on the include path */
	.section .note.GNU-stack, "", @progbits
