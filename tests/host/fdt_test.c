/*
 * kernel/fdt.c on the host: fdt_reg_phys translates a node's reg through
 * every parent bus's `ranges` (what finds a Raspberry Pi's GIC and UART,
 * whose DTB addresses are on the VideoCore bus). The DTB is
 * fdt_ranges.dts, built by the Makefile with dtc.
 *   fdt_test build/host/fdt_ranges.dtb
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "kernel/fdt.h"
#include "tests/host/check.h"

int check_failures;
static struct fdt f;

static void expect_phys(const char *path, unsigned i, uint64_t want, uint64_t want_size)
{
	uint64_t a = 0, s = 0;
	int node = fdt_path_offset(&f, path);

	REQUIRE(node >= 0, "%s: no such node", path);
	REQUIRE(fdt_reg_phys(&f, node, i, &a, &s), "%s reg[%u]: not translated", path, i);
	CHECK(a == want && s == want_size, "%s reg[%u]: 0x%llx+0x%llx, want 0x%llx+0x%llx",
	      path, i, (unsigned long long)a, (unsigned long long)s,
	      (unsigned long long)want, (unsigned long long)want_size);
}

static void test_pi4_soc_ranges(void)
{
	expect_phys("/soc/serial@7e201000", 0, 0xfe201000, 0x200);
	expect_phys("/soc/gic@40041000", 0, 0xff841000, 0x1000);
	expect_phys("/soc/gic@40041000", 1, 0xff842000, 0x2000);
}

static void test_nested_bus(void)
{
	expect_phys("/soc/inner/dev@10", 0, 0xfe300010, 0x4);
}

static void test_identity_and_outside(void)
{
	uint64_t a, s;

	expect_phys("/plain/dev@1,0", 0, 0x100000000ull, 0x100);
	CHECK(!fdt_reg_phys(&f, fdt_path_offset(&f, "/soc/stray@10000000"), 0, &a, &s),
	      "an address outside every range was translated to 0x%llx",
	      (unsigned long long)a);
	CHECK(!fdt_reg_phys(&f, fdt_path_offset(&f, "/soc/gic@40041000"), 2, &a, &s),
	      "reg[2] past the end was read");
}

int main(int argc, char **argv)
{
	static const struct host_test tests[] = {
		{ "fdt_reg_phys_translates_through_a_pi4_soc_ranges", test_pi4_soc_ranges },
		{ "fdt_reg_phys_translates_through_nested_buses", test_nested_bus },
		{ "fdt_reg_phys_identity_and_outside_every_range", test_identity_and_outside },
	};
	static char blob[1 << 16] __attribute__((aligned(8)));
	FILE *fp = argc > 1 ? fopen(argv[1], "rb") : NULL;

	if (!fp || fread(blob, 1, sizeof blob, fp) == 0 || !fdt_init(&f, blob)) {
		printf("fdt_test: cannot read a DTB from '%s'\n", argc > 1 ? argv[1] : "");
		printf("0 passed, 1 failed\n");
		return 1;
	}
	fclose(fp);
	return host_run_tests(tests, HOST_NTESTS(tests), NULL);
}
