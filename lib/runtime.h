/*
 * What Go's library (lib/) is built on, all of it, for its .c files: the
 * public API (include/gmk.h: goroutines, channels, time, kmalloc, panic),
 * the runtime's entries made for the library (sched/linkname.h: the
 * Mutex, the semaphores and notify lists, a context's done channel) and
 * the kernel's primitives below the runtime (atomics, the compiler's
 * hints, the clock, fatal errors). Nothing here shows the scheduler's
 * internals (tools/check-layers, rule 4b).
 *
 * include/gmk.h comes with the kernel's types (GMK_PUBLIC_CHECK: its
 * prototypes, not its storage types), the library's own among them, so
 * each prototype of the library is checked against the public one.
 */
#ifndef GMK_LIB_RUNTIME_H
#define GMK_LIB_RUNTIME_H

#include "kernel/atomic.h"
#include "kernel/compiler.h"
#include "kernel/kmalloc.h"
#include "kernel/panic.h"
#include "kernel/time.h"
#include "lib/context.h"
#include "lib/errgroup.h"
#include "lib/semaphore.h"
#include "lib/sync.h"
#include "sched/linkname.h"

struct sched_pstats;
struct time_timer;
struct time_ticker;
#define GMK_PUBLIC_CHECK
#include "include/gmk.h"

#endif
