/*
 * Compiler hints, one spelling each (after Linux's include/linux/compiler.h).
 * Use them where a measurement shows they matter (docs/internals.md,
 * "Performance annotations"); the C library's <sys/cdefs.h> may define
 * __always_inline too, with the same meaning, hence the guards.
 */
#ifndef GMK_KERNEL_COMPILER_H
#define GMK_KERNEL_COMPILER_H

#define likely(x)	__builtin_expect(!!(x), 1)
#define unlikely(x)	__builtin_expect(!!(x), 0)

#ifndef __always_inline
#define __always_inline	inline __attribute__((always_inline))
#endif
#ifndef __noinline
#define __noinline	__attribute__((noinline))
#endif
#ifndef __hot
#define __hot		__attribute__((hot))
#endif
#ifndef __cold
#define __cold		__attribute__((cold))
#endif

#endif
