/*
 * What the network layer (net/) asks of a board's TCP/IP stack: sockets,
 * non-blocking, and a readiness notice. One backend per board: the hosted
 * board's is Linux's sockets (boards/hosted/net.c); a board without one
 * (board_net_backend() returns NULL) has no network, and every net call
 * says so. The parking, the deadlines, the locks and Go's errors are
 * net/'s, shared by every backend.
 *
 * A socket is an int handle >= 0 of the backend's. Every call returns at
 * once (never blocks): >= 0 on success, else a negative NETB_E* code.
 * NETB_EAGAIN: not now; the backend calls net_backend_ready(token, mode)
 * when it may succeed ('r' for read/accept/recvfrom, 'w' for write/
 * connect/sendto, 'r' + 'w' for both), edge-triggered: once per change,
 * possibly spuriously, from any context that may call netpollready (an
 * interrupt handler included). The token is the one given when the
 * socket was made (socket, accept): net/'s, opaque here.
 */
#ifndef GMK_KERNEL_NET_BACKEND_H
#define GMK_KERNEL_NET_BACKEND_H

#include <stddef.h>
#include <stdint.h>

/* errno-like codes, one per error an application can tell apart (net/
 * maps them to Go's errors, net/net.h). */
enum {
	NETB_EAGAIN = 1,	/* would block */
	NETB_EINPROGRESS,	/* connect started; 'w' when done, then connect_result */
	NETB_ECONNREFUSED,
	NETB_ECONNRESET,
	NETB_EPIPE,
	NETB_EADDRINUSE,
	NETB_EADDRNOTAVAIL,
	NETB_EHOSTUNREACH,
	NETB_ENETUNREACH,
	NETB_ECONNABORTED,
	NETB_ETIMEDOUT,		/* the stack's own timeout (keepalive, SYN retries) */
	NETB_EMFILE,		/* out of sockets */
	NETB_ENOBUFS,		/* out of memory */
	NETB_EMSGSIZE,
	NETB_EINVAL,
	NETB_ENOTCONN,
	NETB_EOTHER,		/* anything else */
};

enum { NETB_TCP = 1, NETB_UDP = 2 };
enum { NETB_SHUT_RD = 0, NETB_SHUT_WR = 1 };

/* An IPv4 address and port (host order for the port). */
struct netb_addr {
	uint8_t ip[4];
	uint16_t port;
};

struct net_backend {
	const char *name;
	/* A new socket of kind NETB_TCP or NETB_UDP, non-blocking, its
	 * readiness reported with token. */
	int (*socket)(int kind, void *token);
	int (*bind)(int s, const struct netb_addr *a);
	int (*listen)(int s, int backlog);
	/* A new connection (non-blocking, reported with token), or
	 * NETB_EAGAIN; *peer its remote address. */
	int (*accept)(int s, struct netb_addr *peer, void *token);
	int (*connect)(int s, const struct netb_addr *a);
	int (*connect_result)(int s);	/* after 'w': 0 or the error */
	/* Bytes moved (>= 0; a read of 0 is the end of the stream), or an error. */
	long (*read)(int s, void *buf, size_t n);
	long (*write)(int s, const void *buf, size_t n);
	long (*recvfrom)(int s, void *buf, size_t n, struct netb_addr *from);
	long (*sendto)(int s, const void *buf, size_t n, const struct netb_addr *to);
	int (*shutdown)(int s, int how);
	/* Stop reporting, then free the handle. A notice already under way
	 * may still come (net/ never frees a token's memory, as Go's
	 * pollCache), and is then a spurious one. */
	int (*close)(int s);
	int (*getaddr)(int s, int peer, struct netb_addr *a);
	/* SO_LINGER: sec < 0 off (the default), 0 reset at close. */
	int (*set_linger)(int s, int sec);
};

/* The board's backend, or NULL: the board has no network device. Weak in
 * net/ (NULL); a board with a stack defines it. */
const struct net_backend *board_net_backend(void);

/* From the backend: the socket of token may be ready for mode (net/). */
void net_backend_ready(void *token, int mode);

#endif
