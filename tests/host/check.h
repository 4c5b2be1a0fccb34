/*
 * A minimal test harness for the host tests: each program lists its tests
 * in a struct host_test table and hands it to host_run_tests; CHECK
 * records a failure with the values and goes on, REQUIRE also leaves the
 * test. The last line is "N passed, N failed", as the kernel's suite ends.
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

struct host_test {
	const char *name;
	void (*fn)(void);
};

/* Runs tests[0..n), calling after() (if any) after each one; prints a
 * line per test and the summary; returns the exit status, 1 if any
 * failed. */
static inline int host_run_tests(const struct host_test *tests, unsigned n,
				 void (*after)(void))
{
	unsigned passed = 0, failed = 0;
	for (unsigned i = 0; i < n; i++) {
		check_failures = 0;
		tests[i].fn();
		if (after)
			after();
		if (check_failures == 0) {
			printf("ok %u %s\n", i + 1, tests[i].name);
			passed++;
		} else {
			printf("not ok %u %s (%d failures)\n", i + 1, tests[i].name,
			       check_failures);
			failed++;
		}
	}
	printf("%u passed, %u failed\n", passed, failed);
	return failed ? 1 : 0;
}

#define HOST_NTESTS(t) ((unsigned)(sizeof(t) / sizeof((t)[0])))

#endif
