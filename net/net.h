/*
 * The network's public types: Go's errors as values, an address, and the
 * opaque handles (docs/network.md). Public whole: include/gmk.h takes it
 * from here, so it includes nothing of the kernel. The functions are
 * declared in include/gmk.h and net/netfd.h.
 */
#ifndef GMK_NET_NET_H
#define GMK_NET_NET_H

#include <stddef.h>
#include <stdint.h>

/* Go's errors: 0 is nil; net_errstr(err) gives Go's words. */
enum net_err {
	NET_OK = 0,
	NET_EOF,		/* "EOF" (io.EOF) */
	NET_ERR_TIMEOUT,	/* "i/o timeout" (os.ErrDeadlineExceeded) */
	NET_ERR_CLOSED,		/* "use of closed network connection" (net.ErrClosed) */
	NET_ERR_REFUSED,	/* "connection refused" (ECONNREFUSED) */
	NET_ERR_RESET,		/* "connection reset by peer" (ECONNRESET) */
	NET_ERR_BROKEN_PIPE,	/* "broken pipe" (EPIPE) */
	NET_ERR_ADDR_IN_USE,	/* "address already in use" (EADDRINUSE) */
	NET_ERR_ADDR_NOT_AVAIL,	/* "cannot assign requested address" */
	NET_ERR_NO_ROUTE,	/* "no route to host" (EHOSTUNREACH) */
	NET_ERR_NET_UNREACH,	/* "network is unreachable" (ENETUNREACH) */
	NET_ERR_CONN_ABORTED,	/* "software caused connection abort" */
	NET_ERR_CONN_TIMEOUT,	/* "connection timed out" (ETIMEDOUT: the stack's) */
	NET_ERR_TOO_MANY_FILES,	/* "too many open files" (EMFILE) */
	NET_ERR_NO_BUFS,	/* "no buffer space available" (ENOBUFS) */
	NET_ERR_MSG_SIZE,	/* "message too long" (EMSGSIZE) */
	NET_ERR_NOT_CONNECTED,	/* "socket is not connected" */
	NET_ERR_INVALID,	/* "invalid argument" (EINVAL) */
	NET_ERR_CANCELED,	/* "operation was canceled" (a context's) */
	NET_ERR_MISSING_PORT,	/* "missing port in address" (*AddrError) */
	NET_ERR_INVALID_PORT,	/* "invalid port" */
	NET_ERR_NO_SUCH_HOST,	/* "no such host" (*DNSError: literals and localhost only) */
	NET_ERR_UNKNOWN_NETWORK,/* "unknown network" (*UnknownNetworkError) */
	NET_ERR_NO_DEVICE,	/* "network: board B has no network device (see docs/network.md)" */
	NET_ERR_OTHER,		/* "unexpected network error" */
	NET_ERR_COUNT
};

/* Go's TCPAddr / UDPAddr, IPv4: printed "127.0.0.1:8080" by net_addr_string. */
struct net_addr {
	uint8_t ip[4];
	uint16_t port;		/* host order */
};
#define NET_ADDRSTRLEN 22	/* "255.255.255.255:65535" and its NUL */

/* Go's net.Conn (a *TCPConn) or net.PacketConn (a *UDPConn), and
 * net.Listener: the kernel's, never declared by an application. */
typedef struct net_conn net_conn;
typedef struct net_listener net_listener;

#endif
