/*
 * An HTTP/1.1 client, as a Go program writes one on net (not net/http):
 * one GET, the connection dialled and the whole exchange held to one
 * deadline (http.Client's Timeout), the status line and headers read,
 * then the body to its end however the server framed it (Content-Length,
 * chunked, or the connection's end), counted and checksummed (CRC-32,
 * Go's crc32.ChecksumIEEE) as it arrives. It exits 0 only for a 200
 * whose body came whole; an error is printed as Go's http.Get prints it:
 *
 *   fetch: Get "http://127.0.0.1:9/": dial tcp 127.0.0.1:9: connect: connection refused
 *
 *   make run APP=examples/fetch BOARD=hosted CMDLINE="run=fetch -- http://127.0.0.1:8000/"
 *   GMK_QEMU_GUESTFWD=8000 make run APP=examples/fetch CMDLINE="run=fetch -- http://10.0.2.100/"
 *
 * (On the QEMU boards the host is 10.0.2.100:80 inside the guest, through
 * QEMU's guestfwd to 127.0.0.1:8000: docs/network.md.)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "gmk.h"
#include "fetch.h"

#define DEFAULT_TIMEOUT	(30 * NSEC_PER_SEC)
#define UNREACH_RETRY	(100 * NSEC_PER_MSEC)

/* ---- CRC-32 (IEEE), Go's hash/crc32 ---- */

static uint32_t ieee_table[256];
static struct once ieee_once;

static void ieee_init(void *arg)
{
	(void)arg;
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t crc = i;
		for (int j = 0; j < 8; j++)
			crc = crc & 1 ? (crc >> 1) ^ 0xedb88320 : crc >> 1;
		ieee_table[i] = crc;
	}
}

uint32_t fetch_crc32_update(uint32_t crc, const void *p, size_t n)
{
	const uint8_t *b = p;
	once_do(&ieee_once, ieee_init, NULL);
	crc = ~crc;
	while (n--)
		crc = ieee_table[(uint8_t)crc ^ *b++] ^ (crc >> 8);
	return ~crc;
}

/* ---- the response, read through a buffer (Go's bufio.Reader) ---- */

struct reader {
	net_conn *c;
	size_t r, w;			/* unread: buf[r:w] */
	int err;			/* the read that ended the stream: NET_EOF or an error */
	bool any;			/* a byte of the response came */
	char buf[FETCH_MAX_HEADER_BYTES];	/* a line fits: the head's limit */
};

/* More bytes into the buffer; false once the stream has ended (rd->err). */
static bool fill(struct reader *rd)
{
	size_t n;

	if (rd->err)
		return false;
	if (rd->r) {
		memmove(rd->buf, rd->buf + rd->r, rd->w - rd->r);
		rd->w -= rd->r;
		rd->r = 0;
	}
	rd->err = net_conn_read(rd->c, rd->buf + rd->w, sizeof rd->buf - rd->w, &n);
	rd->w += n;
	rd->any |= n > 0;
	return n > 0;
}

/* Why the stream gave no more: its end before the response's is Go's
 * io.ErrUnexpectedEOF, or plain EOF when nothing came at all. */
static int ended(const struct reader *rd)
{
	if (rd->err == NET_EOF)
		return rd->any ? FETCH_ERR_UNEXPECTED_EOF : NET_EOF;
	return rd->err;
}

/* The next line, without its CRLF (or LF), NUL-terminated in the buffer
 * (good until the next read). */
static int read_line(struct reader *rd, char **line, size_t *len)
{
	for (;;) {
		char *nl = memchr(rd->buf + rd->r, '\n', rd->w - rd->r);
		if (nl) {
			*line = rd->buf + rd->r;
			*len = (size_t)(nl - *line);
			rd->r += *len + 1;
			if (*len && (*line)[*len - 1] == '\r')
				(*len)--;
			(*line)[*len] = 0;
			return 0;
		}
		if (rd->r == 0 && rd->w == sizeof rd->buf)
			return FETCH_ERR_HEADERS_TOO_LONG;
		if (!fill(rd))
			return ended(rd);
	}
}

/* n bytes of body (to_eof: every byte to the stream's end) into r's count
 * and checksum. */
static int read_body(struct reader *rd, struct fetch_response *r, uint64_t n, bool to_eof)
{
	while (to_eof || n) {
		if (rd->r == rd->w && !fill(rd))
			return to_eof && rd->err == NET_EOF ? 0 : ended(rd);
		size_t k = rd->w - rd->r;
		if (!to_eof && k > n)
			k = (size_t)n;
		r->crc32 = fetch_crc32_update(r->crc32, rd->buf + rd->r, k);
		r->length += k;
		rd->r += k;
		n -= to_eof ? 0 : k;
	}
	return 0;
}

/* A line of a chunked body: one past the buffer is no chunk's. */
static int chunk_line(struct reader *rd, char **line, size_t *len)
{
	int err = read_line(rd, line, len);
	return err == FETCH_ERR_HEADERS_TOO_LONG ? FETCH_ERR_MALFORMED : err;
}

/* A chunked body (RFC 9112 7.1): hex size lines, each chunk and its CRLF,
 * a zero size, trailer lines to an empty one. */
static int chunks(struct reader *rd, struct fetch_response *r)
{
	char *line, *p;
	size_t len;
	int err;

	for (;;) {
		uint64_t n = 0;
		if ((err = chunk_line(rd, &line, &len)) != 0)
			return err;
		for (p = line; *p && strchr("0123456789abcdefABCDEF", *p); p++) {
			if (n >> 60)
				return FETCH_ERR_MALFORMED;	/* past 2^64 */
			n = n << 4 | (uint64_t)(*p <= '9' ? *p - '0' : (*p | 0x20) - 'a' + 10);
		}
		bool digits = p > line;
		p += strspn(p, " \t");
		if (!digits || (*p && *p != ';'))	/* ';': an extension, ignored */
			return FETCH_ERR_MALFORMED;
		if (n == 0)
			break;
		if ((err = read_body(rd, r, n, false)) != 0 ||
		    (err = chunk_line(rd, &line, &len)) != 0)
			return err;
		if (len)
			return FETCH_ERR_MALFORMED;
	}
	do				/* the trailer */
		err = chunk_line(rd, &line, &len);
	while (!err && len);
	return err;
}

static int read_chunked(struct reader *rd, struct fetch_response *r, char *msg, size_t size)
{
	int err = chunks(rd, r);
	if (err == FETCH_ERR_MALFORMED)
		snprintf(msg, size, "malformed chunked encoding");
	return err;
}

/* The response's head: a status line and its headers, 1xx ones skipped
 * (Go's client does). *length is Content-Length (-1: none); *chunked. */
static int read_head(struct reader *rd, struct fetch_response *r, int64_t *length,
		     bool *chunked, char *msg, size_t size)
{
	size_t total = 0;

	do {
		char *line, *name, *value;
		size_t len;
		int err;

		r->headers = 0;
		*length = -1;
		*chunked = false;
		if ((err = read_line(rd, &line, &len)) != 0)
			return err;
		total += len + 2;
		snprintf(r->status_line, sizeof r->status_line, "%s", line);
		if (strncmp(line, "HTTP/1.", 7) || line[7] < '0' || line[7] > '9' ||
		    line[8] != ' ') {
			snprintf(msg, size, "malformed HTTP response \"%.60s\"", line);
			return FETCH_ERR_MALFORMED;
		}
		if (strspn(line + 9, "0123456789") != 3 || (line[12] && line[12] != ' ')) {
			snprintf(msg, size, "malformed HTTP status code \"%.20s\"", line + 9);
			return FETCH_ERR_MALFORMED;
		}
		r->status = atoi(line + 9);
		for (;;) {
			if ((err = read_line(rd, &line, &len)) != 0)
				return err;
			total += len + 2;
			if (total > FETCH_MAX_HEADER_BYTES)
				return FETCH_ERR_HEADERS_TOO_LONG;
			if (len == 0)
				break;
			name = line;
			value = strchr(line, ':');
			if (!value || value == name || strcspn(name, " \t") < (size_t)(value - name)) {
				snprintf(msg, size, "malformed MIME header line: %.60s", line);
				return FETCH_ERR_MALFORMED;
			}
			*value++ = 0;
			value += strspn(value, " \t");
			for (char *e = value + strlen(value); e > value && (e[-1] == ' ' || e[-1] == '\t'); )
				*--e = 0;
			r->headers++;
			if (!strcasecmp(name, "Content-Length")) {
				size_t digits = strspn(value, "0123456789");
				int64_t v = atoll(value);
				/* Two that differ: which to believe? Go refuses too. */
				if (!digits || value[digits] || digits > 18 ||
				    (*length >= 0 && *length != v)) {
					snprintf(msg, size, "bad Content-Length \"%.30s\"", value);
					return FETCH_ERR_MALFORMED;
				}
				*length = v;
			} else if (!strcasecmp(name, "Transfer-Encoding")) {
				if (strcasecmp(value, "chunked")) {
					snprintf(msg, size, "unsupported transfer encoding: \"%.30s\"", value);
					return FETCH_ERR_MALFORMED;
				}
				*chunked = true;
			}
		}
	} while (r->status >= 100 && r->status < 200 && r->status != 101);
	return 0;
}

/* ---- the URL: http://host[:port][/path] ---- */

struct url {
	char authority[256];		/* host[:port], the Host header */
	char address[264];		/* host:port, dialled */
	char path[2048];		/* "/" at least, with the query */
};

static int parse_url(const char *s, struct url *u, char *msg, size_t size)
{
	for (const char *p = s; *p; p++)
		if ((unsigned char)*p <= ' ' || *p == 0x7f) {
			snprintf(msg, size, "net/url: invalid control character in URL");
			return FETCH_ERR_URL;
		}
	const char *colon = strstr(s, "://");
	if (!colon || (size_t)(colon - s) != 4 || strncasecmp(s, "http", 4)) {
		const char *scheme = colon ? s : "";
		snprintf(msg, size, "unsupported protocol scheme \"%.*s\"",
			 colon ? (int)(colon - scheme) : 0, scheme);
		return FETCH_ERR_URL;
	}
	const char *host = colon + 3, *path = host + strcspn(host, "/?#");
	size_t hlen = (size_t)(path - host);
	if (hlen == 0) {
		snprintf(msg, size, "http: no Host in request URL");
		return FETCH_ERR_URL;
	}
	if (hlen >= sizeof u->authority || strlen(path) + 2 > sizeof u->path) {
		snprintf(msg, size, "URL too long");
		return FETCH_ERR_URL;
	}
	memcpy(u->authority, host, hlen);
	u->authority[hlen] = 0;
	/* net_dial wants a port: http's 80 when the URL has none. */
	snprintf(u->address, sizeof u->address, "%s%s", u->authority,
		 strchr(u->authority, ':') ? "" : ":80");
	snprintf(u->path, sizeof u->path, "%s%.*s", *path == '/' ? "" : "/",
		 (int)strcspn(path, "#"), path);
	return 0;
}

/* ---- GET ---- */

/* The words of an error that brought none of its own. */
static void describe(int err, net_conn *c, char *why, size_t size)
{
	if (err == NET_EOF)		/* nothing came: Go's transport says just this */
		snprintf(why, size, "EOF");
	else if (err == FETCH_ERR_UNEXPECTED_EOF)
		snprintf(why, size, "unexpected EOF");
	else if (err == FETCH_ERR_HEADERS_TOO_LONG)
		snprintf(why, size, "net/http: server response headers exceeded %d bytes; aborted",
			 FETCH_MAX_HEADER_BYTES);
	else
		net_conn_errstr(c, "read", err, why, size);
}

/* A boot's NIC may have no address yet (DHCP's lease comes after the
 * program starts): until then every address off loopback is "network is
 * unreachable". Dial again, as a program started before its network is
 * up must, until the deadline. */
static int dial(const char *address, uint64_t deadline, net_conn **c)
{
	for (;;) {
		uint64_t now = time_now();
		if (now >= deadline)
			return NET_ERR_TIMEOUT;
		int err = net_dial_timeout("tcp", address, deadline - now, c);
		if (err != NET_ERR_NET_UNREACH || time_now() + UNREACH_RETRY >= deadline)
			return err;
		sleep_ns(UNREACH_RETRY);
	}
}

int fetch_get(const char *url, uint64_t timeout_ns, struct fetch_response *r,
	      char *msg, size_t size)
{
	uint64_t deadline = time_now() + timeout_ns;
	char why[192] = "", req[2400];
	struct url *u = malloc(sizeof *u);
	struct reader *rd = malloc(sizeof *rd);
	net_conn *c = NULL;
	int err;

	memset(r, 0, sizeof *r);
	if (!u || !rd) {
		snprintf(why, sizeof why, "out of memory");
		err = NET_ERR_NO_BUFS;
		goto out;
	}
	if ((err = parse_url(url, u, why, sizeof why)) != 0)
		goto out;
	if ((err = dial(u->address, deadline, &c)) != NET_OK) {
		net_address_errstr("dial", "tcp", u->address, err, why, sizeof why);
		c = NULL;
		goto out;
	}
	net_conn_set_deadline(c, deadline);
	/* Connection: close: the server ends the stream after the answer,
	 * which is then the end of a body sent without a length. */
	int n = snprintf(req, sizeof req, "GET %s HTTP/1.1\r\nHost: %s\r\n"
			 "User-Agent: gmk-fetch/1.0\r\nConnection: close\r\n\r\n",
			 u->path, u->authority);
	if ((err = net_conn_write(c, req, (size_t)n, NULL)) != NET_OK) {
		net_conn_errstr(c, "write", err, why, sizeof why);
		goto out;
	}
	*rd = (struct reader){ .c = c };
	int64_t length;
	bool chunked;
	err = read_head(rd, r, &length, &chunked, why, sizeof why);
	if (err == 0 && r->status != 204 && r->status != 304 && r->status >= 200)
		err = chunked ? read_chunked(rd, r, why, sizeof why)
			      : read_body(rd, r, length < 0 ? 0 : (uint64_t)length, length < 0);
	if (err && !*why)
		describe(err, c, why, sizeof why);
out:
	if (err)
		snprintf(msg, size, "Get \"%s\": %s", url, why);
	if (c)
		net_conn_close(c);
	free(u);
	free(rd);
	return err;
}

PROGRAM(fetch, "an HTTP/1.1 client: GET a URL (-- http://host[:port][/path] [timeout seconds])")
{
	uint64_t timeout = DEFAULT_TIMEOUT;
	struct fetch_response r;
	char msg[512];

	if (argc < 2 || argc > 3 || (argc == 3 && atoi(argv[2]) <= 0)) {
		printf("usage: run=fetch -- http://host[:port][/path] [timeout seconds, default 30]\n");
		return 2;
	}
	if (argc == 3)
		timeout = (uint64_t)atoi(argv[2]) * NSEC_PER_SEC;
	int err = fetch_get(argv[1], timeout, &r, msg, sizeof msg);
	if (r.status)
		printf("fetch: %s\n", r.status_line);
	if (err) {
		printf("fetch: %s\n", msg);
		return 1;
	}
	printf("fetch: %d headers, body %llu bytes, crc32 %08x\n", r.headers,
	       (unsigned long long)r.length, (unsigned)r.crc32);
	if (r.status != 200) {
		printf("fetch: want 200 OK\n");
		return 1;
	}
	return 0;
}
