/*
 * The fetch example's client, for its program and its test: one GET, as
 * Go's http.Get does it, answered with what came back.
 */
#ifndef GMK_EXAMPLE_FETCH_H
#define GMK_EXAMPLE_FETCH_H

#include <stddef.h>
#include <stdint.h>

/* What a GET brought back. */
struct fetch_response {
	int status;			/* 200, 404, ...; 0: no status line came */
	char status_line[128];		/* "HTTP/1.1 200 OK" (cut to fit) */
	int headers;			/* the response's header lines */
	uint64_t length;		/* the body's bytes, as read */
	uint32_t crc32;			/* their CRC-32 (Go's crc32.ChecksumIEEE) */
};

/* fetch_get's errors besides net's (enum net_err, positive). */
enum {
	FETCH_ERR_URL = -1,		/* not http://host[:port][/path] */
	FETCH_ERR_UNEXPECTED_EOF = -2,	/* the response ended before its end (io.ErrUnexpectedEOF) */
	FETCH_ERR_MALFORMED = -3,	/* a status line, header or chunk that is not HTTP/1.x's */
	FETCH_ERR_HEADERS_TOO_LONG = -4,	/* past FETCH_MAX_HEADER_BYTES */
};

#define FETCH_MAX_HEADER_BYTES	(64 * 1024)	/* the status line and header lines */

/*
 * GET url, the whole exchange within timeout_ns (http.Client's Timeout):
 * 0 when a response came whole, whatever its status (as http.Get's nil
 * error), with *r filled; else an error, with *r what came before it,
 * and msg (size bytes) the error as Go's http.Get prints it: `Get
 * "http://127.0.0.1:9/": dial tcp 127.0.0.1:9: connect: connection
 * refused`.
 */
int fetch_get(const char *url, uint64_t timeout_ns, struct fetch_response *r,
	      char *msg, size_t size);

/* Go's crc32.Update(crc, crc32.IEEETable, p[:n]). */
uint32_t fetch_crc32_update(uint32_t crc, const void *p, size_t n);

#endif
