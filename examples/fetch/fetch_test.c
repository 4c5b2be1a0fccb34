/* The example's tests: fetch_get against a server of the test's own over
 * 127.0.0.1, which checks the request and answers each case as written
 * here: bodies framed every way HTTP/1.1 frames them come whole, their
 * length and CRC-32 those of what was sent; a 1xx before the answer is
 * passed over; a 404 is an answer, not an error; and each way a fetch
 * fails is an error with Go's words. Skipped on a board without a
 * network. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gmk.h"
#include "gmk_test.h"
#include "fetch.h"

#define BODY		100000		/* past the client's 64 KiB buffer */
#define QUIET_TIMEOUT	(200 * NSEC_PER_MSEC)

static char body[BODY];

static void make_body(void)
{
	for (size_t i = 0; i < BODY; i++)
		body[i] = (char)(i * 7 + i / 251);
}

enum framing { LENGTH, CHUNKED, TO_EOF, CONTINUE_THEN_LENGTH, NOT_FOUND, SHORT, MALFORMED,
	       BAD_CHUNK, QUIET };

struct server {
	net_listener *l;
	enum framing how;
	volatile uint32_t *requests_ok;	/* requests as fetch_get must send them */
	struct waitgroup *wg;
};

static bool write_str(net_conn *c, const char *s)
{
	return net_conn_write(c, s, strlen(s), NULL) == NET_OK;
}

/* Chunks of these sizes, one with an extension, then a trailer. */
static const size_t chunks[] = { 1, 2, 10, 4096, 70000, 3 };

static void answer(net_conn *c, enum framing how)
{
	char h[160];
	size_t off = 0;

	switch (how) {
	case CONTINUE_THEN_LENGTH:
		write_str(c, "HTTP/1.1 100 Continue\r\nX-Early: 1\r\n\r\n");
		/* fallthrough */
	case LENGTH:
		snprintf(h, sizeof h, "HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\n"
			 "Content-Length: %d\r\nX-Case: length\r\n\r\n", BODY);
		if (write_str(c, h))
			net_conn_write(c, body, BODY, NULL);
		break;
	case CHUNKED:
		if (!write_str(c, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"))
			break;
		for (size_t i = 0; i < sizeof chunks / sizeof chunks[0]; off += chunks[i++]) {
			snprintf(h, sizeof h, i == 2 ? "%zx;name=value\r\n" : "%zX\r\n", chunks[i]);
			if (!write_str(c, h) || net_conn_write(c, body + off, chunks[i], NULL) ||
			    !write_str(c, "\r\n"))
				return;
		}
		write_str(c, "0\r\nX-Trailer: 1\r\n\r\n");
		break;
	case TO_EOF:
		if (write_str(c, "HTTP/1.0 200 OK\r\nServer: test\r\n\r\n"))
			net_conn_write(c, body, BODY, NULL);
		break;
	case NOT_FOUND:
		write_str(c, "HTTP/1.1 404 Not Found\r\nContent-Length: 10\r\n\r\nnot found\n");
		break;
	case SHORT:			/* a length it never sends */
		if (write_str(c, "HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n"))
			net_conn_write(c, body, 10, NULL);
		break;
	case MALFORMED:
		write_str(c, "SPDY/3 200 OK\r\n\r\n");
		break;
	case BAD_CHUNK:			/* a size that is no hex number */
		write_str(c, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
			  "5\r\nhello\r\nzz\r\n");
		break;
	case QUIET: {			/* until the client gives up */
		char b[64];
		size_t n;
		while (net_conn_read(c, b, sizeof b, &n) == NET_OK)
			;
		break;
	}
	}
}

/* One connection: its request read and checked, then answered. */
static void serve(void *p)
{
	struct server *s = p;
	char req[1024];
	size_t got = 0, n;
	net_conn *c;

	if (net_listener_accept(s->l, &c) == NET_OK) {
		while (got < sizeof req - 1 && net_conn_read(c, req + got, sizeof req - 1 - got, &n) == NET_OK) {
			got += n;
			req[got] = 0;
			if (strstr(req, "\r\n\r\n"))
				break;
		}
		req[got] = 0;
		char want[64];
		struct net_addr a = net_listener_addr(s->l);
		snprintf(want, sizeof want, "\r\nHost: 127.0.0.1:%u\r\n", a.port);
		if (!strncmp(req, "GET /some/page?q=1 HTTP/1.1\r\n", 29) && strstr(req, want) &&
		    strstr(req, "\r\nConnection: close\r\n") && strstr(req, "\r\n\r\n"))
			__atomic_fetch_add(s->requests_ok, 1, __ATOMIC_SEQ_CST);
		answer(c, s->how);
		net_conn_close(c);
	}
	waitgroup_done(s->wg);
}

/* fetch_get of one case from a server answering it so; the server's G
 * has returned when this does. */
static int fetch_case(net_listener *l, enum framing how, uint64_t timeout,
		      volatile uint32_t *requests_ok, struct fetch_response *r, char *msg, size_t size)
{
	struct waitgroup wg = { 0 };
	struct server s = { .l = l, .how = how, .requests_ok = requests_ok, .wg = &wg };
	char url[64], a[NET_ADDRSTRLEN];
	struct net_addr la = net_listener_addr(l);

	waitgroup_add(&wg, 1);
	go(serve, &s);
	snprintf(url, sizeof url, "http://%s/some/page?q=1#frag", net_addr_string(&la, a));
	int err = fetch_get(url, timeout, r, msg, size);
	waitgroup_wait(&wg);
	return err;
}

static int count_headers(const char *head)
{
	int n = -1;			/* the status line */
	for (const char *p = head; (p = strstr(p, "\r\n")) && p[2] != '\r'; p += 2)
		n++;
	return n + 1;
}

TEST(example_fetch_reads_a_body_whole_however_it_is_framed)
{
	net_listener *l;
	int err = net_listen("tcp", "127.0.0.1:0", &l);
	if (err == NET_ERR_NO_DEVICE)
		test_skip(net_errstr(err));
	ASSERT_EQ(err, NET_OK);
	int g0 = num_goroutine();
	volatile uint32_t requests_ok = 0;
	struct fetch_response r;
	char msg[256];
	make_body();
	uint32_t crc = fetch_crc32_update(0, body, BODY);
	size_t chunked_len = 0;
	for (size_t i = 0; i < sizeof chunks / sizeof chunks[0]; i++)
		chunked_len += chunks[i];

	EXPECT_EQ(fetch_case(l, LENGTH, 30 * NSEC_PER_SEC, &requests_ok, &r, msg, sizeof msg), 0);
	EXPECT_EQ(r.status, 200);
	EXPECT(!strcmp(r.status_line, "HTTP/1.1 200 OK"));
	EXPECT_EQ(r.headers, 3);
	EXPECT_EQ(r.length, BODY);
	EXPECT_EQ(r.crc32, crc);

	EXPECT_EQ(fetch_case(l, CHUNKED, 30 * NSEC_PER_SEC, &requests_ok, &r, msg, sizeof msg), 0);
	EXPECT_EQ(r.status, 200);
	EXPECT_EQ(r.headers, count_headers("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"));
	EXPECT_EQ(r.length, chunked_len);
	EXPECT_EQ(r.crc32, fetch_crc32_update(0, body, chunked_len));

	EXPECT_EQ(fetch_case(l, TO_EOF, 30 * NSEC_PER_SEC, &requests_ok, &r, msg, sizeof msg), 0);
	EXPECT_EQ(r.status, 200);
	EXPECT(!strcmp(r.status_line, "HTTP/1.0 200 OK"));
	EXPECT_EQ(r.length, BODY);
	EXPECT_EQ(r.crc32, crc);

	/* The 100's header is not the answer's. */
	EXPECT_EQ(fetch_case(l, CONTINUE_THEN_LENGTH, 30 * NSEC_PER_SEC, &requests_ok, &r, msg,
			     sizeof msg), 0);
	EXPECT_EQ(r.status, 200);
	EXPECT_EQ(r.headers, 3);
	EXPECT_EQ(r.length, BODY);
	EXPECT_EQ(r.crc32, crc);

	/* An answer, as http.Get's: no error; the program wants 200. */
	EXPECT_EQ(fetch_case(l, NOT_FOUND, 30 * NSEC_PER_SEC, &requests_ok, &r, msg, sizeof msg), 0);
	EXPECT_EQ(r.status, 404);
	EXPECT(!strcmp(r.status_line, "HTTP/1.1 404 Not Found"));
	EXPECT_EQ(r.length, 10);
	EXPECT_EQ(r.crc32, fetch_crc32_update(0, "not found\n", 10));

	EXPECT_EQ(requests_ok, 5);
	net_listener_close(l);
	/* Every G it started has ended: no more than at the start. */
	for (int i = 0; i < 100000 && num_goroutine() > g0; i++)
		gosched();
	EXPECT_LE(num_goroutine(), g0);
}

#define EXPECT_MSG(got, want)                                                      \
	do {                                                                       \
		if (strcmp((got), (want)))                                         \
			test_fail(__FILE__, __LINE__, "got '%s', want '%s'", (got), (want)); \
	} while (0)

TEST(example_fetch_says_what_went_wrong_in_gos_words)
{
	net_listener *l;
	int err = net_listen("tcp", "127.0.0.1:0", &l);
	if (err == NET_ERR_NO_DEVICE)
		test_skip(net_errstr(err));
	ASSERT_EQ(err, NET_OK);
	int g0 = num_goroutine();
	volatile uint32_t requests_ok = 0;
	struct fetch_response r;
	char msg[256], want[256], a[NET_ADDRSTRLEN];
	struct net_addr la = net_listener_addr(l);
	net_addr_string(&la, a);
	make_body();

	EXPECT_EQ(fetch_case(l, SHORT, 30 * NSEC_PER_SEC, &requests_ok, &r, msg, sizeof msg),
		  FETCH_ERR_UNEXPECTED_EOF);
	snprintf(want, sizeof want, "Get \"http://%s/some/page?q=1#frag\": unexpected EOF", a);
	EXPECT_MSG(msg, want);
	EXPECT_EQ(r.status, 200);
	EXPECT_EQ(r.length, 10);

	EXPECT_EQ(fetch_case(l, MALFORMED, 30 * NSEC_PER_SEC, &requests_ok, &r, msg, sizeof msg),
		  FETCH_ERR_MALFORMED);
	snprintf(want, sizeof want, "Get \"http://%s/some/page?q=1#frag\": malformed HTTP response "
		 "\"SPDY/3 200 OK\"", a);
	EXPECT_MSG(msg, want);

	EXPECT_EQ(fetch_case(l, BAD_CHUNK, 30 * NSEC_PER_SEC, &requests_ok, &r, msg, sizeof msg),
		  FETCH_ERR_MALFORMED);
	snprintf(want, sizeof want, "Get \"http://%s/some/page?q=1#frag\": malformed chunked "
		 "encoding", a);
	EXPECT_MSG(msg, want);
	EXPECT_EQ(r.length, 5);

	/* A server that never answers: the deadline ends the read. */
	EXPECT_EQ(fetch_case(l, QUIET, QUIET_TIMEOUT, &requests_ok, &r, msg, sizeof msg),
		  NET_ERR_TIMEOUT);
	/* Get "URL": read tcp 127.0.0.1:PORT->ADDR: i/o timeout */
	snprintf(want, sizeof want, "Get \"http://%s/some/page?q=1#frag\": read tcp 127.0.0.1:", a);
	EXPECT(!strncmp(msg, want, strlen(want)));
	snprintf(want, sizeof want, "->%s: i/o timeout", a);
	EXPECT(strlen(msg) > strlen(want) && !strcmp(msg + strlen(msg) - strlen(want), want));
	EXPECT_EQ(r.status, 0);
	EXPECT_EQ(requests_ok, 4);

	/* No one listens there now. */
	net_listener_close(l);
	char url[64];
	snprintf(url, sizeof url, "http://%s/", a);
	EXPECT_EQ(fetch_get(url, 30 * NSEC_PER_SEC, &r, msg, sizeof msg), NET_ERR_REFUSED);
	snprintf(want, sizeof want, "Get \"%s\": dial tcp %s: connect: connection refused", url, a);
	EXPECT_MSG(msg, want);

	EXPECT_EQ(fetch_get("ftp://127.0.0.1/", 30 * NSEC_PER_SEC, &r, msg, sizeof msg), FETCH_ERR_URL);
	EXPECT_MSG(msg, "Get \"ftp://127.0.0.1/\": unsupported protocol scheme \"ftp\"");
	EXPECT_EQ(fetch_get("http:///x", 30 * NSEC_PER_SEC, &r, msg, sizeof msg), FETCH_ERR_URL);
	EXPECT_MSG(msg, "Get \"http:///x\": http: no Host in request URL");

	/* Every G it started has ended: no more than at the start. */
	for (int i = 0; i < 100000 && num_goroutine() > g0; i++)
		gosched();
	EXPECT_LE(num_goroutine(), g0);
}

/* The check value of CRC-32/IEEE (the CRC catalogue's, and Go's
 * crc32.ChecksumIEEE([]byte("123456789"))), whole and in pieces. */
TEST(example_fetch_crc32_is_ieees)
{
	EXPECT_EQ(fetch_crc32_update(0, "123456789", 9), 0xcbf43926u);
	EXPECT_EQ(fetch_crc32_update(fetch_crc32_update(0, "1234", 4), "56789", 5), 0xcbf43926u);
	EXPECT_EQ(fetch_crc32_update(0, "", 0), 0u);
}
