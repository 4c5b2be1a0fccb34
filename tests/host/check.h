/*
 * A minimal test harness for the host tests: HOST_TEST(name) functions are
 * listed in main(); CHECK records a failure with the values and goes on,
 * REQUIRE also leaves the test. main() ends with "N passed, N failed".
 */
#ifndef GMK_TESTS_HOST_CHECK_H
#define GMK_TESTS_HOST_CHECK_H

#include <stdio.h>

extern int check_failures;	/* in the running test */

#define CHECK(cond, ...)                                                   \
	do {                                                               \
		if (!(cond)) {                                             \
			printf("    FAIL %s:%d: %s: ", __FILE__, __LINE__,   \
			       #cond);                                     \
			printf(__VA_ARGS__);                               \
			printf("\n");                                      \
			check_failures++;                                  \
		}                                                          \
	} while (0)

#define REQUIRE(cond, ...)                                                 \
	do {                                                               \
		int before_ = check_failures;                              \
		CHECK(cond, __VA_ARGS__);                                  \
		if (check_failures != before_)                             \
			return;                                            \
	} while (0)

#endif
