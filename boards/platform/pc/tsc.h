/* TSC frequency (tsc.c). */
#ifndef GMK_BOARDS_PLATFORM_PC_TSC_H
#define GMK_BOARDS_PLATFORM_PC_TSC_H

#include <stdint.h>

/* Measure the TSC rate in Hz (boot core, once; takes ~50 ms unless CPUID
 * states it). `how` names the source for the boot log. */
uint64_t tsc_calibrate(const char **how);

#endif
