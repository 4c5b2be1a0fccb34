/*
 * The channel object and the pieces chan.c shares with select.c (Go's
 * hchan, waitq, send, recv). Internal to sched/; programs use sched/chan.h.
 */
#ifndef GMK_SCHED_HCHAN_H
#define GMK_SCHED_HCHAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kernel/spinlock.h"
#include "sched/chan.h"
#include "sched/sudog.h"

/*
 * Everything below `lock` is protected by it. qcount and closed are also
 * read without it by the non-blocking fast paths and chan_len (volatile,
 * single loads); as in Go, a stale value there only makes a try-operation
 * report "not ready" at an instant when that was also true.
 */
struct hchan {
	uint64_t magic;			/* CHAN_LIVE, CHAN_FREED once freed */
	struct spinlock lock;
	volatile uint32_t qcount;	/* values in the ring */
	uint32_t dataqsiz;		/* ring slots (capacity) */
	uint32_t elemsize;
	volatile uint32_t closed;
	uint32_t sendx;			/* next slot to fill */
	uint32_t recvx;			/* next slot to empty */
	struct waitq recvq;		/* blocked receivers, FIFO */
	struct waitq sendq;		/* blocked senders, FIFO */
	uint8_t *buf;			/* dataqsiz * elemsize bytes */
	/* The timer that sends on it (Go's hchan.timer), set once by
	 * sched/timechan.c before the channel is handed out; NULL for
	 * every other channel. */
	struct timechan *timer;
	/* A context's done channel (ctxdone_make, sched/linkname.h), set
	 * once before it is handed out: closed and freed by its context
	 * only. */
	bool ctxdone;
	/* Its timer was freed while Gs waited on it (sched/timechan.c):
	 * the last select to take its sudog off frees it (select.c). */
	bool orphan;
};

/*
 * C has no garbage collector, so a program frees its channels
 * (chan_free), and may go on using one by mistake. Every operation checks
 * the magic first: a freed channel is poisoned (CHAN_FREED) and held back
 * from reuse for a while (chan.c's quarantine), so that a use after the
 * free is reported ("use of freed channel") instead of landing in a new
 * channel that reused the memory.
 */
#define CHAN_LIVE	0x6368616e6c697665ull	/* "chanlive" */
#define CHAN_FREED	0x6368616e66726565ull	/* "chanfree" */

void chan_bad(const struct hchan *c, const char *op) __attribute__((noreturn));
/* chan_free without the timer check: for sched/timechan.c, which frees
 * its timers' channels. */
void chanfree(struct hchan *c);
/* chanfree, but a channel with Gs waiting is left to them (orphan)
 * instead of a fatal error: a timer's, freed "at any time". */
void chanfree_or_orphan(struct hchan *c);
/* chan_close without the owner checks: for ctxdone_close, a context's
 * close of its done channel. */
void chanclose(struct hchan *c);

/* c is not nil. */
static inline void chancheck(const struct hchan *c, const char *op)
{
	if (__atomic_load_n(&c->magic, __ATOMIC_RELAXED) != CHAN_LIVE)
		chan_bad(c, op);
}

static inline void *chanbuf(struct hchan *c, uint32_t i)
{
	return c->buf + (size_t)i * c->elemsize;
}

/* The first sudog of q that may still be woken, taken (a select's is
 * claimed for this channel), or NULL. */
struct sudog *waitq_dequeue(struct waitq *q);

/* Hand a value to / take one from a parked peer found in c's queue;
 * both unlock c (the caller took its lock) before readying the peer.
 * These three are inline in chan.c (see there). */
void chan_send_direct(struct hchan *c, struct sudog *sg, const void *ep,
		      void (*unlockf)(void *), void *arg);
void chan_recv_direct(struct hchan *c, struct sudog *sg, void *ep,
		      void (*unlockf)(void *), void *arg);

#endif
