/*
 * The poller: Gs that wait for a device, after Go's runtime/netpoll.go.
 *
 * On bare metal the "network" is every device that raises an interrupt.
 * A G that waits for one parks on a pollDesc (poll_wait); the device's
 * interrupt handler marks the descriptor ready (netpollready), which
 * takes the waiting G off it and onto the poller's ready list; the
 * scheduler makes those Gs runnable in its netpoll step (findrunnable,
 * between the global queue and stealing, where Go calls netpoll(0)), an
 * idle core halted in stopm leaves its wfi/hlt for them (Go's blocking
 * netpoll(delay)), and when every P is busy the interrupted core gives
 * up its G so that the woken one runs at once (see netpoll_kick).
 *
 *   struct pollDesc pd;        zero-filled is valid (no deadline)
 *   poll_wait(&pd, 'r')        park until ready or the read deadline;
 *                              POLL_OK or POLL_ERR_TIMEOUT. Level or
 *                              edge, readiness may be stale: check the
 *                              device and wait again, as Go's fd loop
 *                              does around EAGAIN.
 *   poll_setdeadline(&pd, t, 'r')  absolute nanotime(), 0 = none; like
 *                              SetReadDeadline. A deadline in the past
 *                              fails waits at once until it is reset;
 *                              one at or past TIME_NEVER never comes.
 *   netpollready(&pd, 'r')     from the interrupt handler, after the
 *                              data is where the G will look for it
 *   poll_unblock(&pd)          closing (Go's poll_runtime_pollUnblock):
 *                              the Gs waiting on pd wake, and every wait
 *                              from then on fails at once, with
 *                              POLL_ERR_CLOSING, until poll_open(&pd)
 *   poll_open(&pd)             a descriptor reused for a new device or
 *                              socket (Go's pollOpen): not closing
 *
 * Each mode ('r', 'w') has at most one waiter at a time (Go panics the
 * same way on a second one); serialise readers above it (a mutex).
 */
#ifndef GMK_SCHED_NETPOLL_H
#define GMK_SCHED_NETPOLL_H

#include <stdbool.h>
#include <stdint.h>

#include "sched/timer.h"

/* rg/wg states, as Go's: or the waiting G's address. */
#define pdNil	((uintptr_t)0)	/* nothing happened, nobody waits */
#define pdReady	((uintptr_t)1)	/* I/O readiness notified, not consumed */
#define pdWait	((uintptr_t)2)	/* a G is about to park on it */

enum { POLL_OK = 0, POLL_ERR_TIMEOUT = 1, POLL_ERR_CLOSING = 2 };

struct pollDesc {
	volatile uintptr_t rg;		/* read waiter / state */
	volatile uintptr_t wg;		/* write waiter / state */
	volatile uint64_t rd, wd;	/* deadlines, nanotime(); 0 = none */
	volatile uint32_t closing;	/* poll_unblock ran (Go's pd.closing) */
	struct timer rt, wt;		/* deadline timers, armed while waiting */
	const char *name;		/* for ps and checkdead */
};

int poll_wait(struct pollDesc *pd, int mode);
/* poll_wait, and commit(arg) runs once the G is parked on pd (on g0, its
 * context saved; not when the wait ends without parking): start the
 * device whose interrupt will ready it. arg must outlive the wait. */
int poll_wait_commit(struct pollDesc *pd, int mode, void (*commit)(void *),
		     void *arg);
void poll_setdeadline(struct pollDesc *pd, uint64_t deadline, int mode);
void netpollready(struct pollDesc *pd, int mode);	/* interrupt-safe */
void poll_unblock(struct pollDesc *pd);
void poll_open(struct pollDesc *pd);

/* ---- for the scheduler (sched/) ---- */
struct p;
struct gqueue;
struct trapframe;
/* Gs readied by devices and not yet runnable (lock-free peek). Inline:
 * findrunnable asks at every switch. */
extern volatile uintptr_t netpoll_readylist;	/* netpoll.c */
static inline bool netpoll_pending(void)
{
	return __atomic_load_n(&netpoll_readylist, __ATOMIC_ACQUIRE) != 0;
}
/* Go's netpoll(0): take every readied G (still _Gwaiting) into *q. */
uint32_t netpoll(struct gqueue *q);
/* Go's injectglist, gmk's way (netpoll.c): make q's Gs runnable, on pp
 * (the first in runnext if `next`) or, locked to another core, on that
 * core, and start a spinner (wakep) to take what pp cannot run. */
void injectglist(struct p *pp, struct gqueue *q, bool next);
/* Go's sysmon polls the network when nobody did for 10 ms; gmk has no
 * sysmon, so findrunnable polls first when the ready list's oldest G has
 * waited that long
 * (a G that only yields would otherwise keep the global queue from
 * ever being empty, and the netpoll step from being reached). */
#define NETPOLL_MAX_DELAY_NS (10 * 1000 * 1000ull)
bool netpoll_overdue(uint64_t now);
/* findrunnable's netpoll step: the first readied G (runnable, to run
 * now) with the rest injected on pp; NULL if none (or each went to the
 * core it is locked to). */
struct g *netpoll_take(struct p *pp);
enum { NETPOLL_KICK_IDLE, NETPOLL_KICK_PREEMPT, NETPOLL_KICK_NONE,
       NETPOLL_KICK_SELF };
extern volatile uint64_t netpoll_kicks[4];
/* Gs parked in poll_wait now (checkdead: they wait on a device). */
uint32_t netpoll_waiters(void);
/* Times checkdead found every M idle but a G waiting on a device
 * (sched.lock; a test reads it to know the case happened). */
extern uint64_t checkdead_netpoll_waits;
/* From a device interrupt, after the device is acknowledged: make sure a
 * core runs the Gs the interrupt readied. May not return (preemption). */
void netpoll_kick(struct trapframe *tf);
/* The same without the preemption: wake an idle core for the readied Gs
 * if there is one, else leave them to the busy Ps' netpoll step (Go's
 * netpollBreak; readiness that is no reason to take a core, as room to
 * write is not). Any context. */
void netpoll_wake(void);

#endif
