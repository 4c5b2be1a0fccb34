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

/* An exception without a fault address (an undefined instruction, a
 * divide error, a #GP) says its kind and pc, and no made-up address:
 * "..., pc 0x" right after the detail, where a page fault's would have
 * "at address 0x..." between. The message names the core once (its
 * printed line is checked by a row of tools/test-plan). */
#if defined(__aarch64__)
#define UNDEF_MSG "undefined instruction (instruction 0x00000000), pc 0x"
#else
#define UNDEF_MSG "invalid opcode (vector 6, error code 0x0), pc 0x"
#endif

TEST_FATAL(fault_on_an_undefined_instruction_says_its_pc_not_an_address, UNDEF_MSG)
{
#if defined(__aarch64__)
	__asm__ volatile(".inst 0x00000000");	/* udf #0 */
#else
	__asm__ volatile("ud2");
#endif
}

static volatile int zero;

TEST_FATAL(fault_on_a_divide_error_says_its_pc_not_an_address,
	   "divide error (vector 0, error code 0x0), pc 0x")
{
#if defined(__aarch64__)
	test_skip("an arm64 integer division by zero gives 0, no exception");
#else
	unsigned a = 1, d = 0;

	/* In assembly: gcc turns 1 / x into a compare. */
	__asm__ volatile("divl %2" : "+a"(a), "+d"(d) : "r"((unsigned)zero));
#endif
}
