/*
 * In-kernel tests. TEST(name) { ... } registers a test through the
 * gmk_tests linker section; the runner (kernel/test.c) prints KTAP v1.
 *
 *   ASSERT(cond)              stops the test on failure
 *   ASSERT_EQ(a, b)           integers or pointers (a float operand does
 *                             not compile); prints both values
 *   ASSERT_NE / ASSERT_LT / ASSERT_LE / ASSERT_GT / ASSERT_GE
 *   ASSERT_NEAR(a, b, eps)    floats: |a - b| <= eps (a NaN fails)
 *   EXPECT_*                  the same, but the test goes on
 *   TEST_FATAL(name, "msg")   a test that must end in a fatal error whose
 *                             message contains "msg"; run alone in its own
 *                             boot (make test does), skipped otherwise.
 *   test_expect_fatal(fmt, ...) inside a TEST_FATAL: the message it must
 *                             die with, known only at run time (a goid);
 *                             replaces the static one.
 *   test_expect_traceback(fmt, ...) inside a TEST_FATAL: a glob the
 *                             goroutines' stacks printed after the message
 *                             must also match (kernel/traceback.h; up to
 *                             4, each matched on its own);
 *                             test_expect_no_traceback(): none printed;
 *                             test_expect_traceback_lacks(s): none has s.
 *   test_skip("why")          leave the test as skipped (counted apart);
 *                             test_needs_async_preempt() and
 *                             test_needs_small_stacks() skip it where the
 *                             build cannot do what it needs
 *   TEST_INPUT(name)          a test that reads the serial console: it
 *                             prints "# send: TEXT" when it is ready and
 *                             tools/serial-feed sends TEXT; runs with
 *                             input=1 on the command line (make test boots
 *                             test=console_* input=1), skipped otherwise.
 *   TEST_TXCHECK(name)        a test whose serial output the harness checks
 *                             byte for byte (tools/check-serial-out); runs
 *                             with txcheck=1 (make test boots
 *                             test=console_write_* txcheck=1), skipped
 *                             otherwise.
 */
#ifndef GMK_KERNEL_TEST_H
#define GMK_KERNEL_TEST_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct test_case {
	const char *name;
	void (*fn)(void);
	const char *expect_fatal;	/* NULL for an ordinary test */
	const char *file;
	int line;
	bool needs_input;		/* TEST_INPUT */
	bool checks_output;		/* TEST_TXCHECK */
};

#define TEST_REGISTER(nm, fatalmsg) TEST_REGISTER_(nm, fatalmsg, false, false)
#define TEST_REGISTER_(nm, fatalmsg, input, output)                        \
	static void test_fn_##nm(void);                                    \
	static const struct test_case test_case_##nm                       \
		__attribute__((used, section("gmk_tests"), aligned(8))) = \
		{ #nm, test_fn_##nm, fatalmsg, __FILE__, __LINE__, input, output }; \
	static void test_fn_##nm(void)

#define TEST(nm) TEST_REGISTER(nm, NULL)
#define TEST_FATAL(nm, msg) TEST_REGISTER(nm, msg)
#define TEST_INPUT(nm) TEST_REGISTER_(nm, NULL, true, false)
#define TEST_TXCHECK(nm) TEST_REGISTER_(nm, NULL, false, true)

/* Record a failure of the running test (the runner prints it as a KTAP
 * diagnostic). Safe from any core and any G. */
void test_fail(const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Abort the running test (after test_fail). Only from the test's own
 * context: the runner's G/stack. */
__attribute__((noreturn)) void test_abort(void);
/* Leave the running test as skipped: "ok N name # SKIP why", counted
 * apart from passes. Only from the test's own context, like test_abort. */
__attribute__((noreturn)) void test_skip(const char *why);
/* Skips the test where the build cannot switch out a G that spins
 * without safe points (async preemption): the hosted board under
 * ThreadSanitizer, or with GMK_NO_ASYNC_PREEMPT set. */
void test_needs_async_preempt(void);
/* Skips the test under a sanitizer (hosted SAN=tsan|asan): it runs Gs on
 * 1-2 KiB stacks, where the sanitizer runtime's own frames do not fit. */
void test_needs_small_stacks(void);
/* A TEST_FATAL's expected message, formatted at run time. */
void test_expect_fatal(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* A TEST_FATAL's glob for the stacks it must print ("*" around it is
 * implied; up to 4, each matched alone), formatted at run time; or that
 * it prints none. */
void test_expect_traceback(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void test_expect_no_traceback(void);
void test_expect_traceback_lacks(const char *text);
/* Expected-fatal bookkeeping used by panic()/fatal(), after the stacks. */
void test_fatal_hook(const char *msg);
/* After a crash inside a test: the summary line, last. */
void test_crash_epilogue(void);
/* Run every test whose name matches the glob; returns the failure count. */
unsigned test_run(const char *glob);
bool glob_match(const char *pat, const char *s);
/* Does test=globs select the test name (a,b: either; -g: not g)? */
bool test_selects(const char *globs, const char *name);

/* Integers and pointers only: a float would be cast to long long, where
 * 0.4 == 0.5 (ASSERT_NEAR compares floats). Refused at compile time. */
#define GMK_IS_FLOAT_(x) _Generic((x), float: 1, double: 1, long double: 1, default: 0)
#define GMK_CMP_(kind, a, b, op, abort_)                                   \
	do {                                                               \
		_Static_assert(!GMK_IS_FLOAT_(a) && !GMK_IS_FLOAT_(b),     \
			       kind ": a floating operand (" #a ", " #b    \
			       "): use ASSERT_NEAR/EXPECT_NEAR");          \
		long long va_ = (long long)(a), vb_ = (long long)(b);      \
		if (!(va_ op vb_)) {                                       \
			test_fail(__FILE__, __LINE__,                      \
				  "%s: %s %s %s (%lld vs %lld)", kind, #a,  \
				  #op, #b, va_, vb_);                      \
			abort_;                                            \
		}                                                          \
	} while (0)

#define ASSERT_EQ(a, b) GMK_CMP_("ASSERT_EQ", a, b, ==, test_abort())
#define ASSERT_NE(a, b) GMK_CMP_("ASSERT_NE", a, b, !=, test_abort())
#define ASSERT_LT(a, b) GMK_CMP_("ASSERT_LT", a, b, <, test_abort())
#define ASSERT_LE(a, b) GMK_CMP_("ASSERT_LE", a, b, <=, test_abort())
#define ASSERT_GT(a, b) GMK_CMP_("ASSERT_GT", a, b, >, test_abort())
#define ASSERT_GE(a, b) GMK_CMP_("ASSERT_GE", a, b, >=, test_abort())
#define EXPECT_EQ(a, b) GMK_CMP_("EXPECT_EQ", a, b, ==, (void)0)
#define EXPECT_NE(a, b) GMK_CMP_("EXPECT_NE", a, b, !=, (void)0)
#define EXPECT_LT(a, b) GMK_CMP_("EXPECT_LT", a, b, <, (void)0)
#define EXPECT_LE(a, b) GMK_CMP_("EXPECT_LE", a, b, <=, (void)0)
#define EXPECT_GT(a, b) GMK_CMP_("EXPECT_GT", a, b, >, (void)0)
#define EXPECT_GE(a, b) GMK_CMP_("EXPECT_GE", a, b, >=, (void)0)

/* |a - b| <= eps, as doubles; false for a NaN anywhere. */
static inline bool test_near(double a, double b, double eps)
{
	double d = a > b ? a - b : b - a;
	return d <= eps;
}
#define GMK_NEAR_(kind, a, b, eps, abort_)                                 \
	do {                                                               \
		double va_ = (a), vb_ = (b), e_ = (eps);                   \
		if (!test_near(va_, vb_, e_)) {                            \
			test_fail(__FILE__, __LINE__,                      \
				  "%s: %s and %s differ by more than %s "  \
				  "(%.17g vs %.17g)", kind, #a, #b, #eps,  \
				  va_, vb_);                               \
			abort_;                                            \
		}                                                          \
	} while (0)
#define ASSERT_NEAR(a, b, eps) GMK_NEAR_("ASSERT_NEAR", a, b, eps, test_abort())
#define EXPECT_NEAR(a, b, eps) GMK_NEAR_("EXPECT_NEAR", a, b, eps, (void)0)

#define ASSERT(c)                                                          \
	do {                                                               \
		if (!(c)) {                                                \
			test_fail(__FILE__, __LINE__, "ASSERT: %s", #c);   \
			test_abort();                                      \
		}                                                          \
	} while (0)
#define EXPECT(c)                                                          \
	do {                                                               \
		if (!(c))                                                  \
			test_fail(__FILE__, __LINE__, "EXPECT: %s", #c);   \
	} while (0)

#endif
