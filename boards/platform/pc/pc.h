/* The PC platform (boards/platform/pc/pc.c), for the boards built on it. */
#ifndef GMK_BOARDS_PLATFORM_PC_PC_H
#define GMK_BOARDS_PLATFORM_PC_PC_H

#include <stdint.h>

/* The ACPI RSDP in use (the loader's copy or the BIOS-area one), 0 if none. */
uintptr_t pc_rsdp(void);

#endif
