/*
 * Addresses and errors, in Go's words: "host:port" parsed as Go's
 * SplitHostPort and ParseIP (IPv4 literals and "localhost": there is no
 * resolver), an address printed as a TCPAddr's String, and an error as
 * an *OpError's Error().
 */
#include <stdio.h>
#include <string.h>

#include "net/netfd.h"

static const char *const words[NET_ERR_COUNT] = {
	[NET_OK] = "<nil>",
	[NET_EOF] = "EOF",
	[NET_ERR_TIMEOUT] = "i/o timeout",
	[NET_ERR_CLOSED] = "use of closed network connection",
	[NET_ERR_REFUSED] = "connection refused",
	[NET_ERR_RESET] = "connection reset by peer",
	[NET_ERR_BROKEN_PIPE] = "broken pipe",
	[NET_ERR_ADDR_IN_USE] = "address already in use",
	[NET_ERR_ADDR_NOT_AVAIL] = "cannot assign requested address",
	[NET_ERR_NO_ROUTE] = "no route to host",
	[NET_ERR_NET_UNREACH] = "network is unreachable",
	[NET_ERR_CONN_ABORTED] = "software caused connection abort",
	[NET_ERR_CONN_TIMEOUT] = "connection timed out",
	[NET_ERR_TOO_MANY_FILES] = "too many open files",
	[NET_ERR_NO_BUFS] = "no buffer space available",
	[NET_ERR_MSG_SIZE] = "message too long",
	[NET_ERR_NOT_CONNECTED] = "socket is not connected",
	[NET_ERR_INVALID] = "invalid argument",
	[NET_ERR_CANCELED] = "operation was canceled",
	[NET_ERR_MISSING_PORT] = "missing port in address",
	[NET_ERR_INVALID_PORT] = "invalid port",
	[NET_ERR_NO_SUCH_HOST] = "no such host",
	[NET_ERR_UNKNOWN_NETWORK] = "unknown network",
	[NET_ERR_NO_DEVICE] = "network: this board has no network device (see docs/network.md)",
	[NET_ERR_OTHER] = "unexpected network error",
};

const char *net_errstr(int err)
{
	if (err == NET_ERR_NO_DEVICE && net_unavailable())
		return net_unavailable();	/* names the board */
	if (err < 0 || err >= NET_ERR_COUNT)
		return "unknown network error code";
	return words[err];
}

/* Errors Go wraps in an *os.SyscallError ("connect: connection refused"):
 * the ones a system call returned. */
static bool from_syscall(int err)
{
	switch (err) {
	case NET_ERR_REFUSED: case NET_ERR_RESET: case NET_ERR_BROKEN_PIPE:
	case NET_ERR_ADDR_IN_USE: case NET_ERR_ADDR_NOT_AVAIL: case NET_ERR_NO_ROUTE:
	case NET_ERR_NET_UNREACH: case NET_ERR_CONN_ABORTED: case NET_ERR_CONN_TIMEOUT:
	case NET_ERR_TOO_MANY_FILES: case NET_ERR_NO_BUFS: case NET_ERR_MSG_SIZE:
	case NET_ERR_NOT_CONNECTED: case NET_ERR_INVALID: case NET_ERR_OTHER:
		return true;
	default:
		return false;
	}
}

/* The system call behind op, as Go's netFD names it. */
static const char *syscall_of(const char *op, const char *network)
{
	bool udp = network && network[0] == 'u';
	if (!strcmp(op, "dial"))
		return "connect";
	if (!strcmp(op, "listen"))
		return "bind";
	if (!strcmp(op, "read"))
		return udp ? "recvfrom" : "read";
	if (!strcmp(op, "write"))
		return udp ? "sendto" : "write";
	return op;		/* accept, close, shutdown */
}

char *net_addr_string(const struct net_addr *a, char *buf)
{
	snprintf(buf, NET_ADDRSTRLEN, "%u.%u.%u.%u:%u", a->ip[0], a->ip[1], a->ip[2],
		 a->ip[3], a->port);
	return buf;
}

char *net_operr_string(char *buf, size_t size, const char *op, const char *network,
		       const struct net_addr *source, const struct net_addr *addr, int err)
{
	if (size == 0)
		return buf;
	if (err == NET_EOF || err == NET_OK) {	/* io.EOF and nil are no OpError */
		snprintf(buf, size, "%s", net_errstr(err));
		return buf;
	}
	char s[NET_ADDRSTRLEN], d[NET_ADDRSTRLEN];
	size_t n = (size_t)snprintf(buf, size, "%s", op);
	if (network && *network && n < size)
		n += (size_t)snprintf(buf + n, size - n, " %s", network);
	if (source && n < size)
		n += (size_t)snprintf(buf + n, size - n, " %s", net_addr_string(source, s));
	if (addr && n < size)
		n += (size_t)snprintf(buf + n, size - n, "%s%s", source ? "->" : " ",
				      net_addr_string(addr, d));
	if (from_syscall(err) && n < size)
		n += (size_t)snprintf(buf + n, size - n, ": %s", syscall_of(op, network));
	if (n < size)
		snprintf(buf + n, size - n, ": %s", net_errstr(err));
	return buf;
}

char *net_address_errstr(const char *op, const char *network, const char *address,
			 int err, char *buf, size_t size)
{
	struct net_addr a;
	if (size == 0)
		return buf;
	switch (err) {
	case NET_ERR_MISSING_PORT:	/* an *AddrError: "address x: missing port in address" */
	case NET_ERR_INVALID_PORT:
		snprintf(buf, size, "%s %s: address %s: %s", op, network ? network : "",
			 address ? address : "", net_errstr(err));
		return buf;
	case NET_ERR_NO_SUCH_HOST:	/* a *DNSError: "lookup host: no such host" */
		snprintf(buf, size, "%s %s: lookup %.*s: %s", op, network ? network : "",
			 address && strrchr(address, ':') ? (int)(strrchr(address, ':') - address)
							   : (int)strlen(address ? address : ""),
			 address ? address : "", net_errstr(err));
		return buf;
	case NET_ERR_UNKNOWN_NETWORK:	/* "dial udp7: unknown network udp7" */
		snprintf(buf, size, "%s %s: unknown network %s", op, network ? network : "",
			 network ? network : "");
		return buf;
	}
	if (err == NET_EOF || err == NET_OK || net_parse_addr(address, &a) != NET_OK)
		return net_operr_string(buf, size, op, network, NULL, NULL, err);
	/* The address as given: Go prints an unspecified one as ":8080". */
	snprintf(buf, size, "%s %s %s: %s%s%s", op, network ? network : "", address,
		 from_syscall(err) ? syscall_of(op, network) : "", from_syscall(err) ? ": " : "",
		 net_errstr(err));
	return buf;
}

/* ---- parsing ------------------------------------------------------------------- */

static bool parse_ipv4(const char *s, size_t len, uint8_t ip[4])
{
	size_t i = 0;
	for (int part = 0; part < 4; part++) {
		if (part > 0) {
			if (i >= len || s[i] != '.')
				return false;
			i++;
		}
		unsigned v = 0, digits = 0;
		while (i < len && s[i] >= '0' && s[i] <= '9') {
			/* Go's ParseIP refuses leading zeros ("010"): octal or not? */
			if (digits == 1 && v == 0)
				return false;
			v = v * 10 + (unsigned)(s[i] - '0');
			if (v > 255)
				return false;
			i++;
			digits++;
		}
		if (digits == 0)
			return false;
		ip[part] = (uint8_t)v;
	}
	return i == len;
}

int net_parse_addr(const char *address, struct net_addr *a)
{
	if (!address)
		return NET_ERR_MISSING_PORT;
	const char *colon = strrchr(address, ':');
	if (!colon)
		return NET_ERR_MISSING_PORT;
	size_t hlen = (size_t)(colon - address);
	const char *port = colon + 1;
	/* Go's ParsePort: decimal, at most 65535; a service name would need
	 * /etc/services. */
	if (*port == '\0')
		return NET_ERR_INVALID_PORT;
	unsigned long p = 0;
	for (const char *q = port; *q; q++) {
		if (*q < '0' || *q > '9')
			return NET_ERR_INVALID_PORT;
		p = p * 10 + (unsigned long)(*q - '0');
		if (p > 65535)
			return NET_ERR_INVALID_PORT;
	}
	memset(a, 0, sizeof *a);
	a->port = (uint16_t)p;
	if (hlen == 0)
		return NET_OK;		/* every local address (Go's unspecified) */
	if (hlen == 9 && !strncmp(address, "localhost", 9)) {
		a->ip[0] = 127;
		a->ip[3] = 1;
		return NET_OK;
	}
	/* An IPv6 literal has brackets and more colons: no IPv6 here. */
	return parse_ipv4(address, hlen, a->ip) ? NET_OK : NET_ERR_NO_SUCH_HOST;
}
