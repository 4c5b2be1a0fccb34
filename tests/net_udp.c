/*
 * UDP over the board's stack (net/), on 127.0.0.1: a datagram written to
 * an address is read whole from it, with the sender's address, and the
 * answer goes back the same way; a read deadline fires on a quiet socket;
 * a close wakes the G blocked in read_from. Nothing leaks.
 */
#include "tests/net_testutil.h"

TEST(net_udp_datagrams_go_there_and_back_with_the_senders_address)
{
	struct net_counts c0 = net_test_begin();
	net_conn *a, *b;
	NET_ASSERT_OK(net_listen_packet("udp", "127.0.0.1:0", &a));
	NET_ASSERT_OK(net_listen_packet("udp", "127.0.0.1:0", &b));
	struct net_addr aa = net_conn_local_addr(a), ba = net_conn_local_addr(b), from;
	EXPECT_NE(aa.port, 0);
	EXPECT_NE(aa.port, ba.port);
	char buf[2048];
	size_t n;
	for (size_t size = 0; size <= 1400; size += 200) {
		for (size_t i = 0; i < size; i++)
			buf[i] = (char)(i * 7 + size);
		NET_ASSERT_OK(net_conn_write_to(a, buf, size, &ba, &n));
		EXPECT_EQ(n, size);
		char got[2048];
		memset(&from, 0, sizeof from);
		NET_ASSERT_OK(net_conn_read_from(b, got, sizeof got, &n, &from));
		EXPECT_EQ(n, size);
		EXPECT(memcmp(got, buf, size) == 0);
		EXPECT(memcmp(&from, &aa, sizeof aa) == 0);
		/* The answer, to the address it came from. */
		NET_ASSERT_OK(net_conn_write_to(b, "ack", 3, &from, &n));
		NET_ASSERT_OK(net_conn_read_from(a, got, sizeof got, &n, &from));
		EXPECT_EQ(n, 3);
		EXPECT(memcmp(&from, &ba, sizeof ba) == 0);
	}
	NET_ASSERT_OK(net_conn_close(a));
	NET_ASSERT_OK(net_conn_close(b));
	NET_EXPECT_NO_LEAK(c0);
}

TEST(net_udp_read_deadline_fires_on_a_quiet_socket)
{
	struct net_counts c0 = net_test_begin();
	net_conn *a;
	NET_ASSERT_OK(net_listen_packet("udp", "127.0.0.1:0", &a));
	char buf[16], msg[160], want[160], s[32];
	size_t n;
	NET_ASSERT_OK(net_conn_set_read_deadline(a, nanotime() + 10 * NSEC_PER_MSEC));
	int err = net_conn_read_from(a, buf, sizeof buf, &n, NULL);
	EXPECT_EQ(err, NET_ERR_TIMEOUT);
	struct net_addr aa = net_conn_local_addr(a);
	net_test_addrstr(&aa, s, sizeof s);
	snprintf(want, sizeof want, "read udp %s: i/o timeout", s);
	NET_EXPECT_STR(net_conn_errstr(a, "read", err, msg, sizeof msg), want);
	NET_ASSERT_OK(net_conn_close(a));
	NET_EXPECT_NO_LEAK(c0);
}

struct udpreader {
	net_conn *c;
	int err;
	struct waitgroup *wg;
};

static void udp_read_once(void *arg)
{
	struct udpreader *r = arg;
	char buf[16];
	size_t n;
	r->err = net_conn_read_from(r->c, buf, sizeof buf, &n, NULL);
	waitgroup_done(r->wg);
}

TEST(net_udp_close_wakes_the_g_blocked_in_read_from)
{
	struct net_counts c0 = net_test_begin();
	net_conn *a;
	NET_ASSERT_OK(net_listen_packet("udp", "127.0.0.1:0", &a));
	struct waitgroup wg = { 0 };
	struct udpreader r = { .c = a, .wg = &wg };
	waitgroup_add(&wg, 1);
	go(udp_read_once, &r);
	net_test_wait_parked(a, 'r');
	NET_ASSERT_OK(net_conn_close(a));
	waitgroup_wait(&wg);
	EXPECT_EQ(r.err, NET_ERR_CLOSED);
	NET_EXPECT_NO_LEAK(c0);
}
