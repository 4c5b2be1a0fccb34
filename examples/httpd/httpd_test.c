/* The example's test: a client over 127.0.0.1 against httpd_serve,
 * checking whole responses: keep-alive across requests on one connection,
 * the streamed (chunked) one, the body echoed, and each malformed or
 * oversized request answered with its status and the connection closed,
 * with the server answering the next client as before. Skipped on a
 * board without a network. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "gmk.h"
#include "gmk_test.h"

uint64_t httpd_serve(net_listener *l);

struct resp {
	int status;
	bool chunked, close;
	long length;			/* Content-Length, -1: none */
	char body[4096];
	size_t body_len;
};

/* A buffered client connection. */
struct client {
	net_conn *c;
	char buf[16384];
	size_t r, w;
};

static bool fill(struct client *cl)
{
	size_t n;
	if (cl->r == cl->w)
		cl->r = cl->w = 0;
	if (cl->w == sizeof cl->buf)
		return false;
	int err = net_conn_read(cl->c, cl->buf + cl->w, sizeof cl->buf - cl->w, &n);
	cl->w += n;
	return err == NET_OK || n > 0;
}

static bool line(struct client *cl, char *out, size_t size)
{
	for (;;) {
		char *nl = memchr(cl->buf + cl->r, '\n', cl->w - cl->r);
		if (nl) {
			size_t n = (size_t)(nl - (cl->buf + cl->r));
			if (n && nl[-1] == '\r')
				n--;
			if (n >= size)
				return false;
			memcpy(out, cl->buf + cl->r, n);
			out[n] = 0;
			cl->r = (size_t)(nl - cl->buf) + 1;
			return true;
		}
		if (cl->r) {
			memmove(cl->buf, cl->buf + cl->r, cl->w - cl->r);
			cl->w -= cl->r;
			cl->r = 0;
		}
		if (!fill(cl))
			return false;
	}
}

static bool bytes(struct client *cl, char *out, size_t n)
{
	while (n) {
		if (cl->r == cl->w && !fill(cl))
			return false;
		size_t k = cl->w - cl->r < n ? cl->w - cl->r : n;
		memcpy(out, cl->buf + cl->r, k);
		cl->r += k;
		out += k;
		n -= k;
	}
	return true;
}

/* One whole response (its body by Content-Length, chunks, or to EOF). */
static bool read_resp(struct client *cl, struct resp *rs, bool head)
{
	char l[512];
	memset(rs, 0, sizeof *rs);
	rs->length = -1;
	if (!line(cl, l, sizeof l) || sscanf(l, "HTTP/1.1 %d ", &rs->status) != 1)
		return false;
	while (line(cl, l, sizeof l) && l[0]) {
		if (!strncasecmp(l, "Content-Length: ", 16))
			rs->length = atol(l + 16);
		else if (!strcasecmp(l, "Transfer-Encoding: chunked"))
			rs->chunked = true;
		else if (!strcasecmp(l, "Connection: close"))
			rs->close = true;
	}
	if (head)
		return true;
	if (rs->chunked) {
		for (;;) {
			unsigned long n;
			if (!line(cl, l, sizeof l) || sscanf(l, "%lx", &n) != 1 ||
			    rs->body_len + n > sizeof rs->body)
				return false;
			if (n == 0)
				return line(cl, l, sizeof l) && !l[0];
			if (!bytes(cl, rs->body + rs->body_len, n) || !line(cl, l, sizeof l) || l[0])
				return false;
			rs->body_len += n;
		}
	}
	if (rs->length >= 0) {
		if ((size_t)rs->length > sizeof rs->body)
			return false;
		rs->body_len = (size_t)rs->length;
		return bytes(cl, rs->body, rs->body_len);
	}
	return false;
}

static bool contains(const char *h, size_t n, const char *needle)
{
	size_t k = strlen(needle);
	for (size_t i = 0; i + k <= n; i++)
		if (!memcmp(h + i, needle, k))
			return true;
	return false;
}

static bool at_eof(struct client *cl)
{
	char b;
	size_t n;
	return cl->r == cl->w && net_conn_read(cl->c, &b, 1, &n) == NET_EOF;
}

static bool send_str(struct client *cl, const char *s)
{
	return net_conn_write(cl->c, s, strlen(s), NULL) == NET_OK;
}

static struct client *dial(const struct net_addr *a)
{
	char addr[NET_ADDRSTRLEN];
	struct client *cl = calloc(1, sizeof *cl);
	ASSERT(cl != NULL);
	ASSERT_EQ(net_dial("tcp", net_addr_string(a, addr), &cl->c), NET_OK);
	/* A server that never answers fails the test, not hangs it. */
	net_conn_set_deadline(cl->c, time_now() + 60 * 1000000000ull);
	return cl;
}

static void hangup(struct client *cl)
{
	net_conn_close(cl->c);
	free(cl);
}

struct server {
	net_listener *l;
	uint64_t served;
	struct waitgroup wg;
};

static void server(void *p)
{
	struct server *s = p;
	s->served = httpd_serve(s->l);
	waitgroup_done(&s->wg);
}

/* A request that gets status, then the connection's end. */
static void expect_refused(const struct net_addr *a, const char *req, int status)
{
	struct client *cl = dial(a);
	struct resp rs;
	EXPECT(send_str(cl, req));
	EXPECT(read_resp(cl, &rs, false));
	EXPECT_EQ(rs.status, status);
	EXPECT(rs.close);
	EXPECT(at_eof(cl));
	hangup(cl);
}

TEST(example_httpd_keeps_alive_streams_and_answers_malformed_requests_with_400)
{
	static struct server s;
	int err = net_listen("tcp", "127.0.0.1:0", &s.l);
	if (err == NET_ERR_NO_DEVICE)
		test_skip(net_errstr(err));
	ASSERT_EQ(err, NET_OK);
	struct net_addr a = net_listener_addr(s.l);
	s.served = 0;
	waitgroup_add(&s.wg, 1);
	go(server, &s);

	/* Keep-alive: four requests, one connection, each answered whole. */
	struct client *cl = dial(&a);
	static struct resp rs;
	EXPECT(send_str(cl, "GET / HTTP/1.1\r\nHost: x\r\n\r\n"));
	EXPECT(read_resp(cl, &rs, false));
	EXPECT_EQ(rs.status, 200);
	EXPECT(!rs.close);
	EXPECT(contains(rs.body, rs.body_len, "Hello from gmk"));
	EXPECT(send_str(cl, "GET /stream HTTP/1.1\r\nHost: x\r\n\r\n"));
	EXPECT(read_resp(cl, &rs, false));
	EXPECT_EQ(rs.status, 200);
	EXPECT(rs.chunked);
	EXPECT(contains(rs.body, rs.body_len, "line 1 of 8"));
	EXPECT(contains(rs.body, rs.body_len, "line 8 of 8"));
	/* Two pipelined, the second with a body. */
	EXPECT(send_str(cl, "HEAD / HTTP/1.1\r\nHost: x\r\n\r\n"
			    "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 11\r\n\r\nhello gmk\r\n"));
	EXPECT(read_resp(cl, &rs, true));
	EXPECT_EQ(rs.status, 200);
	EXPECT(rs.length > 0);
	EXPECT(read_resp(cl, &rs, false));
	EXPECT_EQ(rs.status, 200);
	EXPECT(rs.body_len == 11 && !memcmp(rs.body, "hello gmk\r\n", 11));
	EXPECT(send_str(cl, "GET /nowhere HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"));
	EXPECT(read_resp(cl, &rs, false));
	EXPECT_EQ(rs.status, 404);
	EXPECT(rs.close);
	EXPECT(at_eof(cl));
	hangup(cl);

	/* Malformed, and over the limits: the status, then the end. */
	expect_refused(&a, "GARBAGE\r\n\r\n", 400);
	expect_refused(&a, "GET / HTTP/1.1\r\nHost: x\r\nNo colon here\r\n\r\n", 400);
	expect_refused(&a, "GET / HTTP/1.1\r\n\r\n", 400);	/* no Host */
	expect_refused(&a, "GET / HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n", 400);
	expect_refused(&a, "GET / HTTP/2.0\r\nHost: x\r\n\r\n", 505);
	static char big[12000];
	memcpy(big, "GET /", 5);
	memset(big + 5, 'a', 2000);
	strcpy(big + 2005, " HTTP/1.1\r\nHost: x\r\n\r\n");
	expect_refused(&a, big, 414);
	strcpy(big, "GET / HTTP/1.1\r\nHost: x\r\n");
	for (int i = 0; i < 200; i++)
		strcat(big, "X-Filler: 0123456789012345678901234567890123456789\r\n");
	strcat(big, "\r\n");
	expect_refused(&a, big, 431);

	/* And the server answers the next one as ever. */
	cl = dial(&a);
	EXPECT(send_str(cl, "GET / HTTP/1.0\r\n\r\n"));
	EXPECT(read_resp(cl, &rs, false));
	EXPECT_EQ(rs.status, 200);
	EXPECT(rs.close);
	EXPECT(at_eof(cl));
	hangup(cl);

	net_listener_close(s.l);
	waitgroup_wait(&s.wg);
	EXPECT_EQ(s.served, 9);	/* a keep-alive one, 7 refused, the last */
}
