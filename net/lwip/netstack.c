/*
 * The stack goroutine (netstack.h). lwIP runs NO_SYS: its whole state is
 * this goroutine's, so lwIP needs no locks, semaphores, mailboxes or
 * threads of its own (docs/internals.md says why this and not a
 * sys_arch). The goroutine's loop, each time it is readied:
 *   1. frames from the NIC into lwIP (netif->input);
 *   2. the calls other goroutines handed over (netstack_call);
 *   3. the loopback interface's queued packets;
 *   4. lwIP's due timers (sys_check_timeouts);
 * then it parks on stack_pd with lwIP's next timer as the deadline. The
 * NIC's interrupt readies stack_pd (virtio_net_interrupt -> nic_ready), so
 * does a call; a readiness that comes while the loop runs is kept
 * (pdReady) and the next poll_wait returns at once.
 */
#include <stdio.h>
#include <string.h>

#include "kernel/cmdline.h"
#include "kernel/board.h"
#include "kernel/dev/virtio_net.h"
#include "kernel/panic.h"
#include "kernel/spinlock.h"
#include "kernel/time.h"
#include "lib/sync.h"
#include "net/lwip/netstack.h"
#include "sched/chan.h"
#include "sched/netpoll.h"
#include "sched/sched.h"
#include "sched/sync.h"

#include "lwip/dhcp.h"
#include "lwip/etharp.h"
#include "lwip/icmp.h"
#include "lwip/inet_chksum.h"
#include "lwip/init.h"
#include "lwip/ip4.h"
#include "lwip/netif.h"
#include "lwip/pbuf.h"
#include "lwip/priv/tcp_priv.h"
#include "lwip/prot/ip4.h"
#include "lwip/raw.h"
#include "lwip/timeouts.h"
#include "netif/ethernet.h"

struct call {
	void (*fn)(void *);
	void *arg;
	struct waitgroup done;
	struct call *next;
};

static struct pollDesc stack_pd = { .name = "netstack" };
/* An idle stack's wake-up (see stack_main): a token, buffered, that a
 * call leaves whether or not the stack waits for it yet. */
static chan_t idle_wake;
static struct spinlock calls_lock = SPINLOCK_INIT("netstack calls");
static struct call *calls_head, **calls_tail = &calls_head;

static struct once start_once;
static int start_result;
static char start_err[160];
static struct waitgroup started;

static struct g *stack_g;		/* the stack goroutine */
static struct virtio_dev nic_dev;
static struct virtio_net *nic;
static struct netif nic_if;
static uint64_t start_ns;

/* Address waiters (netstack_wait_address): one at a time on addr_pd. */
static struct pollDesc addr_pd = { .name = "netstack address" };
static struct mutex addr_waiters;
static volatile uint32_t nic_addr;	/* host order; 0: none yet */

static struct netstack_stats st;

/* ---- lwIP's port: what cc.h and NO_SYS ask of the system ------------- */

u32_t sys_now(void)
{
	return (u32_t)(nanotime() / NSEC_PER_MSEC);
}

void netstack_lwip_assert(const char *msg, const char *file, int line)
{
	panic("lwIP assertion \"%s\" failed at %s:%d", msg, file, line);
}

/* xorshift64*, seeded from the clock: DHCP's transaction ids and TCP's
 * initial sequence numbers and ports need to differ between boots, not
 * to be secret. Only the stack goroutine calls it. */
uint32_t netstack_lwip_rand(void)
{
	static uint64_t x;
	if (!x)
		x = nanotime() | 1;
	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	return (uint32_t)((x * 0x2545f4914f6cdd1dull) >> 32);
}

/* ---- the NIC as an lwIP interface -------------------------------------- */

static uint8_t frame_buf[VIRTIO_NET_BUF];	/* the stack goroutine's */

static err_t nic_linkoutput(struct netif *netif, struct pbuf *p)
{
	if (p->tot_len > sizeof frame_buf) {
		st.tx_dropped++;
		return ERR_BUF;
	}
	pbuf_copy_partial(p, frame_buf, p->tot_len, 0);
	if (!virtio_net_send(nic, frame_buf, p->tot_len)) {
		/* TX queue full (the device has 128 frames to send): dropped,
		 * as a full NIC ring drops; TCP sends it again. */
		st.tx_dropped++;
		return ERR_MEM;
	}
	st.tx_frames++;
	return ERR_OK;
}

static err_t nic_netif_init(struct netif *netif)
{
	netif->name[0] = 'e';
	netif->name[1] = 'n';
	netif->output = etharp_output;
	netif->linkoutput = nic_linkoutput;
	netif->mtu = 1500;
	netif->hwaddr_len = ETH_HWADDR_LEN;
	virtio_net_mac(nic, netif->hwaddr);
	netif->flags = NETIF_FLAG_BROADCAST | NETIF_FLAG_ETHARP | NETIF_FLAG_ETHERNET |
		       NETIF_FLAG_LINK_UP;
	return ERR_OK;
}

/* The interrupt handler's call: the stack goroutine has frames (or room
 * to send). The platform calls netpoll_kick after it. */
static void nic_ready(void *arg)
{
	(void)arg;
	netpollready(&stack_pd, 'r');
}

static void nic_status(struct netif *netif)
{
	uint32_t a = lwip_ntohl(ip4_addr_get_u32(netif_ip4_addr(netif)));
	if (a && !nic_addr && !st.dhcp_ns && !kopts.ip.static_addr)
		st.dhcp_ns = nanotime() - start_ns;
	__atomic_store_n(&nic_addr, a, __ATOMIC_RELEASE);
	netpollready(&addr_pd, 'r');
	netpoll_wake();
}

/* Start the virtio-net device d and route its interrupt (irq). */
static bool nic_open(struct virtio_dev *d, unsigned i,
		     bool (*irq)(unsigned, void (*)(void *), void *))
{
	char err[128];

	nic_dev = *d;
	nic = virtio_net_open(&nic_dev, err, sizeof err);
	if (!nic) {
		snprintf(start_err, sizeof start_err, "virtio-net: %s", err);
		return false;
	}
	virtio_net_set_notify(nic, nic_ready, NULL);
	if (!irq(i, virtio_net_interrupt, nic)) {
		snprintf(start_err, sizeof start_err, "%s at 0x%lx: its interrupt "
			 "cannot be routed", nic_dev.transport, (unsigned long)nic_dev.base);
		nic = NULL;
		return false;
	}
	return true;
}

/* The first virtio-net device among the board's virtio-mmio slots, else
 * on its PCI bus. */
static bool nic_probe(void)
{
	struct virtio_dev d;
	uintptr_t base;

	if (!board_virtio_mmio && !board_virtio_pci) {
		snprintf(start_err, sizeof start_err, "%s has no network device "
			 "driver (docs/network.md)", board_name);
		return false;
	}
	for (unsigned i = 0; board_virtio_mmio && board_virtio_mmio(i, &base); i++)
		if (virtio_mmio_probe(&d, base) && d.device_id == VIRTIO_ID_NET)
			return nic_open(&d, i, board_virtio_mmio_irq);
	for (unsigned i = 0; board_virtio_pci && board_virtio_pci(i, &d); i++)
		if (d.device_id == VIRTIO_ID_NET)
			return nic_open(&d, i, board_virtio_pci_irq);
	snprintf(start_err, sizeof start_err, "%s: no network device (QEMU: "
		 "boot it with a NIC: GMK_QEMU_NET=on tools/run-qemu, or make run)",
		 board_name);
	return false;
}

/* ---- the stack goroutine ----------------------------------------------- */

static void nic_up(void)
{
	ip4_addr_t a, m, g;

	ip4_addr_set_zero(&a);
	ip4_addr_set_zero(&m);
	ip4_addr_set_zero(&g);
	if (kopts.ip.static_addr) {
		ip4_addr_set_u32(&a, lwip_htonl(kopts.ip.addr));
		ip4_addr_set_u32(&m, lwip_htonl(kopts.ip.mask));
		ip4_addr_set_u32(&g, lwip_htonl(kopts.ip.gw));
	}
	netif_add(&nic_if, &a, &m, &g, NULL, nic_netif_init, ethernet_input);
	netif_set_status_callback(&nic_if, nic_status);
	netif_set_default(&nic_if);
	netif_set_up(&nic_if);
	if (!kopts.ip.static_addr)
		dhcp_start(&nic_if);
}

static bool loop_pending(void)
{
	struct netif *n;
	NETIF_FOREACH(n)
		if (n->loop_first)
			return true;
	return false;
}

static void run_calls(void)
{
	unsigned long flags = spin_lock_irqsave(&calls_lock);
	struct call *c = calls_head;
	calls_head = NULL;
	calls_tail = &calls_head;
	spin_unlock_irqrestore(&calls_lock, flags);
	while (c) {
		struct call *next = c->next;	/* c is the caller's: gone after done */
		c->fn(c->arg);
		waitgroup_done(&c->done);
		c = next;
	}
}

static void rx_frame(const void *frame, size_t len);

static void stack_main(void *arg)
{
	(void)arg;
	__atomic_store_n(&stack_g, getg(), __ATOMIC_RELEASE);
	start_ns = nanotime();
	lwip_init();
	if (nic)
		nic_up();
	waitgroup_done(&started);
	for (;;) {
		st.wakeups++;
		bool busy;
		do {
			size_t len;
			unsigned n = 0;
			while (nic && n < 64 && (len = virtio_net_recv(nic, frame_buf,
								    sizeof frame_buf)) > 0) {
				n++;
				rx_frame(frame_buf, len);
			}
			run_calls();
			netif_poll_all();
			sys_check_timeouts();
			/* A full batch may have left frames; loopback replies
			 * queue more loopback packets. */
			busy = n == 64 || loop_pending();
		} while (busy);
		netstack_backend_wake();	/* the Gs lwIP's callbacks readied */
		/* lwIP's cyclic timers (ARP, DHCP, reassembly) serve a NIC;
		 * TCP's serves its connections. A stack with neither (its
		 * loopback alone: the QEMU boots without a NIC) has nothing a
		 * device or a timer could bring: it waits for a call as a G
		 * waits on a channel. It then holds no timer and is no device
		 * waiter, so it hides no program's deadlock from checkdead
		 * (which gives up at a pending timer or a device's waiter) and
		 * changes no test's count of either under it. Connections in
		 * TIME_WAIT do not keep it awake: on loopback no late segment
		 * can arrive for them to absorb, and their clock (tcp_ticks)
		 * stands still meanwhile; the pool reuses them first. */
		if (!nic && !tcp_active_pcbs) {
			chan_recv(idle_wake, NULL);
			continue;
		}
		u32_t sleep = sys_timeouts_sleeptime();
		poll_setdeadline(&stack_pd, sleep == SYS_TIMEOUTS_SLEEPTIME_INFINITE ? 0 :
				 nanotime() + (uint64_t)sleep * NSEC_PER_MSEC + 1, 'r');
		poll_wait(&stack_pd, 'r');
	}
}

static void start(void *arg)
{
	(void)arg;
	start_result = nic_probe() ? NETSTACK_OK : NETSTACK_ERR_NONIC;
	idle_wake = chan_make(0, 1);
	waitgroup_add(&started, 1);
	go(stack_main, NULL);
	waitgroup_wait(&started);
}

int netstack_start(void)
{
	once_do(&start_once, start, NULL);
	return start_result;
}

const char *netstack_error(void)
{
	return start_err;
}

void netstack_call(void (*fn)(void *), void *arg)
{
	struct call c = { .fn = fn, .arg = arg };

	netstack_start();
	/* From lwIP's own callbacks (the stack goroutine): run it now, as
	 * waiting for ourselves would never end. */
	if (getg() == __atomic_load_n(&stack_g, __ATOMIC_ACQUIRE)) {
		fn(arg);
		return;
	}
	waitgroup_add(&c.done, 1);
	unsigned long flags = spin_lock_irqsave(&calls_lock);
	*calls_tail = &c;
	calls_tail = &c.next;
	spin_unlock_irqrestore(&calls_lock, flags);
	netpollready(&stack_pd, 'r');
	netpoll_wake();
	(void)chan_trysend(idle_wake, NULL);	/* full: a wake-up is due already */
	waitgroup_wait(&c.done);
}

bool netstack_wait_address(uint64_t deadline, uint32_t *addr)
{
	bool ok = false;

	if (netstack_start() != NETSTACK_OK)
		return false;
	mutex_lock(&addr_waiters);
	poll_setdeadline(&addr_pd, deadline, 'r');
	for (;;) {
		uint32_t a = __atomic_load_n(&nic_addr, __ATOMIC_ACQUIRE);
		if (a) {
			*addr = a;
			ok = true;
			break;
		}
		if (poll_wait(&addr_pd, 'r') == POLL_ERR_TIMEOUT)
			break;
	}
	poll_setdeadline(&addr_pd, 0, 'r');
	mutex_unlock(&addr_waiters);
	return ok;
}

struct inject { const void *frame; size_t len; };

/* A frame the NIC would have handed over: the same path as rx_frame's. */
static void rx_frame(const void *frame, size_t len)
{
	st.rx_frames++;
	struct pbuf *p = pbuf_alloc(PBUF_RAW, (u16_t)len, PBUF_POOL);
	if (!p) {
		st.rx_dropped++;
		return;
	}
	pbuf_take(p, frame, (u16_t)len);
	if (nic_if.input(p, &nic_if) != ERR_OK)
		pbuf_free(p);
}

static void inject(void *arg)
{
	struct inject *in = arg;
	rx_frame(in->frame, in->len);
}

bool netstack_input_frame(const void *frame, size_t len)
{
	struct inject in = { frame, len };
	if (netstack_start() != NETSTACK_OK || len > VIRTIO_NET_BUF)
		return false;
	netstack_call(inject, &in);
	return true;
}

/* ---- ping: ICMP echo through a raw PCB --------------------------------- */

#define PING_ID		0x676d	/* "gm" */

static struct ping {
	struct pollDesc pd;
	struct raw_pcb *pcb;
	uint32_t dst;
	uint16_t seq;
	uint64_t sent, rtt;
	volatile uint32_t answered;
	err_t err;
} ping = { .pd = { .name = "ping" } };
static struct mutex ping_lock;

static u8_t ping_recv(void *arg, struct raw_pcb *pcb, struct pbuf *p,
		      const ip_addr_t *addr)
{
	struct icmp_echo_hdr h;
	u16_t hlen = (u16_t)(IPH_HL_BYTES((struct ip_hdr *)p->payload));

	if (p->tot_len < hlen + sizeof h ||
	    pbuf_copy_partial(p, &h, sizeof h, hlen) != sizeof h ||
	    h.type != ICMP_ER || h.id != lwip_htons(PING_ID) ||
	    h.seqno != lwip_htons(ping.seq) ||
	    lwip_ntohl(ip4_addr_get_u32(addr)) != ping.dst)
		return 0;			/* not ours: lwIP goes on */
	ping.rtt = nanotime() - ping.sent;
	__atomic_store_n(&ping.answered, 1, __ATOMIC_RELEASE);
	pbuf_free(p);
	netpollready(&ping.pd, 'r');
	return 1;
}

static void ping_send(void *arg)
{
	(void)arg;
	ip_addr_t to;
	struct pbuf *p;

	if (!ping.pcb) {
		ping.pcb = raw_new(IP_PROTO_ICMP);
		if (!ping.pcb) {
			ping.err = ERR_MEM;
			return;
		}
		raw_recv(ping.pcb, ping_recv, NULL);
		raw_bind(ping.pcb, IP_ADDR_ANY);
	}
	p = pbuf_alloc(PBUF_IP, sizeof(struct icmp_echo_hdr) + 32, PBUF_RAM);
	if (!p) {
		ping.err = ERR_MEM;
		return;
	}
	struct icmp_echo_hdr *h = p->payload;
	h->type = ICMP_ECHO;
	h->code = 0;
	h->chksum = 0;
	h->id = lwip_htons(PING_ID);
	h->seqno = lwip_htons(ping.seq);
	memset(h + 1, 0xa5, 32);
	h->chksum = inet_chksum(h, p->len);
	ip_addr_set_ip4_u32(&to, lwip_htonl(ping.dst));
	ping.sent = nanotime();
	ping.err = raw_sendto(ping.pcb, p, &to);
	pbuf_free(p);
}

static void ping_stop(void *arg)
{
	(void)arg;
	ping.seq++;		/* a late answer is not taken for the next one */
}

bool netstack_ping(uint32_t dst, uint64_t timeout_ns, uint64_t *rtt_ns)
{
	bool ok = false;

	mutex_lock(&ping_lock);
	ping.dst = dst;
	ping.seq++;
	__atomic_store_n(&ping.answered, 0, __ATOMIC_RELEASE);
	poll_setdeadline(&ping.pd, nanotime() + timeout_ns, 'r');
	netstack_call(ping_send, NULL);
	while (ping.err == ERR_OK && !__atomic_load_n(&ping.answered, __ATOMIC_ACQUIRE))
		if (poll_wait(&ping.pd, 'r') == POLL_ERR_TIMEOUT)
			break;
	netstack_call(ping_stop, NULL);
	ok = __atomic_load_n(&ping.answered, __ATOMIC_ACQUIRE) != 0;
	if (ok)
		*rtt_ns = ping.rtt;
	poll_setdeadline(&ping.pd, 0, 'r');
	mutex_unlock(&ping_lock);
	return ok;
}

void netstack_get_stats(struct netstack_stats *s)
{
	struct netstack_stats r = st;
	if (nic) {
		struct virtio_net_stats v;
		virtio_net_get_stats(nic, &v);
		r.rx_bad_len = v.rx_bad_len;
		r.nic_interrupts = v.interrupts;
	}
	*s = r;
}
