/*
 * lwIP's options for gmk (see lwip/opt.h for each). The stack runs
 * NO_SYS = 1 on one goroutine that owns all of its state (netstack.c;
 * docs/internals.md, "The network stack"): no sys_arch, no locks, no
 * threads of lwIP's own. IPv4 with ARP, DHCP, UDP, TCP, ICMP; the
 * loopback interface for in-kernel tests.
 */
#ifndef GMK_LWIPOPTS_H
#define GMK_LWIPOPTS_H

#define NO_SYS				1
#define SYS_LIGHTWEIGHT_PROT		0
#define LWIP_NETCONN			0
#define LWIP_SOCKET			0

/* Memory: lwIP's own heap and pools, static (about 3.5 MiB in all; the
 * figures are in docs/network.md). Sized for the sockets' tests: 1,000
 * connections at once over loopback are 2,000 pcbs (both ends), plus
 * those closing (TIME_WAIT pcbs are reused first when the pool runs
 * out). The heap holds what TCP has sent and not had acknowledged
 * (TCP_WRITE_FLAG_COPY), and the loopback interface's packets. */
#define MEM_ALIGNMENT			8
#define MEM_SIZE			(2 * 1024 * 1024)
#define MEMP_NUM_PBUF			64
#define MEMP_NUM_UDP_PCB		64
#define MEMP_NUM_TCP_PCB		2100
#define MEMP_NUM_TCP_PCB_LISTEN		64
#define MEMP_NUM_TCP_SEG		4096
#define MEMP_NUM_SYS_TIMEOUT		(LWIP_NUM_SYS_TIMEOUT_INTERNAL + 4)
#define PBUF_POOL_SIZE			256
#define PBUF_POOL_BUFSIZE		1536

#define LWIP_IPV4			1
#define LWIP_IPV6			0
#define LWIP_ARP			1
#define ETHARP_SUPPORT_STATIC_ENTRIES	1
#define LWIP_ICMP			1
#define LWIP_RAW			1
#define LWIP_DHCP			1
#define LWIP_AUTOIP			0
#define LWIP_DNS			0
#define LWIP_UDP			1
#define LWIP_TCP			1
#define LWIP_IGMP			0
#define IP_REASSEMBLY			1
#define IP_FRAG				1

/* SO_REUSEADDR, which Go sets on its listeners (net/lwip/backend.c). */
#define SO_REUSE			1

#define TCP_MSS				1460
#define TCP_WND				(16 * TCP_MSS)
#define TCP_SND_BUF			(16 * TCP_MSS)
#define TCP_SND_QUEUELEN		(4 * TCP_SND_BUF / TCP_MSS)
#define LWIP_TCP_KEEPALIVE		1

#define LWIP_NETIF_STATUS_CALLBACK	1
#define LWIP_NETIF_LINK_CALLBACK	1
#define LWIP_NETIF_HOSTNAME		1
#define LWIP_NETIF_LOOPBACK		1
#define LWIP_HAVE_LOOPIF		1
/* No cap of its own on the loopback queue: the heap is the limit (a
 * cap drops SYNs when 1,000 clients dial at once). */
#define LWIP_LOOPBACK_MAX_PBUFS		0

/* Checksums in software (virtio-net's offloads are not negotiated). */
#define CHECKSUM_GEN_IP			1
#define CHECKSUM_CHECK_IP		1

#define LWIP_STATS			1
#define LWIP_STATS_DISPLAY		0
#define LWIP_DEBUG			0

/* Drops the ACKs of a zero-window ACK war (net/lwip/backend.c). */
struct pbuf;
struct netif;
int netstack_ip4_input_hook(struct pbuf *p, struct netif *inp);
#define LWIP_HOOK_IP4_INPUT(p, inp)	netstack_ip4_input_hook((p), (inp))
#endif
