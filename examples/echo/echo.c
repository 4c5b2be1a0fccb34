/*
 * An echo server, TCP and UDP on one port, as a Go program writes it: a
 * listener, an accept loop, a goroutine per connection that writes back
 * what it reads until the client closes its side (io.Copy(c, c)); beside
 * it a goroutine that sends each datagram back to its sender
 * (ListenPacket, ReadFrom, WriteTo); errors printed as Go prints them.
 *
 *   make run APP=examples/echo BOARD=hosted                  on :8080
 *   make run APP=examples/echo BOARD=hosted CMDLINE="run=echo -- 127.0.0.1:9000"
 *   then: nc 127.0.0.1 8080
 *
 * On a board without a network it says so and exits (docs/network.md).
 */
#include <stdio.h>
#include <stdlib.h>

#include "gmk.h"

#define MAX_DATAGRAM	65507	/* UDP's largest payload over IPv4 */

struct conn_arg {
	net_conn *c;
	struct waitgroup *wg;	/* the server's: done when c is closed */
};

/* io.Copy(c, c), then Close. */
static void serve_conn(void *p)
{
	struct conn_arg *a = p;
	char buf[2048], msg[160];
	size_t n;
	int err;

	while ((err = net_conn_read(a->c, buf, sizeof buf, &n)) == NET_OK)
		if ((err = net_conn_write(a->c, buf, n, NULL)) != NET_OK) {
			printf("echo: %s\n", net_conn_errstr(a->c, "write", err, msg, sizeof msg));
			break;
		}
	if (err != NET_OK && err != NET_EOF && err != NET_ERR_RESET)
		printf("echo: %s\n", net_conn_errstr(a->c, "read", err, msg, sizeof msg));
	net_conn_close(a->c);
	waitgroup_done(a->wg);
}

/* Accepts until l is closed, a goroutine per connection; returns once
 * every connection it accepted is closed. Returns how many it served. */
uint64_t echo_serve(net_listener *l)
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
		printf("echo: %s\n", net_listener_errstr(l, "accept", err, msg, sizeof msg));
	}
	waitgroup_wait(&wg);
	return served;
}

/* Each datagram back to its sender, until pc is closed. Returns how many
 * it sent back. */
uint64_t echo_serve_packet(net_conn *pc)
{
	char *buf = malloc(MAX_DATAGRAM), msg[160];
	struct net_addr from;
	uint64_t served = 0;
	size_t n;
	int err;

	if (!buf) {
		printf("echo: no memory for a datagram's buffer\n");
		return 0;
	}
	while ((err = net_conn_read_from(pc, buf, MAX_DATAGRAM, &n, &from)) == NET_OK) {
		/* One peer's failed answer does not stop the others'. */
		int werr = net_conn_write_to(pc, buf, n, &from, NULL);
		if (werr == NET_OK)
			served++;
		else
			printf("echo: %s\n", net_conn_errstr(pc, "write", werr, msg, sizeof msg));
	}
	if (err != NET_ERR_CLOSED)
		printf("echo: %s\n", net_conn_errstr(pc, "read", err, msg, sizeof msg));
	free(buf);
	return served;
}

static void serve_packets(void *pc)
{
	echo_serve_packet(pc);
}

PROGRAM(echo, "a TCP and UDP echo server (-- [address], default :8080)")
{
	const char *addr = argc > 1 ? argv[1] : ":8080";
	net_listener *l;
	char msg[160], a[NET_ADDRSTRLEN];

	if (argc > 2) {
		printf("usage: run=echo [-- address], e.g. 127.0.0.1:9000 or :8080\n");
		return 2;
	}
	int err = net_listen("tcp", addr, &l);
	if (err) {
		printf("echo: %s\n", net_address_errstr("listen", "tcp", addr, err, msg, sizeof msg));
		return 1;
	}
	/* UDP on the port TCP got (":0" picks one). */
	struct net_addr la = net_listener_addr(l);
	net_addr_string(&la, a);
	net_conn *pc;
	if ((err = net_listen_packet("udp", a, &pc)) != NET_OK) {
		printf("echo: %s\n", net_address_errstr("listen", "udp", a, err, msg, sizeof msg));
		net_listener_close(l);
		return 1;
	}
	printf("echo: listening on %s, tcp and udp\n", a);
	go(serve_packets, pc);
	echo_serve(l);		/* until the process ends */
	net_listener_close(l);
	net_conn_close(pc);
	return 0;
}
