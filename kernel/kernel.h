/*
 * The kernel's few upward entry points.
 *
 * sched_main() is where every online core goes: sched/ implements it (each
 * core becomes an M, takes a P and enters schedule() on its g0). On the boot
 * core it first initialises the scheduler and starts the main G, which runs
 * kernel_main_g(): the test runner, a benchmark or a program, chosen by the
 * command line, and then board_exit() with the result.
 */
#ifndef GMK_KERNEL_KERNEL_H
#define GMK_KERNEL_KERNEL_H

#include <stdbool.h>
#include <stdint.h>

__attribute__((noreturn)) void sched_main(bool boot_core);
void kernel_main_g(void *arg);
/* fingerprint=on: print the hash of the scheduling history (sched/), as
 * the run ends: the main G's last words, or a fatal error's. */
void sched_fingerprint_print(void);
/* trace=: write the execution trace out (sched/tracebuf.c); a no-op when off. */
void trace_dump(void);

/* Programs that `run=<name>` starts (make run's demo is one). */
struct program {
	const char *name;
	int (*main)(void);	/* returns the exit status */
	const char *about;
	/* 1 while it runs (program_start .. program_end): a program keeps
	 * its state in statics, so one runs at most once at a time. */
	volatile uint32_t *running;
};
#define PROGRAM(nm, about_)                                                \
	static int program_fn_##nm(void);                                  \
	static volatile uint32_t program_running_##nm;                     \
	static const struct program program_##nm                           \
		__attribute__((used, section("gmk_programs"), aligned(8))) = \
		{ #nm, program_fn_##nm, about_, &program_running_##nm };   \
	static int program_fn_##nm(void)

/* The registered program of that name (len bytes), or NULL. */
const struct program *program_find(const char *name, unsigned long len);
void program_list(void);	/* print every program's name and about */
/* Mark p running; false if it already is (the caller must not run it). */
bool program_start(const struct program *p);
void program_end(const struct program *p);

/* Run fn(arg) on every online core, in interrupt context on the others and
 * directly on this one; returns when all have finished. */
void smp_call_all(void (*fn)(void *), void *arg);

/* sched/ calls this once schedinit has run: the other cores may enter it. */
void smp_release_cores(void);

/* Set by sched/: names a fault at addr, taken with the stack pointer at
 * sp, that it recognises (a G's stack overflow) in buf and returns buf,
 * or returns NULL. */
extern const char *(*fault_describe_hook)(uintptr_t addr, uintptr_t sp, char *buf,
					  unsigned len);

/* Set by sched/: called from every core's timer interrupt (preemption). */
struct trapframe;
extern void (*sched_tick_hook)(struct trapframe *tf);

#endif
