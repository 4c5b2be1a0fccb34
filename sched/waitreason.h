/*
 * Why a G is parked: Go's waitReason, a byte of struct g (g->waitreason,
 * sched/runtime2.h). Its own header, because the semaphores' callers
 * outside the scheduler (Go's library, lib/; sched/linkname.h) say why
 * they wait without seeing struct g.
 */
#ifndef GMK_SCHED_WAITREASON_H
#define GMK_SCHED_WAITREASON_H

#include <stdint.h>

/* Why a G is parked (g->waitreason); printed by checkdead and traces. */
enum waitreason {
	waitReasonZero = 0,
	waitReasonGoSleep,		/* test and program code parking itself */
	waitReasonChanReceive,
	waitReasonChanSend,
	waitReasonSelect,
	waitReasonSyncMutexLock,
	waitReasonSyncWaitGroupWait,
	waitReasonSemacquire,
	waitReasonSleep,
	waitReasonTest,
	/* Channels, select and sync. */
	waitReasonChanReceiveNilChan,	/* "chan receive (nil chan)" */
	waitReasonChanSendNilChan,	/* "chan send (nil chan)" */
	waitReasonSelectNoCases,	/* "select (no cases)" */
	waitReasonSyncCondWait,		/* "sync.Cond.Wait" */
	waitReasonSyncRWMutexRLock,	/* "sync.RWMutex.RLock" */
	waitReasonSyncRWMutexLock,	/* "sync.RWMutex.Lock" */
	/* The poller. */
	waitReasonIOWait,		/* "IO wait": poll_wait */
	waitReasonCount
};
const char *waitreason_string(uint32_t r);

#endif
