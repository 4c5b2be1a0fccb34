/*
 * An HTTP/1.1 server, as a Go program writes one on net (not net/http):
 * an accept loop and a goroutine per connection, which reads requests
 * one after the other on it (keep-alive) until the client closes it, asks
 * to, or stays idle past IDLE_TIMEOUT.
 *
 *   GET /          a page (HEAD too)
 *   GET /stream    a response streamed in chunks (Transfer-Encoding:
 *                  chunked), written as it is made
 *   POST /echo     the request's body back
 *
 * Limits, as a server facing anyone needs: a request line over
 * MAX_LINE bytes is answered 414, headers over MAX_HEADER_BYTES 431, a
 * body over MAX_BODY 413; a malformed request (request line, header,
 * Content-Length, no Host in HTTP/1.1) 400, a version other than 1.x
 * 505. Each of these closes the connection after the answer, as Go's
 * net/http does (the request's end cannot be trusted): the server stops
 * writing, reads what the client still sends for a moment and then
 * closes, so the answer is not lost to a reset (Go's closeWriteAndWait).
 *
 *   make run APP=examples/httpd [BOARD=...]    then: curl http://127.0.0.1:8080/
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "gmk.h"

#define MAX_LINE		1024		/* request line */
#define MAX_HEADER_BYTES	8192		/* the header lines, all together */
#define MAX_BODY		(64 * 1024)
#define IDLE_TIMEOUT		(30 * 1000000000ull)	/* Go's IdleTimeout */
#define LINGER_TIMEOUT		(500 * 1000000ull)	/* closeWriteAndWait */
#define STREAM_CHUNKS		8

/* A buffered reader on a connection (Go's bufio.Reader). */
struct reader {
	net_conn *c;
	size_t r, w;
	int err;
	char buf[MAX_HEADER_BYTES + 256];
};

enum { LINE_OK, LINE_TOO_LONG, LINE_ERR };

/* The next line, without its \r\n (or \n), in *line (in rd's buffer, good
 * until the next read); at most limit bytes with its end. */
static int read_line(struct reader *rd, size_t limit, char **line, size_t *len)
{
	for (;;) {
		char *nl = memchr(rd->buf + rd->r, '\n', rd->w - rd->r);
		if (nl) {
			size_t n = (size_t)(nl - (rd->buf + rd->r)) + 1;
			if (n > limit)
				return LINE_TOO_LONG;
			*line = rd->buf + rd->r;
			rd->r += n;
			*len = n - 1;
			if (*len && (*line)[*len - 1] == '\r')
				(*len)--;
			(*line)[*len] = 0;
			return LINE_OK;
		}
		if (rd->w - rd->r >= limit)
			return LINE_TOO_LONG;
		if (rd->r) {			/* room at the end */
			memmove(rd->buf, rd->buf + rd->r, rd->w - rd->r);
			rd->w -= rd->r;
			rd->r = 0;
		}
		size_t n;
		rd->err = net_conn_read(rd->c, rd->buf + rd->w, sizeof rd->buf - rd->w - 1, &n);
		rd->w += n;
		if (rd->err != NET_OK && n == 0)
			return LINE_ERR;
	}
}

/* n bytes of body into out (NULL: dropped). */
static bool read_body(struct reader *rd, char *out, size_t n)
{
	while (n) {
		size_t k = rd->w - rd->r;
		if (k) {
			if (k > n)
				k = n;
			if (out) {
				memcpy(out, rd->buf + rd->r, k);
				out += k;
			}
			rd->r += k;
			n -= k;
			continue;
		}
		rd->r = rd->w = 0;
		rd->err = net_conn_read(rd->c, rd->buf, sizeof rd->buf - 1, &k);
		rd->w = k;
		if (rd->err != NET_OK && k == 0)
			return false;
	}
	return true;
}

struct request {
	char method[16], target[MAX_LINE];
	int minor;			/* HTTP/1.minor */
	bool keep_alive, host;
	long content_length;		/* -1: none */
};

static bool write_all(net_conn *c, const void *p, size_t n)
{
	return net_conn_write(c, p, n, NULL) == NET_OK;
}

static bool respond(net_conn *c, int status, const char *reason, const char *type,
		    const char *body, size_t len, bool keep, bool head)
{
	char h[256];
	int n = snprintf(h, sizeof h,
			 "HTTP/1.1 %d %s\r\nServer: gmk-httpd\r\nContent-Type: %s\r\n"
			 "Content-Length: %zu\r\n%s\r\n",
			 status, reason, type, len, keep ? "" : "Connection: close\r\n");
	return write_all(c, h, (size_t)n) && (head || write_all(c, body, len));
}

/* An error answer; the connection ends after it. */
static void fail(net_conn *c, int status, const char *reason)
{
	char body[64];
	int n = snprintf(body, sizeof body, "%d %s\n", status, reason);
	respond(c, status, reason, "text/plain; charset=utf-8", body, (size_t)n, false, false);
}

static bool token_char(char ch)
{
	return ch > ' ' && ch < 127 && !strchr("()<>@,;:\\\"/[]?={}", ch);
}

/* "GET /path HTTP/1.1": 0, or the status that answers it. */
static int parse_request_line(char *line, struct request *rq)
{
	char *sp1 = strchr(line, ' '), *sp2 = sp1 ? strchr(sp1 + 1, ' ') : NULL;
	if (!sp1 || !sp2 || strchr(sp2 + 1, ' '))
		return 400;
	size_t ml = (size_t)(sp1 - line), tl = (size_t)(sp2 - sp1 - 1);
	if (ml == 0 || ml >= sizeof rq->method || tl == 0 || tl >= sizeof rq->target)
		return 400;
	for (size_t i = 0; i < ml; i++)
		if (!token_char(line[i]))
			return 400;
	memcpy(rq->method, line, ml);
	rq->method[ml] = 0;
	memcpy(rq->target, sp1 + 1, tl);
	rq->target[tl] = 0;
	if (rq->target[0] != '/')
		return 400;
	const char *v = sp2 + 1;
	if (strncmp(v, "HTTP/", 5) || v[5] < '0' || v[5] > '9' || v[6] != '.' ||
	    v[7] < '0' || v[7] > '9' || v[8])
		return 400;
	if (v[5] != '1')
		return 505;
	rq->minor = v[7] - '0';
	rq->keep_alive = rq->minor >= 1;	/* 1.0: only when asked */
	return 0;
}

static bool has_token(const char *v, const char *tok)
{
	size_t n = strlen(tok);
	while (*v) {
		while (*v == ' ' || *v == '\t' || *v == ',')
			v++;
		if (!strncasecmp(v, tok, n) && (!v[n] || v[n] == ',' || v[n] == ' '))
			return true;
		while (*v && *v != ',')
			v++;
	}
	return false;
}

/* "Name: value": 0, or the status that answers it. */
static int parse_header(char *line, struct request *rq)
{
	char *colon = strchr(line, ':');
	if (!colon || colon == line)
		return 400;
	for (char *p = line; p < colon; p++)
		if (!token_char(*p))
			return 400;	/* "Name :" included, as Go */
	*colon = 0;
	char *v = colon + 1;
	while (*v == ' ' || *v == '\t')
		v++;
	for (char *e = v + strlen(v); e > v && (e[-1] == ' ' || e[-1] == '\t'); )
		*--e = 0;
	if (!strcasecmp(line, "Host")) {
		rq->host = true;
	} else if (!strcasecmp(line, "Connection")) {
		if (has_token(v, "close"))
			rq->keep_alive = false;
		else if (has_token(v, "keep-alive"))
			rq->keep_alive = true;
	} else if (!strcasecmp(line, "Content-Length")) {
		char *end;
		if (!*v || *v < '0' || *v > '9')
			return 400;
		unsigned long n = strtoul(v, &end, 10);
		if (*end || (rq->content_length >= 0 && (long)n != rq->content_length))
			return 400;
		if (n > MAX_BODY)
			return 413;
		rq->content_length = (long)n;
	} else if (!strcasecmp(line, "Transfer-Encoding")) {
		return 501;		/* chunked requests: not here */
	}
	return 0;
}

static const char *reason_of(int status)
{
	switch (status) {
	case 400: return "Bad Request";
	case 413: return "Request Entity Too Large";
	case 414: return "URI Too Long";
	case 431: return "Request Header Fields Too Large";
	case 501: return "Not Implemented";
	case 505: return "HTTP Version Not Supported";
	default:  return "Error";
	}
}

static const char page[] =
	"<!DOCTYPE html>\n<html><head><title>gmk</title></head>\n"
	"<body><h1>Hello from gmk</h1>\n"
	"<p>An HTTP/1.1 server in a goroutine per connection, on Go's GMP scheduler.</p>\n"
	"<p><a href=\"/stream\">/stream</a>: a response in chunks.</p></body></html>\n";

/* Chunk by chunk as it is made, a pause between (a producer's pace). */
static bool stream(net_conn *c, const struct request *rq, bool keep)
{
	bool chunked = rq->minor >= 1;
	char h[192];
	int n = snprintf(h, sizeof h, "HTTP/1.1 200 OK\r\nServer: gmk-httpd\r\n"
			 "Content-Type: text/plain; charset=utf-8\r\n%s%s\r\n",
			 chunked ? "Transfer-Encoding: chunked\r\n" : "",
			 keep && chunked ? "" : "Connection: close\r\n");
	if (!write_all(c, h, (size_t)n))
		return false;
	for (int i = 1; i <= STREAM_CHUNKS; i++) {
		char line[64], chunk[96];
		int ln = snprintf(line, sizeof line, "line %d of %d, goroutine %lu\n", i,
				  STREAM_CHUNKS, (unsigned long)goid());
		n = chunked ? snprintf(chunk, sizeof chunk, "%x\r\n%s\r\n", ln, line)
			    : snprintf(chunk, sizeof chunk, "%s", line);
		if (!write_all(c, chunk, (size_t)n))
			return false;
		sleep_ns(10 * 1000000ull);
	}
	return !chunked || write_all(c, "0\r\n\r\n", 5);
}

/* The answer to one request; false: the connection ends. */
static bool serve(net_conn *c, struct reader *rd, struct request *rq)
{
	bool head = !strcmp(rq->method, "HEAD"), get = head || !strcmp(rq->method, "GET");
	static char body[MAX_BODY];	/* only /echo's: one at a time */
	static struct mutex body_mu;

	if (!strcmp(rq->target, "/echo") && !strcmp(rq->method, "POST")) {
		size_t n = rq->content_length > 0 ? (size_t)rq->content_length : 0;
		mutex_lock(&body_mu);
		bool ok = read_body(rd, body, n) &&
			  respond(c, 200, "OK", "application/octet-stream", body, n,
				  rq->keep_alive, false);
		mutex_unlock(&body_mu);
		return ok && rq->keep_alive;
	}
	/* Any other body is read past, so the next request starts clean. */
	if (rq->content_length > 0 && !read_body(rd, NULL, (size_t)rq->content_length))
		return false;
	if (!strcmp(rq->target, "/") && get)
		return respond(c, 200, "OK", "text/html; charset=utf-8", page, sizeof page - 1,
			       rq->keep_alive, head) && rq->keep_alive;
	if (!strcmp(rq->target, "/stream") && get)
		return stream(c, rq, rq->keep_alive) && rq->keep_alive && rq->minor >= 1;
	bool known = !strcmp(rq->target, "/") || !strcmp(rq->target, "/stream") ||
		     !strcmp(rq->target, "/echo");
	const char *msg = known ? "405 Method Not Allowed\n" : "404 Not Found\n";
	return respond(c, known ? 405 : 404, known ? "Method Not Allowed" : "Not Found",
		       "text/plain; charset=utf-8", msg, strlen(msg), rq->keep_alive, head) &&
	       rq->keep_alive;
}

/* Reads one request's head: 0, -1 (the connection ended or idled), or
 * the status that answers it. */
static int read_request(struct reader *rd, struct request *rq)
{
	char *line;
	size_t len, total = 0;
	int r;

	memset(rq, 0, sizeof *rq);
	rq->content_length = -1;
	/* Go skips empty lines before a request (RFC 7230 3.5). */
	do {
		net_conn_set_read_deadline(rd->c, time_now() + IDLE_TIMEOUT);
		r = read_line(rd, MAX_LINE, &line, &len);
	} while (r == LINE_OK && len == 0);
	if (r == LINE_TOO_LONG)
		return 414;
	if (r != LINE_OK)
		return -1;
	if ((r = parse_request_line(line, rq)) != 0)
		return r;
	for (;;) {
		r = read_line(rd, MAX_HEADER_BYTES - total, &line, &len);
		if (r == LINE_TOO_LONG)
			return 431;
		if (r != LINE_OK)
			return -1;
		total += len + 2;
		if (len == 0)
			break;
		if (line[0] == ' ' || line[0] == '\t')
			return 400;	/* obsolete line folding */
		if ((r = parse_header(line, rq)) != 0)
			return r;
	}
	if (rq->minor >= 1 && !rq->host)
		return 400;		/* RFC 7230 5.4, as Go */
	return 0;
}

struct conn_arg {
	net_conn *c;
	struct waitgroup *wg;
};

static void serve_conn(void *p)
{
	struct conn_arg *a = p;
	struct reader *rd = malloc(sizeof *rd);
	struct request rq;

	if (rd) {
		rd->c = a->c;
		rd->r = rd->w = 0;
		for (;;) {
			int st = read_request(rd, &rq);
			if (st < 0)
				break;
			if (st > 0) {
				fail(a->c, st, reason_of(st));
				/* Go's closeWriteAndWait: the client reads the
				 * answer before a reset could take it. */
				net_conn_close_write(a->c);
				net_conn_set_read_deadline(a->c, time_now() + LINGER_TIMEOUT);
				char sink[512];
				size_t n;
				for (int i = 0; i < 128 && net_conn_read(a->c, sink, sizeof sink, &n) == NET_OK; i++)
					;
				break;
			}
			if (!serve(a->c, rd, &rq))
				break;
		}
		free(rd);
	}
	net_conn_close(a->c);
	waitgroup_done(a->wg);
}

/* Accepts until l is closed, a goroutine per connection; returns once
 * every connection is closed, with how many it served. */
uint64_t httpd_serve(net_listener *l)
{
	struct waitgroup wg = { 0 };
	uint64_t served = 0;
	net_conn *c;
	int err;

	while ((err = net_listener_accept(l, &c)) == NET_OK) {
		waitgroup_add(&wg, 1);
		go_value(serve_conn, struct conn_arg, .c = c, .wg = &wg);
		served++;
	}
	if (err != NET_ERR_CLOSED) {
		char msg[160];
		printf("httpd: %s\n", net_listener_errstr(l, "accept", err, msg, sizeof msg));
	}
	waitgroup_wait(&wg);
	return served;
}

PROGRAM(httpd, "an HTTP/1.1 server (-- [address], default :8080)")
{
	const char *addr = argc > 1 ? argv[1] : ":8080";
	net_listener *l;
	char msg[160], a[NET_ADDRSTRLEN];

	if (argc > 2) {
		printf("usage: run=httpd [-- address], e.g. :8080 or 127.0.0.1:9000\n");
		return 2;
	}
	int err = net_listen("tcp", addr, &l);
	if (err) {
		printf("httpd: %s\n", net_address_errstr("listen", "tcp", addr, err, msg, sizeof msg));
		return 1;
	}
	struct net_addr la = net_listener_addr(l);
	printf("httpd: listening on %s\n", net_addr_string(&la, a));
	httpd_serve(l);
	net_listener_close(l);
	return 0;
}
