/*
 * The bare-metal network: virtio-net, lwIP and the stack goroutine
 * (net/lwip/netstack.h, docs/network.md). On a boot with QEMU's user
 * network (tools/run-qemu --net): the interface gets QEMU's DHCP lease
 * (10.0.2.15) and QEMU's gateway answers a ping; frames of every length
 * and garbage into the receive path leave the stack working. Over lwIP's
 * loopback interface, on every board with the stack: a TCP connection
 * carries bytes both ways, checked, and every PCB and pbuf it used is
 * back at the end. Boards without the stack, and boots without a NIC,
 * skip with the reason.
 */
#include <stdio.h>
#include <string.h>

#include "kernel/test.h"
#include "kernel/time.h"

#ifdef GMK_NET_LWIP
#include "kernel/cmdline.h"
#include "kernel/dev/virtio_net.h"
#include "net/lwip/netstack.h"
#include "sched/netpoll.h"
#include "sched/sched.h"

#include "lwip/memp.h"
#include "lwip/stats.h"
#include "lwip/tcp.h"

#define NETDEV_DHCP_TIMEOUT	(120 * NSEC_PER_SEC)	/* generous: TCG, 8 vCPUs */
#define NETDEV_PING_TIMEOUT	(30 * NSEC_PER_SEC)
#define QEMU_GUEST		0x0a00020fu	/* 10.0.2.15 */
#define QEMU_GATEWAY		0x0a000202u	/* 10.0.2.2 */

static bool need_nic(void)
{
	if (netstack_start() == NETSTACK_OK)
		return true;
	test_skip(netstack_error());
	return false;
}

TEST(netdev_gets_qemus_dhcp_lease_and_pings_the_gateway)
{
	uint32_t a = 0;
	uint64_t rtt = 0, t0 = nanotime();

	if (!need_nic())
		return;
	ASSERT(netstack_wait_address(nanotime() + NETDEV_DHCP_TIMEOUT, &a));
	ASSERT_EQ(a, kopts.ip.static_addr ? kopts.ip.addr : QEMU_GUEST);
	printf("# netdev: address %u.%u.%u.%u after %llu ms\n", a >> 24, (a >> 16) & 255,
	       (a >> 8) & 255, a & 255, (unsigned long long)((nanotime() - t0) / NSEC_PER_MSEC));
	for (int i = 0; i < 5; i++) {
		ASSERT(netstack_ping(QEMU_GATEWAY, NETDEV_PING_TIMEOUT, &rtt));
		printf("# netdev: ping 10.0.2.2: %llu us\n", (unsigned long long)(rtt / 1000));
	}
	struct netstack_stats s;
	netstack_get_stats(&s);
	EXPECT_EQ(s.rx_bad_len, 0);
	EXPECT_GT(s.nic_interrupts, 0);
	printf("# netdev: %llu frames in, %llu out, %llu interrupts, %llu wakeups of the stack goroutine\n",
	       (unsigned long long)s.rx_frames, (unsigned long long)s.tx_frames,
	       (unsigned long long)s.nic_interrupts, (unsigned long long)s.wakeups);
}

/* Frames of every length 0..2048 (past the MTU: what a device may hand
 * over in the driver's buffer), random bytes, and frames with a valid
 * Ethernet and IPv4 header over random bytes, addressed to us: the stack
 * drops them and still answers. */
TEST(netdev_garbage_frames_leave_the_stack_working)
{
	static uint8_t f[VIRTIO_NET_BUF];
	uint32_t a;
	uint64_t rtt, x = 0x9e3779b97f4a7c15ull;

	if (!need_nic())
		return;
	ASSERT(netstack_wait_address(nanotime() + NETDEV_DHCP_TIMEOUT, &a));
	for (size_t len = 0; len <= VIRTIO_NET_BUF; len++) {
		for (size_t i = 0; i < len; i++) {
			x ^= x << 13; x ^= x >> 7; x ^= x << 17;
			f[i] = (uint8_t)x;
		}
		if (len >= 34 && (len & 1)) {	/* IPv4 to us, garbage after */
			memset(f, 0xff, 6);	/* broadcast */
			f[12] = 0x08; f[13] = 0x00;
			f[14] = 0x45;
			f[26] = 10; f[27] = 0; f[28] = 2; f[29] = 2;
			f[30] = (uint8_t)(a >> 24); f[31] = (uint8_t)(a >> 16);
			f[32] = (uint8_t)(a >> 8); f[33] = (uint8_t)a;
		}
		ASSERT(netstack_input_frame(f, len));
	}
	EXPECT(!netstack_input_frame(f, VIRTIO_NET_BUF + 1));
	ASSERT(netstack_ping(QEMU_GATEWAY, NETDEV_PING_TIMEOUT, &rtt));
}
#endif /* GMK_NET_LWIP */

/* What the driver takes from the device's word about a received buffer:
 * a length from the header plus an Ethernet header up to the buffer's
 * size; anything else is no frame. */
TEST(netdev_rx_length_out_of_range_is_no_frame)
{
#ifdef GMK_NET_LWIP
	for (size_t hdr = 10; hdr <= 12; hdr += 2)
		for (uint32_t used = 0; used <= 2 * VIRTIO_NET_BUF; used++) {
			size_t n = virtio_net_rx_len(used, hdr);
			if (used < hdr + VIRTIO_NET_FRAME_MIN || used > VIRTIO_NET_BUF)
				ASSERT_EQ(n, 0);
			else
				ASSERT_EQ(n, used - hdr);
		}
#else
	test_skip("no network stack on this board (NET_STACK in board.mk)");
#endif
}

#ifdef GMK_NET_LWIP
/* ---- TCP over lwIP's loopback interface ---------------------------------- */

#define LB_PORT		7007
#define LB_BYTES	(256 * 1024)

static struct lb {
	struct pollDesc pd;
	struct tcp_pcb *listener, *server, *client;
	uint32_t sent, echoed_back, checked_bad;
	volatile uint32_t done;
	err_t err;
	uint16_t pcbs0, listen0, pool0;
} lb = { .pd = { .name = "netdev loopback" } };

static uint8_t lb_byte(uint32_t i) { return (uint8_t)(i * 31 + (i >> 8)); }

static void lb_finish(err_t err)
{
	if (!lb.err)
		lb.err = err;
	__atomic_store_n(&lb.done, 1, __ATOMIC_RELEASE);
	netpollready(&lb.pd, 'r');
}

/* The client sends what fits, as the send buffer frees. */
static void lb_client_send(struct tcp_pcb *pcb)
{
	uint8_t chunk[1024];
	while (lb.sent < LB_BYTES) {
		uint32_t n = LB_BYTES - lb.sent;
		if (n > sizeof chunk)
			n = sizeof chunk;
		if (n > tcp_sndbuf(pcb))
			n = tcp_sndbuf(pcb);
		if (n == 0)
			break;
		for (uint32_t i = 0; i < n; i++)
			chunk[i] = lb_byte(lb.sent + i);
		if (tcp_write(pcb, chunk, (u16_t)n, TCP_WRITE_FLAG_COPY) != ERR_OK)
			break;
		lb.sent += n;
	}
	tcp_output(pcb);
}

static err_t lb_client_sent(void *arg, struct tcp_pcb *pcb, u16_t len)
{
	lb_client_send(pcb);
	return ERR_OK;
}

static err_t lb_client_recv(void *arg, struct tcp_pcb *pcb, struct pbuf *p, err_t err)
{
	if (!p) {
		lb_finish(ERR_CLSD);
		return ERR_OK;
	}
	uint32_t off = lb.echoed_back;
	for (struct pbuf *q = p; q; q = q->next) {
		for (u16_t i = 0; i < q->len; i++)
			if (((uint8_t *)q->payload)[i] != lb_byte(off + i))
				lb.checked_bad++;
		off += q->len;
	}
	lb.echoed_back = off;
	tcp_recved(pcb, p->tot_len);
	pbuf_free(p);
	if (lb.echoed_back >= LB_BYTES)
		lb_finish(ERR_OK);
	return ERR_OK;
}

static err_t lb_client_connected(void *arg, struct tcp_pcb *pcb, err_t err)
{
	lb_client_send(pcb);
	return ERR_OK;
}

static void lb_error(void *arg, err_t err)
{
	if (arg == &lb.client)
		lb.client = NULL;	/* freed by lwIP */
	else
		lb.server = NULL;
	lb_finish(err);
}

/* The server echoes: what it receives goes back as it arrives. */
static err_t lb_server_recv(void *arg, struct tcp_pcb *pcb, struct pbuf *p, err_t err)
{
	if (!p)
		return ERR_OK;
	for (struct pbuf *q = p; q; q = q->next)
		if (tcp_write(pcb, q->payload, q->len, TCP_WRITE_FLAG_COPY) != ERR_OK) {
			lb_finish(ERR_MEM);	/* the window keeps it within TCP_SND_BUF */
			break;
		}
	tcp_recved(pcb, p->tot_len);
	pbuf_free(p);
	tcp_output(pcb);
	return ERR_OK;
}

static err_t lb_accept(void *arg, struct tcp_pcb *pcb, err_t err)
{
	if (err != ERR_OK || !pcb)
		return ERR_VAL;
	lb.server = pcb;
	tcp_arg(pcb, &lb.server);
	tcp_recv(pcb, lb_server_recv);
	tcp_err(pcb, lb_error);
	return ERR_OK;
}

static void lb_start(void *arg)
{
	ip_addr_t lo;

	lb.pcbs0 = lwip_stats.memp[MEMP_TCP_PCB]->used;
	lb.listen0 = lwip_stats.memp[MEMP_TCP_PCB_LISTEN]->used;
	lb.pool0 = lwip_stats.memp[MEMP_PBUF_POOL]->used;
	ip_addr_set_ip4_u32(&lo, PP_HTONL(0x7f000001u));
	struct tcp_pcb *l = tcp_new();
	if (!l || tcp_bind(l, &lo, LB_PORT) != ERR_OK) {
		lb.err = ERR_USE;
		return;
	}
	lb.listener = tcp_listen(l);
	tcp_accept(lb.listener, lb_accept);
	lb.client = tcp_new();
	tcp_arg(lb.client, &lb.client);
	tcp_recv(lb.client, lb_client_recv);
	tcp_sent(lb.client, lb_client_sent);
	tcp_err(lb.client, lb_error);
	lb.err = tcp_connect(lb.client, &lo, LB_PORT, lb_client_connected);
}

static void lb_stop(void *arg)
{
	if (lb.client)
		tcp_abort(lb.client);	/* RST: both ends freed at once */
	lb.client = NULL;
	if (lb.listener)
		tcp_close(lb.listener);
	lb.listener = NULL;
}

static void lb_counts(void *arg)
{
	uint16_t *c = arg;
	c[0] = lwip_stats.memp[MEMP_TCP_PCB]->used;
	c[1] = lwip_stats.memp[MEMP_TCP_PCB_LISTEN]->used;
	c[2] = lwip_stats.memp[MEMP_PBUF_POOL]->used;
}

TEST(netdev_loopback_tcp_echo_carries_every_byte_and_frees_its_pcbs)
{
	uint16_t c[3];

	netstack_start();		/* loopback works with no NIC too */
	memset(&lb, 0, sizeof lb);
	lb.pd.name = "netdev loopback";
	uint64_t t0 = nanotime();
	poll_setdeadline(&lb.pd, nanotime() + 120 * NSEC_PER_SEC, 'r');
	netstack_call(lb_start, NULL);
	ASSERT_EQ(lb.err, ERR_OK);
	while (!__atomic_load_n(&lb.done, __ATOMIC_ACQUIRE))
		if (poll_wait(&lb.pd, 'r') == POLL_ERR_TIMEOUT)
			break;
	uint64_t ns = nanotime() - t0;
	poll_setdeadline(&lb.pd, 0, 'r');
	err_t err = lb.err;
	printf("# netdev: loopback: %u sent, %u echoed back, error %d, %llu ms\n",
	       lb.sent, lb.echoed_back, err, (unsigned long long)(ns / NSEC_PER_MSEC));
	netstack_call(lb_stop, NULL);
	netstack_call(lb_counts, c);
	ASSERT(lb.done);
	ASSERT_EQ(err, ERR_OK);
	EXPECT_EQ(lb.sent, LB_BYTES);
	EXPECT_EQ(lb.echoed_back, LB_BYTES);
	EXPECT_EQ(lb.checked_bad, 0);
	EXPECT_EQ(c[0], lb.pcbs0);
	EXPECT_EQ(c[1], lb.listen0);
	EXPECT_EQ(c[2], lb.pool0);
	printf("# netdev: loopback TCP echo of %u KiB in %llu ms\n", LB_BYTES / 1024,
	       (unsigned long long)(ns / NSEC_PER_MSEC));
	/* What handing work to the stack goroutine costs (docs/internals.md,
	 * "The network stack"): a figure, not a pass/fail. */
	t0 = nanotime();
	for (int i = 0; i < 1000; i++)
		netstack_call(lb_counts, c);
	printf("# netdev: netstack_call round trip %llu ns\n",
	       (unsigned long long)((nanotime() - t0) / 1000));
}
#endif
