/*
 * The kernel's services for the layers above: the main G's function,
 * programs, calls on every core. (Its calls into the scheduler are
 * kernel/sched_hooks.h.)
 *
 * kernel_main_g() is the main G, which the scheduler starts on the boot
 * core (sched_main): the test runner, a benchmark or a program, chosen by
 * the command line, and then board_exit() with the result.
 */
#ifndef GMK_KERNEL_KERNEL_H
#define GMK_KERNEL_KERNEL_H

#include <stdbool.h>
#include <stdint.h>

void kernel_main_g(void *arg);

/*
 * Programs that `run=<name>` starts (make run's demo is one). The body of
 * PROGRAM(name, "about") { ... } is its main: it sees argc and argv, Go's
 * os.Args: argv[0] is the program's name, argv[1..argc-1] the words after
 * "--" on the command line (docs/cmdline.md), argv[argc] NULL; it returns
 * the exit status.
 */
struct program {
	const char *name;
	int (*main)(int argc, char **argv);
	const char *about;
	/* 1 while it runs (program_start .. program_end): a program keeps
	 * its state in statics, so one runs at most once at a time. */
	volatile uint32_t *running;
};
/* A second PROGRAM of a name fails the link: "multiple definition of
 * `PROGRAM_<name>_defined_twice'" (one global symbol per name; without it
 * run= would start whichever the linker put first). */
#define PROGRAM(nm, about_)                                                \
	const char PROGRAM_##nm##_defined_twice __attribute__((used)) = 0; \
	static int program_fn_##nm(int argc, char **argv);                 \
	static volatile uint32_t program_running_##nm;                     \
	static const struct program program_##nm                           \
		__attribute__((used, section("gmk_programs"), aligned(8))) = \
		{ #nm, program_fn_##nm, about_, &program_running_##nm };   \
	static int program_fn_##nm(int argc, char **argv)

/* The registered program of that name (len bytes), or NULL. */
const struct program *program_find(const char *name, unsigned long len);
void program_list(void);	/* print every program's name and about */
/* Mark p running; false if it already is (the caller must not run it). */
bool program_start(const struct program *p);
void program_end(const struct program *p);
/* Run p's main with the command line's arguments (argv[0] its name). */
int program_main(const struct program *p);
/* Run p's main with argv[1..nargs] = args[0..nargs-1] (argv[0] its name;
 * the shell's run gives the words typed after the program's name). */
int program_main_args(const struct program *p, int nargs, char **args);

/* Run fn(arg) on every online core, in interrupt context on the others and
 * directly on this one; returns when all have finished. */
void smp_call_all(void (*fn)(void *), void *arg);

/* sched/ calls this once schedinit has run: the other cores may enter it. */
void smp_release_cores(void);

#endif
