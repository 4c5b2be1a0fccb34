/*
 * A test application with a PROGRAM and no TEST (tools/test-plan builds
 * it for every board and boots it where a board runs): the image has no
 * test to list, and links and runs all the same.
 */
#include <stdio.h>

#include "gmk.h"

PROGRAM(notest, "a program in an application with no test")
{
	printf("notest: ran, in an image with no test\n");
	return 0;
}
