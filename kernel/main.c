/*
 * Boot: kmain on the boot core brings every other core up, each core runs
 * cpu_start() once, and all of them end in sched_main().
 */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "kernel/atomic.h"
#include "kernel/board.h"
#include "kernel/cmdline.h"
#include "kernel/kernel.h"
#include "kernel/layout.h"
#include "kernel/page.h"
#include "kernel/panic.h"
#include "kernel/percpu.h"
#include "kernel/sched_hooks.h"
#include "kernel/test.h"
#include "kernel/time.h"
#include "kernel/traceback.h"

_Static_assert(offsetof(struct cpu, self) == CPU_SELF, "layout.h");
_Static_assert(offsetof(struct cpu, curg) == CPU_CURG, "layout.h");
_Static_assert(offsetof(struct cpu, id) == CPU_ID, "layout.h");
_Static_assert(offsetof(struct cpu, hwid) == CPU_HWID, "layout.h");
_Static_assert(offsetof(struct cpu, stack_top) == CPU_STACK_TOP, "layout.h");
_Static_assert(offsetof(struct cpu, irq_stack_top) == CPU_IRQ_STACK_TOP, "layout.h");

uint8_t cpu_stacks[MAX_CPUS][KSTACK_SIZE] __attribute__((aligned(PAGE_SIZE)));
uint8_t irq_stacks[MAX_CPUS][IRQ_STACK_SIZE] __attribute__((aligned(PAGE_SIZE)));

struct cpu cpus[MAX_CPUS];
unsigned ncpus = 1;
volatile unsigned ncpus_online;

/* Each secondary waits for the boot core's go-ahead before it enters the
 * scheduler, so that schedinit has run (store-release by the boot core). */
static volatile uint32_t smp_go;

/* A refused command line is shown up to this many bytes. */
#define CMDLINE_SHOWN 400

/* How long a core may take to come up before the boot reports it. */
#define CPU_START_TIMEOUT_NS (2 * NSEC_PER_SEC)

extern void arch_cpu_init(struct cpu *c);

static void cpu_setup_struct(unsigned i)
{
	struct cpu *c = &cpus[i];

	c->self = c;
	cpu_set_id(c, i);
	c->stack_top = (uintptr_t)cpu_stacks[i] + KSTACK_SIZE;
	c->irq_stack_top = (uintptr_t)irq_stacks[i] + IRQ_STACK_SIZE;
}

/* The part of bring-up every core runs on itself, exactly once. */
static void cpu_local_init(struct cpu *c)
{
	arch_cpu_init(c);
	board_cpu_init();
	c->init_runs++;
	printf("gmk: core %u up (hwid 0x%x)\n", c->id, c->hwid);
	c->online = 1;
	atomic_xadd32((volatile uint32_t *)&ncpus_online, 1);
}

static void kernel_tick_start(void)
{
	timer_arm_after(TICK_NS);
	arch_irq_enable();
}

__attribute__((noreturn)) void cpu_start(struct cpu *c)
{
	cpu_local_init(c);
	kernel_tick_start();
	while (!atomic_load32(&smp_go))		/* load-acquire: see schedinit */
		arch_cpu_relax();
	sched_main(false);
}

__attribute__((noreturn)) void kmain(uintptr_t bootarg)
{
	char err[CMDLINE_ERR_MAX];

	cpu_setup_struct(0);
	board_early_init(bootarg);
	printf("\ngmk: %s, built " __DATE__ " " __TIME__ "\n", board_name);
	if (!cmdline_parse(board_cmdline(), &kopts, err, sizeof err)) {
		printf("gmk: bad kernel command line: %s\n", err);
		const char *line = board_cmdline();
		size_t n = strlen(line);
		printf("gmk: command line was \"%.*s%s\"\n",
		       n > CMDLINE_SHOWN ? CMDLINE_SHOWN : (int)n, line,
		       n > CMDLINE_SHOWN ? "..." : "");
		board_exit(2);
	}
	if (!traceback_set(kopts.traceback)) {
		printf("gmk: bad kernel command line: traceback=%s: expected none, single or all\n",
		       kopts.traceback);
		board_exit(2);
	}
	page_init();
	time_init(board_counter_hz());
	board_init();		/* discovers the cores: ncpus, cpus[i].hwid */
	if (ncpus < 1 || ncpus > MAX_CPUS)
		panic("board found %u cores; gmk supports 1..%d", ncpus, MAX_CPUS);
	cpu_local_init(&cpus[0]);

	for (unsigned i = 1; i < ncpus; i++) {
		unsigned before = atomic_load32((volatile uint32_t *)&ncpus_online);
		cpu_setup_struct(i);
		if (!board_start_cpu(i)) {
			printf("gmk: core %u (hwid 0x%x) failed to start\n", i, cpus[i].hwid);
			continue;
		}
		/* One at a time: the console lines come in core order and a
		 * core that never arrives is named. */
		uint64_t deadline = nanotime() + CPU_START_TIMEOUT_NS;
		while (atomic_load32((volatile uint32_t *)&ncpus_online) == before &&
		       nanotime() < deadline)
			arch_cpu_relax();
		if (atomic_load32((volatile uint32_t *)&ncpus_online) == before)
			printf("gmk: core %u (hwid 0x%x) did not come up within %llu ms\n",
			       i, cpus[i].hwid,
			       (unsigned long long)(CPU_START_TIMEOUT_NS / NSEC_PER_MSEC));
	}
	printf("gmk: %s: %u/%u cores online\n", board_name, ncpus_online, ncpus);
	kernel_tick_start();
	sched_main(true);
}

/* Called by sched/ once the scheduler can take every core. */
void smp_release_cores(void)
{
	atomic_store32(&smp_go, 1);	/* store-release: publishes schedinit */
}

extern const struct program __start_gmk_programs[], __stop_gmk_programs[];

const struct program *program_find(const char *name, unsigned long len)
{
	for (const struct program *p = __start_gmk_programs; p < __stop_gmk_programs; p++)
		if (strlen(p->name) == len && strncmp(p->name, name, len) == 0)
			return p;
	return NULL;
}

void program_list(void)
{
	for (const struct program *p = __start_gmk_programs; p < __stop_gmk_programs; p++)
		printf("  %-12s %s\n", p->name, p->about);
}

bool program_start(const struct program *p)
{
	return atomic_cas32(p->running, 0, 1);	/* seq-cst: one winner */
}

void program_end(const struct program *p)
{
	atomic_store32(p->running, 0);	/* store-release: its state is done */
}

static void program_names(void)
{
	for (const struct program *p = __start_gmk_programs; p < __stop_gmk_programs; p++)
		printf(" %s", p->name);
	printf("\n");
}

/* Is every name in run=a,b,... a program? Says which is not. */
static bool programs_valid(const char *list)
{
	for (const char *r = list;;) {
		const char *comma = strchr(r, ',');
		size_t len = comma ? (size_t)(comma - r) : strlen(r);
		if (len == 0) {
			printf("gmk: run=%s: an empty program name; programs:", list);
			program_names();
			return false;
		}
		if (!program_find(r, len)) {
			printf("gmk: run=%s: no program '%.*s'; programs:", list, (int)len, r);
			program_names();
			return false;
		}
		if (!comma)
			return true;
		r = comma + 1;
	}
}

/* Run one program by name (programs_valid has checked it); its status. */
static int program_run(const char *name, size_t len)
{
	const struct program *p = program_find(name, len);

	if (!program_start(p)) {	/* a G the program started runs it */
		printf("gmk: %s is already running\n", p->name);
		return 2;
	}
	printf("gmk: running %s: %s\n", p->name, p->about);
	int status = p->main();
	printf("gmk: %s exited with status %d\n", p->name, status);
	program_end(p);
	return status;
}

/*
 * The main G: what the command line asked for, in this order
 * (docs/cmdline.md): the tests (test=), then the programs (run=a,b runs
 * a then b), then the benchmarks (bench=), stopping at the first that
 * fails and saying what was not run; with none, say what there is. The
 * run= list is checked whole first: a misspelt program is not found out
 * after the ones before it (or the tests) have run.
 */
void kernel_main_g(void *arg)
{
	int status = 0;
	const char *failed = NULL;

	if (kopts.run[0] && !programs_valid(kopts.run)) {
		printf("gmk: nothing run\n");
		status = 2;
		goto out;
	}
	if (kopts.test[0]) {
		status = test_run(kopts.test) ? 1 : 0;
		if (status)
			failed = "test=";
	}
	if (kopts.run[0] && status == 0) {
		for (const char *r = kopts.run; *r && status == 0;) {
			const char *comma = strchr(r, ',');
			size_t len = comma ? (size_t)(comma - r) : strlen(r);
			status = program_run(r, len);
			r += len + (comma ? 1 : 0);
		}
		if (status)
			failed = "run=";
	}
	if (kopts.bench[0] && status == 0) {
		/* The benchmarks are the program "bench" (tests/bench/). */
		status = program_run("bench", strlen("bench"));
	}
	if (failed && ((failed[0] == 't' && kopts.run[0]) || kopts.bench[0]))
		printf("gmk: %s failed: not running%s%s\n", failed,
		       failed[0] == 't' && kopts.run[0] ? " run=" : "",
		       kopts.bench[0] ? " bench=" : "");
	if (!kopts.test[0] && !kopts.run[0] && !kopts.bench[0])
		printf("gmk: nothing to run (add test=<glob>, bench=<name> or run=<program>)\n");
out:
	sched_fingerprint_print();
	trace_dump();		/* trace=: the execution trace, out (sched/tracebuf.c) */
	board_exit(status);
}
