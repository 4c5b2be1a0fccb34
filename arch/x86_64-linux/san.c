/*
 * Sanitizers and gmk's own stacks. A G's stack is a fiber to
 * ThreadSanitizer, which keeps a shadow call stack per fiber: without
 * telling it at every switch (gogo, mcall) which fiber comes next, a
 * function entered on one G would "return" on another and the shadow stacks
 * would be garbage. A switch synchronises the fiber that leaves with the
 * one that comes (flags 0, not __tsan_switch_to_fiber_no_sync): one core
 * runs them one after the other, which is a real happens-before (and
 * without it every core-local datum, the interrupt flag first, would be a
 * "race" between fibers). Between cores TSan still sees only the
 * scheduler's own atomics and locks: a G that moves to another core is
 * ordered by the run queue's release/acquire or it is reported.
 *
 * Built without GMK_SAN_FIBERS (the default hosted build and the ASan
 * build), this file is empty hooks.
 */
#include <stddef.h>

#include "host.h"
#include "kernel/gobuf.h"
#include "kernel/layout.h"
#include "kernel/percpu.h"

/*
 * The wrappers below choose the next stack (this core's g0, the next G's)
 * and tell the sanitizer before the raw switch runs. A tick that
 * preempted a G in between would move it to another core with that
 * choice made: resumed there, mcall would announce the old core's g0 and
 * then switch to the new core's (host_mcall_raw reads curg's M afresh),
 * and ASan would believe a stack 32 KiB away from the one the thread runs
 * on (its __asan_handle_no_return then fails a check). So they live in a
 * section of their own, which arch_frame_preemptible (cpu.c) treats as
 * switch code: a tick there switches at the next safe point instead. Everything
 * they call is the sanitizer's runtime, outside gmk's text, which is not
 * preempted either.
 */
#define SAN_SWITCH_TEXT __attribute__((section("host_san_switch_text")))

#if defined(GMK_SAN_FIBERS) && defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define GMK_TSAN_FIBERS 1
#endif
#endif

#ifdef GMK_TSAN_FIBERS
void *__tsan_get_current_fiber(void);
void *__tsan_create_fiber(unsigned flags);
void __tsan_switch_to_fiber(void *fiber, unsigned flags);
#define TSAN_SWITCH_SYNC 0

void *host_san_fiber_for(void *old_fiber, void *g)
{
	return old_fiber ? old_fiber : __tsan_create_fiber(0);
}

/* g0 of this core: a fiber of its own (the thread's first fiber ran the
 * boot code on the thread's stack and is left there). */
void host_san_thread_init(struct cpu *c)
{
	host_cores[c->id].san_g0_fiber = __tsan_create_fiber(0);
}

SAN_SWITCH_TEXT static void *fiber_of(struct gobuf *b)
{
	return b->fiber ? b->fiber : host_cores[arch_this_cpu()->id].san_g0_fiber;
}

SAN_SWITCH_TEXT void host_san_leave_to(void *g)
{
	__tsan_switch_to_fiber(fiber_of(&((struct g_head *)g)->sched), TSAN_SWITCH_SYNC);
}

void host_gogo_raw(struct gobuf *buf);
void host_mcall_raw(void (*fn)(struct g *));

SAN_SWITCH_TEXT __attribute__((noreturn)) void gogo(struct gobuf *buf)
{
	__tsan_switch_to_fiber(fiber_of(buf), TSAN_SWITCH_SYNC);
	host_gogo_raw(buf);
	__builtin_unreachable();
}

SAN_SWITCH_TEXT void mcall(void (*fn)(struct g *))
{
	__tsan_switch_to_fiber(host_cores[arch_this_cpu()->id].san_g0_fiber, TSAN_SWITCH_SYNC);
	host_mcall_raw(fn);
}

#elif defined(GMK_SAN_FIBERS)
/*
 * AddressSanitizer keeps the bounds of the stack a thread is on (for
 * __asan_handle_no_return and its reports). Each switch announces the
 * next stack, the G's [stack_lo, stack_hi), and commits it at once: the
 * few uninstrumented instructions of gogo/mcall between the two are the
 * only ones that run with the bounds ahead of the stack pointer. (Every
 * landing point, a G's first instruction, the return from mcall, the
 * resume of a preempted frame, would otherwise need a hook of its own.)
 * No fake stacks: run with detect_stack_use_after_return=0.
 */
void __sanitizer_start_switch_fiber(void **fake_stack_save, const void *bottom,
				    size_t size);
void __sanitizer_finish_switch_fiber(void *fake_stack_save, const void **bottom_old,
				     size_t *size_old);

SAN_SWITCH_TEXT static void asan_switch_to(uintptr_t lo, uintptr_t hi)
{
	__sanitizer_start_switch_fiber(NULL, (const void *)lo, hi - lo);
	__sanitizer_finish_switch_fiber(NULL, NULL, NULL);
}

/* A G's stack (kernel/gobuf.h's struct g_head), or g0's: the core's
 * boot stack, [stack_top - KSTACK_SIZE, stack_top), as mstart sets it. */
SAN_SWITCH_TEXT static void asan_switch_to_g(const struct g_head *gp)
{
	asan_switch_to(gp->stack_lo, gp->stack_hi);
}

SAN_SWITCH_TEXT static void asan_switch_to_g0(void)
{
	uintptr_t top = arch_this_cpu()->stack_top;

	asan_switch_to(top - KSTACK_SIZE, top);
}

void host_gogo_raw(struct gobuf *buf);
void host_mcall_raw(void (*fn)(struct g *));
void *host_san_fiber_for(void *old_fiber, void *g) { return old_fiber; }
void host_san_thread_init(struct cpu *c) { }
SAN_SWITCH_TEXT void host_san_leave_to(void *g) { asan_switch_to_g(g); }
SAN_SWITCH_TEXT __attribute__((noreturn)) void gogo(struct gobuf *buf)
{
	asan_switch_to_g(buf->g);
	host_gogo_raw(buf);
	__builtin_unreachable();
}
SAN_SWITCH_TEXT void mcall(void (*fn)(struct g *))
{
	asan_switch_to_g0();
	host_mcall_raw(fn);
}

#else

void host_san_thread_init(struct cpu *c) { }
void host_san_leave_to(void *g) { }

#endif
