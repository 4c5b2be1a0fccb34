/*
 * schedtrace=MS: every MS milliseconds one line in the shape of Go's
 * GODEBUG=schedtrace, plus gmk's per-P counters:
 *
 *   SCHED 1004ms: gomaxprocs=4 idleprocs=1 threads=4 spinningthreads=0
 *     needspinning=0 idlethreads=1 runqueue=0 [3 0 12 0]
 *     P0: run=.. steal=.. glob=.. runnext=.. idle=.. schedtick=..
 *         preempt=ASYNC+SAFEPOINT maxhold=..us timers=..
 *
 * preempt counts the Gs the tick switched out at interrupt exit and at a
 * safe point; maxhold is the longest a timer tick saw a G hold the P
 * without a switch (holds shorter than a slice end before a tick).
 *
 * Go prints from sysmon; gmk has none, so whichever core passes through
 * the scheduler (or wakes from idle) after the deadline prints, and a CAS
 * on the deadline makes that one core only.
 */
#include <stdio.h>

#include "kernel/atomic.h"
#include "kernel/cmdline.h"
#include "kernel/time.h"
#include "sched/schedimpl.h"

static volatile uint64_t next_trace_ns;

static const char *const waitreasons[waitReasonCount] = {
	[waitReasonZero] = "",
	[waitReasonGoSleep] = "sleep",
	[waitReasonChanReceive] = "chan receive",
	[waitReasonChanSend] = "chan send",
	[waitReasonSelect] = "select",
	[waitReasonSyncMutexLock] = "sync.Mutex.Lock",
	[waitReasonSyncWaitGroupWait] = "sync.WaitGroup.Wait",
	[waitReasonSemacquire] = "semacquire",
	[waitReasonSleep] = "sleep",
	[waitReasonTest] = "test wait",
	[waitReasonChanReceiveNilChan] = "chan receive (nil chan)",
	[waitReasonChanSendNilChan] = "chan send (nil chan)",
	[waitReasonSelectNoCases] = "select (no cases)",
	[waitReasonSyncCondWait] = "sync.Cond.Wait",
	[waitReasonSyncRWMutexRLock] = "sync.RWMutex.RLock",
	[waitReasonSyncRWMutexLock] = "sync.RWMutex.Lock",
	[waitReasonIOWait] = "IO wait",
};

const char *waitreason_string(uint32_t r)
{
	return r < waitReasonCount && waitreasons[r] ? waitreasons[r] : "?";
}

const char *gstatus_string(uint32_t s)
{
	static const char *const names[] = { "idle", "runnable", "running",
					     "waiting", "dead" };
	return s < sizeof names / sizeof names[0] ? names[s] : "bad status";
}

static uint32_t runqlen(struct p *pp)
{
	uint32_t n = atomic_load32(&pp->runqtail) - atomic_load32(&pp->runqhead);
	return n > RUNQ_SIZE ? 0 : n + (atomic_loaduintptr(&pp->runnext) != 0);
}

void schedtrace_maybe(void)
{
	uint64_t period = kopts.schedtrace_ms * NSEC_PER_MSEC;
	if (period == 0)
		return;
	uint64_t now = nanotime();
	uint64_t due = atomic_load64(&next_trace_ns);
	if (now < due || !atomic_cas64(&next_trace_ns, due, now + period))
		return;
	schedtrace_print();
}

/* One SCHED line and the per-P counters, now (the shell's `sched`). */
void schedtrace_print(void)
{
	uint64_t now = nanotime();
	char line[512];
	int n = snprintf(line, sizeof line,
			 "SCHED %llums: gomaxprocs=%u idleprocs=%u threads=%u "
			 "spinningthreads=%u needspinning=%u idlethreads=%u "
			 "runqueue=%u [",
			 (unsigned long long)(now / NSEC_PER_MSEC), sched.nprocs,
			 atomic_load32(&sched.npidle), sched.nprocs,
			 atomic_load32(&sched.nmspinning),
			 atomic_load32(&sched.needspinning),
			 __atomic_load_n(&sched.nmidle, __ATOMIC_RELAXED),
			 atomic_load32(&sched.runqsize));
	for (uint32_t i = 0; i < sched.nprocs && n < (int)sizeof line; i++)
		n += snprintf(line + n, sizeof line - n, "%s%u", i ? " " : "",
			      runqlen(allp[i]));
	printf("%s]\n", line);
	for (uint32_t i = 0; i < sched.nprocs; i++) {
		struct p *pp = allp[i];
		printf("  P%u: run=%llu steal=%llu glob=%llu runnext=%llu "
		       "idle=%llu schedtick=%u preempt=%llu+%llu maxhold=%lluus "
		       "timers=%u\n", i,
		       (unsigned long long)pp->nrun, (unsigned long long)pp->nsteal,
		       (unsigned long long)pp->nglobget,
		       (unsigned long long)pp->nrunnext,
		       (unsigned long long)pp->nidle, pp->schedtick,
		       (unsigned long long)pp->npreempt,
		       (unsigned long long)pp->npreemptsafe,
		       (unsigned long long)(pp->maxhold_ns / NSEC_PER_USEC),
		       timers_len(pp));
	}
}

bool sched_pstats(uint32_t id, struct sched_pstats *st)
{
	struct p *pp = sched_p(id);

	if (!pp)
		return false;
	/* Each counter is its owner's, written as it runs: read one at a
	 * time, a recent value of each. */
	*st = (struct sched_pstats){
		.nrun = atomic_load64(&pp->nrun),
		.nsteal = atomic_load64(&pp->nsteal),
		.nglobget = atomic_load64(&pp->nglobget),
		.nrunnext = atomic_load64(&pp->nrunnext),
	};
	return true;
}

/* Every goroutine with its status and wait reason, as Go's traceback
 * headers ("goroutine 7 [chan receive]:"); the shell's `ps`. */
void sched_print_goroutines(void)
{
	uint32_t n = 0;
	struct g *gp = (struct g *)atomic_loaduintptr((volatile uintptr_t *)&sched.allgs);
	printf("  GOID  STATUS    WAIT\n");
	for (struct g *it = gp; it; it = it->alllink) {
		uint32_t st = readgstatus(it);
		if (st == _Gdead || st == _Gidle)
			continue;
		n++;
		printf("%6llu  %-8s  %s\n", (unsigned long long)it->goid,
		       gstatus_string(st),
		       st == _Gwaiting ? waitreason_string(it->waitreason) : "");
	}
	printf("%u goroutine%s\n", n, n == 1 ? "" : "s");
}
