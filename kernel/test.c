/*
 * The in-kernel test runner. Tests live in the gmk_tests section (TEST()
 * in kernel/test.h), run one after another on the main G, and report KTAP
 * v1. The last line is "N passed, N failed"; the exit status is 0 only when
 * nothing failed.
 *
 * A test that ends in a fatal error is reported as "not ok" naming it, and
 * the run stops there (the machine is no longer trustworthy). A TEST_FATAL
 * test inverts this: it passes only when it dies with the expected message,
 * so it runs alone, in its own boot (make test does that).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "kernel/atomic.h"
#include "kernel/board.h"
#include "kernel/cmdline.h"
#include "kernel/panic.h"
#include "kernel/percpu.h"
#include "kernel/preempt.h"
#include "kernel/test.h"
#include "kernel/time.h"
#include "kernel/traceback.h"

extern const struct test_case __start_gmk_tests[], __stop_gmk_tests[];

static const struct test_case *current;
static unsigned current_num;
static volatile uint32_t current_failures;
static unsigned npassed, nfailed, nskipped, nselected;
static bool crashed;
static jmp_buf abort_jmp;
/* test_expect_fatal: the running TEST_FATAL's message, made precise. */
static char fatal_expect[128];
/* test_expect_traceback: globs the stacks must each match; no_traceback:
 * none printed. */
#define TRACEBACK_EXPECT_MAX 4
static char traceback_expect[TRACEBACK_EXPECT_MAX][384];
static unsigned ntraceback_expect;
static bool no_traceback;
static const char *traceback_lacks;	/* test_expect_traceback_lacks */

bool glob_match(const char *pat, const char *s)
{
	/* Iterative '*' / '?' matching with one backtrack point. */
	const char *star = NULL, *retry = NULL;

	while (*s) {
		if (*pat == '*') {
			star = pat++;
			retry = s;
		} else if (*pat == '?' || *pat == *s) {
			pat++;
			s++;
		} else if (star) {
			pat = star + 1;
			s = ++retry;
		} else {
			return false;
		}
	}
	while (*pat == '*')
		pat++;
	return *pat == '\0';
}

/* test=a,b,c selects the union of several globs; a glob written -g
 * leaves out the tests it matches (test=*,-sched_million* : all but those). */
static bool selected(const char *globs, const char *name)
{
	char one[128];
	bool in = false;

	for (const char *p = globs; *p;) {
		const char *e = strchr(p, ',');
		size_t n = e ? (size_t)(e - p) : strlen(p);
		if (n < sizeof one) {
			memcpy(one, p, n);
			one[n] = '\0';
			if (one[0] == '-') {
				if (glob_match(one + 1, name))
					return false;
			} else if (glob_match(one, name)) {
				in = true;
			}
		}
		p += n + (e ? 1 : 0);
	}
	return in;
}

bool test_selects(const char *globs, const char *name)
{
	return selected(globs, name);
}

void test_fail(const char *file, int line, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	atomic_xadd32(&current_failures, 1);
	printf("# %s:%d: %s\n", file, line, msg);
}

void test_abort(void)
{
	longjmp(abort_jmp, 1);
}

static const char *skip_why;

void test_skip(const char *why)
{
	skip_why = why;
	longjmp(abort_jmp, 1);
}

void test_needs_async_preempt(void)
{
	if (!arch_async_preempt_enabled())
		test_skip("needs async preemption of a spinning G, off in this build "
			  "(ThreadSanitizer delivers signals late, or GMK_NO_ASYNC_PREEMPT)");
}

void test_needs_small_stacks(void)
{
#ifdef GMK_SAN_FIBERS
	test_skip("runs Gs on 1-2 KiB stacks, too small for a sanitizer's frames");
#endif
}

static void print_summary(void)
{
	if (nskipped)
		printf("%u passed, %u failed, %u skipped\n", npassed, nfailed, nskipped);
	else
		printf("%u passed, %u failed\n", npassed, nfailed);
}

void test_crash_epilogue(void)
{
	if (crashed)
		print_summary();
}

/*
 * Called by panic(), fatal() and kernel_fault() on the dying core, with the
 * other cores still running. Either the fatal error was the point of the
 * test (pass, exit 0), or it is a failure of the running test.
 */
void test_expect_fatal(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(fatal_expect, sizeof fatal_expect, fmt, ap);
	va_end(ap);
}

void test_expect_traceback(const char *fmt, ...)
{
	va_list ap;

	if (ntraceback_expect == TRACEBACK_EXPECT_MAX)
		panic("test_expect_traceback: more than %d expectations", TRACEBACK_EXPECT_MAX);
	char *e = traceback_expect[ntraceback_expect++];
	e[0] = '*';
	va_start(ap, fmt);
	vsnprintf(e + 1, sizeof traceback_expect[0] - 2, fmt, ap);
	va_end(ap);
	strcat(e, "*");
}

void test_expect_no_traceback(void)
{
	no_traceback = true;
}

void test_expect_traceback_lacks(const char *text)
{
	traceback_lacks = text;
}

/* Did the stacks printed (kernel/traceback.h) come out as expected? */
static bool traceback_as_expected(void)
{
	const char *got = traceback_text();

	if (no_traceback && got[0]) {
		printf("# expected no stacks, but they were printed\n");
		return false;
	}
	if (traceback_lacks && strstr(got, traceback_lacks)) {
		printf("# expected stacks without \"%s\"\n", traceback_lacks);
		return false;
	}
	for (unsigned i = 0; i < ntraceback_expect; i++)
		if (!glob_match(traceback_expect[i], got)) {
			printf("# expected stacks matching \"%s\"\n", traceback_expect[i]);
			return false;
		}
	return true;
}

void test_fatal_hook(const char *msg)
{
	if (!current)
		return;
	if (current->expect_fatal) {
		const char *want = fatal_expect[0] ? fatal_expect : current->expect_fatal;
		char pat[160];
		snprintf(pat, sizeof pat, "*%s*", want);
		if (glob_match(pat, msg) && traceback_as_expected()) {
			printf("# expected fatal error seen: \"%s\"\n", want);
			printf("ok %u %s\n", current_num, current->name);
			npassed++;
			print_summary();
			stop_other_cpus();
			board_exit(0);
		}
		printf("# expected a fatal error matching \"%s\"\n", want);
	}
	printf("not ok %u %s # crashed: %s\n", current_num, current->name, msg);
	nfailed++;
	if (nselected > current_num)
		printf("# %u tests not run after the crash\n", nselected - current_num);
	crashed = true;
	current = NULL;
}

/*
 * The linker keeps the section in whatever order the compiler emitted
 * (often reversed within a file); run in source order: by file, then line.
 */
#define MAX_TESTS 1024
static const struct test_case *order[MAX_TESTS];
static unsigned ntests;

static bool before(const struct test_case *a, const struct test_case *b)
{
	int c = strcmp(a->file, b->file);
	return c < 0 || (c == 0 && a->line < b->line);
}

static void sort_tests(void)
{
	ntests = 0;
	for (const struct test_case *t = __start_gmk_tests; t < __stop_gmk_tests; t++) {
		if (ntests == MAX_TESTS)
			panic("more than %d tests: raise MAX_TESTS", MAX_TESTS);
		unsigned i = ntests++;
		while (i > 0 && before(t, order[i - 1])) {	/* insertion sort */
			order[i] = order[i - 1];
			i--;
		}
		order[i] = t;
	}
}

static unsigned count_selected(const char *glob, bool *fatal_alone)
{
	unsigned n = 0, nfatal = 0;

	for (unsigned i = 0; i < ntests; i++) {
		const struct test_case *t = order[i];
		if (selected(glob, t->name)) {
			n++;
			nfatal += t->expect_fatal != NULL;
		}
	}
	*fatal_alone = n == 1 && nfatal == 1;
	return n;
}

static void run_one(const struct test_case *t, unsigned num)
{
	uint64_t t0 = nanotime();

	current = t;
	current_num = num;
	atomic_store32(&current_failures, 0);
	printf("# running: %s\n", t->name);
	skip_why = NULL;
	if (setjmp(abort_jmp) == 0)
		t->fn();
	uint64_t ms = (nanotime() - t0) / NSEC_PER_MSEC;

	if (skip_why && !atomic_load32(&current_failures)) {
		printf("ok %u %s # SKIP %s\n", num, t->name, skip_why);
		nskipped++;
		current = NULL;
		return;
	}

	if (t->expect_fatal) {
		printf("# expected a fatal error matching \"%s\"; the test returned\n",
		       t->expect_fatal);
		atomic_xadd32(&current_failures, 1);
	}
	if (atomic_load32(&current_failures)) {
		printf("not ok %u %s\n", num, t->name);
		nfailed++;
	} else {
		printf("ok %u %s # %llu ms\n", num, t->name, (unsigned long long)ms);
		npassed++;
	}
	current = NULL;
}

unsigned test_run(const char *glob)
{
	bool fatal_alone;
	unsigned num = 0;

	sort_tests();
	nselected = count_selected(glob, &fatal_alone);
	printf("KTAP version 1\n1..%u\n", nselected);
	for (unsigned i = 0; i < ntests; i++) {
		const struct test_case *t = order[i];
		if (!selected(glob, t->name))
			continue;
		num++;
		if (t->expect_fatal && !fatal_alone) {
			printf("ok %u %s # SKIP fatal test: runs alone (test=%s)\n", num,
			       t->name, t->name);
			nskipped++;
			continue;
		}
		if (t->checks_output && !kopts.txcheck) {
			printf("ok %u %s # SKIP its output is checked by the harness: "
			       "txcheck=1 under tools/check-serial-out\n", num, t->name);
			nskipped++;
			continue;
		}
		if (t->needs_input && !kopts.input) {
			printf("ok %u %s # SKIP needs serial input: input=1 under "
			       "tools/serial-feed\n", num, t->name);
			nskipped++;
			continue;
		}
		run_one(t, num);
	}
	if (nselected == 0)
		printf("# no test matches test=%s\n", glob);
	print_summary();
	return nfailed + (nselected == 0);
}
