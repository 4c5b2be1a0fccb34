/*
 * The virtio transport (Virtual I/O Device specification 1.2): what every
 * virtio device's driver needs from the bus it sits on, and the split
 * virtqueues it talks through. Two transports: virtio-mmio, legacy
 * (version 1, QEMU's default for -M virt) and modern (version 2); and
 * virtio over PCI in its legacy (transitional) layout, the registers in
 * I/O space, reached through the platform's port I/O (struct virtio_pio).
 *
 *   virtio_mmio_probe(&d, base)   a device at base? (magic, version, id)
 *   virtio_pci_legacy_init(&d, io, port, id)  the device whose I/O BAR
 *                                 is at port (the platform found it)
 *   virtio_start(&d, want, &got, err, n)  reset, ACKNOWLEDGE, DRIVER, the
 *                                 features both sides have (want & the
 *                                 device's), FEATURES_OK
 *   virtq_setup(&d, &q, index, max)  queue `index` with at most max
 *                                 entries (fewer if the device says so)
 *   virtio_ready(&d)              DRIVER_OK: the device may use the queues
 *   virtq_post(&q, id, pa, len, device_writes)  offer descriptor id (one
 *                                 buffer, no chain) and publish it
 *   virtq_notify(&q)              tell the device (unless it said not to)
 *   virtq_used(&q, &id, &len)     the next buffer the device is done with
 *   virtio_intr_ack(&d)           read and acknowledge the interrupt's
 *                                 causes (VIRTIO_INT_*), in the handler
 *
 * Buffers are one descriptor each, and descriptor i is the driver's
 * buffer i for the queue's life: the driver keeps which are offered, the
 * queue checks what the device returns (an id or length out of range is
 * counted and dropped, never followed). A queue is used by one context
 * at a time (the driver's goroutine); only virtio_intr_ack runs in the
 * interrupt handler. Addresses given to the device are physical: gmk's
 * RAM is identity-mapped, so a pointer is its physical address.
 */
#ifndef GMK_KERNEL_DEV_VIRTIO_H
#define GMK_KERNEL_DEV_VIRTIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define VIRTIO_ID_NET		1

#define VIRTIO_F_VERSION_1	32	/* feature bits */

#define VIRTIO_INT_USED		1u	/* a queue's used ring moved */
#define VIRTIO_INT_CONFIG	2u	/* the configuration changed */

struct virtio_dev;

struct virtio_ops {
	uint64_t (*features)(struct virtio_dev *d);
	void (*set_features)(struct virtio_dev *d, uint64_t f);
	uint8_t (*status)(struct virtio_dev *d);
	void (*set_status)(struct virtio_dev *d, uint8_t s);
	unsigned (*queue_max)(struct virtio_dev *d, unsigned index);
	bool (*queue_set)(struct virtio_dev *d, unsigned index, unsigned num,
			  uintptr_t desc, uintptr_t avail, uintptr_t used);
	void (*notify)(struct virtio_dev *d, unsigned index);
	uint32_t (*isr_ack)(struct virtio_dev *d);
	uint8_t (*config8)(struct virtio_dev *d, unsigned off);
	bool fixed_size;	/* the device's queue size is the only one */
};

/* Port I/O, from the platform (kernel/ has no port instructions): size
 * is 1, 2 or 4 bytes. */
struct virtio_pio {
	uint32_t (*in)(uint16_t port, unsigned size);
	void (*out)(uint16_t port, unsigned size, uint32_t v);
};

struct virtio_dev {
	const struct virtio_ops *ops;
	const struct virtio_pio *pio;	/* legacy PCI */
	uintptr_t base;			/* MMIO address, or the I/O BAR's port */
	uint32_t version;	/* virtio-mmio: 1 legacy, 2 modern */
	uint32_t device_id;	/* VIRTIO_ID_* */
	uint64_t features;	/* negotiated */
	const char *transport;	/* "virtio-mmio", "virtio-pci" */
};

struct virtq_desc {
	uint64_t addr;
	uint32_t len;
	uint16_t flags;
	uint16_t next;
};
#define VIRTQ_DESC_F_WRITE	2	/* the device writes the buffer */

struct virtq {
	struct virtio_dev *dev;
	unsigned index;
	uint16_t num;			/* entries, a power of two */
	uint16_t avail_idx;		/* the next avail slot (ours) */
	uint16_t last_used;		/* the next used slot to read */
	volatile struct virtq_desc *desc;
	volatile uint16_t *avail;	/* flags, idx, ring[num], used_event */
	volatile uint16_t *used;	/* flags, idx, then {u32 id, u32 len}[num] */
	void *mem;
	size_t npages;
	uint64_t bad_used;		/* device returned an id out of range */
};

bool virtio_mmio_probe(struct virtio_dev *d, uintptr_t base);
void virtio_pci_legacy_init(struct virtio_dev *d, const struct virtio_pio *io,
			    uint16_t port, uint32_t device_id);
bool virtio_start(struct virtio_dev *d, uint64_t want, uint64_t *got,
		  char *err, size_t errlen);
bool virtq_setup(struct virtio_dev *d, struct virtq *q, unsigned index,
		 unsigned max, char *err, size_t errlen);
void virtio_ready(struct virtio_dev *d);
/* Set FAILED: the device stops (a driver that gives up). */
void virtio_fail(struct virtio_dev *d);
void virtq_post(struct virtq *q, uint16_t id, uintptr_t pa, uint32_t len,
		bool device_writes);
void virtq_notify(struct virtq *q);
/* Ask the device not to interrupt when it uses this queue's buffers (a
 * hint: VIRTQ_AVAIL_F_NO_INTERRUPT), for a queue the driver reaps on
 * its own schedule (TX, reclaimed on the next send). */
void virtq_no_interrupt(struct virtq *q);
bool virtq_used(struct virtq *q, uint16_t *id, uint32_t *len);
uint32_t virtio_intr_ack(struct virtio_dev *d);
static inline uint8_t virtio_config8(struct virtio_dev *d, unsigned off)
{
	return d->ops->config8(d, off);
}

#endif
