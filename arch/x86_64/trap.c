/*
 * Exception and interrupt dispatch (called by isr.S with the full frame),
 * and the kernel/trap.h accessors of struct trapframe.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "frame_dump.h"
#include "x86.h"
#include "kernel/board.h"
#include "kernel/trap.h"

_Static_assert(offsetof(struct trapframe, fx) == TF_FX, "trapframe.h");
_Static_assert(offsetof(struct trapframe, cr2) == TF_CR2, "trapframe.h");
_Static_assert(offsetof(struct trapframe, r15) == TF_R15, "trapframe.h");
_Static_assert(offsetof(struct trapframe, rbp) == TF_RBP, "trapframe.h");
_Static_assert(offsetof(struct trapframe, rdi) == TF_RDI, "trapframe.h");
_Static_assert(offsetof(struct trapframe, rax) == TF_RAX, "trapframe.h");
_Static_assert(offsetof(struct trapframe, vector) == TF_VECTOR, "trapframe.h");
_Static_assert(offsetof(struct trapframe, error) == TF_ERROR, "trapframe.h");
_Static_assert(offsetof(struct trapframe, rip) == TF_RIP, "trapframe.h");
_Static_assert(offsetof(struct trapframe, rflags) == TF_RFLAGS, "trapframe.h");
_Static_assert(offsetof(struct trapframe, rsp) == TF_RSP, "trapframe.h");
_Static_assert(offsetof(struct trapframe, ss) == TF_SS, "trapframe.h");
_Static_assert(sizeof(struct trapframe) == TF_SIZE, "trapframe.h");

#define FIRST_IRQ	32
#define VEC_NMI		2
#define VEC_DF		8
#define VEC_GP		13
#define VEC_PF		14

/* Page-fault error code bits. */
#define PF_PRESENT	(1u << 0)	/* 0: page not present; 1: protection */
#define PF_WRITE	(1u << 1)
#define PF_RESERVED	(1u << 3)	/* a reserved bit set in a table entry */
#define PF_IFETCH	(1u << 4)

static const char *const exception_names[FIRST_IRQ] = {
	[0] = "divide error",
	[1] = "debug exception",
	[2] = "NMI",
	[3] = "breakpoint",
	[4] = "overflow",
	[5] = "bound range exceeded",
	[6] = "invalid opcode",
	[7] = "device not available",
	[8] = "double fault",
	[9] = "coprocessor segment overrun",
	[10] = "invalid TSS",
	[11] = "segment not present",
	[12] = "stack-segment fault",
	[13] = "general protection fault",
	[14] = "page fault",
	[16] = "x87 floating-point exception",
	[17] = "alignment check",
	[18] = "machine check",
	[19] = "SIMD floating-point exception",
	[20] = "virtualization exception",
	[21] = "control protection exception",
	[28] = "hypervisor injection exception",
	[29] = "VMM communication exception",
	[30] = "security exception",
};

static void page_fault_detail(uint64_t err, char *buf, size_t len)
{
	const char *access = (err & PF_IFETCH) ? "instruction fetch"
			   : (err & PF_WRITE) ? "write" : "read";
	const char *why = (err & PF_RESERVED) ? "reserved bit in a page table entry"
			: (err & PF_PRESENT) ? "protection violation"
			: "page not present";

	snprintf(buf, len, "%s, %s, error code 0x%lx", access, why,
		 (unsigned long)err);
}

static __attribute__((noreturn)) void exception(struct trapframe *tf)
{
	unsigned vec = (unsigned)tf->vector;
	const char *name = exception_names[vec] ? exception_names[vec]
						: "reserved exception";
	char detail[96];

	switch (vec) {
	case VEC_PF:
		page_fault_detail(tf->error, detail, sizeof detail);
		kernel_fault(tf, name, detail, tf->cr2);
	case VEC_DF:
		/* A fault that could not push its frame (the stack is gone)
		 * escalates to #DF; CR2 still holds the address it hit. */
		kernel_fault(tf, name,
			     "a fault while delivering a fault: likely a stack overflow; last CR2",
			     tf->cr2);
	case VEC_GP:
		if (tf->error)
			snprintf(detail, sizeof detail, "selector error code 0x%lx",
				 (unsigned long)tf->error);
		else
			snprintf(detail, sizeof detail,
				 "non-canonical address or privileged operation");
		kernel_fault(tf, name, detail, FAULT_NO_ADDR);
	default:
		snprintf(detail, sizeof detail, "vector %u, error code 0x%lx", vec,
			 (unsigned long)tf->error);
		kernel_fault(tf, name, detail, FAULT_NO_ADDR);
	}
}

/* isr.S: every vector comes here with interrupts masked. */
void trap_dispatch(struct trapframe *tf)
{
	if (tf->vector >= FIRST_IRQ)
		board_irq(tf);
	else
		exception(tf);
}

void arch_dump_frame(const struct trapframe *tf)
{
	printf("  rip %016lx  rsp %016lx  rflags %08lx  cs %lx ss %lx\n",
	       tf->rip, tf->rsp, tf->rflags, tf->cs, tf->ss);
	x86_dump_gprs(tf);
	printf("  vector %lu  error %lx  cr2 %016lx  cr3 %016lx\n",
	       tf->vector, tf->error, tf->cr2, read_cr3());
}
