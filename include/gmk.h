/*
 * gmk.h: the public API, all an application includes (docs/programs.md).
 * An application is built with include/ and its own folder as its only
 * include path (make APP=...), so no scheduler internal is in reach; the
 * C library's headers (stdio.h, string.h, ...) come with the toolchain.
 *
 *   goroutines      go, go_copy, go_value, go_stack, gosched, goexit, goid,
 *                   sched_nprocs, num_goroutine, gomaxprocs, num_cpu,
 *                   lockosthread, unlockosthread, lockedcore, panic
 *                                                      (Go's go, runtime)
 *   the scheduler   sched_pstats, core_idle_ns, schedtrace_print,
 *   at work         sched_print_goroutines (Go's GODEBUG=schedtrace)
 *   channels        chan_make, chan_send, chan_recv, chan_close, chan_free,
 *                   chan_select with SELECT_SEND/RECV/AFTER  (chan, select)
 *   time            time_now, sleep_ns, time_newtimer, time_newticker,
 *                   time_after, time_afterfunc, NSEC_PER_*     (time)
 *   sync            struct mutex, rwmutex, waitgroup, once, cond, pool;
 *                   struct semaphore (x/sync/semaphore)        (sync)
 *   context         context_background, context_with_*, context_done, ...
 *   errgroup        struct errgroup, errgroup_go, errgroup_wait, ...
 *   the console     printf (the C library), console_read with a deadline,
 *                   console_write_now
 *   memory          kmalloc, kmalloc_try, kfree
 *   net             net_listen, net_dial, net_conn_read, ... (Go's net:
 *                   docs/network.md; a board without a network says so)
 *   programs        PROGRAM(name, "about") { ... argc, argv ... }
 *   tests           gmk_test.h: TEST, ASSERT_*, EXPECT_*
 *
 * The types an application declares itself (a mutex, a WaitGroup, an
 * errgroup, ...) are valid zero-filled, as Go's zero values; their
 * insides are the kernel's (sched/, lib/), here only as storage of the same
 * size and alignment, checked by public_types_have_the_kernels_layout
 * (tests/public.c). The functions' prototypes are checked against the
 * kernel's own by compiling this file after them
 * (tests/fixtures/public_layout.c, GMK_PUBLIC_CHECK).
 */
#ifndef GMK_PUBLIC_H
#define GMK_PUBLIC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Headers of the kernel that hold nothing but public things, taken from
 * where they live (so that they are written once): channels and select,
 * sync.Pool, kmalloc, and PROGRAM. */
#include "../sched/chan.h"
#include "../sched/pool.h"
#include "../kernel/kmalloc.h"
#include "../kernel/kernel.h"
#include "../net/net.h"

#ifndef GMK_PUBLIC_CHECK
/* ---- types and macros (the kernel's own, where GMK_PUBLIC_CHECK) ---- */

#define NSEC_PER_USEC 1000ull
#define NSEC_PER_MSEC 1000000ull
#define NSEC_PER_SEC  1000000000ull
#define TIME_NEVER ((uint64_t)INT64_MAX)	/* a deadline that never comes */

/* go_copy with a struct literal: go_value(fn, struct job, .id = i). */
#define go_value(fn, type, ...) go_copy((fn), &(type){ __VA_ARGS__ }, sizeof(type))

/* sync: storage for the kernel's types (sched/sync.h); zero is ready. */
struct mutex { uint32_t private_[2]; };
struct rwmutex { uint32_t private_[6]; };
struct waitgroup { uint64_t private_[2]; };
struct once { uint32_t private_[3]; };
struct cond {
	struct mutex *L;		/* held around cond_wait; set before use */
	uint64_t private_[5];
};
#define COND_INIT(mu) { .L = (mu) }

/* x/sync/semaphore: SEMAPHORE_INIT(n) or semaphore_init. */
struct semaphore {
	int64_t size;
	uint64_t private_[4];
};
#define SEMAPHORE_INIT(n) { .size = (n) }

/* x/sync/errgroup: zero is ready. */
struct errgroup { uint64_t private_[6]; };

/* A Timer's or Ticker's channel is C; the rest is the kernel's, which
 * allocates them (time_newtimer, time_newticker): never declare one. */
struct time_timer { chan_t C; };
struct time_ticker { chan_t C; };

/* context's errors (Err()). */
#define CONTEXT_CANCELED		(-125)
#define CONTEXT_DEADLINE_EXCEEDED	(-110)
struct context;

/* One P's counters since boot (sched_pstats). */
struct sched_pstats {
	uint64_t nrun;			/* Gs it ran */
	uint64_t nsteal;		/* Gs it stole from other Ps */
	uint64_t nglobget;		/* Gs it took from the global queue */
	uint64_t nrunnext;		/* Gs it ran from runnext */
};

/* console_read's errors. */
#define CONSOLE_ERR_TIMEOUT	(-1L)
#define CONSOLE_ERR_NOINPUT	(-2L)
#define CONSOLE_ERR_EOF		(-3L)	/* the input ended (Go's io.EOF) */

void waitgroup_add(struct waitgroup *wg, int32_t delta);
#endif /* GMK_PUBLIC_CHECK */

/* ---- goroutines (Go's go statement, runtime) ---- */
uint64_t go(void (*fn)(void *), void *arg);
uint64_t go_copy(void (*fn)(void *), const void *arg, size_t size);
uint64_t go_stack(void (*fn)(void *), void *arg, long stack_bytes);
uint64_t go_copy_stack(void (*fn)(void *), const void *arg, size_t size, long stack_bytes);
void gosched(void);
__attribute__((noreturn)) void goexit(void);
uint64_t goid(void);
uint32_t sched_nprocs(void);
int num_goroutine(void);	/* runtime.NumGoroutine */
int gomaxprocs(int n);		/* runtime.GOMAXPROCS: n <= 0 only asks */
void lockosthread(void);		/* runtime.LockOSThread: to this core */
void unlockosthread(void);	/* runtime.UnlockOSThread */
int lockedcore(void);		/* the core the caller is locked to, or -1 */
int num_cpu(void);		/* runtime.NumCPU: the cores */

/* The scheduler at work, as Go's GODEBUG=schedtrace shows it: P id's
 * counters (false: no P id now; id < sched_nprocs() is one), the time a
 * core has been halted, idle (0 for a core there is not), a SCHED line
 * with every P's counters, and every goroutine's id, status and wait
 * reason. */
bool sched_pstats(uint32_t id, struct sched_pstats *st);
uint64_t core_idle_ns(int core);
void schedtrace_print(void);
void sched_print_goroutines(void);

/* Go's panic: "panic: <message>" (printf's format), the goroutine's
 * stack (every goroutine's with traceback=all), and the machine ends with
 * status 2. exit(n) ends it with the line a program's return prints and
 * status n (Go's os.Exit); abort(), "SIGABRT: abort", the stack, status 2. */
__attribute__((noreturn, format(printf, 1, 2))) void panic(const char *fmt, ...);

/* ---- time ---- */
uint64_t time_now(void);	/* ns since boot, monotonic (Go's time.Now's) */
void sleep_ns(uint64_t ns);
struct time_timer *time_newtimer(uint64_t ns);
struct time_timer *time_afterfunc(uint64_t ns, void (*fn)(void *), void *arg);
bool time_timer_stop(struct time_timer *t);
bool time_timer_reset(struct time_timer *t, uint64_t ns);
void time_timer_free(struct time_timer *t);
struct time_ticker *time_newticker(uint64_t ns);
void time_ticker_stop(struct time_ticker *tk);
void time_ticker_reset(struct time_ticker *tk, uint64_t ns);
void time_ticker_free(struct time_ticker *tk);
chan_t time_after(uint64_t ns);

/* ---- sync ---- */
void mutex_lock(struct mutex *m);
bool mutex_trylock(struct mutex *m);
void mutex_unlock(struct mutex *m);
void rwmutex_rlock(struct rwmutex *rw);
void rwmutex_runlock(struct rwmutex *rw);
void rwmutex_lock(struct rwmutex *rw);
void rwmutex_unlock(struct rwmutex *rw);
void waitgroup_done(struct waitgroup *wg);
void waitgroup_wait(struct waitgroup *wg);
void once_do(struct once *o, void (*fn)(void *), void *arg);
void cond_init(struct cond *c, struct mutex *L);
void cond_wait(struct cond *c);
void cond_signal(struct cond *c);
void cond_broadcast(struct cond *c);
void semaphore_init(struct semaphore *s, int64_t size);
int semaphore_acquire(struct semaphore *s, struct context *ctx, int64_t n);
bool semaphore_try_acquire(struct semaphore *s, int64_t n);
void semaphore_release(struct semaphore *s, int64_t n);

/* ---- context ---- */
struct context *context_background(void);
struct context *context_with_cancel(struct context *parent);
struct context *context_with_deadline(struct context *parent, uint64_t when);
struct context *context_with_timeout(struct context *parent, uint64_t ns);
struct context *context_with_value(struct context *parent, const void *key, void *val);
void context_cancel(struct context *ctx);
chan_t context_done(struct context *ctx);
int context_err(struct context *ctx);
bool context_deadline(struct context *ctx, uint64_t *when);
void *context_value(struct context *ctx, const void *key);
struct context *context_retain(struct context *ctx);
void context_release(struct context *ctx);
const char *context_errstr(int err);

/* ---- errgroup ---- */
struct context *errgroup_with_context(struct errgroup *g, struct context *parent);
void errgroup_set_limit(struct errgroup *g, int32_t n);
void errgroup_go(struct errgroup *g, int (*fn)(void *), void *arg);
bool errgroup_trygo(struct errgroup *g, int (*fn)(void *), void *arg);
int errgroup_wait(struct errgroup *g);

/* ---- the console (printf and friends: the C library) ---- */
long console_read(void *buf, size_t len);
void console_set_read_deadline(uint64_t deadline);
void console_write(const char *s, size_t n);
void console_write_now(const char *s, size_t n);

/* ---- net (Go's net; docs/network.md) -------------------------------------
 * Types: net/net.h (enum net_err, struct net_addr, net_conn, net_listener).
 * Each call returns Go's err as a value: NET_OK (nil), NET_EOF or a
 * NET_ERR_ code, which net_errstr prints with Go's words; the *_errstr functions
 * print it as Go's *OpError does ("dial tcp 127.0.0.1:9: connect:
 * connection refused"). Every call that would block parks the G on the
 * poller. Deadlines are absolute time_now() values, 0 for none. After
 * net_conn_close or net_listener_close returns, the handle is gone (as
 * after free): the Gs that were blocked in it have returned with
 * NET_ERR_CLOSED, and none may use it again. IPv4 only.
 */
int net_listen(const char *network, const char *address, net_listener **l);	/* "tcp", ":8080" */
int net_listen_packet(const char *network, const char *address, net_conn **c);	/* "udp" */
int net_dial(const char *network, const char *address, net_conn **c);
int net_dial_timeout(const char *network, const char *address, uint64_t timeout_ns,
		     net_conn **c);
int net_dial_context(struct context *ctx, const char *network, const char *address,
		     net_conn **c);

int net_listener_accept(net_listener *l, net_conn **c);
int net_listener_close(net_listener *l);
struct net_addr net_listener_addr(net_listener *l);

/* Read: up to len bytes, *n of them (NET_EOF at the end); Write: all of
 * them, *n < len only with an error. n may be NULL. */
int net_conn_read(net_conn *c, void *buf, size_t len, size_t *n);
int net_conn_write(net_conn *c, const void *buf, size_t len, size_t *n);
int net_conn_read_from(net_conn *c, void *buf, size_t len, size_t *n,
		       struct net_addr *from);			/* UDP */
int net_conn_write_to(net_conn *c, const void *buf, size_t len,
		      const struct net_addr *to, size_t *n);	/* UDP */
int net_conn_close(net_conn *c);
int net_conn_close_read(net_conn *c);		/* TCPConn.CloseRead */
int net_conn_close_write(net_conn *c);		/* TCPConn.CloseWrite */
int net_conn_set_deadline(net_conn *c, uint64_t t);
int net_conn_set_read_deadline(net_conn *c, uint64_t t);
int net_conn_set_write_deadline(net_conn *c, uint64_t t);
int net_conn_set_linger(net_conn *c, int sec);	/* TCPConn.SetLinger */
struct net_addr net_conn_local_addr(net_conn *c);
struct net_addr net_conn_remote_addr(net_conn *c);

const char *net_errstr(int err);			/* err.Error() */
char *net_addr_string(const struct net_addr *a, char *buf);	/* NET_ADDRSTRLEN */
int net_parse_addr(const char *address, struct net_addr *a);
char *net_conn_errstr(net_conn *c, const char *op, int err, char *buf, size_t size);
char *net_listener_errstr(net_listener *l, const char *op, int err, char *buf,
			  size_t size);
char *net_address_errstr(const char *op, const char *network, const char *address,
			 int err, char *buf, size_t size);
char *net_operr_string(char *buf, size_t size, const char *op, const char *network,
		       const struct net_addr *source, const struct net_addr *addr, int err);

#endif
