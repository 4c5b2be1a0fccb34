/*
 * gmk_test.h: an application's tests (make test APP=...): TEST(name) { ... }
 * with ASSERT/EXPECT and their _EQ, _NE, _LT, _LE, _GT, _GE forms,
 * test_skip, test_fail (docs/testing.md). The kernel's own header, taken
 * from where it lives: it holds nothing but the test interface.
 */
#ifndef GMK_PUBLIC_TEST_H
#define GMK_PUBLIC_TEST_H

#include "../kernel/test.h"

#endif
