/*
 * The sockets over lwIP (net/lwip/backend.c), beyond what tests/net_*.c
 * ask of every board: after connections carry data and close, lwIP's
 * buffers (heap, pool pbufs, TCP segments) and the backend's sockets are
 * back to their counts; a destination no interface reaches is "network
 * is unreachable" at once. Boards without the stack skip.
 */
#include <string.h>

#include "kernel/test.h"

#ifdef GMK_NET_LWIP
#include "kernel/kmalloc.h"
#include "kernel/time.h"
#include "lib/sync.h"
#include "net/lwip/netstack.h"
#include "net_testutil.h"

#define BYTES	(256u << 10)

struct side {
	net_conn *c;
	int err;
	size_t got;
	struct waitgroup *wg;
};

/* Writes BYTES, then half-closes. */
static void writer(void *arg)
{
	struct side *s = arg;
	static uint8_t buf[8192];
	memset(buf, 0x5a, sizeof buf);
	for (size_t off = 0; off < BYTES && s->err == NET_OK; off += sizeof buf)
		s->err = net_conn_write(s->c, buf, sizeof buf, NULL);
	if (s->err == NET_OK)
		s->err = net_conn_close_write(s->c);
	waitgroup_done(s->wg);
}

/* Reads to EOF. */
static void reader(void *arg)
{
	struct side *s = arg;
	uint8_t *b = kmalloc(4096);
	size_t n;
	int err;
	while ((err = net_conn_read(s->c, b, 4096, &n)) == NET_OK)
		s->got += n;
	s->err = err == NET_EOF ? NET_OK : err;
	kfree(b);
	waitgroup_done(s->wg);
}

static bool same(const struct netstack_counts *a, const struct netstack_counts *b)
{
	return a->sockets == b->sockets && a->heap_used == b->heap_used &&
	       a->pool_pbufs == b->pool_pbufs && a->ref_pbufs == b->ref_pbufs &&
	       a->tcp_segs == b->tcp_segs && a->udp_pcbs == b->udp_pcbs;
}

TEST(net_lwip_buffers_and_sockets_return_to_their_counts_after_a_transfer)
{
	struct net_counts c0 = net_test_begin();
	struct net_addr la;
	net_listener *l = net_test_listen(&la);
	struct netstack_counts k0, k1;
	net_listener_close(l);
	netstack_get_counts(&k0);	/* lwIP started, no socket open */
	l = net_test_listen(&la);
	net_conn *c, *s;
	net_test_pair(l, &la, &c, &s);
	/* Both ways at once, each side to the other's EOF. */
	struct waitgroup wg = { 0 };
	struct side w1 = { .c = c, .wg = &wg }, w2 = { .c = s, .wg = &wg };
	struct side r1 = { .c = s, .wg = &wg }, r2 = { .c = c, .wg = &wg };
	waitgroup_add(&wg, 4);
	go(writer, &w1);
	go(writer, &w2);
	go(reader, &r1);
	go(reader, &r2);
	waitgroup_wait(&wg);
	EXPECT_EQ(w1.err, NET_OK);
	EXPECT_EQ(w2.err, NET_OK);
	EXPECT_EQ(r1.err, NET_OK);
	EXPECT_EQ(r2.err, NET_OK);
	EXPECT_EQ(r1.got, BYTES);
	EXPECT_EQ(r2.got, BYTES);
	net_conn_close(c);
	net_conn_close(s);
	net_listener_close(l);
	NET_EXPECT_NO_LEAK(c0);
	/* The last ACKs cross loopback after the closes: they settle in a
	 * few of the stack goroutine's rounds; a leak never does. */
	for (int i = 0; i < 5000; i++) {
		netstack_get_counts(&k1);
		if (same(&k0, &k1))
			break;
		sleep_ns(NSEC_PER_MSEC);
	}
	EXPECT_EQ(k1.sockets, k0.sockets);
	EXPECT_EQ(k1.heap_used, k0.heap_used);
	EXPECT_EQ(k1.pool_pbufs, k0.pool_pbufs);
	EXPECT_EQ(k1.ref_pbufs, k0.ref_pbufs);
	EXPECT_EQ(k1.tcp_segs, k0.tcp_segs);
	EXPECT_EQ(k1.udp_pcbs, k0.udp_pcbs);
}

TEST(net_lwip_udp_sockets_and_datagrams_unread_at_close_are_freed)
{
	struct net_counts c0 = net_test_begin();
	struct netstack_counts k0, k1;
	net_conn *a, *b;
	NET_ASSERT_OK(net_listen_packet("udp", "127.0.0.1:0", &a));
	net_conn_close(a);
	netstack_get_counts(&k0);
	NET_ASSERT_OK(net_listen_packet("udp", "127.0.0.1:0", &a));
	NET_ASSERT_OK(net_listen_packet("udp", "127.0.0.1:0", &b));
	struct net_addr ba = net_conn_local_addr(b);
	/* More than a socket keeps (64): the rest dropped, none kept twice. */
	for (int i = 0; i < 100; i++)
		NET_ASSERT_OK(net_conn_write_to(a, "datagram", 8, &ba, NULL));
	char buf[16];
	size_t n;
	struct net_addr from;
	NET_ASSERT_OK(net_conn_read_from(b, buf, sizeof buf, &n, &from));
	EXPECT_EQ(n, 8);
	net_conn_close(a);
	net_conn_close(b);
	netstack_get_counts(&k1);
	EXPECT(same(&k0, &k1));
	EXPECT_EQ(k1.pool_pbufs, k0.pool_pbufs);
	EXPECT_EQ(k1.heap_used, k0.heap_used);
	NET_EXPECT_NO_LEAK(c0);
}

TEST(net_lwip_dial_where_no_interface_reaches_is_network_unreachable)
{
	struct net_counts c0 = net_test_begin();
	/* With a NIC its gateway reaches everywhere (and the SYN would leave
	 * loopback): only the boots without one. */
	if (netstack_start() == NETSTACK_OK)
		test_skip("this boot has a NIC: its gateway routes every address");
	net_conn *c = (net_conn *)1;
	EXPECT_EQ(net_dial("tcp", "10.1.2.3:80", &c), NET_ERR_NET_UNREACH);
	EXPECT(c == NULL);
	net_conn *u;
	NET_ASSERT_OK(net_listen_packet("udp", "127.0.0.1:0", &u));
	struct net_addr to = { .ip = { 10, 1, 2, 3 }, .port = 9 };
	EXPECT_EQ(net_conn_write_to(u, "x", 1, &to, NULL), NET_ERR_NET_UNREACH);
	net_conn_close(u);
	NET_EXPECT_NO_LEAK(c0);
}
#endif
