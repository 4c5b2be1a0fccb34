/*
 * The kernel's calls into the scheduler, all of them: sched/ implements
 * each once, and the kernel calls them directly. Nothing else in kernel/
 * names sched/ (tools/check-layers holds it to that); the scheduler calls
 * down into kernel/ headers freely, and the switch code's calls into it
 * are kernel/gobuf.h's.
 *
 * Interrupts and the console make some of these calls before the
 * scheduler has started (schedinit): those do nothing then, as noted.
 */
#ifndef GMK_KERNEL_SCHED_HOOKS_H
#define GMK_KERNEL_SCHED_HOOKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct trapframe;

/* Where every online core goes (kernel/main.c): each becomes an M, takes
 * a P and enters schedule() on its g0. On the boot core it first sets the
 * scheduler up and starts the main G, which runs kernel_main_g. */
__attribute__((noreturn)) void sched_main(bool boot_core);

/* Every timer interrupt (kernel/time.c): the preemption tick, Go's sysmon
 * (sched/preempt.c). false until the scheduler has started: the kernel
 * then keeps its own periodic tick. */
bool sched_tick(struct trapframe *tf);
/* IPI_WAKE (kernel/ipi.c): another core gave this one's P an earlier
 * timer or work to look at. Nothing before the scheduler starts. */
void sched_ipi_wake(void);
/* A safe point (preempt_enable, spin_unlock_irqrestore): the preempt-off
 * count is back at zero with interrupts on, and the tick asked for a
 * switch meanwhile (cpu->resched, which only the tick sets). */
void sched_preempt_safepoint(void);

/* A fault (kernel/panic.c): if it is a G's stack overflow (addr in a
 * guard page, sp below a stack), say whose in buf and return buf; else
 * NULL (sched/gproc.c). */
const char *sched_fault_describe(uintptr_t addr, uintptr_t sp, char *buf, unsigned len);

/* A fatal error's goroutines (kernel/panic.c, after its message;
 * kernel/traceback.h prints each stack): the failing code's stack, which
 * starts at pc, lr, sp, fp as traceback_frames takes them, as its G's
 * ("goroutine N [running]:") or, on the scheduler's own stack, as that
 * if sched_stack; then, if all, every other goroutine from where it
 * stands. Before the scheduler starts, only the first part. */
void sched_traceback(uintptr_t pc, uintptr_t lr, uintptr_t sp, uintptr_t fp,
		     bool sched_stack, bool all);

/* The console's receive interrupt (kernel/console_in.c): bytes came in
 * (sched/console_io.c), and a device readied Gs: get a core with a P to
 * them (sched/netpoll.c; may switch this core's G out and not return).
 * Both are harmless before the scheduler starts. */
void sched_console_rx_ready(void);
void netpoll_kick(struct trapframe *tf);
/* Console output (kernel/console.c, sched/console_io.c): may the running
 * code park for room (a G, the scheduler started)? Park it until need
 * bytes fit; and, from the transmit interrupt, there is room now. */
bool sched_console_tx_can_park(void);
void sched_console_tx_wait(size_t need);
void sched_console_tx_room(void);

/* As the run ends (kernel_main_g, a fatal error): the fingerprint of the
 * scheduling history (fingerprint=on), and the execution trace out
 * (trace=; sched/tracebuf.c). No-ops when off. */
void sched_fingerprint_print(void);
void trace_dump(void);

#endif
