/*
 * The network's errors and addresses in Go's words (net/addr.c), on every
 * board (no socket is opened): each error value prints as Go's, an
 * *OpError as Go formats it, "host:port" parses as SplitHostPort and
 * ParseIP do (IPv4 literals and localhost), and a board without a network
 * says so, naming itself, at the first call.
 */
#include "kernel/board.h"
#include "tests/net_testutil.h"

TEST(net_errors_print_with_gos_words)
{
	NET_EXPECT_STR(net_errstr(NET_EOF), "EOF");
	NET_EXPECT_STR(net_errstr(NET_ERR_TIMEOUT), "i/o timeout");
	NET_EXPECT_STR(net_errstr(NET_ERR_CLOSED), "use of closed network connection");
	NET_EXPECT_STR(net_errstr(NET_ERR_REFUSED), "connection refused");
	NET_EXPECT_STR(net_errstr(NET_ERR_RESET), "connection reset by peer");
	NET_EXPECT_STR(net_errstr(NET_ERR_ADDR_IN_USE), "address already in use");
	NET_EXPECT_STR(net_errstr(NET_ERR_NO_ROUTE), "no route to host");
	NET_EXPECT_STR(net_errstr(NET_ERR_CANCELED), "operation was canceled");
	for (int e = 0; e < NET_ERR_COUNT; e++)
		EXPECT(net_errstr(e) != NULL && net_errstr(e)[0] != '\0');
	NET_EXPECT_STR(net_errstr(NET_ERR_COUNT), "unknown network error code");
}

TEST(net_errors_format_as_gos_operror)
{
	struct net_addr a = { { 127, 0, 0, 1 }, 9 }, b = { { 10, 0, 2, 15 }, 40000 };
	char buf[160];
	NET_EXPECT_STR(net_operr_string(buf, sizeof buf, "dial", "tcp", NULL, &a, NET_ERR_REFUSED),
		       "dial tcp 127.0.0.1:9: connect: connection refused");
	NET_EXPECT_STR(net_operr_string(buf, sizeof buf, "read", "tcp", &b, &a, NET_ERR_TIMEOUT),
		       "read tcp 10.0.2.15:40000->127.0.0.1:9: i/o timeout");
	NET_EXPECT_STR(net_operr_string(buf, sizeof buf, "write", "tcp", &b, &a, NET_ERR_BROKEN_PIPE),
		       "write tcp 10.0.2.15:40000->127.0.0.1:9: write: broken pipe");
	NET_EXPECT_STR(net_operr_string(buf, sizeof buf, "read", "udp", NULL, &a, NET_ERR_RESET),
		       "read udp 127.0.0.1:9: recvfrom: connection reset by peer");
	/* io.EOF is no *OpError. */
	NET_EXPECT_STR(net_operr_string(buf, sizeof buf, "read", "tcp", &b, &a, NET_EOF), "EOF");
	NET_EXPECT_STR(net_address_errstr("dial", "tcp", "127.0.0.1", NET_ERR_MISSING_PORT,
					  buf, sizeof buf),
		       "dial tcp: address 127.0.0.1: missing port in address");
	NET_EXPECT_STR(net_address_errstr("dial", "udp7", "127.0.0.1:1", NET_ERR_UNKNOWN_NETWORK,
					  buf, sizeof buf),
		       "dial udp7: unknown network udp7");
	NET_EXPECT_STR(net_address_errstr("dial", "tcp", "example.com:80", NET_ERR_NO_SUCH_HOST,
					  buf, sizeof buf),
		       "dial tcp: lookup example.com: no such host");
	NET_EXPECT_STR(net_address_errstr("listen", "tcp", ":8080", NET_ERR_ADDR_IN_USE,
					  buf, sizeof buf),
		       "listen tcp :8080: bind: address already in use");
	NET_EXPECT_STR(net_address_errstr("dial", "tcp", "127.0.0.1:1", NET_ERR_TIMEOUT,
					  buf, sizeof buf),
		       "dial tcp 127.0.0.1:1: i/o timeout");
	/* Truncated, never overrun. */
	char small[8];
	net_operr_string(small, sizeof small, "dial", "tcp", NULL, &a, NET_ERR_REFUSED);
	NET_EXPECT_STR(small, "dial tc");
}

TEST(net_addresses_parse_as_gos_splithostport)
{
	struct net_addr a;
	EXPECT_EQ(net_parse_addr(":8080", &a), NET_OK);
	EXPECT(a.ip[0] == 0 && a.ip[3] == 0 && a.port == 8080);
	EXPECT_EQ(net_parse_addr("127.0.0.1:0", &a), NET_OK);
	EXPECT(a.ip[0] == 127 && a.ip[3] == 1 && a.port == 0);
	EXPECT_EQ(net_parse_addr("localhost:65535", &a), NET_OK);
	EXPECT(a.ip[0] == 127 && a.ip[3] == 1 && a.port == 65535);
	EXPECT_EQ(net_parse_addr("255.255.255.255:1", &a), NET_OK);
	EXPECT_EQ(net_parse_addr("127.0.0.1", &a), NET_ERR_MISSING_PORT);
	EXPECT_EQ(net_parse_addr("127.0.0.1:", &a), NET_ERR_INVALID_PORT);
	EXPECT_EQ(net_parse_addr("127.0.0.1:65536", &a), NET_ERR_INVALID_PORT);
	EXPECT_EQ(net_parse_addr("127.0.0.1:http", &a), NET_ERR_INVALID_PORT);
	EXPECT_EQ(net_parse_addr("256.0.0.1:1", &a), NET_ERR_NO_SUCH_HOST);
	EXPECT_EQ(net_parse_addr("1.2.3:1", &a), NET_ERR_NO_SUCH_HOST);
	EXPECT_EQ(net_parse_addr("01.2.3.4:1", &a), NET_ERR_NO_SUCH_HOST);
	EXPECT_EQ(net_parse_addr("[::1]:1", &a), NET_ERR_NO_SUCH_HOST);
	EXPECT_EQ(net_parse_addr(NULL, &a), NET_ERR_MISSING_PORT);
	char s[NET_ADDRSTRLEN];
	struct net_addr m = { { 255, 255, 255, 255 }, 65535 };
	NET_EXPECT_STR(net_addr_string(&m, s), "255.255.255.255:65535");
}

TEST(net_bad_network_or_address_fails_before_any_socket)
{
	struct net_counts c0 = net_counts();
	net_listener *l = (net_listener *)1;
	net_conn *c = (net_conn *)1;
	EXPECT_EQ(net_listen("tcp7", ":0", &l), NET_ERR_UNKNOWN_NETWORK);
	EXPECT(l == NULL);
	EXPECT_EQ(net_listen("udp", ":0", &l), NET_ERR_UNKNOWN_NETWORK);	/* ListenPacket's */
	EXPECT_EQ(net_dial("tcp", "127.0.0.1", &c), NET_ERR_MISSING_PORT);
	EXPECT(c == NULL);
	EXPECT_EQ(net_listen_packet("tcp", ":0", &c), NET_ERR_UNKNOWN_NETWORK);
	NET_EXPECT_NO_LEAK(c0);
}

/* Every board: with a network, no error of the kind; without one, every
 * call says which board and where to read more. */
TEST(net_without_a_network_device_every_call_says_so)
{
	const char *why = net_unavailable();
	if (!why) {
		net_listener *l;
		int err = net_listen("tcp", "127.0.0.1:0", &l);
		EXPECT_EQ(err, NET_OK);
		if (err == NET_OK)
			net_listener_close(l);
		return;
	}
	char want[128];
	snprintf(want, sizeof want,
		 "network: board %s has no network device (see docs/network.md)", board_name);
	NET_EXPECT_STR(why, want);
	net_listener *l;
	net_conn *c;
	EXPECT_EQ(net_listen("tcp", ":8080", &l), NET_ERR_NO_DEVICE);
	EXPECT_EQ(net_listen_packet("udp", ":53", &c), NET_ERR_NO_DEVICE);
	EXPECT_EQ(net_dial("tcp", "127.0.0.1:80", &c), NET_ERR_NO_DEVICE);
	NET_EXPECT_STR(net_errstr(NET_ERR_NO_DEVICE), want);
	struct net_counts z = net_counts();
	EXPECT_EQ(z.fds, 0);
	EXPECT_EQ(z.sockets, 0);
}
