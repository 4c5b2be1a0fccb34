/*
 * What the network tests share: the skip on a board without a network,
 * the leak check (netFDs, sockets and parked Gs back to where they were),
 * and a listener on a free port of 127.0.0.1. Nothing leaves loopback.
 */
#ifndef GMK_TESTS_NET_TESTUTIL_H
#define GMK_TESTS_NET_TESTUTIL_H

#include <stdio.h>
#include <string.h>

#include "kernel/test.h"
#include "net/netfd.h"
#include "tests/kernel_api.h"

/* At a test's start: skips it, saying why, where there is no network;
 * else the counts the test must leave as it found them. */
static inline struct net_counts net_test_begin(void)
{
	const char *why = net_unavailable();
	if (why)
		test_skip(why);
	return net_counts();
}

/* A G readied just now (its wait over, its count not yet dropped) has
 * yet to run: it settles; a leak does not. */
static inline void net_test_settle(uint32_t waiters)
{
	for (uint64_t i = 0; net_counts().waiters > waiters && i < 10000000ull; i++)
		gosched();
}

#define NET_EXPECT_NO_LEAK(c0)                                             \
	do {                                                               \
		net_test_settle((c0).waiters);                             \
		struct net_counts c1_ = net_counts();                      \
		EXPECT_EQ(c1_.fds, (c0).fds);                              \
		EXPECT_EQ(c1_.sockets, (c0).sockets);                      \
		EXPECT_EQ(c1_.waiters, (c0).waiters);                      \
	} while (0)

#define NET_EXPECT_STR(got, want)                                          \
	do {                                                               \
		const char *g_ = (got), *w_ = (want);                      \
		if (strcmp(g_, w_) != 0)                                   \
			test_fail(__FILE__, __LINE__, "got \"%s\", want \"%s\"", \
				  g_, w_);                                 \
	} while (0)

#define NET_ASSERT_OK(call)                                                \
	do {                                                               \
		int e_ = (call);                                           \
		if (e_ != NET_OK) {                                        \
			test_fail(__FILE__, __LINE__, "%s: %s", #call,     \
				  net_errstr(e_));                         \
			test_abort();                                      \
		}                                                          \
	} while (0)

/* A TCP listener on 127.0.0.1, a port the system picks; *addr its address. */
static inline net_listener *net_test_listen(struct net_addr *addr)
{
	net_listener *l;
	NET_ASSERT_OK(net_listen("tcp", "127.0.0.1:0", &l));
	*addr = net_listener_addr(l);
	return l;
}

static inline void net_test_addrstr(const struct net_addr *a, char *buf, size_t n)
{
	snprintf(buf, n, "%u.%u.%u.%u:%u", a->ip[0], a->ip[1], a->ip[2], a->ip[3], a->port);
}

/* A connected pair through l: *client dialled, *server accepted. */
static inline void net_test_pair(net_listener *l, const struct net_addr *addr,
				 net_conn **client, net_conn **server)
{
	char s[32];
	net_test_addrstr(addr, s, sizeof s);
	NET_ASSERT_OK(net_dial("tcp", s, client));
	NET_ASSERT_OK(net_listener_accept(l, server));
}

/* Waits (yielding, no clock) until a G is parked on handle's pollDesc
 * for mode: the G the test waits for has parked. */
static inline void net_test_wait_parked(const void *handle, int mode)
{
	for (uint64_t i = 0; !net_parked(handle, mode); i++) {
		if (i > 100000000ull) {
			test_fail(__FILE__, __LINE__, "no G parked on the conn for '%c'", mode);
			test_abort();
		}
		gosched();
	}
}

#endif
