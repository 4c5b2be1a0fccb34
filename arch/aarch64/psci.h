/*
 * PSCI (Arm Power State Coordination Interface): firmware calls to start
 * cores and power the machine off. The conduit, hvc or smc, is whatever the
 * DTB's /psci node says (QEMU virt: hvc, smc with virtualization=on).
 */
#ifndef GMK_ARCH_AARCH64_PSCI_H
#define GMK_ARCH_AARCH64_PSCI_H

#include <stdbool.h>
#include <stdint.h>

enum psci_conduit { PSCI_NONE, PSCI_HVC, PSCI_SMC };

/* PSCI return codes (negative: errors). */
#define PSCI_SUCCESS		0
#define PSCI_NOT_SUPPORTED	(-1)
#define PSCI_INVALID_PARAMS	(-2)
#define PSCI_DENIED		(-3)
#define PSCI_ALREADY_ON		(-4)
#define PSCI_ON_PENDING		(-5)

void psci_init(enum psci_conduit conduit);
bool psci_available(void);
/* Major << 16 | minor, or a negative error. */
int32_t psci_version(void);
/* Start the core whose MPIDR affinity is `mpidr` at physical address
 * `entry` (MMU off), with `context` in its x0. */
int32_t psci_cpu_on(uint64_t mpidr, uintptr_t entry, uintptr_t context);
/* Returns only if the firmware refused. */
void psci_system_off(void);

#endif
