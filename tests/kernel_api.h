/*
 * kernel_api.h: what gmk's own tests and benchmarks include: the public
 * API with the kernel's view of it (every internal header it rests on).
 * Applications include include/gmk.h, the public API alone; the one
 * gmk.h is that one.
 *
 *   go(fn, arg)                      start a goroutine (sched/sched.h)
 *   go_copy(fn, &arg, sizeof arg)    ... with a copy of its argument
 *   gosched()                        yield
 *   chan_make / chan_send / ...      channels and select (sched/chan.h)
 *   mutex_*                          the runtime's Mutex (sched/sync.h)
 *   rwmutex_*, waitgroup_*, once_do, cond_*   the rest of sync (lib/sync.h)
 *   time_newtimer, time_newticker, time_afterfunc, time_after,
 *   SELECT_AFTER                     Go's time package (sched/timechan.h)
 *   context_with_cancel, ...         Go's context (lib/context.h)
 *   errgroup_go, errgroup_wait, ...  x/sync/errgroup (lib/errgroup.h)
 *   semaphore_acquire, ...           x/sync/semaphore (lib/semaphore.h)
 *   pool_get, pool_put, ...          sync.Pool (sched/pool.h)
 *   console_read, poll_wait, ...     devices (sched/console_io.h, netpoll.h)
 *
 * A program is a function registered with PROGRAM(name, "about") and
 * started with run=name on the kernel command line (kernel/kernel.h).
 */
#ifndef GMK_TESTS_KERNEL_API_H
#define GMK_TESTS_KERNEL_API_H

#include "kernel/kernel.h"
#include "kernel/kmalloc.h"
#include "kernel/time.h"
#include "lib/context.h"
#include "lib/errgroup.h"
#include "lib/semaphore.h"
#include "lib/sync.h"
#include "sched/chan.h"
#include "sched/console_io.h"
#include "sched/netpoll.h"
#include "sched/pool.h"
#include "sched/sched.h"
#include "sched/sync.h"
#include "sched/timechan.h"

#endif
