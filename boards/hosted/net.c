/*
 * The hosted board's network: Linux's sockets as the stack behind net/
 * (kernel/net_backend.h), with epoll as the poller's device, after Go's
 * runtime/netpoll_epoll.go: every socket non-blocking and registered
 * once, edge-triggered, for EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET,
 * with its pollDesc (the token) as the event's data.
 *
 * The events reach the poller as the console's bytes do (stdin.c): a
 * thread of its own (no core) sleeps in poll(2) on the epoll descriptor;
 * when it becomes readable, the thread raises the board's device
 * interrupt on a core (round robin over the cores with an M), and waits.
 * The interrupt's handler (hosted_net_interrupt, on the core's signal
 * stack, interrupts masked) takes the events with epoll_wait(0), Go's
 * netpoll(0), and marks each pollDesc ready (net_backend_ready ->
 * netpollready); board_irq then kicks the poller (netpoll_kick), which
 * wakes an idle core or preempts this one for the readied Gs. The handler
 * then lets the thread poll again. docs/internals.md says why a thread
 * and not the idle M's blocking wait.
 *
 * The socket calls run in Gs, in glibc: foreign text, which the tick
 * never switches out (arch_frame_preemptible), and errno follows the G
 * (kernel/glocal.h). None of them blocks: the sockets are non-blocking.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/futex.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "arch/x86_64-linux/host.h"
#include "boards/hosted/hosted.h"
#include "kernel/atomic.h"
#include "kernel/net_backend.h"
#include "kernel/panic.h"
#include "kernel/percpu.h"
#include "kernel/spinlock.h"

/* Events one epoll_wait takes (Go's netpoll: 128). */
#define NET_EVENTS	128

static int epfd = -1;
static struct spinlock startlock = SPINLOCK_INIT("hosted net start");
static volatile uint32_t started;
/* 1 while the thread has raised the interrupt and waits for the handler
 * to take the events (futex word). */
static volatile uint32_t pending;
static unsigned nextcore;		/* the thread's alone */

static long futex(volatile uint32_t *w, int op, uint32_t val)
{
	return syscall(SYS_futex, w, op, val, NULL, NULL, 0);
}

static int neterr(int e)
{
	switch (e) {
	case EAGAIN:		return -NETB_EAGAIN;
	case EINPROGRESS:
	case EALREADY:		return -NETB_EINPROGRESS;
	case ECONNREFUSED:	return -NETB_ECONNREFUSED;
	case ECONNRESET:	return -NETB_ECONNRESET;
	case EPIPE:		return -NETB_EPIPE;
	case EADDRINUSE:	return -NETB_EADDRINUSE;
	case EADDRNOTAVAIL:	return -NETB_EADDRNOTAVAIL;
	case EHOSTUNREACH:	return -NETB_EHOSTUNREACH;
	case ENETUNREACH:	return -NETB_ENETUNREACH;
	case ECONNABORTED:	return -NETB_ECONNABORTED;
	case ETIMEDOUT:		return -NETB_ETIMEDOUT;
	case EMFILE:
	case ENFILE:		return -NETB_EMFILE;
	case ENOBUFS:
	case ENOMEM:		return -NETB_ENOBUFS;
	case EMSGSIZE:		return -NETB_EMSGSIZE;
	case EINVAL:		return -NETB_EINVAL;
	case ENOTCONN:		return -NETB_ENOTCONN;
	default:		return -NETB_EOTHER;
	}
}

static void to_sin(const struct netb_addr *a, struct sockaddr_in *sin)
{
	memset(sin, 0, sizeof *sin);
	sin->sin_family = AF_INET;
	sin->sin_port = htons(a->port);
	memcpy(&sin->sin_addr, a->ip, 4);
}

static void from_sin(const struct sockaddr_in *sin, struct netb_addr *a)
{
	memcpy(a->ip, &sin->sin_addr, 4);
	a->port = ntohs(sin->sin_port);
}

/* ---- the poller's device -------------------------------------------------------- */

/* The next core, round robin, among those with an M (a core beyond the
 * Ms, halted until gomaxprocs gives it one, would take the interrupt
 * late); core 0, the boot core, always has one. */
static unsigned pick_core(void)
{
	unsigned n = atomic_load32((volatile uint32_t *)&ncpus_online);
	for (unsigned k = 0; k < n; k++) {
		unsigned i = nextcore++ % n;
		if (atomic_loaduintptr((volatile uintptr_t *)&cpus[i].m))
			return i;
	}
	return 0;
}

static void *poller(void *unused)
{
	(void)unused;
	for (;;) {
		struct pollfd p = { .fd = epfd, .events = POLLIN };
		if (poll(&p, 1, -1) < 0)
			continue;		/* EINTR */
		atomic_xchg32(&pending, 1);	/* full barrier: before the raise */
		host_core_raise_dev(pick_core());
		while (atomic_load32(&pending))
			futex(&pending, FUTEX_WAIT_PRIVATE, 1);
	}
	return NULL;
}

bool hosted_net_interrupt(void)
{
	if (!atomic_load32(&pending))
		return false;		/* the console's interrupt alone */
	struct epoll_event ev[NET_EVENTS];
	int n;
	do {
		n = epoll_wait(epfd, ev, NET_EVENTS, 0);
		for (int i = 0; i < n; i++) {
			uint32_t e = ev[i].events;
			int mode = 0;
			/* Go's netpoll: what wakes a reader, a writer, both. */
			if (e & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR))
				mode += 'r';
			if (e & (EPOLLOUT | EPOLLHUP | EPOLLERR))
				mode += 'w';
			if (mode)
				net_backend_ready(ev[i].data.ptr, mode);
		}
	} while (n == NET_EVENTS);
	atomic_store32(&pending, 0);	/* store-release: after the events */
	futex(&pending, FUTEX_WAKE_PRIVATE, 1);
	return true;
}

/* The epoll descriptor and its thread, at the first socket: a process that
 * never opens one has neither. */
static int net_start(void)
{
	if (atomic_load32(&started))	/* load-acquire: epfd */
		return 0;
	int err = 0;
	spin_lock(&startlock);		/* and this G stays on this thread */
	if (!started) {
		/* Go's os package raises the soft descriptor limit to the hard
		 * one at start (a server's sockets are descriptors); so does
		 * the first socket here. */
		struct rlimit rl;
		if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
			rl.rlim_cur = rl.rlim_max;
			(void)setrlimit(RLIMIT_NOFILE, &rl);
		}
		epfd = epoll_create1(EPOLL_CLOEXEC);
		if (epfd < 0) {
			err = neterr(errno);
		} else {
			if (hosted_device_thread(poller) != 0) {
				close(epfd);
				epfd = -1;
				err = -NETB_ENOBUFS;
			} else {
				atomic_store32(&started, 1);	/* store-release: epfd */
			}
		}
	}
	spin_unlock(&startlock);
	return err;
}

/* Go's netpollopen: edge-triggered, for both directions, for good. */
static int poll_open_fd(int s, void *token)
{
	struct epoll_event ev;
	ev.events = EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET;
	ev.data.ptr = token;
	if (epoll_ctl(epfd, EPOLL_CTL_ADD, s, &ev) < 0) {
		int e = neterr(errno);
		close(s);
		return e;
	}
	return s;
}

/* ---- the backend ------------------------------------------------------------- */

static int h_socket(int kind, void *token)
{
	int err = net_start();
	if (err)
		return err;
	int s = socket(AF_INET, (kind == NETB_TCP ? SOCK_STREAM : SOCK_DGRAM) |
			SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (s < 0)
		return neterr(errno);
	if (kind == NETB_TCP) {
		int one = 1;
		/* Go's listeners set SO_REUSEADDR (a restarted server binds
		 * while old connections sit in TIME_WAIT); its TCP conns
		 * TCP_NODELAY. Harmless on the other kind of TCP socket. */
		(void)setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
		(void)setsockopt(s, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
	} else {
		int one = 1;
		(void)setsockopt(s, SOL_SOCKET, SO_BROADCAST, &one, sizeof one);
	}
	return poll_open_fd(s, token);
}

static int h_bind(int s, const struct netb_addr *a)
{
	struct sockaddr_in sin;
	to_sin(a, &sin);
	return bind(s, (struct sockaddr *)&sin, sizeof sin) < 0 ? neterr(errno) : 0;
}

static int h_listen(int s, int backlog)
{
	return listen(s, backlog) < 0 ? neterr(errno) : 0;
}

static int h_accept(int s, struct netb_addr *peer, void *token)
{
	struct sockaddr_in sin;
	socklen_t len = sizeof sin;
	int c;
	do
		c = accept4(s, (struct sockaddr *)&sin, &len, SOCK_NONBLOCK | SOCK_CLOEXEC);
	while (c < 0 && errno == EINTR);
	if (c < 0)
		return neterr(errno);
	from_sin(&sin, peer);
	int one = 1;
	(void)setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
	return poll_open_fd(c, token);
}

static int h_connect(int s, const struct netb_addr *a)
{
	struct sockaddr_in sin;
	to_sin(a, &sin);
	if (connect(s, (struct sockaddr *)&sin, sizeof sin) == 0)
		return 0;
	/* EINTR: the connect goes on in the background, as EINPROGRESS. */
	return errno == EINTR ? -NETB_EINPROGRESS : neterr(errno);
}

static int h_connect_result(int s)
{
	int e = 0;
	socklen_t len = sizeof e;
	if (getsockopt(s, SOL_SOCKET, SO_ERROR, &e, &len) < 0)
		return neterr(errno);
	if (e == 0 || e == EISCONN) {
		/* Writable without an error can be a spurious wake-up (Go
		 * checks the peer, as here). */
		struct sockaddr_in sin;
		socklen_t sl = sizeof sin;
		if (getpeername(s, (struct sockaddr *)&sin, &sl) < 0)
			return errno == ENOTCONN ? -NETB_EINPROGRESS : neterr(errno);
		return 0;
	}
	return neterr(e);
}

static long h_read(int s, void *buf, size_t n)
{
	ssize_t r;
	do
		r = read(s, buf, n);
	while (r < 0 && errno == EINTR);
	return r < 0 ? neterr(errno) : r;
}

static long h_write(int s, const void *buf, size_t n)
{
	ssize_t r;
	do	/* MSG_NOSIGNAL: a reset peer is EPIPE, not SIGPIPE */
		r = send(s, buf, n, MSG_NOSIGNAL);
	while (r < 0 && errno == EINTR);
	return r < 0 ? neterr(errno) : r;
}

static long h_recvfrom(int s, void *buf, size_t n, struct netb_addr *from)
{
	struct sockaddr_in sin;
	socklen_t len = sizeof sin;
	ssize_t r;
	memset(&sin, 0, sizeof sin);
	do
		r = recvfrom(s, buf, n, 0, (struct sockaddr *)&sin, &len);
	while (r < 0 && errno == EINTR);
	if (r < 0)
		return neterr(errno);
	from_sin(&sin, from);
	return r;
}

static long h_sendto(int s, const void *buf, size_t n, const struct netb_addr *to)
{
	struct sockaddr_in sin;
	ssize_t r;
	to_sin(to, &sin);
	do
		r = sendto(s, buf, n, MSG_NOSIGNAL, (struct sockaddr *)&sin, sizeof sin);
	while (r < 0 && errno == EINTR);
	return r < 0 ? neterr(errno) : r;
}

static int h_shutdown(int s, int how)
{
	return shutdown(s, how == NETB_SHUT_RD ? SHUT_RD : SHUT_WR) < 0 ? neterr(errno) : 0;
}

static int h_close(int s)
{
	(void)epoll_ctl(epfd, EPOLL_CTL_DEL, s, NULL);
	/* close(2) frees the descriptor even when it says EINTR. */
	return close(s) < 0 && errno != EINTR ? neterr(errno) : 0;
}

static int h_getaddr(int s, int peer, struct netb_addr *a)
{
	struct sockaddr_in sin;
	socklen_t len = sizeof sin;
	int r = peer ? getpeername(s, (struct sockaddr *)&sin, &len)
		     : getsockname(s, (struct sockaddr *)&sin, &len);
	if (r < 0)
		return neterr(errno);
	from_sin(&sin, a);
	return 0;
}

static int h_set_linger(int s, int sec)
{
	struct linger l = { .l_onoff = sec >= 0, .l_linger = sec >= 0 ? sec : 0 };
	return setsockopt(s, SOL_SOCKET, SO_LINGER, &l, sizeof l) < 0 ? neterr(errno) : 0;
}

static const struct net_backend hosted_net = {
	.name = "linux sockets",
	.socket = h_socket,
	.bind = h_bind,
	.listen = h_listen,
	.accept = h_accept,
	.connect = h_connect,
	.connect_result = h_connect_result,
	.read = h_read,
	.write = h_write,
	.recvfrom = h_recvfrom,
	.sendto = h_sendto,
	.shutdown = h_shutdown,
	.close = h_close,
	.getaddr = h_getaddr,
	.set_linger = h_set_linger,
};

const struct net_backend *board_net_backend(void)
{
	return &hosted_net;
}
