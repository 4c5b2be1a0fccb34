/* The example's test: clients at once, each echoed whole and in order,
 * over 127.0.0.1; the server returns once its listener is closed and
 * every connection has ended. Skipped on a board without a network. */
#include <string.h>

#include "gmk.h"
#include "gmk_test.h"

uint64_t echo_serve(net_listener *l);

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
