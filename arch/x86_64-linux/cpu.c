/*
 * The hosted "CPU": a Linux thread whose interrupts are signals.
 *
 *   interrupt entry   a signal handler on the core's sigaltstack (its
 *                     interrupt stack, irq_stacks[id]) builds a struct
 *                     trapframe from the signal context: every register,
 *                     the FXSAVE image included
 *   masking           a per-thread flag (arch/x86_64-linux/cpu_arch.h); a signal that
 *                     finds it set is recorded and replayed at the unmask
 *   preemption        as Go 1.14 does on Linux: the tick's handler runs the
 *                     kernel's own tick (sched/preempt.c); when the G must
 *                     go, preempt_async copies the frame onto the G's stack
 *                     and calls arch_irq_leave_to, which rewrites the signal
 *                     context so that the handler's return enters g0
 *   idle              arch_wait_for_interrupt blocks on the core's futex
 *                     until an IPI's wake or the timer's deadline
 *   faults            SIGSEGV/SIGBUS/SIGILL/SIGFPE become the kernel's
 *                     exceptions and kernel_fault's report
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <linux/futex.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#include "frame_dump.h"		/* arch/x86_64/, on the include path */
#include "host.h"
#include "kernel/atomic.h"
#include "kernel/board.h"
#include "kernel/layout.h"
#include "kernel/page.h"
#include "kernel/panic.h"
#include "kernel/percpu.h"
#include "kernel/preempt.h"
#include "kernel/time.h"
#include "kernel/trap.h"

__thread struct cpu *host_this_cpu;
__thread void *host_curg;
__thread volatile uint32_t host_irq_masked = 1;	/* until cpu_start's enable */
__thread volatile uint32_t host_irq_pending;

struct host_core host_cores[MAX_CPUS];
bool host_overcommit;		/* more cores than host CPUs (board.c) */
uint32_t host_relax_mask = 255;
__thread uint32_t host_relax_spins;

/* The signal context of the interrupt being handled on this thread, and
 * where arch_irq_leave_to goes back to in the handler. */
static __thread ucontext_t *irq_uc;
static __thread void *irq_jmp[5];

/* errno.h's errno: glibc's errno's offset from the thread pointer (%fs:0
 * holds the thread pointer on x86-64), the same in every thread for a
 * variable of the static TLS block. Set before main and before the
 * fuzzer's entry points, by the first constructor; arch_cpu_init checks
 * it on every core thread. */
long host_errno_tpoff;

static uintptr_t thread_pointer(void)
{
	uintptr_t tp;

	asm volatile("movq %%fs:0, %0" : "=r"(tp));
	return tp;
}

__attribute__((constructor(101))) static void host_errno_tpoff_init(void)
{
	host_errno_tpoff = (long)((uintptr_t)__errno_location() - thread_pointer());
}

bool host_async_preempt = true;

/* The text of the objects the Makefile builds, the kernel's and an
 * application's (linker/x86_64-linux.ld). Only a G interrupted in there
 * is switched out at the signal: in the C library or a sanitizer runtime
 * it may hold a lock or thread state of the thread it runs on (stdio's
 * recursive lock records its owner thread), and moving it to another
 * thread would break that. It switches at its next safe point. What
 * glibc keeps per thread that code of the range touches itself is the
 * G's: errno (libc/errno.h), strtok's position (strtok.c). */
extern char gmk_text_begin[], gmk_text_end[];

/* The sanitizer builds' switch wrappers (arch/x86_64-linux/san.c says why they
 * must not be preempted); weak: the plain build has none, both 0. */
extern char __start_host_san_switch_text[] __attribute__((weak));
extern char __stop_host_san_switch_text[] __attribute__((weak));

static pid_t gettid_(void) { return (pid_t)syscall(SYS_gettid); }

static long futex(volatile uint32_t *w, int op, uint32_t val,
		  const struct timespec *ts, uint32_t bitset)
{
	return syscall(SYS_futex, w, op, val, ts, NULL, bitset);
}

/* ---- trap frames -------------------------------------------------------- */

static void frame_from_uc(struct trapframe *tf, const ucontext_t *uc,
			  unsigned vector, bool preemptible)
{
	const greg_t *r = uc->uc_mcontext.gregs;

	if (uc->uc_mcontext.fpregs)
		memcpy(tf->fx, uc->uc_mcontext.fpregs, sizeof tf->fx);
	else
		memset(tf->fx, 0, sizeof tf->fx);
	tf->pad = 0;
	tf->cr2 = (uint64_t)r[REG_CR2];
	tf->r15 = r[REG_R15]; tf->r14 = r[REG_R14]; tf->r13 = r[REG_R13];
	tf->r12 = r[REG_R12]; tf->r11 = r[REG_R11]; tf->r10 = r[REG_R10];
	tf->r9 = r[REG_R9]; tf->r8 = r[REG_R8]; tf->rbp = r[REG_RBP];
	tf->rdi = r[REG_RDI]; tf->rsi = r[REG_RSI]; tf->rdx = r[REG_RDX];
	tf->rcx = r[REG_RCX]; tf->rbx = r[REG_RBX]; tf->rax = r[REG_RAX];
	tf->vector = vector;
	tf->error = (uint64_t)r[REG_ERR];
	tf->rip = r[REG_RIP];
	tf->rflags = r[REG_EFL];
	tf->rsp = r[REG_RSP];
	/* cs = 0 marks a frame that must not be switched out (one made up
	 * for an interrupt taken in the idle loop, or a fault). */
	uint16_t ss;
	asm("movw %%ss, %0" : "=r"(ss));
	tf->cs = preemptible ? (uint64_t)(r[REG_CSGSFS] & 0xffff) : 0;
	tf->ss = ss;
}

void arch_dump_frame(const struct trapframe *tf)
{
	printf("  rip %016lx  rsp %016lx  rflags %08lx\n", tf->rip, tf->rsp, tf->rflags);
	x86_dump_gprs(tf);
	printf("  vector %lu  error %lx  cr2 %016lx\n", tf->vector, tf->error, tf->cr2);
}

/* ---- preemption (kernel/preempt.h) ------------------------------------- */

bool arch_frame_preemptible(const struct trapframe *tf)
{
	if (!host_async_preempt || tf->cs == 0)
		return false;
	if (tf->rip < (uintptr_t)gmk_text_begin || tf->rip >= (uintptr_t)gmk_text_end)
		return false;
	if (tf->rip >= (uintptr_t)__start_host_san_switch_text &&
	    tf->rip < (uintptr_t)__stop_host_san_switch_text)
		return false;
	return !preempt_pc_in_switch_code(tf->rip);
}

unsigned long long host_preempt_retry_ns(const struct trapframe *tf)
{
	bool foreign = tf->rip < (uintptr_t)gmk_text_begin || tf->rip >= (uintptr_t)gmk_text_end;
	return foreign ? 50000ull : 1000000ull;
}

void host_irq_leave_tramp(void);

/* From the tick's handler: make the handler's return run fn(arg) on sp as
 * G g, with interrupts on, then unwind to the handler (its frame, on the
 * signal stack, is where the return happens). */
void arch_irq_leave_to(uintptr_t sp, void *g, void (*fn)(void *), void *arg)
{
	ucontext_t *uc = irq_uc;
	if (!uc)
		panic("arch_irq_leave_to outside a signal handler");
	greg_t *r = uc->uc_mcontext.gregs;
	r[REG_RSP] = (greg_t)sp;
	r[REG_RIP] = (greg_t)(uintptr_t)host_irq_leave_tramp;
	r[REG_RDI] = (greg_t)(uintptr_t)fn;
	r[REG_RSI] = (greg_t)(uintptr_t)arg;
	r[REG_RBP] = 0;
	arch_setg(g);
	host_san_leave_to(g);
	__builtin_longjmp(irq_jmp, 1);
}

/* ---- interrupts ---------------------------------------------------------- */

static int irq_signal(unsigned bit)
{
	return bit == HOST_IRQ_TIMER ? HOST_SIG_TICK : bit == HOST_IRQ_IPI ? HOST_SIG_IPI
									 : HOST_SIG_DEV;
}

static unsigned irq_bit(int sig)
{
	return sig == HOST_SIG_TICK ? HOST_IRQ_TIMER : sig == HOST_SIG_IPI ? HOST_IRQ_IPI
									   : HOST_IRQ_DEV;
}

static unsigned irq_vector(unsigned bit)
{
	return bit == HOST_IRQ_TIMER ? HOST_VEC_TIMER : bit == HOST_IRQ_IPI ? HOST_VEC_IPI
									    : HOST_VEC_DEV;
}

/* The tick, IPI and device signals. Each is blocked while any of their
 * handlers runs (sa_mask), so handlers do not nest; a signal that comes
 * meanwhile waits in the kernel until the handler returns. */
static void irq_handler(int sig, siginfo_t *si, void *ucv)
{
	int saved_errno = errno;
	unsigned bit = irq_bit(sig);

	/* The one-shot timer fired: consumed, as the hardware's is. Else
	 * board_timer_arm would take a later request for the same deadline
	 * (a P's timer that was due when its tick came, still first in its
	 * heap when the next G's slice is armed) for one already pending,
	 * make no system call, and the core would never tick again: its G
	 * would hold the P for good. A stale signal from an earlier arming
	 * clears it too; that costs one timer_settime more, never a lost
	 * tick. */
	if (bit == HOST_IRQ_TIMER && host_this_cpu)
		host_cores[host_this_cpu->id].deadline = 0;
	if (host_irq_masked || !host_this_cpu) {
		__atomic_fetch_or(&host_irq_pending, bit, __ATOMIC_RELAXED);
		/*
		 * An idle core's futex wait ends with EINTR and looks. But the
		 * signal may also come inside arch_wait_for_interrupt's check,
		 * after it read host_irq_pending (nothing) and before it read
		 * the deadline, which the line above this block just cleared:
		 * it would then wait with no timeout and no bit in hand, and
		 * the timer it slept for would be lost (every core halted, a
		 * P's timer overdue for good). Bumping the futex word makes any
		 * wait that read it before now return at once and look again.
		 */
		if (host_this_cpu)
			atomic_xadd32(&host_cores[host_this_cpu->id].wake, 1);
		errno = saved_errno;
		return;
	}
	host_irq_masked = 1;		/* as the CPU clears IF */
	if (bit == HOST_IRQ_DEV)	/* taken now: the idle wait need not */
		atomic_store32(&host_cores[host_this_cpu->id].dev_pending, 0);
	struct trapframe tf;
	frame_from_uc(&tf, ucv, irq_vector(bit), true);
	irq_uc = ucv;
	if (__builtin_setjmp(irq_jmp) == 0)
		board_irq(&tf);
	irq_uc = NULL;
	asm volatile("" : : : "memory");
	host_irq_masked = 0;		/* iretq restores IF */
	errno = saved_errno;
}

void host_irq_replay(void)
{
	uint32_t p = __atomic_exchange_n(&host_irq_pending, 0, __ATOMIC_RELAXED);
	pid_t tid = host_cores[arch_this_cpu()->id].tid;

	/* Raised to this thread, unmasked: delivered before tgkill returns,
	 * with the full context of this point, as an interrupt would be. */
	for (unsigned bit = 1; bit <= HOST_IRQ_DEV; bit <<= 1)
		if (p & bit)
			syscall(SYS_tgkill, getpid(), tid, irq_signal(bit));
}

/* Take an interrupt without a signal (from the idle wait): no G to
 * switch out there, so the frame only has to be valid. */
static void irq_take_here(unsigned vector)
{
	struct trapframe tf;

	memset(&tf, 0, sizeof tf);
	tf.vector = vector;
	tf.rip = (uintptr_t)__builtin_return_address(0);
	tf.rbp = (uintptr_t)__builtin_frame_address(0);
	tf.rsp = tf.rbp;
	board_irq(&tf);
}

/* An idle wait that ends this long after its deadline counts as late
 * (host_core's late_*); only waits for a deadline at least this far off
 * are watched (two reads of Linux's schedstat each). */
#define HOST_LATE_NS	(1 * NSEC_PER_MSEC)

/* Linux's run_delay for this thread, ns: time runnable but not running
 * (/proc/thread-self/schedstat's second field); 0 if unreadable. */
static uint64_t thread_run_delay_ns(struct host_core *h)
{
	char buf[96];

	if (h->schedstat_fd <= 0)	/* not opened (0: a core not started) */
		return 0;
	ssize_t n = pread(h->schedstat_fd, buf, sizeof buf - 1, 0);
	if (n <= 0)
		return 0;
	buf[n] = 0;
	const char *p = strchr(buf, ' ');
	return p ? strtoull(p + 1, NULL, 10) : 0;
}

void host_idle_lateness(uint64_t *waits, uint64_t *late_ns, uint64_t *runq_ns)
{
	*waits = *late_ns = *runq_ns = 0;
	for (unsigned i = 0; i < ncpus; i++) {
		*waits += atomic_load64(&host_cores[i].late_waits);
		*late_ns += atomic_load64(&host_cores[i].late_ns);
		*runq_ns += atomic_load64(&host_cores[i].late_runq_ns);
	}
}

void arch_wait_for_interrupt(void)
{
	struct cpu *c = this_cpu();
	struct host_core *h = &host_cores[c->id];
	uint64_t t0 = arch_counter();
	bool timer = false, ipi = false;
	/* A deadline far enough off to watch how late the wait ends. */
	uint64_t dl0 = h->deadline, rd0 = 0;
	bool watch = dl0 > t0 && counter_to_ns(dl0 - t0) >= HOST_LATE_NS;
	if (watch)
		rd0 = thread_run_delay_ns(h);

	atomic_xchg32(&h->sleeping, 1);		/* full barrier: see host_core_kick */
	for (;;) {
		uint32_t seq = atomic_load32(&h->wake);
		uint32_t p = host_irq_pending;
		uint64_t dl = h->deadline;
		timer = (p & HOST_IRQ_TIMER) || (dl && arch_counter() >= dl);
		ipi = (p & HOST_IRQ_IPI) || atomic_load32(&c->ipi_pending);
		if (timer || ipi || (p & HOST_IRQ_DEV) || atomic_load32(&h->dev_pending))
			break;
		struct timespec ts, *tsp = NULL;
		if (dl) {
			host_counter_timespec(dl, &ts);
			tsp = &ts;
		}
		/* An absolute CLOCK_MONOTONIC timeout. */
		long r = futex(&h->wake, FUTEX_WAIT_BITSET | FUTEX_PRIVATE_FLAG, seq,
			       tsp, FUTEX_BITSET_MATCH_ANY);
		if (r == 0 && atomic_load32(&h->wake) != seq)
			break;		/* kicked: an IPI (looked at below) */
	}
	atomic_store32(&h->sleeping, 0);
	uint64_t t1 = arch_counter();
	if (watch && t1 > dl0 && counter_to_ns(t1 - dl0) > HOST_LATE_NS) {
		/* Single writer (this thread): store-release for the reader. */
		atomic_store64(&h->late_waits, h->late_waits + 1);
		atomic_store64(&h->late_ns, h->late_ns + counter_to_ns(t1 - dl0));
		atomic_store64(&h->late_runq_ns, h->late_runq_ns + (thread_run_delay_ns(h) - rd0));
	}
	uint32_t p = __atomic_exchange_n(&host_irq_pending, 0, __ATOMIC_RELAXED);
	uint64_t dl = h->deadline;
	if ((p & HOST_IRQ_TIMER) || (dl && arch_counter() >= dl)) {
		h->deadline = 0;	/* consumed, as the hardware's one-shot */
		irq_take_here(HOST_VEC_TIMER);
	}
	if ((p & HOST_IRQ_DEV) | atomic_xchg32(&h->dev_pending, 0))
		irq_take_here(HOST_VEC_DEV);
	if ((p & HOST_IRQ_IPI) || atomic_load32(&c->ipi_pending))
		irq_take_here(HOST_VEC_IPI);
}

/*
 * An IPI for a core that is in arch_wait_for_interrupt or will enter it
 * before it unmasks (board_ipi_wake_idle): wake it if it sleeps, and
 * nothing else. The caller set the mailbox bit first (full barrier), and
 * the wait reads `wake`, then the mailbox, then sleeps on `wake`: a wait
 * that read the mailbox before the bit was set read `wake` before the
 * bump below, and its futex wait returns at once.
 */
static bool core_wake(struct host_core *h)
{
	atomic_xadd32(&h->wake, 1);		/* full barrier */
	if (!atomic_load32(&h->sleeping))
		return false;
	futex(&h->wake, FUTEX_WAKE | FUTEX_PRIVATE_FLAG, 1, NULL, 0);
	return true;
}

void host_core_wake(unsigned id)
{
	core_wake(&host_cores[id]);
}

/* An IPI: wake the core if it sleeps in arch_wait_for_interrupt, signal
 * it otherwise (a running core must take it at once, as an interrupt). */
void host_core_kick(unsigned id)
{
	struct host_core *h = &host_cores[id];

	if (!core_wake(h))
		syscall(SYS_tgkill, getpid(), h->tid, HOST_SIG_IPI);
}

/* A device's interrupt, as host_core_kick sends an IPI: marked pending in
 * the core's host_core (full barrier), then a core asleep in
 * arch_wait_for_interrupt is woken by its futex and takes it there; a
 * running one gets the signal (masked, its handler records it for the
 * unmask). Not the signal alone to a sleeper: ThreadSanitizer runs a
 * handler only at the thread's next call it intercepts, which a core
 * blocked in the futex with no deadline never makes. */
void host_core_raise_dev(unsigned id)
{
	struct host_core *h = &host_cores[id];

	atomic_xchg32(&h->dev_pending, 1);
	if (!core_wake(h))
		syscall(SYS_tgkill, getpid(), h->tid, HOST_SIG_DEV);
}

/* ---- faults -------------------------------------------------------------- */

static void fault_handler(int sig, siginfo_t *si, void *ucv)
{
	ucontext_t *uc = ucv;
	struct trapframe tf;
	char detail[128];
	const char *kind;
	unsigned vector;
	uintptr_t addr = (uintptr_t)si->si_addr;

	host_irq_masked = 1;
	if (!host_this_cpu) {
		static const char msg[] = "gmk: hosted: fault outside any core\n";
		(void)!write(2, msg, sizeof msg - 1);
		_exit(1);
	}
	switch (sig) {
	case SIGSEGV:
	case SIGBUS:
		if (si->si_code == SI_KERNEL) {	/* #GP: no address */
			vector = 13;
			kind = "general protection fault";
			snprintf(detail, sizeof detail,
				 "non-canonical address or privileged operation");
			addr = FAULT_NO_ADDR;
			break;
		}
		vector = 14;
		kind = "page fault";
		unsigned long err = (unsigned long)uc->uc_mcontext.gregs[REG_ERR];
		snprintf(detail, sizeof detail, "%s, %s, error code 0x%lx",
			 (err & 16) ? "instruction fetch" : (err & 2) ? "write" : "read",
			 si->si_code == SEGV_ACCERR ? "protection violation"
						    : "page not present", err);
		break;
	case SIGFPE:
		vector = 0;
		kind = "divide error";
		addr = FAULT_NO_ADDR;
		snprintf(detail, sizeof detail, "vector 0, error code 0x0");
		break;
	default:
		vector = 6;
		kind = "invalid opcode";
		addr = FAULT_NO_ADDR;
		snprintf(detail, sizeof detail, "vector 6, error code 0x0");
		break;
	}
	frame_from_uc(&tf, uc, vector, false);
	tf.cr2 = addr == FAULT_NO_ADDR ? 0 : addr;
	kernel_fault(&tf, kind, detail, addr);
}

/* ---- per core ------------------------------------------------------------ */

static void sig_install(int sig, void (*fn)(int, siginfo_t *, void *))
{
	struct sigaction sa;

	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = fn;
	sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	sigaddset(&sa.sa_mask, HOST_SIG_TICK);
	sigaddset(&sa.sa_mask, HOST_SIG_IPI);
	sigaddset(&sa.sa_mask, HOST_SIG_DEV);
	if (sigaction(sig, &sa, NULL) != 0)
		panic("hosted: sigaction(%d): %s", sig, strerror(errno));
}

void host_signals_init(void)
{
	sig_install(HOST_SIG_TICK, irq_handler);
	sig_install(HOST_SIG_IPI, irq_handler);
	sig_install(HOST_SIG_DEV, irq_handler);
	sig_install(SIGSEGV, fault_handler);
	sig_install(SIGBUS, fault_handler);
	sig_install(SIGILL, fault_handler);
	sig_install(SIGFPE, fault_handler);
}

/* kernel/main.c, first thing on each core (masked). */
void arch_cpu_init(struct cpu *c)
{
	struct host_core *h = &host_cores[c->id];
	stack_t ss;

	arch_set_this_cpu(c);
	if ((uintptr_t)__errno_location() != thread_pointer() + (uintptr_t)host_errno_tpoff)
		panic("hosted: core %u: glibc's errno is at %p, not at the thread pointer %+ld "
		      "as on the first thread (errno.h reaches it there)", c->id,
		      (void *)__errno_location(), host_errno_tpoff);
	h->tid = gettid_();
	h->schedstat_fd = open("/proc/thread-self/schedstat", O_RDONLY | O_CLOEXEC);
	/* The interrupt stack: every handler runs there (SA_ONSTACK), so a
	 * G's small stack never holds a signal frame and a stack overflow
	 * can still be reported. */
	ss.ss_sp = (void *)(c->irq_stack_top - IRQ_STACK_SIZE);
	ss.ss_size = IRQ_STACK_SIZE;
	ss.ss_flags = 0;
	if (sigaltstack(&ss, NULL) != 0)
		panic("hosted: sigaltstack: %s", strerror(errno));
	host_san_thread_init(c);
}

/* ---- memory (kernel/page.h) ---------------------------------------------- */

/*
 * Guard pages. Linux 6.13 and later install a guard as a marker in the
 * page table (madvise MADV_GUARD_INSTALL): an access faults as an
 * unmapped page would, and the RAM mapping stays one VMA. mprotect, the
 * fallback on older kernels, splits the mapping at each guard, which
 * costs a tree update per G and limits a process to vm.max_map_count
 * mappings (65,530 by default): about 32,000 guarded stacks alive at
 * once, fewer than the 1 GiB of RAM holds (52,000 default-size stacks),
 * and fewer than bench fanout piles up at 1 P. Decided by the first
 * guard: every later guard, and every arch_map_page, goes the same way.
 */
#ifndef MADV_GUARD_INSTALL
#define MADV_GUARD_INSTALL	102	/* <linux/mman.h> since Linux 6.13 */
#define MADV_GUARD_REMOVE	103
#endif

static int guard_by_madvise = -1;	/* -1 not known yet, 0 mprotect, 1 madvise */

void host_guard_use_mprotect(void)
{
	guard_by_madvise = 0;
}

void arch_unmap_page(uintptr_t va)
{
	int how = __atomic_load_n(&guard_by_madvise, __ATOMIC_RELAXED);
	if (how != 0) {
		if (madvise((void *)va, PAGE_SIZE, MADV_GUARD_INSTALL) == 0) {
			if (how < 0)
				__atomic_store_n(&guard_by_madvise, 1, __ATOMIC_RELAXED);
			return;
		}
		if (how > 0 || errno != EINVAL)
			panic("hosted: madvise(0x%lx, MADV_GUARD_INSTALL): %s",
			      (unsigned long)va, strerror(errno));
		__atomic_store_n(&guard_by_madvise, 0, __ATOMIC_RELAXED);	/* before 6.13 */
	}
	if (mprotect((void *)va, PAGE_SIZE, PROT_NONE) == 0)
		return;
	if (errno != ENOMEM)
		panic("hosted: mprotect(0x%lx, PROT_NONE): %s", (unsigned long)va,
		      strerror(errno));
	/* Out of mappings (vm.max_map_count): the page stays mapped, so
	 * this stack has no guard. Said once; arch_map_page's mprotect of
	 * a page inside a writable mapping needs no new one. */
	static int warned;
	if (!__atomic_exchange_n(&warned, 1, __ATOMIC_RELAXED))
		printf("gmk: hosted: mprotect of a guard page: %s: each guard is a "
		       "mapping of its own before Linux 6.13, and vm.max_map_count "
		       "has run out; stacks made from now on have no guard page (an "
		       "overflow is caught only if a tick finds the G's stack pointer "
		       "below its stack). Raise vm.max_map_count to keep them.\n",
		       strerror(errno));
}

void arch_map_page(uintptr_t va)
{
	if (__atomic_load_n(&guard_by_madvise, __ATOMIC_RELAXED) > 0) {
		if (madvise((void *)va, PAGE_SIZE, MADV_GUARD_REMOVE) != 0)
			panic("hosted: madvise(0x%lx, MADV_GUARD_REMOVE): %s",
			      (unsigned long)va, strerror(errno));
		return;
	}
	if (mprotect((void *)va, PAGE_SIZE, PROT_READ | PROT_WRITE) != 0)
		panic("hosted: mprotect(0x%lx, PROT_READ|PROT_WRITE): %s",
		      (unsigned long)va, strerror(errno));
}
