/*
 * TCP over the board's stack (net/), on 127.0.0.1, after Go's net tests:
 * a dial meets an accept, with each side's addresses the other's; bytes
 * from 1 to 1 MiB arrive whole and in order; a half-close gives the peer
 * EOF and leaves the other direction open; deadlines fire with "i/o
 * timeout" and, reset, let the next read succeed; a closed port refuses;
 * a peer that closes with SO_LINGER 0 resets; a reader G and a writer G
 * share one connection; a close wakes the G blocked in a read with "use
 * of closed network connection"; a thousand connections at once. After
 * each test the netFDs, sockets and parked Gs are back to where they were.
 * On a board without a network every test is skipped, saying why.
 */
#include "tests/net_testutil.h"

TEST(net_tcp_dial_meets_accept_with_each_sides_addresses)
{
	struct net_counts c0 = net_test_begin();
	struct net_addr la;
	net_listener *l = net_test_listen(&la);
	EXPECT_EQ(la.ip[0], 127);
	EXPECT_NE(la.port, 0);			/* ":0" picked a port */
	net_conn *c, *s;
	net_test_pair(l, &la, &c, &s);
	struct net_addr cl = net_conn_local_addr(c), cr = net_conn_remote_addr(c);
	struct net_addr sl = net_conn_local_addr(s), sr = net_conn_remote_addr(s);
	EXPECT(memcmp(&cr, &la, sizeof la) == 0);
	EXPECT(memcmp(&sl, &la, sizeof la) == 0);
	EXPECT(memcmp(&sr, &cl, sizeof cl) == 0);
	char got[NET_ADDRSTRLEN], want[32];
	net_test_addrstr(&la, want, sizeof want);
	NET_EXPECT_STR(net_addr_string(&la, got), want);
	EXPECT_EQ(net_conn_close(c), NET_OK);
	EXPECT_EQ(net_conn_close(s), NET_OK);
	EXPECT_EQ(net_listener_close(l), NET_OK);
	NET_EXPECT_NO_LEAK(c0);
}

/* ---- bytes, 1 B to 1 MiB ---- */

static uint8_t pattern(size_t i, size_t size)
{
	return (uint8_t)(i * 131 + size * 7 + (i >> 9));
}

struct sender {
	net_conn *c;
	size_t size;
	int err;
	size_t n;
	struct waitgroup *wg;
};

static void send_pattern(void *arg)
{
	struct sender *sd = arg;
	uint8_t *buf = kmalloc(sd->size);
	for (size_t i = 0; i < sd->size; i++)
		buf[i] = pattern(i, sd->size);
	sd->err = net_conn_write(sd->c, buf, sd->size, &sd->n);
	kfree(buf);
	waitgroup_done(sd->wg);
}

/* Reads exactly size bytes (short reads are TCP's), checking each. */
static size_t recv_pattern(net_conn *c, size_t size, size_t *bad)
{
	static uint8_t buf[16384];
	size_t got = 0;
	*bad = (size_t)-1;
	while (got < size) {
		size_t want = size - got < sizeof buf ? size - got : sizeof buf, n;
		int err = net_conn_read(c, buf, want, &n);
		if (err != NET_OK) {
			test_fail(__FILE__, __LINE__, "read after %zu of %zu bytes: %s",
				  got, size, net_errstr(err));
			break;
		}
		for (size_t i = 0; i < n; i++)
			if (buf[i] != pattern(got + i, size) && *bad == (size_t)-1)
				*bad = got + i;
		got += n;
	}
	return got;
}

TEST(net_tcp_bytes_from_1_to_1mib_arrive_whole_and_in_order)
{
	static const size_t sizes[] = { 1, 2, 3, 100, 1460, 4095, 65536, 65537,
					300000, 1 << 20 };
	struct net_counts c0 = net_test_begin();
	struct net_addr la;
	net_listener *l = net_test_listen(&la);
	net_conn *c, *s;
	net_test_pair(l, &la, &c, &s);
	for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
		struct waitgroup wg = { 0 };
		struct sender sd = { .c = c, .size = sizes[k], .wg = &wg };
		waitgroup_add(&wg, 1);
		go(send_pattern, &sd);
		size_t bad;
		size_t got = recv_pattern(s, sizes[k], &bad);
		waitgroup_wait(&wg);
		EXPECT_EQ(sd.err, NET_OK);
		EXPECT_EQ(sd.n, sizes[k]);		/* Write: all of it */
		EXPECT_EQ(got, sizes[k]);
		if (bad != (size_t)-1)
			test_fail(__FILE__, __LINE__, "%zu bytes: byte %zu differs", sizes[k], bad);
	}
	net_conn_close(c);
	net_conn_close(s);
	net_listener_close(l);
	NET_EXPECT_NO_LEAK(c0);
}

/* ---- half-close and close ---- */

TEST(net_tcp_close_write_gives_the_peer_eof_and_keeps_the_other_way_open)
{
	struct net_counts c0 = net_test_begin();
	struct net_addr la;
	net_listener *l = net_test_listen(&la);
	net_conn *c, *s;
	net_test_pair(l, &la, &c, &s);
	char buf[16];
	size_t n;
	NET_ASSERT_OK(net_conn_write(c, "hello", 5, &n));
	NET_ASSERT_OK(net_conn_close_write(c));
	size_t got = 0;
	int err;
	while ((err = net_conn_read(s, buf + got, sizeof buf - got, &n)) == NET_OK)
		got += n;
	EXPECT_EQ(err, NET_EOF);
	EXPECT_EQ(got, 5);
	EXPECT(memcmp(buf, "hello", 5) == 0);
	EXPECT_EQ(net_conn_read(s, buf, sizeof buf, &n), NET_EOF);	/* and again */
	/* The server's direction is still open. */
	NET_ASSERT_OK(net_conn_write(s, "back", 4, &n));
	NET_ASSERT_OK(net_conn_close(s));
	got = 0;
	while ((err = net_conn_read(c, buf + got, sizeof buf - got, &n)) == NET_OK)
		got += n;
	EXPECT_EQ(err, NET_EOF);
	EXPECT_EQ(got, 4);
	EXPECT(memcmp(buf, "back", 4) == 0);
	/* Closed: every call says so, in Go's words. */
	NET_ASSERT_OK(net_conn_close(c));
	net_listener_close(l);
	NET_EXPECT_NO_LEAK(c0);
}

TEST(net_tcp_close_read_gives_eof_to_our_reads)
{
	struct net_counts c0 = net_test_begin();
	struct net_addr la;
	net_listener *l = net_test_listen(&la);
	net_conn *c, *s;
	net_test_pair(l, &la, &c, &s);
	char buf[8];
	size_t n;
	NET_ASSERT_OK(net_conn_close_read(c));
	EXPECT_EQ(net_conn_read(c, buf, sizeof buf, &n), NET_EOF);
	EXPECT_EQ(n, 0);
	net_conn_close(c);
	net_conn_close(s);
	net_listener_close(l);
	NET_EXPECT_NO_LEAK(c0);
}

/* ---- deadlines ---- */

TEST(net_tcp_read_deadline_fires_with_io_timeout_and_reset_lets_reads_succeed)
{
	struct net_counts c0 = net_test_begin();
	struct net_addr la;
	net_listener *l = net_test_listen(&la);
	net_conn *c, *s;
	net_test_pair(l, &la, &c, &s);
	char buf[8], msg[160], want[160], a[32], b[32];
	size_t n = 99;
	uint64_t t0 = nanotime();
	NET_ASSERT_OK(net_conn_set_read_deadline(c, t0 + 20 * NSEC_PER_MSEC));
	int err = net_conn_read(c, buf, sizeof buf, &n);
	EXPECT_EQ(err, NET_ERR_TIMEOUT);
	EXPECT_EQ(n, 0);
	EXPECT_GE(nanotime(), t0 + 20 * NSEC_PER_MSEC);	/* not before */
	struct net_addr cl = net_conn_local_addr(c);
	net_test_addrstr(&cl, a, sizeof a);
	net_test_addrstr(&la, b, sizeof b);
	snprintf(want, sizeof want, "read tcp %s->%s: i/o timeout", a, b);
	NET_EXPECT_STR(net_conn_errstr(c, "read", err, msg, sizeof msg), want);
	/* A deadline in the past fails at once, even with data waiting. */
	NET_ASSERT_OK(net_conn_write(s, "x", 1, &n));
	EXPECT_EQ(net_conn_read(c, buf, sizeof buf, &n), NET_ERR_TIMEOUT);
	/* Reset: the data is read. */
	NET_ASSERT_OK(net_conn_set_read_deadline(c, 0));
	NET_ASSERT_OK(net_conn_read(c, buf, sizeof buf, &n));
	EXPECT_EQ(n, 1);
	EXPECT_EQ(buf[0], 'x');
	net_conn_close(c);
	net_conn_close(s);
	net_listener_close(l);
	NET_EXPECT_NO_LEAK(c0);
}

struct dlreader {
	net_conn *c;
	int err;
	struct waitgroup *wg;
};

static void read_once(void *arg)
{
	struct dlreader *r = arg;
	char buf[8];
	size_t n;
	r->err = net_conn_read(r->c, buf, sizeof buf, &n);
	waitgroup_done(r->wg);
}

TEST(net_tcp_deadline_set_while_a_read_waits_wakes_it)
{
	struct net_counts c0 = net_test_begin();
	struct net_addr la;
	net_listener *l = net_test_listen(&la);
	net_conn *c, *s;
	net_test_pair(l, &la, &c, &s);
	struct waitgroup wg = { 0 };
	struct dlreader r = { .c = c, .wg = &wg };
	waitgroup_add(&wg, 1);
	go(read_once, &r);
	net_test_wait_parked(c, 'r');
	NET_ASSERT_OK(net_conn_set_deadline(c, nanotime() + 5 * NSEC_PER_MSEC));
	waitgroup_wait(&wg);
	EXPECT_EQ(r.err, NET_ERR_TIMEOUT);
	net_conn_close(c);
	net_conn_close(s);
	net_listener_close(l);
	NET_EXPECT_NO_LEAK(c0);
}

TEST(net_tcp_write_deadline_fires_when_the_peer_never_reads)
{
	struct net_counts c0 = net_test_begin();
	struct net_addr la;
	net_listener *l = net_test_listen(&la);
	net_conn *c, *s;
	net_test_pair(l, &la, &c, &s);
	size_t size = 1u << 20, n = 0;
	uint8_t *buf = kmalloc(size);
	memset(buf, 'w', size);
	NET_ASSERT_OK(net_conn_set_write_deadline(c, nanotime() + 30 * NSEC_PER_MSEC));
	/* 64 MiB is past any socket buffer: the deadline fires before. */
	int err = NET_OK;
	for (int i = 0; i < 64 && err == NET_OK; i++)
		err = net_conn_write(c, buf, size, &n);
	EXPECT_EQ(err, NET_ERR_TIMEOUT);
	EXPECT_LT(n, size);		/* what the buffers took, and no more */
	kfree(buf);
	net_conn_close(c);
	net_conn_close(s);
	net_listener_close(l);
	NET_EXPECT_NO_LEAK(c0);
}

/* ---- dial with a context ---- */

TEST(net_tcp_dial_context_connects_and_a_done_context_fails_with_gos_error)
{
	struct net_counts c0 = net_test_begin();
	struct net_addr la;
	net_listener *l = net_test_listen(&la);
	char addr[32];
	net_test_addrstr(&la, addr, sizeof addr);
	int g0 = num_goroutine();
	/* Live: connects, and its watcher G is gone when the dial returns. */
	struct context *ctx = context_with_timeout(context_background(), 60 * NSEC_PER_SEC);
	net_conn *c, *s;
	NET_ASSERT_OK(net_dial_context(ctx, "tcp", addr, &c));
	for (int i = 0; i < 1000000 && num_goroutine() != g0; i++)
		gosched();		/* it has closed its channel; now it exits */
	EXPECT_EQ(num_goroutine(), g0);
	NET_ASSERT_OK(net_listener_accept(l, &s));
	/* Cancelled: Go's "operation was canceled"; past its deadline:
	 * "i/o timeout" (Go maps context.DeadlineExceeded to it). */
	net_conn *c2 = (net_conn *)1;
	context_cancel(ctx);
	EXPECT_EQ(net_dial_context(ctx, "tcp", addr, &c2), NET_ERR_CANCELED);
	EXPECT(c2 == NULL);
	context_release(ctx);
	ctx = context_with_deadline(context_background(), nanotime() - 1);
	EXPECT_EQ(net_dial_context(ctx, "tcp", addr, &c2), NET_ERR_TIMEOUT);
	context_release(ctx);
	NET_ASSERT_OK(net_dial_timeout("tcp", addr, NSEC_PER_SEC, &c2));
	net_conn_close(c2);
	net_conn_close(c);
	net_conn_close(s);
	net_listener_close(l);
	NET_EXPECT_NO_LEAK(c0);
}

/* ---- refused, reset, in use ---- */

TEST(net_tcp_dial_of_a_closed_port_is_refused)
{
	struct net_counts c0 = net_test_begin();
	struct net_addr la;
	net_listener *l = net_test_listen(&la);
	NET_ASSERT_OK(net_listener_close(l));	/* the port is free now */
	char addr[32], msg[160], want[160];
	net_test_addrstr(&la, addr, sizeof addr);
	net_conn *c = (net_conn *)1;
	int err = net_dial("tcp", addr, &c);
	EXPECT_EQ(err, NET_ERR_REFUSED);
	EXPECT(c == NULL);
	snprintf(want, sizeof want, "dial tcp %s: connect: connection refused", addr);
	NET_EXPECT_STR(net_address_errstr("dial", "tcp", addr, err, msg, sizeof msg), want);
	EXPECT_EQ(net_dial_timeout("tcp", addr, NSEC_PER_SEC, &c), NET_ERR_REFUSED);
	NET_EXPECT_NO_LEAK(c0);
}

TEST(net_tcp_peer_closing_with_linger_0_resets_the_connection)
{
	struct net_counts c0 = net_test_begin();
	struct net_addr la;
	net_listener *l = net_test_listen(&la);
	net_conn *c, *s;
	net_test_pair(l, &la, &c, &s);
	/* Mid-transfer: the client has sent, the server has read part. */
	char buf[64], msg[200], want[200], a[32], b[32];
	size_t n;
	NET_ASSERT_OK(net_conn_write(c, "0123456789", 10, &n));
	NET_ASSERT_OK(net_conn_read(s, buf, 1, &n));
	NET_ASSERT_OK(net_conn_set_linger(s, 0));
	NET_ASSERT_OK(net_conn_close(s));	/* unread data: RST */
	int err = net_conn_read(c, buf, sizeof buf, &n);
	EXPECT_EQ(err, NET_ERR_RESET);
	struct net_addr cl = net_conn_local_addr(c);
	net_test_addrstr(&cl, a, sizeof a);
	net_test_addrstr(&la, b, sizeof b);
	snprintf(want, sizeof want, "read tcp %s->%s: read: connection reset by peer", a, b);
	NET_EXPECT_STR(net_conn_errstr(c, "read", err, msg, sizeof msg), want);
	net_conn_close(c);
	net_listener_close(l);
	NET_EXPECT_NO_LEAK(c0);
}

TEST(net_tcp_listen_on_a_port_in_use_is_address_already_in_use)
{
	struct net_counts c0 = net_test_begin();
	struct net_addr la;
	net_listener *l = net_test_listen(&la), *l2 = (net_listener *)1;
	char addr[32], msg[160], want[160];
	net_test_addrstr(&la, addr, sizeof addr);
	int err = net_listen("tcp", addr, &l2);
	EXPECT_EQ(err, NET_ERR_ADDR_IN_USE);
	EXPECT(l2 == NULL);
	snprintf(want, sizeof want, "listen tcp %s: bind: address already in use", addr);
	NET_EXPECT_STR(net_address_errstr("listen", "tcp", addr, err, msg, sizeof msg), want);
	net_listener_close(l);
	NET_EXPECT_NO_LEAK(c0);
}

/* Go's listeners set SO_REUSEADDR: a server that closed its connections
 * first (they wait in TIME_WAIT) listens on its port again at once; two
 * listeners whose addresses overlap on one port still may not. */
TEST(net_tcp_a_port_listens_again_while_its_closed_connections_wait)
{
	struct net_counts c0 = net_test_begin();
	struct net_addr la;
	net_listener *l = net_test_listen(&la), *l2, *l3 = (net_listener *)1;
	net_conn *c, *s;
	net_test_pair(l, &la, &c, &s);
	char addr[32], any[32], buf[8];
	size_t n;
	NET_ASSERT_OK(net_conn_close(s));	/* the server closes first */
	EXPECT_EQ(net_conn_read(c, buf, sizeof buf, &n), NET_EOF);
	net_conn_close(c);
	NET_ASSERT_OK(net_listener_close(l));
	net_test_addrstr(&la, addr, sizeof addr);
	NET_ASSERT_OK(net_listen("tcp", addr, &l2));
	snprintf(any, sizeof any, "0.0.0.0:%u", la.port);
	EXPECT_EQ(net_listen("tcp", any, &l3), NET_ERR_ADDR_IN_USE);
	EXPECT(l3 == NULL);
	net_listener_close(l2);
	NET_EXPECT_NO_LEAK(c0);
}

/* ---- Gs on one connection ---- */

#define RW_BYTES (256u << 10)

/* Echoes until EOF or an error, then closes its conn. */
struct echoer {
	net_conn *s;
	struct waitgroup *wg;
};

static void echo(void *arg)
{
	struct echoer *e = arg;
	char buf[2048];
	size_t n, w;
	while (net_conn_read(e->s, buf, sizeof buf, &n) == NET_OK)
		if (net_conn_write(e->s, buf, n, &w) != NET_OK)
			break;
	net_conn_close(e->s);
	waitgroup_done(e->wg);
}

struct rwside {
	net_conn *c;
	size_t bytes;
	int err;
	size_t bad;
	struct waitgroup *wg;
};

static void rw_writer(void *arg)
{
	struct rwside *w = arg;
	static uint8_t buf[4096];
	size_t off = 0, n;
	while (off < RW_BYTES && w->err == NET_OK) {
		for (size_t i = 0; i < sizeof buf; i++)
			buf[i] = pattern(off + i, RW_BYTES);
		w->err = net_conn_write(w->c, buf, sizeof buf, &n);
		off += n;
	}
	w->bytes = off;
	waitgroup_done(w->wg);
}

static void rw_reader(void *arg)
{
	struct rwside *r = arg;
	r->bytes = recv_pattern(r->c, RW_BYTES, &r->bad);
	waitgroup_done(r->wg);
}

TEST(net_tcp_a_reader_g_and_a_writer_g_share_one_connection)
{
	struct net_counts c0 = net_test_begin();
	struct net_addr la;
	net_listener *l = net_test_listen(&la);
	net_conn *c, *s;
	net_test_pair(l, &la, &c, &s);
	struct waitgroup wg = { 0 }, ewg = { 0 };
	struct rwside w = { .c = c, .wg = &wg }, r = { .c = c, .wg = &wg };
	waitgroup_add(&ewg, 1);
	go_value(echo, struct echoer, .s = s, .wg = &ewg);
	waitgroup_add(&wg, 2);
	go(rw_reader, &r);		/* the reader first: it parks */
	go(rw_writer, &w);
	waitgroup_wait(&wg);
	EXPECT_EQ(w.err, NET_OK);
	EXPECT_EQ(w.bytes, RW_BYTES);
	EXPECT_EQ(r.bytes, RW_BYTES);
	EXPECT_EQ(r.bad, (size_t)-1);
	NET_ASSERT_OK(net_conn_close_write(c));	/* the echo's read: EOF */
	waitgroup_wait(&ewg);			/* it closed s */
	net_conn_close(c);
	net_listener_close(l);
	NET_EXPECT_NO_LEAK(c0);
}

/* ---- close wakes a blocked reader ---- */

TEST(net_tcp_close_wakes_the_g_blocked_in_read_with_use_of_closed_connection)
{
	struct net_counts c0 = net_test_begin();
	struct net_addr la;
	net_listener *l = net_test_listen(&la);
	net_conn *c, *s;
	net_test_pair(l, &la, &c, &s);
	struct waitgroup wg = { 0 };
	struct dlreader r = { .c = c, .wg = &wg };
	waitgroup_add(&wg, 1);
	go(read_once, &r);
	net_test_wait_parked(c, 'r');
	struct net_addr cl = net_conn_local_addr(c);
	NET_ASSERT_OK(net_conn_close(c));	/* returns once the reader has left */
	waitgroup_wait(&wg);
	EXPECT_EQ(r.err, NET_ERR_CLOSED);
	NET_EXPECT_STR(net_errstr(r.err), "use of closed network connection");
	char msg[160], want[160], a[32], b[32];
	net_test_addrstr(&cl, a, sizeof a);
	net_test_addrstr(&la, b, sizeof b);
	snprintf(want, sizeof want, "read tcp %s->%s: use of closed network connection", a, b);
	EXPECT(strstr(net_operr_string(msg, sizeof msg, "read", "tcp", &cl, &la, r.err), want) == msg);
	net_conn_close(s);
	net_listener_close(l);
	NET_EXPECT_NO_LEAK(c0);
}

struct acceptor {
	net_listener *l;
	int err;
	struct waitgroup *wg;
};

static void accept_once(void *arg)
{
	struct acceptor *a = arg;
	net_conn *c = NULL;
	a->err = net_listener_accept(a->l, &c);
	if (c)
		net_conn_close(c);
	waitgroup_done(a->wg);
}

TEST(net_tcp_listener_close_wakes_the_g_blocked_in_accept)
{
	struct net_counts c0 = net_test_begin();
	struct net_addr la;
	net_listener *l = net_test_listen(&la);
	struct waitgroup wg = { 0 };
	struct acceptor a = { .l = l, .wg = &wg };
	waitgroup_add(&wg, 1);
	go(accept_once, &a);
	net_test_wait_parked(l, 'r');
	EXPECT_EQ(net_counts().fds, c0.fds + 1);	/* the listener alone: no conn yet */
	NET_ASSERT_OK(net_listener_close(l));
	waitgroup_wait(&wg);
	EXPECT_EQ(a.err, NET_ERR_CLOSED);
	char msg[160], want[160], b[32];
	net_test_addrstr(&la, b, sizeof b);
	snprintf(want, sizeof want, "accept tcp %s: use of closed network connection", b);
	NET_EXPECT_STR(net_operr_string(msg, sizeof msg, "accept", "tcp", NULL, &la, a.err), want);
	NET_EXPECT_NO_LEAK(c0);
}

/* ---- a thousand connections ---- */

#define MANY_CONNS 1000
#ifdef GMK_HOSTED
#include <sys/resource.h>
#endif

/* Two descriptors a connection, and a few for the rest: on a board whose
 * sockets are a process's, as many as its limit allows, up to MANY_CONNS
 * (the hosted board raises its soft limit to the hard one at the first
 * socket, as Go does). */
static int many_conns(void)
{
#ifdef GMK_HOSTED
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
	    rl.rlim_cur < 2 * MANY_CONNS + 64)
		return rl.rlim_cur > 64 ? (int)(rl.rlim_cur - 64) / 2 : 0;
#endif
	return MANY_CONNS;
}

struct many {
	net_listener *l;
	const char *addr;
	volatile uint32_t ok, toomany;
	struct waitgroup wg;		/* the clients */
	struct waitgroup ewg;		/* the server and its echo Gs */
};

static void many_server(void *arg)
{
	struct many *m = arg;
	net_conn *s;
	int err;
	/* Until the listener is closed, at the end; out of descriptors, a
	 * pause and again, as Go's http.Server does. */
	while ((err = net_listener_accept(m->l, &s)) != NET_ERR_CLOSED) {
		if (err == NET_ERR_TOO_MANY_FILES) {
			atomic_xadd32(&m->toomany, 1);
			sleep_ns(NSEC_PER_MSEC);
			continue;
		}
		if (err != NET_OK) {
			test_fail(__FILE__, __LINE__, "accept: %s", net_errstr(err));
			break;
		}
		waitgroup_add(&m->ewg, 1);
		go_value(echo, struct echoer, .s = s, .wg = &m->ewg);
	}
	waitgroup_done(&m->ewg);
}

struct many_client {
	struct many *m;
	int i;
};

static void many_client(void *arg)
{
	struct many_client *mc = arg;
	struct many *m = mc->m;
	net_conn *c;
	int err = net_dial("tcp", m->addr, &c);
	if (err == NET_OK) {
		uint32_t v = (uint32_t)mc->i * 2654435761u, got = 0;
		size_t n;
		/* A server out of descriptors never answers: fail, not hang. */
		net_conn_set_deadline(c, nanotime() + 60 * NSEC_PER_SEC);
		if (net_conn_write(c, &v, sizeof v, &n) == NET_OK &&
		    net_conn_read(c, &got, sizeof got, &n) == NET_OK && n == sizeof got &&
		    got == v)
			atomic_xadd32(&m->ok, 1);
		net_conn_close(c);
	} else if (err == NET_ERR_TOO_MANY_FILES) {
		atomic_xadd32(&m->toomany, 1);
	} else {
		test_fail(__FILE__, __LINE__, "dial %d: %s", mc->i, net_errstr(err));
	}
	waitgroup_done(&m->wg);
}

TEST(net_tcp_a_thousand_connections_at_once)
{
	struct net_counts c0 = net_test_begin();
	struct net_addr la;
	char addr[32];
	struct many m = { 0 };
	m.l = net_test_listen(&la);
	int conns = many_conns();
	if (conns < 100) {
		net_listener_close(m.l);
		test_skip("ulimit -n (hard) is below 264: too few descriptors for 100 connections");
	}
	if (conns < MANY_CONNS)
		printf("# %d connections: ulimit -n (hard) is below %d\n", conns, 2 * MANY_CONNS + 64);
	net_test_addrstr(&la, addr, sizeof addr);
	m.addr = addr;
	waitgroup_add(&m.ewg, 1);
	go(many_server, &m);
	waitgroup_add(&m.wg, conns);
	for (int i = 0; i < conns; i++)
		go_value(many_client, struct many_client, .m = &m, .i = i);
	waitgroup_wait(&m.wg);
	/* Every echo G has its client's EOF coming and closes its conn. */
	NET_ASSERT_OK(net_listener_close(m.l));
	waitgroup_wait(&m.ewg);
	NET_EXPECT_NO_LEAK(c0);
	EXPECT_EQ(m.toomany, 0);	/* the limit was checked above */
	EXPECT_EQ(m.ok, conns);
}
