/*
 * virtio-net (virtio spec 1.2 section 5.1) over any virtio transport
 * (virtio.h): Ethernet frames in and out, one 2 KiB buffer per
 * descriptor, no offloads. Only the driver's goroutine (the network
 * stack's) calls these, except virtio_net_interrupt, the interrupt
 * handler: it acknowledges the device and calls the notify function the
 * driver's user set (which readies that goroutine through the poller).
 *
 *   virtio_net_open(dev, err, n)    start the device: its MAC, RX queue
 *                                   filled, TX queue empty; NULL + err
 *   virtio_net_recv(n, buf, cap)    the next frame (its length), 0 when
 *                                   none is waiting; a frame the device
 *                                   returns with a length out of range
 *                                   is dropped and counted, never read
 *   virtio_net_send(n, frame, len)  queue one frame (copied); false when
 *                                   the TX queue is full or len is not a
 *                                   frame's (14..VIRTIO_NET_MTU_FRAME)
 */
#ifndef GMK_KERNEL_DEV_VIRTIO_NET_H
#define GMK_KERNEL_DEV_VIRTIO_NET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kernel/dev/virtio.h"

#define VIRTIO_NET_FRAME_MIN	14		/* an Ethernet header */
#define VIRTIO_NET_MTU_FRAME	1514		/* 1500 + the header */

struct virtio_net_stats {
	uint64_t rx_frames, tx_frames;
	uint64_t rx_bad_len;	/* returned with a length out of range */
	uint64_t rx_too_big;	/* longer than the caller's buffer */
	uint64_t tx_full;	/* send refused: no free buffer */
	uint64_t interrupts;
};

struct virtio_net;

struct virtio_net *virtio_net_open(struct virtio_dev *dev, char *err, size_t errlen);
void virtio_net_mac(const struct virtio_net *n, uint8_t mac[6]);
void virtio_net_set_notify(struct virtio_net *n, void (*fn)(void *), void *arg);
size_t virtio_net_recv(struct virtio_net *n, void *buf, size_t cap);
bool virtio_net_send(struct virtio_net *n, const void *frame, size_t len);
void virtio_net_interrupt(void *n);
void virtio_net_get_stats(const struct virtio_net *n, struct virtio_net_stats *s);
/* The frame's length in an RX buffer the device returned with `used`
 * bytes written, its virtio-net header (hdr bytes) first; 0 when that is
 * no frame: shorter than the header and an Ethernet header, or longer
 * than the buffer it was given (VIRTIO_NET_BUF). The receive path's only
 * trust in the device's word. */
#define VIRTIO_NET_BUF		2048
static inline size_t virtio_net_rx_len(uint32_t used, size_t hdr)
{
	if (used > VIRTIO_NET_BUF || used < hdr + VIRTIO_NET_FRAME_MIN)
		return 0;
	return used - hdr;
}

#endif
