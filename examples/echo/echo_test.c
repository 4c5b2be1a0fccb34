/* The example's tests: TCP clients at once, each echoed whole and in
 * order, over 127.0.0.1, the server returning once its listener is closed
 * and every connection has ended; UDP clients at once, each datagram of
 * every size echoed whole to its sender, the server returning once its
 * socket is closed. Skipped on a board without a network. */
#include <stdlib.h>
#include <string.h>

#include "gmk.h"
#include "gmk_test.h"

uint64_t echo_serve(net_listener *l);
uint64_t echo_serve_packet(net_conn *pc);

#define CLIENTS 16
#define BYTES   (64 * 1024)
#define CHUNK   4096

struct client {
	struct net_addr addr;
	int id;
	volatile uint32_t *ok;
	struct waitgroup *wg;
};

static void client(void *p)
{
	struct client *cl = p;
	char addr[NET_ADDRSTRLEN];
	static char out[CLIENTS][BYTES], in[CLIENTS][BYTES];
	net_conn *c;
	size_t n, got = 0;

	if (net_dial("tcp", net_addr_string(&cl->addr, addr), &c) == NET_OK) {
		for (size_t i = 0; i < BYTES; i++)
			out[cl->id][i] = (char)(i * 31 + cl->id);
		/* A chunk at a time, each read back before the next: no
		 * stack's buffers can fill with echoes nobody reads. Then a
		 * half-close, which the server's EOF answers. */
		int err = NET_OK;
		for (size_t off = 0; err == NET_OK && off < BYTES; off += CHUNK) {
			err = net_conn_write(c, out[cl->id] + off, CHUNK, &n);
			for (size_t end = off + CHUNK; err == NET_OK && got < end; got += n)
				err = net_conn_read(c, in[cl->id] + got, end - got, &n);
		}
		if (err == NET_OK)
			err = net_conn_close_write(c);
		if (err == NET_OK && got == BYTES && memcmp(in[cl->id], out[cl->id], BYTES) == 0 &&
		    net_conn_read(c, in[cl->id], 1, &n) == NET_EOF)
			__atomic_fetch_add(cl->ok, 1, __ATOMIC_SEQ_CST);
		net_conn_close(c);
	}
	waitgroup_done(cl->wg);
}

struct server {
	net_listener *l;
	uint64_t served;
	struct waitgroup *wg;
};

static void server(void *p)
{
	struct server *s = p;
	s->served = echo_serve(s->l);
	waitgroup_done(s->wg);
}

TEST(example_echo_server_echoes_every_client_whole)
{
	net_listener *l;
	int err = net_listen("tcp", "127.0.0.1:0", &l);
	if (err == NET_ERR_NO_DEVICE)
		test_skip(net_errstr(err));
	ASSERT_EQ(err, NET_OK);
	struct waitgroup swg = { 0 }, cwg = { 0 };
	struct server s = { .l = l, .wg = &swg };
	volatile uint32_t ok = 0;
	waitgroup_add(&swg, 1);
	go(server, &s);
	waitgroup_add(&cwg, CLIENTS);
	for (int i = 0; i < CLIENTS; i++)
		go_value(client, struct client, .addr = net_listener_addr(l), .id = i,
			 .ok = &ok, .wg = &cwg);
	waitgroup_wait(&cwg);
	EXPECT_EQ(ok, CLIENTS);
	net_listener_close(l);
	waitgroup_wait(&swg);
	EXPECT_EQ(s.served, CLIENTS);
}

/* UDP: each client sends one datagram of each size and waits for it to
 * come back before the next, and the bytes on their way at once are held
 * to one largest datagram's (a semaphore weighted in bytes): no socket's
 * buffer can overflow (Linux's 208 KiB default takes one 64 KiB datagram
 * and its overhead; lwIP's queue 64 datagrams), so every datagram must
 * return, as over loopback nothing is lost but to a full buffer. The
 * deadline only keeps a lost one from hanging the test. */
#define UDP_MAX		65507	/* UDP's largest payload over IPv4 */
static const size_t udp_sizes[] = { 0, 1, 100, 1472, 1473, 9000, 32768, UDP_MAX };
#define UDP_SIZES	(sizeof udp_sizes / sizeof udp_sizes[0])
#define UDP_CLIENTS	4
#define UDP_WAIT	(10 * NSEC_PER_SEC)

static struct semaphore in_flight = SEMAPHORE_INIT(UDP_MAX);	/* bytes */

struct udp_client {
	struct net_addr server;
	int id;
	volatile uint32_t *ok;
	struct waitgroup *wg;
};

static void udp_client(void *p)
{
	struct udp_client *cl = p;
	char *out = malloc(UDP_MAX), *in = malloc(UDP_MAX + 1);
	net_conn *c;

	if (out && in && net_listen_packet("udp", "127.0.0.1:0", &c) == NET_OK) {
		for (size_t k = 0; k < UDP_SIZES; k++) {
			size_t size = udp_sizes[k], n;
			int64_t weight = size ? (int64_t)size : 1;
			struct net_addr from;
			for (size_t i = 0; i < size; i++)
				out[i] = (char)(i * 13 + k * 7 + cl->id);
			semaphore_acquire(&in_flight, context_background(), weight);
			if (net_conn_write_to(c, out, size, &cl->server, &n) == NET_OK && n == size) {
				net_conn_set_read_deadline(c, time_now() + UDP_WAIT);
				/* A byte of room past it: a datagram that grew would show. */
				if (net_conn_read_from(c, in, size + 1, &n, &from) == NET_OK &&
				    n == size && memcmp(in, out, size) == 0 &&
				    from.port == cl->server.port && memcmp(from.ip, cl->server.ip, 4) == 0)
					__atomic_fetch_add(cl->ok, 1, __ATOMIC_SEQ_CST);
			}
			semaphore_release(&in_flight, weight);
		}
		net_conn_close(c);
	}
	free(out);
	free(in);
	waitgroup_done(cl->wg);
}

struct packet_server {
	net_conn *pc;
	uint64_t served;
	struct waitgroup *wg;
};

static void packet_server(void *p)
{
	struct packet_server *s = p;
	s->served = echo_serve_packet(s->pc);
	waitgroup_done(s->wg);
}

TEST(example_echo_server_sends_every_datagram_back_whole)
{
	net_conn *pc;
	int err = net_listen_packet("udp", "127.0.0.1:0", &pc);
	if (err == NET_ERR_NO_DEVICE)
		test_skip(net_errstr(err));
	ASSERT_EQ(err, NET_OK);
	int g0 = num_goroutine();
	struct waitgroup swg = { 0 }, cwg = { 0 };
	struct packet_server s = { .pc = pc, .wg = &swg };
	volatile uint32_t ok = 0;
	waitgroup_add(&swg, 1);
	go(packet_server, &s);
	waitgroup_add(&cwg, UDP_CLIENTS);
	for (int i = 0; i < UDP_CLIENTS; i++)
		go_value(udp_client, struct udp_client, .server = net_conn_local_addr(pc), .id = i,
			 .ok = &ok, .wg = &cwg);
	waitgroup_wait(&cwg);
	EXPECT_EQ(ok, UDP_CLIENTS * UDP_SIZES);
	net_conn_close(pc);
	waitgroup_wait(&swg);
	EXPECT_EQ(s.served, UDP_CLIENTS * UDP_SIZES);
	/* The server's and the clients' Gs have ended (a waitgroup_done is
	 * each one's last step, so its exit may still be under way): no more
	 * Gs than at the start, where the kernel's own may have been one
	 * more. */
	for (int i = 0; i < 100000 && num_goroutine() > g0; i++)
		gosched();
	EXPECT_LE(num_goroutine(), g0);
}
