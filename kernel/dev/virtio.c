/*
 * The virtio transport (virtio.h): device start-up, split virtqueues, and
 * virtio-mmio (spec 1.2 section 4.2), both its legacy register layout
 * (version 1: the queue as one block given by page frame number) and the
 * modern one (version 2: three addresses, QueueReady).
 */
#include <stdio.h>
#include <string.h>

#include "kernel/dev/virtio.h"
#include "kernel/mmio.h"
#include "kernel/page.h"

#define STATUS_ACKNOWLEDGE	1
#define STATUS_DRIVER		2
#define STATUS_DRIVER_OK	4
#define STATUS_FEATURES_OK	8
#define STATUS_FAILED		128

#define VIRTQ_USED_F_NO_NOTIFY	1
#define VIRTQ_MAX		1024	/* entries a queue is given at most */
#define LEGACY_ALIGN		4096	/* the used ring's, in a legacy queue */

/* The ring in memory the device reads: ordered against its MMIO doorbell
 * and its own writes by a full fence (QEMU's devices are coherent; a
 * device that is not would need the arch's cache maintenance here). */
static inline void dma_fence(void) { __atomic_thread_fence(__ATOMIC_SEQ_CST); }

/* ---- virtio-mmio ---------------------------------------------------------- */

#define MMIO_MAGIC		0x000	/* "virt" */
#define MMIO_VERSION		0x004
#define MMIO_DEVICE_ID		0x008
#define MMIO_DEV_FEATURES	0x010
#define MMIO_DEV_FEATURES_SEL	0x014
#define MMIO_DRV_FEATURES	0x020
#define MMIO_DRV_FEATURES_SEL	0x024
#define MMIO_GUEST_PAGE_SIZE	0x028	/* legacy */
#define MMIO_QUEUE_SEL		0x030
#define MMIO_QUEUE_NUM_MAX	0x034
#define MMIO_QUEUE_NUM		0x038
#define MMIO_QUEUE_ALIGN	0x03c	/* legacy */
#define MMIO_QUEUE_PFN		0x040	/* legacy */
#define MMIO_QUEUE_READY	0x044
#define MMIO_QUEUE_NOTIFY	0x050
#define MMIO_INTERRUPT_STATUS	0x060
#define MMIO_INTERRUPT_ACK	0x064
#define MMIO_STATUS		0x070
#define MMIO_QUEUE_DESC		0x080	/* low, high at +4 */
#define MMIO_QUEUE_AVAIL	0x090
#define MMIO_QUEUE_USED		0x0a0
#define MMIO_CONFIG		0x100
#define MMIO_MAGIC_VALUE	0x74726976u

static uint64_t mmio_features(struct virtio_dev *d)
{
	wr32(d->base + MMIO_DEV_FEATURES_SEL, 0);
	uint64_t f = rd32(d->base + MMIO_DEV_FEATURES);
	if (d->version >= 2) {
		wr32(d->base + MMIO_DEV_FEATURES_SEL, 1);
		f |= (uint64_t)rd32(d->base + MMIO_DEV_FEATURES) << 32;
	}
	return f;
}

static void mmio_set_features(struct virtio_dev *d, uint64_t f)
{
	wr32(d->base + MMIO_DRV_FEATURES_SEL, 0);
	wr32(d->base + MMIO_DRV_FEATURES, (uint32_t)f);
	if (d->version >= 2) {
		wr32(d->base + MMIO_DRV_FEATURES_SEL, 1);
		wr32(d->base + MMIO_DRV_FEATURES, (uint32_t)(f >> 32));
	}
}

static uint8_t mmio_status(struct virtio_dev *d) { return (uint8_t)rd32(d->base + MMIO_STATUS); }
static void mmio_set_status(struct virtio_dev *d, uint8_t s) { wr32(d->base + MMIO_STATUS, s); }

static unsigned mmio_queue_max(struct virtio_dev *d, unsigned index)
{
	wr32(d->base + MMIO_QUEUE_SEL, index);
	if (d->version >= 2 && rd32(d->base + MMIO_QUEUE_READY))
		return 0;			/* in use already */
	if (d->version == 1 && rd32(d->base + MMIO_QUEUE_PFN))
		return 0;
	return rd32(d->base + MMIO_QUEUE_NUM_MAX);
}

static bool mmio_queue_set(struct virtio_dev *d, unsigned index, unsigned num,
			   uintptr_t desc, uintptr_t avail, uintptr_t used)
{
	wr32(d->base + MMIO_QUEUE_SEL, index);
	wr32(d->base + MMIO_QUEUE_NUM, num);
	if (d->version == 1) {
		/* One block: the used ring at the next LEGACY_ALIGN (virtq_setup
		 * laid it out so). */
		wr32(d->base + MMIO_QUEUE_ALIGN, LEGACY_ALIGN);
		wr32(d->base + MMIO_QUEUE_PFN, (uint32_t)(desc / PAGE_SIZE));
		return rd32(d->base + MMIO_QUEUE_PFN) == desc / PAGE_SIZE;
	}
	wr32(d->base + MMIO_QUEUE_DESC, (uint32_t)desc);
	wr32(d->base + MMIO_QUEUE_DESC + 4, (uint32_t)((uint64_t)desc >> 32));
	wr32(d->base + MMIO_QUEUE_AVAIL, (uint32_t)avail);
	wr32(d->base + MMIO_QUEUE_AVAIL + 4, (uint32_t)((uint64_t)avail >> 32));
	wr32(d->base + MMIO_QUEUE_USED, (uint32_t)used);
	wr32(d->base + MMIO_QUEUE_USED + 4, (uint32_t)((uint64_t)used >> 32));
	wr32(d->base + MMIO_QUEUE_READY, 1);
	return rd32(d->base + MMIO_QUEUE_READY) == 1;
}

static void mmio_notify(struct virtio_dev *d, unsigned index)
{
	wr32(d->base + MMIO_QUEUE_NOTIFY, index);
}

static uint32_t mmio_isr_ack(struct virtio_dev *d)
{
	uint32_t s = rd32(d->base + MMIO_INTERRUPT_STATUS);
	if (s)
		wr32(d->base + MMIO_INTERRUPT_ACK, s);
	return s;
}

static uint8_t mmio_config8(struct virtio_dev *d, unsigned off)
{
	return rd8(d->base + MMIO_CONFIG + off);
}

static const struct virtio_ops mmio_ops = {
	.features = mmio_features, .set_features = mmio_set_features,
	.status = mmio_status, .set_status = mmio_set_status,
	.queue_max = mmio_queue_max, .queue_set = mmio_queue_set,
	.notify = mmio_notify, .isr_ack = mmio_isr_ack, .config8 = mmio_config8,
};

bool virtio_mmio_probe(struct virtio_dev *d, uintptr_t base)
{
	memset(d, 0, sizeof *d);
	if (!base || rd32(base + MMIO_MAGIC) != MMIO_MAGIC_VALUE)
		return false;
	d->base = base;
	d->ops = &mmio_ops;
	d->transport = "virtio-mmio";
	d->version = rd32(d->base + MMIO_VERSION);
	d->device_id = rd32(d->base + MMIO_DEVICE_ID);
	/* Device id 0: an empty slot (QEMU's virt lists 32). */
	return (d->version == 1 || d->version == 2) && d->device_id != 0;
}

/* ---- virtio over PCI, legacy (transitional) layout, in I/O space ------- */

#define PIO_DEV_FEATURES	0x00	/* 32 bits */
#define PIO_DRV_FEATURES	0x04
#define PIO_QUEUE_PFN		0x08
#define PIO_QUEUE_NUM		0x0c	/* 16 bits */
#define PIO_QUEUE_SEL		0x0e
#define PIO_QUEUE_NOTIFY	0x10
#define PIO_STATUS		0x12	/* 8 bits */
#define PIO_ISR			0x13	/* reading it acknowledges */
#define PIO_CONFIG		0x14	/* without MSI-X */

static inline uint32_t pin(struct virtio_dev *d, unsigned off, unsigned size)
{
	return d->pio->in((uint16_t)(d->base + off), size);
}
static inline void pout(struct virtio_dev *d, unsigned off, unsigned size, uint32_t v)
{
	d->pio->out((uint16_t)(d->base + off), size, v);
}

static uint64_t pio_features(struct virtio_dev *d) { return pin(d, PIO_DEV_FEATURES, 4); }
static void pio_set_features(struct virtio_dev *d, uint64_t f)
{
	pout(d, PIO_DRV_FEATURES, 4, (uint32_t)f);
}
static uint8_t pio_status(struct virtio_dev *d) { return (uint8_t)pin(d, PIO_STATUS, 1); }
static void pio_set_status(struct virtio_dev *d, uint8_t s) { pout(d, PIO_STATUS, 1, s); }

static unsigned pio_queue_max(struct virtio_dev *d, unsigned index)
{
	pout(d, PIO_QUEUE_SEL, 2, index);
	if (pin(d, PIO_QUEUE_PFN, 4))
		return 0;			/* in use already */
	return pin(d, PIO_QUEUE_NUM, 2);
}

/* The legacy interface has no size to set: the queue is the device's
 * size (QUEUE_NUM), laid out as one block (virtq_setup takes num as the
 * device gives it, a power of two). */
static bool pio_queue_set(struct virtio_dev *d, unsigned index, unsigned num,
			  uintptr_t desc, uintptr_t avail, uintptr_t used)
{
	pout(d, PIO_QUEUE_SEL, 2, index);
	if (num != pin(d, PIO_QUEUE_NUM, 2))
		return false;
	pout(d, PIO_QUEUE_PFN, 4, (uint32_t)(desc / PAGE_SIZE));
	return pin(d, PIO_QUEUE_PFN, 4) == desc / PAGE_SIZE;
}

static void pio_notify(struct virtio_dev *d, unsigned index) { pout(d, PIO_QUEUE_NOTIFY, 2, index); }
static uint32_t pio_isr_ack(struct virtio_dev *d) { return pin(d, PIO_ISR, 1); }
static uint8_t pio_config8(struct virtio_dev *d, unsigned off)
{
	return (uint8_t)pin(d, PIO_CONFIG + off, 1);
}

static const struct virtio_ops pio_ops = {
	.features = pio_features, .set_features = pio_set_features,
	.status = pio_status, .set_status = pio_set_status,
	.queue_max = pio_queue_max, .queue_set = pio_queue_set,
	.notify = pio_notify, .isr_ack = pio_isr_ack, .config8 = pio_config8,
	.fixed_size = true,
};

void virtio_pci_legacy_init(struct virtio_dev *d, const struct virtio_pio *io,
			    uint16_t port, uint32_t device_id)
{
	memset(d, 0, sizeof *d);
	d->ops = &pio_ops;
	d->pio = io;
	d->base = port;
	d->version = 1;
	d->device_id = device_id;
	d->transport = "virtio-pci";
}

/* ---- the device ------------------------------------------------------------ */

bool virtio_start(struct virtio_dev *d, uint64_t want, uint64_t *got,
		  char *err, size_t errlen)
{
	d->ops->set_status(d, 0);		/* reset */
	if (d->ops == &mmio_ops && d->version == 1)
		wr32(d->base + MMIO_GUEST_PAGE_SIZE, PAGE_SIZE);
	d->ops->set_status(d, STATUS_ACKNOWLEDGE);
	d->ops->set_status(d, STATUS_ACKNOWLEDGE | STATUS_DRIVER);
	uint64_t offered = d->ops->features(d);
	/* A modern device is driven as one (VERSION_1); a legacy one has
	 * only the low 32 bits. */
	if (d->version >= 2) {
		if (!(offered & (1ull << VIRTIO_F_VERSION_1))) {
			snprintf(err, errlen, "%s at 0x%lx: version 2 without VIRTIO_F_VERSION_1",
				 d->transport, (unsigned long)d->base);
			virtio_fail(d);
			return false;
		}
		want |= 1ull << VIRTIO_F_VERSION_1;
	}
	d->features = offered & want;
	d->ops->set_features(d, d->features);
	if (d->version >= 2) {
		d->ops->set_status(d, STATUS_ACKNOWLEDGE | STATUS_DRIVER | STATUS_FEATURES_OK);
		if (!(d->ops->status(d) & STATUS_FEATURES_OK)) {
			snprintf(err, errlen, "%s at 0x%lx: features 0x%llx refused",
				 d->transport, (unsigned long)d->base,
				 (unsigned long long)d->features);
			virtio_fail(d);
			return false;
		}
	}
	*got = d->features;
	return true;
}

void virtio_ready(struct virtio_dev *d)
{
	uint8_t s = STATUS_ACKNOWLEDGE | STATUS_DRIVER | STATUS_DRIVER_OK;
	if (d->version >= 2)
		s |= STATUS_FEATURES_OK;
	dma_fence();
	d->ops->set_status(d, s);
}

void virtio_fail(struct virtio_dev *d)
{
	d->ops->set_status(d, d->ops->status(d) | STATUS_FAILED);
}

uint32_t virtio_intr_ack(struct virtio_dev *d)
{
	return d->ops->isr_ack(d);
}

/* ---- split virtqueues ----------------------------------------------------- */

/* The legacy layout, used for both: descriptors, the avail ring right
 * after, the used ring at the next 4 KiB. */
bool virtq_setup(struct virtio_dev *d, struct virtq *q, unsigned index,
		 unsigned max, char *err, size_t errlen)
{
	unsigned devmax = d->ops->queue_max(d, index);
	unsigned num = max < VIRTQ_MAX ? max : VIRTQ_MAX;

	memset(q, 0, sizeof *q);
	if (devmax == 0) {
		snprintf(err, errlen, "%s at 0x%lx: no queue %u", d->transport,
			 (unsigned long)d->base, index);
		return false;
	}
	if (d->ops->fixed_size) {
		num = devmax;
		if (num > VIRTQ_MAX || (num & (num - 1))) {
			snprintf(err, errlen, "%s at 0x%lx: queue %u of %u entries: want "
				 "a power of two up to %u", d->transport,
				 (unsigned long)d->base, index, num, VIRTQ_MAX);
			return false;
		}
	}
	if (num > devmax)
		num = devmax;
	while (num & (num - 1))			/* a power of two */
		num &= num - 1;
	size_t avail_off = 16 * (size_t)num;
	size_t used_off = (avail_off + 6 + 2 * (size_t)num + LEGACY_ALIGN - 1) &
			  ~(size_t)(LEGACY_ALIGN - 1);
	size_t bytes = used_off + 6 + 8 * (size_t)num;
	q->npages = (bytes + PAGE_SIZE - 1) / PAGE_SIZE;
	q->mem = page_alloc_try(q->npages);	/* zeroed */
	if (!q->mem) {
		snprintf(err, errlen, "%s at 0x%lx: no memory for queue %u",
			 d->transport, (unsigned long)d->base, index);
		return false;
	}
	q->dev = d;
	q->index = index;
	q->num = (uint16_t)num;
	q->desc = q->mem;
	q->avail = (volatile uint16_t *)((char *)q->mem + avail_off);
	q->used = (volatile uint16_t *)((char *)q->mem + used_off);
	uintptr_t pa = (uintptr_t)q->mem;
	if (!d->ops->queue_set(d, index, num, pa, pa + avail_off, pa + used_off)) {
		snprintf(err, errlen, "%s at 0x%lx: queue %u not taken", d->transport,
			 (unsigned long)d->base, index);
		page_free(q->mem, q->npages);
		q->mem = NULL;
		return false;
	}
	return true;
}

void virtq_post(struct virtq *q, uint16_t id, uintptr_t pa, uint32_t len,
		bool device_writes)
{
	volatile struct virtq_desc *dsc = &q->desc[id & (q->num - 1)];
	dsc->addr = pa;
	dsc->len = len;
	dsc->flags = device_writes ? VIRTQ_DESC_F_WRITE : 0;
	dsc->next = 0;
	q->avail[2 + (q->avail_idx & (q->num - 1))] = id & (q->num - 1);
	dma_fence();		/* the entry before the index that shows it */
	q->avail_idx++;
	q->avail[1] = q->avail_idx;
}

void virtq_notify(struct virtq *q)
{
	dma_fence();		/* the index before the doorbell, and before
				   reading whether the device wants one */
	if (!(q->used[0] & VIRTQ_USED_F_NO_NOTIFY))
		q->dev->ops->notify(q->dev, q->index);
}

void virtq_no_interrupt(struct virtq *q)
{
	q->avail[0] = 1;	/* VIRTQ_AVAIL_F_NO_INTERRUPT */
}

bool virtq_used(struct virtq *q, uint16_t *id, uint32_t *len)
{
	for (;;) {
		uint16_t idx = __atomic_load_n(&q->used[1], __ATOMIC_ACQUIRE);
		if (idx == q->last_used)
			return false;
		dma_fence();	/* the element after the index that shows it */
		volatile uint32_t *e = (volatile uint32_t *)(q->used + 2) +
				       2 * (q->last_used & (q->num - 1));
		uint32_t i = e[0], l = e[1];
		q->last_used++;
		if (i >= q->num) {
			q->bad_used++;
			continue;
		}
		*id = (uint16_t)i;
		*len = l;
		return true;
	}
}
