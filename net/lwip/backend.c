/*
 * The bare-metal boards' sockets (kernel/net_backend.h) over lwIP's raw
 * TCP and UDP API. lwIP's state is the stack goroutine's alone
 * (netstack.h): every call here hands its work to that goroutine
 * (netstack_call) and returns what it found, at once; lwIP's callbacks
 * (accept, recv, sent, err, connected, UDP's recv) run there too, keep
 * what arrived on the socket, and report the change to net/
 * (net_backend_ready), which readies the G parked on the socket.
 *
 * A socket (struct lsock) is a handle into socks[], and holds what the
 * kernel's socket would: the connections a listener has accepted and no
 * G has taken yet; the bytes received and not read (lwIP's pbufs; the
 * window is given back, tcp_recved, as they are read, so the peer never
 * sends more than TCP_WND ahead); the datagrams of a UDP socket (a
 * bounded queue: a full one drops, as a socket buffer does); the error
 * that ended the connection (its pcb is then gone: lwIP frees a pcb
 * before its err callback). Writes copy into lwIP (TCP_WRITE_FLAG_COPY)
 * up to tcp_sndbuf and send (tcp_output); a full send buffer is
 * NETB_EAGAIN until lwIP's sent callback says the peer took some.
 *
 * The handle table, like everything else here, is touched only on the
 * stack goroutine: no locks.
 */
#include <string.h>

#include "kernel/kmalloc.h"
#include "kernel/net_backend.h"
#include "net/lwip/netstack.h"
#include "sched/netpoll.h"

#include "lwip/ip4.h"
#include "lwip/netif.h"
#include "lwip/pbuf.h"
#include "lwip/prot/ip.h"
#include "lwip/prot/tcp.h"
#include "lwip/stats.h"
#include "lwip/tcp.h"
#include "lwip/udp.h"

/* Sockets at once: every pcb lwIP may hold (lwipopts.h). */
#define NSOCKS		(MEMP_NUM_TCP_PCB + MEMP_NUM_TCP_PCB_LISTEN + MEMP_NUM_UDP_PCB)
/* Datagrams a UDP socket keeps unread (Linux keeps ~200 KiB's worth). */
#define UDP_QUEUE	64
/* The largest UDP payload over IPv4. */
#define UDP_MAX		65507

struct dgram {
	struct pbuf *p;
	struct netb_addr from;
};

struct lsock {
	int kind;
	void *token;			/* net/'s; NULL while on an accept queue */
	struct tcp_pcb *tpcb;		/* NULL once lwIP has freed it */
	struct udp_pcb *upcb;
	bool listener, connecting, connected;
	bool rd_shut, wr_shut, eof;
	int err;			/* NETB_E*: what ended the connection */
	int linger;
	/* Received, unread: a pbuf chain, rx_off bytes of its head read. */
	struct pbuf *rx;
	u16_t rx_off;
	/* A listener's accepted connections (FIFO), and its backlog. */
	struct lsock *acc_head, *acc_tail, *acc_next;
	int nacc, backlog;
	/* UDP: a ring of datagrams. */
	struct dgram *dq;
	unsigned dq_head, dq_len;
	struct netb_addr laddr, raddr;	/* kept: the pcb may be gone */
	int handle;
};

static struct lsock *socks[NSOCKS];
static int nextfree;			/* a hint */
static uint32_t nsocks;
static bool need_wake;

static void ready(struct lsock *s, int mode)
{
	if (s->token) {
		net_backend_ready(s->token, mode);
		need_wake = true;
	}
}

/* Readied Gs on an idle core: once per call handed over, not per event. */
static void wake(void)
{
	if (need_wake) {
		need_wake = false;
		netpoll_wake();
	}
}

static int err_of(err_t e)
{
	switch (e) {
	case ERR_OK:		return 0;
	case ERR_MEM:
	case ERR_BUF:		return NETB_ENOBUFS;
	case ERR_RTE:		return NETB_ENETUNREACH;
	case ERR_USE:		return NETB_EADDRINUSE;
	case ERR_ISCONN:	return NETB_EINVAL;
	case ERR_CONN:		return NETB_ENOTCONN;
	case ERR_VAL:
	case ERR_ARG:		return NETB_EINVAL;
	case ERR_RST:		return NETB_ECONNRESET;
	case ERR_ABRT:		return NETB_ECONNABORTED;
	case ERR_CLSD:		return NETB_ENOTCONN;
	case ERR_TIMEOUT:	return NETB_ETIMEDOUT;
	default:		return NETB_EOTHER;
	}
}

static void to_ip(const struct netb_addr *a, ip_addr_t *ip)
{
	u32_t v;
	memcpy(&v, a->ip, 4);		/* network order, as lwIP keeps it */
	ip_addr_set_ip4_u32(ip, v);
}

static void from_ip(const ip_addr_t *ip, u16_t port, struct netb_addr *a)
{
	u32_t v = ip4_addr_get_u32(ip_2_ip4(ip));
	memcpy(a->ip, &v, 4);
	a->port = port;
}

/* ---- handles -------------------------------------------------------------- */

static struct lsock *sock_new(int kind, void *token)
{
	for (int k = 0; k < NSOCKS; k++) {
		int i = (nextfree + k) % NSOCKS;
		if (socks[i])
			continue;
		struct lsock *s = kmalloc_try(sizeof *s);
		if (!s)
			return NULL;
		memset(s, 0, sizeof *s);
		s->kind = kind;
		s->token = token;
		s->linger = -1;
		s->handle = i;
		socks[i] = s;
		nsocks++;
		nextfree = i + 1;
		return s;
	}
	return NULL;
}

static struct lsock *sock_get(int h)
{
	return h >= 0 && h < NSOCKS ? socks[h] : NULL;
}

static void rx_free(struct lsock *s)
{
	if (s->rx)
		pbuf_free(s->rx);
	s->rx = NULL;
	s->rx_off = 0;
	while (s->dq && s->dq_len) {
		pbuf_free(s->dq[s->dq_head].p);
		s->dq_head = (s->dq_head + 1) % UDP_QUEUE;
		s->dq_len--;
	}
}

static void sock_free(struct lsock *s)
{
	rx_free(s);
	socks[s->handle] = NULL;
	nsocks--;
	kfree(s->dq);
	kfree(s);
}

/* ---- TCP's callbacks (the stack goroutine) --------------------------------- */

static void tcp_detach(struct tcp_pcb *pcb)
{
	tcp_arg(pcb, NULL);
	tcp_recv(pcb, NULL);
	tcp_sent(pcb, NULL);
	tcp_err(pcb, NULL);
	if (pcb->state != LISTEN)
		tcp_poll(pcb, NULL, 0);
}

static err_t on_recv(void *arg, struct tcp_pcb *pcb, struct pbuf *p, err_t err)
{
	struct lsock *s = arg;
	(void)err;
	if (!p) {			/* the peer's FIN */
		s->eof = true;
		if (pcb->state == TIME_WAIT) {
			/* Both ways closed: lwIP frees the pcb on its own,
			 * without a callback. */
			tcp_detach(pcb);
			s->tpcb = NULL;
		}
		ready(s, 'r');
		return ERR_OK;
	}
	if (s->rd_shut) {		/* shut for reading: taken and dropped */
		tcp_recved(pcb, p->tot_len);
		pbuf_free(p);
		return ERR_OK;
	}
	if (s->rx)
		pbuf_cat(s->rx, p);
	else
		s->rx = p;
	ready(s, 'r');
	return ERR_OK;
}

static err_t on_sent(void *arg, struct tcp_pcb *pcb, u16_t len)
{
	(void)pcb;
	(void)len;
	ready(arg, 'w');
	return ERR_OK;
}

/* The pcb is gone (lwIP freed it): reset, refused, aborted, timed out. */
static void on_err(void *arg, err_t err)
{
	struct lsock *s = arg;
	s->tpcb = NULL;
	if (err == ERR_CLSD) {
		s->eof = true;		/* closed both ways, in order */
	} else if (s->connecting) {
		/* A reset answering the SYN is a refusal; a SYN never
		 * answered, lwIP gives up on (ERR_ABRT). */
		s->err = err == ERR_RST ? NETB_ECONNREFUSED :
			 err == ERR_ABRT ? NETB_ETIMEDOUT : err_of(err);
	} else {
		s->err = err_of(err);
	}
	ready(s, 'r' + 'w');
}

static void tcp_attach(struct lsock *s, struct tcp_pcb *pcb)
{
	s->tpcb = pcb;
	tcp_arg(pcb, s);
	tcp_recv(pcb, on_recv);
	tcp_sent(pcb, on_sent);
	tcp_err(pcb, on_err);
	/* Go's TCP conns are TCP_NODELAY: a write goes out now. */
	tcp_nagle_disable(pcb);
}

static err_t on_connected(void *arg, struct tcp_pcb *pcb, err_t err)
{
	struct lsock *s = arg;
	(void)err;			/* always ERR_OK (lwIP 2.1) */
	s->connecting = false;
	s->connected = true;
	from_ip(&pcb->local_ip, pcb->local_port, &s->laddr);
	ready(s, 'w');
	return ERR_OK;
}

static err_t on_accept(void *arg, struct tcp_pcb *pcb, err_t err)
{
	struct lsock *l = arg;
	if (err != ERR_OK || !pcb || !l)
		return ERR_VAL;
	struct lsock *s = l->nacc < l->backlog ? sock_new(NETB_TCP, NULL) : NULL;
	if (!s) {
		/* The backlog is full or the handles are out: refused, as a
		 * full accept queue refuses. */
		tcp_abort(pcb);
		return ERR_ABRT;
	}
	tcp_attach(s, pcb);
	s->connected = true;
	from_ip(&pcb->local_ip, pcb->local_port, &s->laddr);
	from_ip(&pcb->remote_ip, pcb->remote_port, &s->raddr);
	if (l->acc_tail)
		l->acc_tail->acc_next = s;
	else
		l->acc_head = s;
	l->acc_tail = s;
	l->nacc++;
	ready(l, 'r');
	return ERR_OK;
}

/* lwIP 2.1's tcp_receive answers every segment out of its window with an
 * ACK, and with a window of 0 every segment is out of it, a pure ACK
 * too: two connected pcbs whose receive windows are both full (neither
 * reader has read yet) answer each other's ACKs for ever. Over a wire
 * that is a slow ping-pong; over the loopback interface it never leaves
 * netif_poll, and the stack goroutine never gets to the readers that
 * would open the windows (one core: the kernel stops). lwIP's IPv4 input
 * hook drops such an ACK before TCP sees it: pure (ACK alone, no data),
 * a window of 0, to a pcb whose own window is 0, acknowledging nothing
 * new and announcing no change (the peer's window was 0 already). It
 * carries nothing lwIP would act on but the answer, and a duplicate-ACK
 * count toward a needless fast retransmit. Only these ACKs pay for the
 * search of the sockets. */
int netstack_ip4_input_hook(struct pbuf *p, struct netif *inp)
{
	(void)inp;
	const u8_t *b = p->payload;
	if (p->len < 20 || (b[0] >> 4) != 4 || b[9] != IP_PROTO_TCP)
		return 0;
	unsigned hl = (b[0] & 15u) * 4;
	if (p->len < hl + 20)
		return 0;
	const u8_t *t = b + hl;
	unsigned tot = (unsigned)b[2] << 8 | b[3], thl = (t[12] >> 4) * 4u;
	if (tot != hl + thl || t[13] != TCP_ACK || t[14] || t[15])
		return 0;
	u16_t sport = (u16_t)(t[0] << 8 | t[1]), dport = (u16_t)(t[2] << 8 | t[3]);
	u32_t seq = (u32_t)t[4] << 24 | (u32_t)t[5] << 16 | (u32_t)t[6] << 8 | t[7];
	u32_t ack = (u32_t)t[8] << 24 | (u32_t)t[9] << 16 | (u32_t)t[10] << 8 | t[11];
	u32_t src, dst;
	memcpy(&src, b + 12, 4);
	memcpy(&dst, b + 16, 4);
	for (int i = 0; i < NSOCKS; i++) {
		struct lsock *s = socks[i];
		struct tcp_pcb *pcb = s ? s->tpcb : NULL;
		if (!pcb || s->listener || pcb->local_port != dport || pcb->remote_port != sport ||
		    ip4_addr_get_u32(ip_2_ip4(&pcb->remote_ip)) != src ||
		    ip4_addr_get_u32(ip_2_ip4(&pcb->local_ip)) != dst)
			continue;
		if (pcb->rcv_wnd == 0 && pcb->snd_wnd == 0 && seq == pcb->rcv_nxt &&
		    ack == pcb->lastack) {
			pbuf_free(p);
			return 1;
		}
		return 0;
	}
	return 0;
}

/* ---- UDP's callback ---------------------------------------------------------- */

static void on_udp(void *arg, struct udp_pcb *pcb, struct pbuf *p,
		   const ip_addr_t *addr, u16_t port)
{
	struct lsock *s = arg;
	(void)pcb;
	if (s->dq_len == UDP_QUEUE) {	/* full: dropped, as UDP may */
		pbuf_free(p);
		return;
	}
	struct dgram *d = &s->dq[(s->dq_head + s->dq_len++) % UDP_QUEUE];
	d->p = p;
	from_ip(addr, port, &d->from);
	ready(s, 'r');
}

/* ---- the calls, run on the stack goroutine ----------------------------------- */

struct op {
	int s, kind, how;
	void *token;
	void *buf;
	const void *cbuf;
	size_t n;
	struct netb_addr *a;
	const struct netb_addr *ca;
	long r;
};

static void do_socket(void *arg)
{
	struct op *o = arg;
	struct lsock *s = sock_new(o->kind, o->token);
	if (!s) {
		o->r = -NETB_EMFILE;
		return;
	}
	if (o->kind == NETB_TCP) {
		struct tcp_pcb *pcb = tcp_new_ip_type(IPADDR_TYPE_V4);
		if (pcb) {
			tcp_attach(s, pcb);
		}
	} else {
		s->dq = kmalloc_try(UDP_QUEUE * sizeof *s->dq);
		s->upcb = s->dq ? udp_new_ip_type(IPADDR_TYPE_V4) : NULL;
		if (s->upcb) {
			udp_recv(s->upcb, on_udp, s);
			ip_set_option(s->upcb, SOF_BROADCAST);
		}
	}
	if (!s->tpcb && !s->upcb) {
		sock_free(s);
		o->r = -NETB_EMFILE;	/* lwIP's pcbs are out */
		return;
	}
	o->r = s->handle;
}

/* An address of ours to bind to: any, loopback, or an interface's. */
static bool local_addr(const ip_addr_t *ip)
{
	if (ip_addr_isany(ip) || ip4_addr_isloopback(ip_2_ip4(ip)))
		return true;
	struct netif *n;
	NETIF_FOREACH(n)
		if (ip4_addr_cmp(netif_ip4_addr(n), ip_2_ip4(ip)))
			return true;
	return false;
}

static void do_bind(void *arg)
{
	struct op *o = arg;
	struct lsock *s = sock_get(o->s);
	ip_addr_t ip;
	err_t e;
	to_ip(o->ca, &ip);
	if (!s) {
		o->r = -NETB_EINVAL;
		return;
	}
	if (!local_addr(&ip)) {
		o->r = -NETB_EADDRNOTAVAIL;
		return;
	}
	if (s->kind == NETB_TCP) {
		if (!s->tpcb) {
			o->r = -NETB_EINVAL;
			return;
		}
		/* Go's listeners set SO_REUSEADDR (net/'s only TCP bind is a
		 * listener's): a restarted server binds its port while the
		 * old one's connections sit in TIME_WAIT. Two listeners on one
		 * port are still refused, in do_listen. */
		ip_set_option(s->tpcb, SOF_REUSEADDR);
		e = tcp_bind(s->tpcb, &ip, o->ca->port);
		if (e == ERR_OK)
			from_ip(&s->tpcb->local_ip, s->tpcb->local_port, &s->laddr);
	} else {
		e = udp_bind(s->upcb, &ip, o->ca->port);
		if (e == ERR_OK)
			from_ip(&s->upcb->local_ip, s->upcb->local_port, &s->laddr);
	}
	o->r = -err_of(e);
}

static void do_listen(void *arg)
{
	struct op *o = arg;
	struct lsock *s = sock_get(o->s);
	err_t e = ERR_OK;
	if (!s || s->kind != NETB_TCP || !s->tpcb) {
		o->r = -NETB_EINVAL;
		return;
	}
	/* Linux's rule with SO_REUSEADDR: no two listeners on a port where
	 * their addresses overlap (lwIP's own check compares the addresses
	 * alone, so 0.0.0.0 and 127.0.0.1 would both listen). */
	u16_t port = s->tpcb->local_port;
	const ip_addr_t *ip = &s->tpcb->local_ip;
	for (int i = 0; i < NSOCKS; i++) {
		struct lsock *o2 = socks[i];
		if (o2 && o2->listener && o2->tpcb && o2->tpcb->local_port == port &&
		    (ip_addr_isany(ip) || ip_addr_isany(&o2->tpcb->local_ip) ||
		     ip_addr_cmp(ip, &o2->tpcb->local_ip))) {
			o->r = -NETB_EADDRINUSE;
			return;
		}
	}
	/* lwIP's backlog is a u8 (TCP_LISTEN_BACKLOG is off): ours is the
	 * accept queue's, below. */
	struct tcp_pcb *l = tcp_listen_with_backlog_and_err(s->tpcb, TCP_DEFAULT_LISTEN_BACKLOG, &e);
	if (!l) {
		o->r = e == ERR_USE ? -NETB_EADDRINUSE : -err_of(e);
		return;
	}
	/* The pcb became a smaller listening one; it keeps the arg. */
	s->tpcb = l;
	s->listener = true;
	s->backlog = (int)o->n;
	tcp_accept(l, on_accept);
	o->r = 0;
}

static void do_accept(void *arg)
{
	struct op *o = arg;
	struct lsock *l = sock_get(o->s);
	if (!l || !l->listener) {
		o->r = -NETB_EINVAL;
		return;
	}
	struct lsock *s = l->acc_head;
	if (!s) {
		o->r = l->err ? -l->err : -NETB_EAGAIN;
		return;
	}
	l->acc_head = s->acc_next;
	if (!l->acc_head)
		l->acc_tail = NULL;
	l->nacc--;
	s->acc_next = NULL;
	s->token = o->token;
	*o->a = s->raddr;
	o->r = s->handle;
}

static void do_connect(void *arg)
{
	struct op *o = arg;
	struct lsock *s = sock_get(o->s);
	ip_addr_t ip;
	to_ip(o->ca, &ip);
	if (!s || (s->kind == NETB_TCP && !s->tpcb)) {
		o->r = -NETB_EINVAL;
		return;
	}
	/* No interface for it (no NIC, or off its network with no gateway):
	 * no route, now, as Linux's routing table says at once. */
	struct netif *n = ip4_route(ip_2_ip4(&ip));
	if (!n) {
		o->r = -NETB_ENETUNREACH;
		return;
	}
	if (!ip4_addr_isloopback(ip_2_ip4(&ip)) && !ip4_addr_isbroadcast(ip_2_ip4(&ip), n) &&
	    !ip4_addr_netcmp(ip_2_ip4(&ip), netif_ip4_addr(n), netif_ip4_netmask(n)) &&
	    ip4_addr_isany_val(*netif_ip4_gw(n))) {
		o->r = -NETB_EHOSTUNREACH;
		return;
	}
	s->raddr = *o->ca;
	if (s->kind == NETB_UDP) {
		err_t e = udp_connect(s->upcb, &ip, o->ca->port);
		if (e == ERR_OK)
			from_ip(&s->upcb->local_ip, s->upcb->local_port, &s->laddr);
		s->connected = e == ERR_OK;
		o->r = -err_of(e);
		return;
	}
	err_t e = tcp_connect(s->tpcb, &ip, o->ca->port, on_connected);
	if (e != ERR_OK) {
		o->r = -err_of(e);
		return;
	}
	from_ip(&s->tpcb->local_ip, s->tpcb->local_port, &s->laddr);
	s->connecting = true;
	o->r = -NETB_EINPROGRESS;
}

static void do_connect_result(void *arg)
{
	struct op *o = arg;
	struct lsock *s = sock_get(o->s);
	if (!s)
		o->r = -NETB_EINVAL;
	else if (s->connected)
		o->r = 0;
	else if (s->err)
		o->r = -s->err;
	else
		o->r = -NETB_EINPROGRESS;
}

static void do_recvfrom(void *arg);
static void do_sendto(void *arg);

static void do_read(void *arg)
{
	struct op *o = arg;
	struct lsock *s = sock_get(o->s);
	size_t got = 0;
	if (!s) {
		o->r = -NETB_EINVAL;
		return;
	}
	if (s->kind == NETB_UDP) {	/* a dialled UDPConn's Read */
		do_recvfrom(arg);
		return;
	}
	while (got < o->n && s->rx) {
		struct pbuf *p = s->rx;
		size_t k = p->len - s->rx_off;
		if (k > o->n - got)
			k = o->n - got;
		memcpy((char *)o->buf + got, (char *)p->payload + s->rx_off, k);
		got += k;
		s->rx_off = (u16_t)(s->rx_off + k);
		if (s->rx_off == p->len) {
			/* Pop the head: the rest keeps a reference of its own
			 * (pbuf_dechain drops the chain's). */
			if (p->next)
				pbuf_ref(p->next);
			s->rx = pbuf_dechain(p);
			pbuf_free(p);
			s->rx_off = 0;
		}
	}
	if (got) {
		if (s->tpcb)		/* the window opens by what was read */
			tcp_recved(s->tpcb, (u16_t)got);
		o->r = (long)got;
	} else if (s->err) {
		o->r = -s->err;
	} else if (s->eof || s->rd_shut || (!s->tpcb && s->connected)) {
		o->r = 0;
	} else if (!s->connected) {
		o->r = -NETB_ENOTCONN;
	} else {
		o->r = -NETB_EAGAIN;
	}
}

static void do_write(void *arg)
{
	struct op *o = arg;
	struct lsock *s = sock_get(o->s);
	if (!s) {
		o->r = -NETB_EINVAL;
		return;
	}
	if (s->kind == NETB_UDP) {	/* a dialled UDPConn's Write */
		do_sendto(arg);
		return;
	}
	if (s->err) {
		o->r = -s->err;
		return;
	}
	if (!s->connected) {
		o->r = -NETB_ENOTCONN;
		return;
	}
	if (s->wr_shut || !s->tpcb) {
		o->r = -NETB_EPIPE;
		return;
	}
	struct tcp_pcb *pcb = s->tpcb;
	/* At most what lwIP's send buffer takes (a u16_t): net/ calls again
	 * for the rest. */
	size_t n = tcp_sndbuf(pcb);
	if (n > o->n)
		n = o->n;
	/* lwIP's queue of segments has a limit of its own (TCP_SND_QUEUELEN). */
	if (n == 0 || pcb->snd_queuelen >= TCP_SND_QUEUELEN - 1) {
		o->r = -NETB_EAGAIN;
		return;
	}
	err_t e;
	while ((e = tcp_write(pcb, o->cbuf, (u16_t)n, TCP_WRITE_FLAG_COPY)) == ERR_MEM && n > TCP_MSS)
		n /= 2;
	if (e == ERR_MEM) {
		/* Out of segments or heap: a sent callback comes when the
		 * peer takes what is in flight; with nothing in flight none
		 * would, so that is the error itself. */
		o->r = pcb->unacked || pcb->unsent ? -NETB_EAGAIN : -NETB_ENOBUFS;
		return;
	}
	if (e != ERR_OK) {
		o->r = -err_of(e);
		return;
	}
	tcp_output(pcb);
	o->r = (long)n;
}

static void do_recvfrom(void *arg)
{
	struct op *o = arg;
	struct lsock *s = sock_get(o->s);
	if (!s || s->kind != NETB_UDP) {
		o->r = -NETB_EINVAL;
		return;
	}
	if (!s->dq_len) {
		o->r = -NETB_EAGAIN;
		return;
	}
	struct dgram *d = &s->dq[s->dq_head];
	s->dq_head = (s->dq_head + 1) % UDP_QUEUE;
	s->dq_len--;
	/* A buffer too small takes the start; the rest is dropped (Linux). */
	size_t n = d->p->tot_len < o->n ? d->p->tot_len : o->n;
	pbuf_copy_partial(d->p, o->buf, (u16_t)n, 0);
	if (o->a)
		*o->a = d->from;
	pbuf_free(d->p);
	o->r = (long)n;
}

static void do_sendto(void *arg)
{
	struct op *o = arg;
	struct lsock *s = sock_get(o->s);
	ip_addr_t ip;
	if (!s || s->kind != NETB_UDP) {
		o->r = -NETB_EINVAL;
		return;
	}
	if (o->n > UDP_MAX) {
		o->r = -NETB_EMSGSIZE;
		return;
	}
	if (!o->ca && !s->connected) {
		o->r = -NETB_ENOTCONN;
		return;
	}
	if (o->ca) {
		to_ip(o->ca, &ip);
		struct netif *n = ip4_route(ip_2_ip4(&ip));
		if (!n) {
			o->r = -NETB_ENETUNREACH;
			return;
		}
	}
	struct pbuf *p = pbuf_alloc(PBUF_TRANSPORT, (u16_t)o->n, PBUF_RAM);
	if (!p) {
		o->r = -NETB_ENOBUFS;
		return;
	}
	pbuf_take(p, o->cbuf, (u16_t)o->n);
	err_t e = o->ca ? udp_sendto(s->upcb, p, &ip, o->ca->port) : udp_send(s->upcb, p);
	pbuf_free(p);
	if (e == ERR_OK && !s->laddr.port)
		from_ip(&s->upcb->local_ip, s->upcb->local_port, &s->laddr);
	o->r = e == ERR_OK ? (long)o->n : -err_of(e);
}

static void do_shutdown(void *arg)
{
	struct op *o = arg;
	struct lsock *s = sock_get(o->s);
	if (!s || s->kind != NETB_TCP || s->listener) {
		o->r = -NETB_ENOTCONN;
		return;
	}
	if (!s->connected) {
		o->r = -NETB_ENOTCONN;
		return;
	}
	o->r = 0;
	if (o->how == NETB_SHUT_RD) {
		/* Reads end (EOF); what comes is taken and dropped. lwIP's
		 * own shut_rx would reset the peer's next segment instead. */
		s->rd_shut = true;
		if (s->rx && s->tpcb)
			tcp_recved(s->tpcb, (u16_t)(s->rx->tot_len - s->rx_off));
		rx_free(s);
		ready(s, 'r');
		return;
	}
	if (s->wr_shut)
		return;
	s->wr_shut = true;
	if (s->tpcb) {
		err_t e = tcp_shutdown(s->tpcb, 0, 1);	/* FIN after what is queued */
		if (e != ERR_OK)
			o->r = -err_of(e);
	}
	ready(s, 'w');
}

static void tcp_drop(struct lsock *s)
{
	struct tcp_pcb *pcb = s->tpcb;
	if (!pcb)
		return;
	s->tpcb = NULL;
	tcp_detach(pcb);
	if (s->linger == 0) {
		tcp_abort(pcb);		/* SO_LINGER 0: RST */
		return;
	}
	/* Unread bytes make lwIP reset the peer, as Linux's close does.
	 * Queued data still goes out, then the FIN; lwIP owns the pcb
	 * through FIN_WAIT and TIME_WAIT. Out of memory for the FIN: a
	 * reset rather than a pcb nobody owns. */
	if (tcp_close(pcb) != ERR_OK)
		tcp_abort(pcb);
}

static void do_close(void *arg)
{
	struct op *o = arg;
	struct lsock *s = sock_get(o->s);
	o->r = 0;
	if (!s) {
		o->r = -NETB_EINVAL;
		return;
	}
	s->token = NULL;		/* no more notices */
	if (s->listener) {
		/* Connections accepted and never taken: reset, as Linux. */
		while (s->acc_head) {
			struct lsock *c = s->acc_head;
			s->acc_head = c->acc_next;
			c->linger = 0;
			tcp_drop(c);
			sock_free(c);
		}
		if (s->tpcb) {
			tcp_arg(s->tpcb, NULL);
			tcp_accept(s->tpcb, NULL);
			tcp_close(s->tpcb);	/* a listener's never fails */
		}
	} else if (s->kind == NETB_TCP) {
		tcp_drop(s);
	} else if (s->upcb) {
		udp_remove(s->upcb);
	}
	sock_free(s);
}

static void do_getaddr(void *arg)
{
	struct op *o = arg;
	struct lsock *s = sock_get(o->s);
	if (!s) {
		o->r = -NETB_EINVAL;
		return;
	}
	if (o->how) {
		if (!s->connected && !s->connecting) {
			o->r = -NETB_ENOTCONN;
			return;
		}
		*o->a = s->raddr;
	} else {
		*o->a = s->laddr;
	}
	o->r = 0;
}

static void do_set_linger(void *arg)
{
	struct op *o = arg;
	struct lsock *s = sock_get(o->s);
	if (!s) {
		o->r = -NETB_EINVAL;
		return;
	}
	s->linger = o->how;
	o->r = 0;
}

/* Every call: the work on the stack goroutine, and the readied Gs woken. */
static void run(void *arg)
{
	void (*fn)(void *) = ((void **)arg)[0];
	fn(((void **)arg)[1]);
	wake();
}

static long stack(void (*fn)(void *), struct op *o)
{
	void *a[2] = { (void *)fn, o };
	netstack_call(run, a);
	return o->r;
}

/* ---- the backend ------------------------------------------------------------- */

static int l_socket(int kind, void *token)
{
	struct op o = { .kind = kind, .token = token };
	return (int)stack(do_socket, &o);
}

static int l_bind(int s, const struct netb_addr *a)
{
	struct op o = { .s = s, .ca = a };
	return (int)stack(do_bind, &o);
}

static int l_listen(int s, int backlog)
{
	struct op o = { .s = s, .n = (size_t)(backlog > 0 ? backlog : 1) };
	return (int)stack(do_listen, &o);
}

static int l_accept(int s, struct netb_addr *peer, void *token)
{
	struct op o = { .s = s, .a = peer, .token = token };
	return (int)stack(do_accept, &o);
}

static int l_connect(int s, const struct netb_addr *a)
{
	struct op o = { .s = s, .ca = a };
	return (int)stack(do_connect, &o);
}

static int l_connect_result(int s)
{
	struct op o = { .s = s };
	return (int)stack(do_connect_result, &o);
}

static long l_read(int s, void *buf, size_t n)
{
	struct op o = { .s = s, .buf = buf, .n = n };
	return stack(do_read, &o);
}

static long l_write(int s, const void *buf, size_t n)
{
	struct op o = { .s = s, .cbuf = buf, .n = n };
	return stack(do_write, &o);
}

static long l_recvfrom(int s, void *buf, size_t n, struct netb_addr *from)
{
	struct op o = { .s = s, .buf = buf, .n = n, .a = from };
	return stack(do_recvfrom, &o);
}

static long l_sendto(int s, const void *buf, size_t n, const struct netb_addr *to)
{
	struct op o = { .s = s, .cbuf = buf, .n = n, .ca = to };
	return stack(do_sendto, &o);
}

static int l_shutdown(int s, int how)
{
	struct op o = { .s = s, .how = how };
	return (int)stack(do_shutdown, &o);
}

static int l_close(int s)
{
	struct op o = { .s = s };
	return (int)stack(do_close, &o);
}

static int l_getaddr(int s, int peer, struct netb_addr *a)
{
	struct op o = { .s = s, .how = peer, .a = a };
	return (int)stack(do_getaddr, &o);
}

static int l_set_linger(int s, int sec)
{
	struct op o = { .s = s, .how = sec };
	return (int)stack(do_set_linger, &o);
}

static const struct net_backend lwip_net = {
	.name = "lwip",
	.socket = l_socket,
	.bind = l_bind,
	.listen = l_listen,
	.accept = l_accept,
	.connect = l_connect,
	.connect_result = l_connect_result,
	.read = l_read,
	.write = l_write,
	.recvfrom = l_recvfrom,
	.sendto = l_sendto,
	.shutdown = l_shutdown,
	.close = l_close,
	.getaddr = l_getaddr,
	.set_linger = l_set_linger,
};

/* Every board with the stack has its loopback interface, NIC or not. */
const struct net_backend *board_net_backend(void)
{
	return &lwip_net;
}

static void counts(void *arg)
{
	struct netstack_counts *c = arg;
	c->sockets = nsocks;
	c->heap_used = (uint32_t)lwip_stats.mem.used;
	c->pool_pbufs = lwip_stats.memp[MEMP_PBUF_POOL]->used;
	c->ref_pbufs = lwip_stats.memp[MEMP_PBUF]->used;
	c->tcp_segs = lwip_stats.memp[MEMP_TCP_SEG]->used;
	c->tcp_pcbs = lwip_stats.memp[MEMP_TCP_PCB]->used;
	c->udp_pcbs = lwip_stats.memp[MEMP_UDP_PCB]->used;
}

void netstack_get_counts(struct netstack_counts *c)
{
	netstack_call(counts, c);
}

/* The stack goroutine's loop: Gs readied by lwIP's timers or packets. */
void netstack_backend_wake(void)
{
	wake();
}

