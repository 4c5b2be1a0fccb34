/*
 * virtio-net (virtio_net.h). RX: every descriptor of queue 0 is offered
 * with its own 2 KiB buffer, taken back by virtio_net_recv (the frame
 * copied out) and offered again at once. TX: queue 1's descriptors are
 * free buffers; virtio_net_send copies a frame into one and offers it,
 * and reclaims those the device is done with first. Both queues are the
 * driver goroutine's alone; the interrupt handler only acknowledges.
 */
#include <stdio.h>
#include <string.h>

#include "kernel/atomic.h"
#include "kernel/dev/virtio_net.h"
#include "kernel/kmalloc.h"
#include "kernel/page.h"

#define VIRTIO_NET_F_MAC	5
#define QUEUE_RX		0
#define QUEUE_TX		1
#define QUEUE_MAX		128	/* buffers per queue: 256 KiB each way */

/* struct virtio_net_hdr: 10 bytes legacy, 12 with VERSION_1
 * (num_buffers); all zero on send: no checksum or segmentation offload. */
#define HDR_LEGACY		10
#define HDR_MODERN		12

struct virtio_net {
	struct virtio_dev *dev;
	struct virtq rx, tx;
	uint8_t *rxbuf, *txbuf;		/* num * VIRTIO_NET_BUF each */
	size_t rxpages, txpages;
	uint16_t *txfree;		/* free TX descriptor ids, a stack */
	unsigned ntxfree;
	size_t hdr;
	uint8_t mac[6];
	void (*notify)(void *);
	void *notify_arg;
	struct virtio_net_stats st;
};

struct virtio_net *virtio_net_open(struct virtio_dev *dev, char *err, size_t errlen)
{
	uint64_t got;
	struct virtio_net *n = kmalloc_try(sizeof *n);

	if (!n) {
		snprintf(err, errlen, "virtio-net: no memory");
		return NULL;
	}
	n->dev = dev;
	if (!virtio_start(dev, 1ull << VIRTIO_NET_F_MAC, &got, err, errlen))
		goto fail;
	n->hdr = (got & (1ull << VIRTIO_F_VERSION_1)) ? HDR_MODERN : HDR_LEGACY;
	if (!virtq_setup(dev, &n->rx, QUEUE_RX, QUEUE_MAX, err, errlen) ||
	    !virtq_setup(dev, &n->tx, QUEUE_TX, QUEUE_MAX, err, errlen))
		goto fail_dev;
	n->rxpages = ((size_t)n->rx.num * VIRTIO_NET_BUF + PAGE_SIZE - 1) / PAGE_SIZE;
	n->txpages = ((size_t)n->tx.num * VIRTIO_NET_BUF + PAGE_SIZE - 1) / PAGE_SIZE;
	n->rxbuf = page_alloc_try(n->rxpages);
	n->txbuf = page_alloc_try(n->txpages);
	n->txfree = kmalloc_try(n->tx.num * sizeof *n->txfree);
	if (!n->rxbuf || !n->txbuf || !n->txfree) {
		snprintf(err, errlen, "virtio-net: no memory for its buffers");
		goto fail_dev;
	}
	if (got & (1ull << VIRTIO_NET_F_MAC)) {
		for (unsigned i = 0; i < 6; i++)
			n->mac[i] = virtio_config8(dev, i);
	} else {
		/* A locally administered address of our own. */
		static const uint8_t local[6] = { 0x02, 0x67, 0x6d, 0x6b, 0x00, 0x01 };
		memcpy(n->mac, local, 6);
	}
	for (uint16_t i = 0; i < n->rx.num; i++)
		virtq_post(&n->rx, i, (uintptr_t)(n->rxbuf + (size_t)i * VIRTIO_NET_BUF),
			   VIRTIO_NET_BUF, true);
	for (uint16_t i = 0; i < n->tx.num; i++)
		n->txfree[n->ntxfree++] = i;
	/* Sent frames are reclaimed by the next send: an interrupt for each
	 * would wake the stack goroutine (and preempt a core) for nothing. */
	virtq_no_interrupt(&n->tx);
	virtio_ready(dev);
	virtq_notify(&n->rx);
	return n;
fail_dev:
	virtio_fail(dev);
fail:
	/* The queues' and buffers' memory stays with the failed device,
	 * which may still hold their addresses. */
	return NULL;
}

void virtio_net_mac(const struct virtio_net *n, uint8_t mac[6])
{
	memcpy(mac, n->mac, 6);
}

void virtio_net_set_notify(struct virtio_net *n, void (*fn)(void *), void *arg)
{
	n->notify_arg = arg;
	__atomic_store_n(&n->notify, fn, __ATOMIC_RELEASE);
}

size_t virtio_net_recv(struct virtio_net *n, void *buf, size_t cap)
{
	uint16_t id;
	uint32_t used;
	size_t got = 0;

	while (!got && virtq_used(&n->rx, &id, &used)) {
		const uint8_t *b = n->rxbuf + (size_t)id * VIRTIO_NET_BUF;
		size_t len = virtio_net_rx_len(used, n->hdr);
		if (!len)
			n->st.rx_bad_len++;
		else if (len > cap)
			n->st.rx_too_big++;
		else {
			memcpy(buf, b + n->hdr, len);
			got = len;
			n->st.rx_frames++;
		}
		virtq_post(&n->rx, id, (uintptr_t)b, VIRTIO_NET_BUF, true);
		virtq_notify(&n->rx);
	}
	return got;
}

static void tx_reclaim(struct virtio_net *n)
{
	uint16_t id;
	uint32_t len;

	while (n->ntxfree < n->tx.num && virtq_used(&n->tx, &id, &len))
		n->txfree[n->ntxfree++] = id;
}

bool virtio_net_send(struct virtio_net *n, const void *frame, size_t len)
{
	if (len < VIRTIO_NET_FRAME_MIN || len > VIRTIO_NET_MTU_FRAME)
		return false;
	tx_reclaim(n);
	if (!n->ntxfree) {
		n->st.tx_full++;
		return false;
	}
	uint16_t id = n->txfree[--n->ntxfree];
	uint8_t *b = n->txbuf + (size_t)id * VIRTIO_NET_BUF;
	memset(b, 0, n->hdr);
	memcpy(b + n->hdr, frame, len);
	virtq_post(&n->tx, id, (uintptr_t)b, (uint32_t)(n->hdr + len), false);
	virtq_notify(&n->tx);
	n->st.tx_frames++;
	return true;
}

void virtio_net_interrupt(void *arg)
{
	struct virtio_net *n = arg;

	virtio_intr_ack(n->dev);
	atomic_xadd64(&n->st.interrupts, 1);
	void (*fn)(void *) = __atomic_load_n(&n->notify, __ATOMIC_ACQUIRE);
	if (fn)
		fn(n->notify_arg);
}

void virtio_net_get_stats(const struct virtio_net *n, struct virtio_net_stats *s)
{
	*s = n->st;
	s->rx_bad_len += n->rx.bad_used;
}
