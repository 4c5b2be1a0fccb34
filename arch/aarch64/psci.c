/*
 * PSCI calls (SMC Calling Convention, 64-bit function ids where the call
 * takes 64-bit arguments). Arguments in x0-x3, result in x0; the firmware
 * may clobber x0-x17, so the asm says so.
 */
#include "arch/aarch64/psci.h"

#define PSCI_FN_VERSION		0x84000000u
#define PSCI_FN_SYSTEM_OFF	0x84000008u
#define PSCI_FN64_CPU_ON	0xC4000003u

static enum psci_conduit psci_conduit;

void psci_init(enum psci_conduit conduit)
{
	psci_conduit = conduit;
}

bool psci_available(void)
{
	return psci_conduit != PSCI_NONE;
}

static int64_t psci_call(uint64_t fn, uint64_t a1, uint64_t a2, uint64_t a3)
{
	register uint64_t x0 asm("x0") = fn;
	register uint64_t x1 asm("x1") = a1;
	register uint64_t x2 asm("x2") = a2;
	register uint64_t x3 asm("x3") = a3;

	if (psci_conduit == PSCI_HVC)
		asm volatile("hvc #0"
			     : "+r"(x0), "+r"(x1), "+r"(x2), "+r"(x3)
			     :
			     : "x4", "x5", "x6", "x7", "x8", "x9", "x10", "x11",
			       "x12", "x13", "x14", "x15", "x16", "x17", "memory");
	else if (psci_conduit == PSCI_SMC)
		asm volatile("smc #0"
			     : "+r"(x0), "+r"(x1), "+r"(x2), "+r"(x3)
			     :
			     : "x4", "x5", "x6", "x7", "x8", "x9", "x10", "x11",
			       "x12", "x13", "x14", "x15", "x16", "x17", "memory");
	else
		return PSCI_NOT_SUPPORTED;
	return (int64_t)x0;
}

int32_t psci_version(void)
{
	return (int32_t)psci_call(PSCI_FN_VERSION, 0, 0, 0);
}

int32_t psci_cpu_on(uint64_t mpidr, uintptr_t entry, uintptr_t context)
{
	return (int32_t)psci_call(PSCI_FN64_CPU_ON, mpidr, entry, context);
}

void psci_system_off(void)
{
	psci_call(PSCI_FN_SYSTEM_OFF, 0, 0, 0);
}
