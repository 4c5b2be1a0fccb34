/*
 * The \_S5 sleep types that power a PC off (boards/platform/pc/acpi.c), parsed
 * from DSDT AML bytes as real firmware writes them. QEMU's own DSDT says
 * Package { Zero, Zero, ... }, so the boots alone cannot tell a parser that
 * returns zeros from one that reads the package: these bytes can.
 */
#if defined(__x86_64__) && !defined(GMK_HOSTED)	/* the PC platform's parser */
#include <stdint.h>

#include "boards/platform/pc/acpi.h"
#include "kernel/test.h"

TEST(acpi_s5_sleep_types_from_dsdt_bytes)
{
	/* Name (\_S5, Package (0x04) { 0x07, 0x07, Zero, Zero }) in a
	 * Scope, behind a reference to _S5_ that is no Name (a call). */
	static const uint8_t typical[] = {
		0x10, 0x0a, '_', 'S', 'B', '_', '_', 'S', '5', '_', 0x00,
		0x08, '\\', '_', 'S', '5', '_', 0x12, 0x08, 0x04,
		0x0a, 0x07, 0x0a, 0x05, 0x00, 0x00,
	};
	/* Name (_S5, Package { One, 0x1234 (WordConst) }), no root prefix. */
	static const uint8_t words[] = {
		0x08, '_', 'S', '5', '_', 0x12, 0x06, 0x02, 0x01, 0x0b, 0x34, 0x12,
	};
	/* Name (_S5, Package { 0x03 }): one element, b takes a's value. */
	static const uint8_t one[] = { 0x08, '_', 'S', '5', '_', 0x12, 0x03, 0x01, 0x0a, 0x03 };
	/* Name (_S5, 0x05): not a package. */
	static const uint8_t not_pkg[] = { 0x08, '_', 'S', '5', '_', 0x0a, 0x05 };
	/* Truncated inside the package. */
	static const uint8_t cut[] = { 0x08, '_', 'S', '5', '_', 0x12, 0x06, 0x04, 0x0a };
	uint16_t a = 99, b = 99;

	ASSERT(acpi_parse_s5(typical, sizeof typical, &a, &b));
	EXPECT_EQ(a, 7);
	EXPECT_EQ(b, 5);
	ASSERT(acpi_parse_s5(words, sizeof words, &a, &b));
	EXPECT_EQ(a, 1);
	EXPECT_EQ(b, 0x1234);
	ASSERT(acpi_parse_s5(one, sizeof one, &a, &b));
	EXPECT_EQ(a, 3);
	EXPECT_EQ(b, 3);
	EXPECT(!acpi_parse_s5(not_pkg, sizeof not_pkg, &a, &b));
	EXPECT(!acpi_parse_s5(cut, sizeof cut, &a, &b));
}
#endif
