/*
 * Exceptions on aarch64: the C side of vectors.S. IRQs go to the board;
 * synchronous exceptions are decoded from ESR_EL1 into a kind and a detail
 * string for kernel_fault. gmk has no recoverable synchronous exception
 * (no demand paging, no system calls), so every one of them is fatal.
 */
#include <stddef.h>
#include <stdio.h>

#include "kernel/cpu.h"
#include "kernel/board.h"
#include "kernel/percpu.h"
#include "kernel/trap.h"

_Static_assert(offsetof(struct trapframe, x[30]) == TF_X30, "trapframe.h");
_Static_assert(offsetof(struct trapframe, sp) == TF_SP, "trapframe.h");
_Static_assert(offsetof(struct trapframe, elr) == TF_ELR, "trapframe.h");
_Static_assert(offsetof(struct trapframe, spsr) == TF_SPSR, "trapframe.h");
_Static_assert(offsetof(struct trapframe, esr) == TF_ESR, "trapframe.h");
_Static_assert(offsetof(struct trapframe, far) == TF_FAR, "trapframe.h");
_Static_assert(offsetof(struct trapframe, fpcr) == TF_FPCR, "trapframe.h");
_Static_assert(offsetof(struct trapframe, fpsr) == TF_FPSR, "trapframe.h");
_Static_assert(offsetof(struct trapframe, q) == TF_Q0, "trapframe.h");
_Static_assert(sizeof(struct trapframe) == TF_SIZE, "trapframe.h");

/* Vector slots (vectors.S): group * 4 + type. */
enum { VT_SYNC, VT_IRQ, VT_FIQ, VT_SERROR };
enum { VG_EL1T, VG_EL1H, VG_LOWER64, VG_LOWER32 };

/* ESR_EL1 exception classes (Arm ARM D17.2.37). */
#define EC_UNKNOWN		0x00
#define EC_FP_ACCESS		0x07
#define EC_ILLEGAL_STATE	0x0e
#define EC_SVC64		0x15
#define EC_SYSREG		0x18
#define EC_IABT_LOWER		0x20
#define EC_IABT_CUR		0x21
#define EC_PC_ALIGN		0x22
#define EC_DABT_LOWER		0x24
#define EC_DABT_CUR		0x25
#define EC_SP_ALIGN		0x26
#define EC_FP_EXC		0x2c
#define EC_SERROR		0x2f
#define EC_BREAKPT_CUR		0x31
#define EC_STEP_CUR		0x33
#define EC_WATCHPT_CUR		0x35
#define EC_BRK			0x3c

#define ESR_EC(esr)		(((esr) >> 26) & 0x3f)
#define ESR_ISS(esr)		((esr) & 0x1ffffff)
#define ESR_DABT_WNR		(1u << 6)	/* write, not read */
#define ESR_DABT_FNV		(1u << 10)	/* FAR not valid */

#define DETAIL_LEN 96

/* Data/instruction fault status code -> words. */
static void describe_fsc(char *buf, unsigned len, uint32_t fsc)
{
	unsigned level = fsc & 3;

	switch (fsc & 0x3c) {
	case 0x00:
		snprintf(buf, len, "address size fault, level %u", level);
		return;
	case 0x04:
		snprintf(buf, len, "translation fault, level %u", level);
		return;
	case 0x08:
		snprintf(buf, len, "access flag fault, level %u", level);
		return;
	case 0x0c:
		snprintf(buf, len, "permission fault, level %u", level);
		return;
	}
	switch (fsc) {
	case 0x10: snprintf(buf, len, "synchronous external abort"); return;
	case 0x11: snprintf(buf, len, "synchronous tag check fault"); return;
	case 0x21: snprintf(buf, len, "alignment fault"); return;
	case 0x30: snprintf(buf, len, "TLB conflict abort"); return;
	case 0x31: snprintf(buf, len, "unsupported atomic hardware update"); return;
	case 0x34: snprintf(buf, len, "lockdown abort"); return;
	case 0x35: snprintf(buf, len, "unsupported exclusive or atomic access"); return;
	default:
		if ((fsc & 0x3c) == 0x14)
			snprintf(buf, len, "synchronous external abort on table walk, level %u",
				 level);
		else
			snprintf(buf, len, "fault status 0x%02x", fsc);
	}
}

static __attribute__((noreturn)) void sync_fault(struct trapframe *tf, bool lower)
{
	char detail[DETAIL_LEN], fsc[64];
	uint32_t ec = ESR_EC(tf->esr), iss = ESR_ISS(tf->esr);
	const char *kind;
	uintptr_t addr = FAULT_NO_ADDR;	/* the kinds that have one set it */

	detail[0] = 0;
	switch (ec) {
	case EC_DABT_CUR:
	case EC_DABT_LOWER:
		kind = "data abort";
		describe_fsc(fsc, sizeof fsc, iss & 0x3f);
		snprintf(detail, sizeof detail, "%s, %s%s", fsc,
			 iss & ESR_DABT_WNR ? "write" : "read",
			 iss & ESR_DABT_FNV ? ", address unknown" : "");
		addr = tf->far;
		break;
	case EC_IABT_CUR:
	case EC_IABT_LOWER:
		kind = "instruction abort";
		describe_fsc(detail, sizeof detail, iss & 0x3f);
		addr = tf->far;
		break;
	case EC_UNKNOWN:
		kind = "undefined instruction";
		snprintf(detail, sizeof detail, "instruction 0x%08x",
			 *(const volatile uint32_t *)tf->elr);
		break;
	case EC_PC_ALIGN:
		kind = "PC alignment fault";
		addr = tf->far;
		break;
	case EC_SP_ALIGN:
		kind = "SP alignment fault";
		addr = tf->sp;
		break;
	case EC_BRK:
		kind = "breakpoint";
		snprintf(detail, sizeof detail, "brk #0x%x", iss & 0xffff);
		break;
	case EC_ILLEGAL_STATE:
		kind = "illegal execution state";
		break;
	case EC_FP_ACCESS:
		kind = "FP/SIMD access trap";
		break;
	case EC_FP_EXC:
		kind = "floating-point exception";
		break;
	case EC_SVC64:
		kind = "unexpected svc";
		snprintf(detail, sizeof detail, "svc #0x%x", iss & 0xffff);
		break;
	case EC_SYSREG:
		kind = "trapped system register access";
		snprintf(detail, sizeof detail, "iss 0x%07x", iss);
		break;
	case EC_WATCHPT_CUR:
		kind = "watchpoint";
		addr = tf->far;
		break;
	case EC_BREAKPT_CUR:
	case EC_STEP_CUR:
		kind = "debug exception";
		break;
	default:
		kind = "synchronous exception";
		snprintf(detail, sizeof detail, "EC 0x%02x, ISS 0x%07x", ec, iss);
		break;
	}
	if (lower) {
		size_t n = 0;
		while (detail[n])
			n++;
		snprintf(detail + n, sizeof detail - n, "%sfrom a lower EL",
			 n ? ", " : "");
	}
	kernel_fault(tf, kind, detail, addr);
}

/* vectors.S: every exception, with the full frame saved. */
void aarch64_trap(struct trapframe *tf, uint64_t vec);
void aarch64_trap(struct trapframe *tf, uint64_t vec)
{
	unsigned group = vec / 4, type = vec % 4;
	char detail[DETAIL_LEN];

	if (group <= VG_EL1H && type == VT_IRQ) {
		board_irq(tf);
		return;
	}
	if (group <= VG_LOWER64 && type == VT_SYNC)
		sync_fault(tf, group == VG_LOWER64);
	if (type == VT_SERROR) {
		snprintf(detail, sizeof detail, "ESR 0x%08lx", (unsigned long)tf->esr);
		kernel_fault(tf, "SError", detail, FAULT_NO_ADDR);
	}
	snprintf(detail, sizeof detail, "vector %lu (%s, %s)", (unsigned long)vec,
		 (const char *[]){ "EL1t", "EL1h", "lower EL AArch64",
				   "lower EL AArch32" }[group],
		 (const char *[]){ "sync", "IRQ", "FIQ", "SError" }[type]);
	kernel_fault(tf, "unexpected exception", detail, FAULT_NO_ADDR);
}

void arch_dump_frame(const struct trapframe *tf)
{
	for (unsigned i = 0; i < 28; i += 4)
		printf("  x%-2u %016lx x%-2u %016lx x%-2u %016lx x%-2u %016lx\n",
		       i, (unsigned long)tf->x[i], i + 1, (unsigned long)tf->x[i + 1],
		       i + 2, (unsigned long)tf->x[i + 2], i + 3,
		       (unsigned long)tf->x[i + 3]);
	printf("  x28 %016lx fp  %016lx lr  %016lx sp  %016lx\n",
	       (unsigned long)tf->x[28], (unsigned long)tf->x[29],
	       (unsigned long)tf->x[30], (unsigned long)tf->sp);
	printf("  pc  %016lx spsr %08lx esr %08lx far %016lx\n",
	       (unsigned long)tf->elr, (unsigned long)tf->spsr,
	       (unsigned long)tf->esr, (unsigned long)tf->far);
}

extern char vectors[];

/*
 * Per core, on that core, interrupts masked. start.S already did the parts
 * C needs to run (FP on, VBAR, both stacks); this makes them match `c`
 * whatever the entry path was, and installs the per-core pointer.
 */
void arch_cpu_init(struct cpu *c)
{
	unsigned long daif = arch_irq_save();

	arch_set_this_cpu(c);
	sysreg_write(vbar_el1, (uintptr_t)vectors);
	/* SP_EL1 is reachable from EL1 only through SPSel; nothing may touch
	 * the stack between the two SPSel writes. */
	asm volatile("msr spsel, #1\n\t"
		     "mov sp, %0\n\t"
		     "msr spsel, #0"
		     : : "r"(c->irq_stack_top) : "memory");
	isb();
	arch_irq_restore(daif);
}
