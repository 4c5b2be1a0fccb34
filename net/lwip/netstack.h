/*
 * The bare-metal boards' network stack: lwIP, run NO_SYS by one
 * goroutine, "netstack", that owns all of lwIP's state (docs/internals.md,
 * "The network stack"; docs/network.md). Nothing else calls lwIP: a
 * goroutine that needs it hands a function to the stack goroutine
 * (netstack_call) and waits; lwIP's callbacks, which run on the stack
 * goroutine, ready the goroutines that wait on them through the poller.
 * The stack goroutine parks on one pollDesc, readied by the NIC's
 * interrupt, by a call handed to it, or by the deadline of lwIP's next
 * timer: no core waits for packets.
 *
 *   int r = netstack_start()   once (later calls return the first's
 *                              result): find the NIC, start the stack
 *                              goroutine with the NIC (DHCP, or ip= on
 *                              the command line) and the loopback
 *                              interface; NETSTACK_OK, or
 *                              NETSTACK_ERR_NONIC (loopback only:
 *                              netstack_error says why)
 *   netstack_call(fn, arg)     run fn(arg) on the stack goroutine; returns
 *                              once it has (fn must not block)
 *   netstack_wait_address(deadline, &a)  the NIC's IPv4 address, waiting
 *                              until it has one (DHCP) or nanotime() >=
 *                              deadline (false)
 *   netstack_ping(dst, timeout, &rtt)  one ICMP echo to dst (host byte
 *                              order) and its answer: true and the round
 *                              trip in ns, or false after timeout
 */
#ifndef GMK_NET_LWIP_NETSTACK_H
#define GMK_NET_LWIP_NETSTACK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum { NETSTACK_OK = 0, NETSTACK_ERR_NONIC = 1 };

int netstack_start(void);
const char *netstack_error(void);
void netstack_call(void (*fn)(void *), void *arg);
bool netstack_wait_address(uint64_t deadline, uint32_t *addr);
bool netstack_ping(uint32_t dst, uint64_t timeout_ns, uint64_t *rtt_ns);

/* An Ethernet frame into the stack as if the NIC had received it (the
 * receive path's tests: malformed frames), up to the driver's buffer
 * (VIRTIO_NET_BUF: what a device may hand over, past the MTU); false
 * without a NIC or beyond that. */
bool netstack_input_frame(const void *frame, size_t len);

/* The sockets' backend (backend.c): after the stack goroutine's work,
 * an idle core for the Gs its callbacks readied (netpoll_wake, once). */
void netstack_backend_wake(void);

/* What the sockets hold of lwIP now (the leak checks): the backend's
 * sockets open, lwIP's heap in use (bytes), its pool pbufs, reference
 * pbufs, TCP segments and pcbs (TIME_WAIT ones included: lwIP keeps
 * them 2 minutes), UDP pcbs. */
struct netstack_counts {
	uint32_t sockets, heap_used, pool_pbufs, ref_pbufs, tcp_segs, tcp_pcbs, udp_pcbs;
};
void netstack_get_counts(struct netstack_counts *c);

struct netstack_stats {
	uint64_t wakeups;	/* times the stack goroutine ran */
	uint64_t rx_frames, tx_frames, rx_dropped, tx_dropped;
	uint64_t rx_bad_len, nic_interrupts;
	uint64_t dhcp_ns;	/* start to a DHCP lease (0: none yet) */
};
void netstack_get_stats(struct netstack_stats *s);

#endif
