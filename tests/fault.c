/*
 * Faults: each test runs alone in its own boot (make test) and passes
 * only when the machine dies with the expected report, naming the kind of
 * fault and the address.
 */
#include <stdint.h>

#include "kernel/test.h"

#define UNMAPPED_ADDR 0xdead0008ul
#if defined(__aarch64__)
#define FAULT_KIND "data abort"
#else
#define FAULT_KIND "page fault"
#endif

TEST_FATAL(fault_in_a_test_is_reported_with_kind_and_address,
	   FAULT_KIND "*at address 0xdead0008")
{
	*(volatile uint32_t *)UNMAPPED_ADDR = 1;
}

/* Page 0 stays unmapped on every board, also where RAM starts at 0 (a
 * Raspberry Pi, whose firmware keeps its spin table there): a NULL
 * pointer's field faults instead of reading or writing that page. */
static volatile uintptr_t null_field = 0x10;	/* volatile: gcc sees no constant */

TEST_FATAL(fault_on_a_null_pointer_read, FAULT_KIND "*at address 0x10")
{
	(void)*(volatile uint32_t *)null_field;
}

extern char _text_start[];

TEST_FATAL(fault_on_a_write_to_kernel_text, FAULT_KIND)
{
	*(volatile uint32_t *)_text_start = 0;
}
