/*
 * The network layer's API (net/netfd.c, net/addr.c), after Go's net and
 * internal/poll: the kernel's own declarations of what include/gmk.h
 * declares for applications (checked against them, tests/fixtures/
 * public_layout.c), and the counters the tests hold to their starting
 * values. docs/network.md has the table from Go's names.
 */
#ifndef GMK_NET_NETFD_H
#define GMK_NET_NETFD_H

#include <stdbool.h>
#include <stdint.h>

#include "net/net.h"

struct context;

int net_listen(const char *network, const char *address, net_listener **l);
int net_listen_packet(const char *network, const char *address, net_conn **c);
int net_dial(const char *network, const char *address, net_conn **c);
int net_dial_timeout(const char *network, const char *address, uint64_t timeout_ns,
		     net_conn **c);
int net_dial_context(struct context *ctx, const char *network, const char *address,
		     net_conn **c);

int net_listener_accept(net_listener *l, net_conn **c);
int net_listener_close(net_listener *l);
struct net_addr net_listener_addr(net_listener *l);

int net_conn_read(net_conn *c, void *buf, size_t len, size_t *n);
int net_conn_write(net_conn *c, const void *buf, size_t len, size_t *n);
int net_conn_read_from(net_conn *c, void *buf, size_t len, size_t *n,
		       struct net_addr *from);
int net_conn_write_to(net_conn *c, const void *buf, size_t len,
		      const struct net_addr *to, size_t *n);
int net_conn_close(net_conn *c);
int net_conn_close_read(net_conn *c);
int net_conn_close_write(net_conn *c);
int net_conn_set_deadline(net_conn *c, uint64_t t);
int net_conn_set_read_deadline(net_conn *c, uint64_t t);
int net_conn_set_write_deadline(net_conn *c, uint64_t t);
int net_conn_set_linger(net_conn *c, int sec);
struct net_addr net_conn_local_addr(net_conn *c);
struct net_addr net_conn_remote_addr(net_conn *c);

const char *net_errstr(int err);
char *net_addr_string(const struct net_addr *a, char *buf);
int net_parse_addr(const char *address, struct net_addr *a);
char *net_operr_string(char *buf, size_t size, const char *op, const char *network,
		       const struct net_addr *source, const struct net_addr *addr, int err);
char *net_conn_errstr(net_conn *c, const char *op, int err, char *buf, size_t size);
char *net_listener_errstr(net_listener *l, const char *op, int err, char *buf,
			  size_t size);
char *net_address_errstr(const char *op, const char *network, const char *address,
			 int err, char *buf, size_t size);

/* ---- for the kernel's tests ---- */
struct net_counts {
	uint32_t fds;		/* netFDs in use: open conns and listeners */
	uint32_t sockets;	/* the backend's sockets open */
	uint32_t waiters;	/* Gs parked on a netFD's pollDesc */
	uint32_t cached;	/* netFDs made, in use or free (never freed) */
};
struct net_counts net_counts(void);
/* A G is parked on the conn's or listener's pollDesc for mode ('r', 'w'). */
bool net_parked(const void *handle, int mode);
/* Why this board has no network, or NULL if it has one. */
const char *net_unavailable(void);

#endif
