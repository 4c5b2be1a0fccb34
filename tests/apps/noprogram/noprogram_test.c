/*
 * A test application with a TEST and no PROGRAM (tools/test-plan builds
 * it for every board and boots test=* where a board runs): the image has
 * no program to list, and links and runs its test all the same.
 */
#include "gmk.h"
#include "gmk_test.h"

TEST(noprogram_image_runs_its_test)
{
	ASSERT(program_find("noprogram", 9) == NULL);
}
