/*
 * lwIP's port to gmk: the compiler and platform (lwIP's arch/cc.h). lwIP
 * runs NO_SYS on one goroutine (net/lwip/netstack.c), so nothing here
 * locks; its diagnostics go to the console and its assertions are gmk's
 * fatal errors (with the goroutines' stacks), never a silent hang.
 */
#ifndef GMK_LWIP_ARCH_CC_H
#define GMK_LWIP_ARCH_CC_H

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* gmk's C libraries (picolibc, newlib) have errno.h and its values. */
#define LWIP_ERRNO_STDINCLUDE	1
#define LWIP_TIMEVAL_PRIVATE	0
#ifndef SSIZE_MAX
#define SSIZE_MAX		LONG_MAX	/* ssize_t is the C library's */
#endif
#include <sys/time.h>

void netstack_lwip_assert(const char *msg, const char *file, int line)
	__attribute__((noreturn));
uint32_t netstack_lwip_rand(void);

#define LWIP_PLATFORM_DIAG(x)	do { printf x; } while (0)
#define LWIP_PLATFORM_ASSERT(x)	netstack_lwip_assert((x), __FILE__, __LINE__)
/* DHCP's transaction ids, TCP's initial sequence numbers and ports. */
#define LWIP_RAND()		netstack_lwip_rand()

#endif
