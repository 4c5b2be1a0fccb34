/*
 * The network layer: Go's netFD and internal/poll.FD over a board's stack
 * (kernel/net_backend.h). Every socket is non-blocking; an operation that
 * would block parks its G on the socket's pollDesc (sched/netpoll.h)
 * until the stack reports readiness (net_backend_ready -> netpollready),
 * a deadline passes, or the socket is closed: Go's fd loop,
 *
 *   for { n, err := syscall.Read(fd, p); if err == EAGAIN { pd.waitRead(); continue } ... }
 *
 * One G may read while another writes: readers are serialised among
 * themselves by a mutex, writers by another (Go's fdMutex rlock/wlock);
 * Close marks the fd closed, wakes the Gs parked on it with the closed
 * error (Go's pd.evict: poll_unblock), and waits for every G inside an
 * operation to leave before the socket is closed and the netFD freed
 * (Go's fdMutex reference count and csema).
 *
 * netFDs are never given back to kmalloc: a readiness notice the stack
 * sent just before a close may still arrive (from an interrupt on another
 * core), and must find a pollDesc, if a reused one, where a spurious
 * wake-up costs a retry (Go's pollCache is never freed either).
 */
#include <string.h>

#include "kernel/atomic.h"
#include "kernel/kmalloc.h"
#include "kernel/net_backend.h"
#include "kernel/panic.h"
#include "kernel/spinlock.h"
#include "kernel/time.h"
#include "net/netfd.h"
#include "sched/chan.h"
#include "lib/context.h"
#include "sched/netpoll.h"
#include "sched/sched.h"
#include "sched/sema.h"
#include "sched/sync.h"

/* A board without a stack: none (its calls fail with NET_ERR_NO_DEVICE). */
__attribute__((weak)) const struct net_backend *board_net_backend(void)
{
	return NULL;
}

/* Go uses the host's somaxconn; Linux caps it to its own anyway. */
#define LISTEN_BACKLOG	4096

struct netfd {
	struct pollDesc pd;		/* first: the backend's token */
	struct netfd *nextfree;		/* on fdcache, while free */
	int sock;			/* the backend's handle */
	uint8_t kind;			/* NETB_TCP, NETB_UDP */
	bool listener;
	const char *net;		/* "tcp", "udp": Go's OpError.Net */
	/* Go's fdMutex: Gs inside an operation (plus one for the open fd),
	 * and whether Close has begun. */
	struct spinlock lock;
	uint32_t refs;
	bool closed;
	volatile uint32_t csema;	/* Close waits here for refs to reach 0 */
	struct mutex rmu, wmu;		/* readers, writers: one at a time each */
	struct net_addr laddr, raddr;
};

static struct spinlock cachelock = SPINLOCK_INIT("net fd cache");
static struct netfd *fdcache;		/* free netFDs, under cachelock */
static volatile uint32_t nfds, nsockets, ncached;
/* Gs inside fd_wait: those parked on a netFD, and no other G of the
 * poller's (netpoll_waiters counts the lwIP stack goroutine's wait too,
 * which comes and goes with its timers). */
static volatile uint32_t nwaiters;

static const struct net_backend *backend(void)
{
	return board_net_backend();
}

struct net_counts net_counts(void)
{
	struct net_counts c = {
		.fds = atomic_load32(&nfds),
		.sockets = atomic_load32(&nsockets),
		.waiters = atomic_load32(&nwaiters),
		.cached = atomic_load32(&ncached),
	};
	return c;
}

bool net_parked(const void *handle, int mode)
{
	const struct netfd *fd = handle;
	uintptr_t v = atomic_loaduintptr(mode == 'r' ? &fd->pd.rg : &fd->pd.wg);
	return v > pdWait;		/* a G's address */
}

static struct netfd *fd_alloc(int kind)
{
	spin_lock(&cachelock);
	struct netfd *fd = fdcache;
	if (fd)
		fdcache = fd->nextfree;
	spin_unlock(&cachelock);
	if (!fd) {
		fd = kmalloc_try(sizeof *fd);
		if (!fd)
			return NULL;
		memset(fd, 0, sizeof *fd);
		fd->lock = (struct spinlock)SPINLOCK_INIT("net fd");
		atomic_xadd32(&ncached, 1);
	}
	poll_open(&fd->pd);
	fd->pd.name = kind == NETB_TCP ? "tcp socket" : "udp socket";
	fd->nextfree = NULL;
	fd->sock = -1;
	fd->kind = (uint8_t)kind;
	fd->listener = false;
	fd->net = kind == NETB_TCP ? "tcp" : "udp";
	fd->refs = 1;
	fd->closed = false;
	fd->csema = 0;
	memset(&fd->laddr, 0, sizeof fd->laddr);
	memset(&fd->raddr, 0, sizeof fd->raddr);
	atomic_xadd32(&nfds, 1);
	return fd;
}

/* Back to the cache; its socket is closed (or it never had one). */
static void fd_free(struct netfd *fd)
{
	if (fd->sock >= 0) {
		backend()->close(fd->sock);
		fd->sock = -1;
		atomic_xadd32(&nsockets, -1);
	}
	atomic_xadd32(&nfds, -1);
	spin_lock(&cachelock);
	fd->nextfree = fdcache;
	fdcache = fd;
	spin_unlock(&cachelock);
}

static int fd_wait(struct netfd *fd, int mode)
{
	atomic_xadd32(&nwaiters, 1);
	int w = poll_wait(&fd->pd, mode);
	atomic_xadd32(&nwaiters, -1);
	return w;
}

/* ---- errors --------------------------------------------------------------- */

static int map_err(int be)
{
	switch (be) {
	case NETB_ECONNREFUSED:	return NET_ERR_REFUSED;
	case NETB_ECONNRESET:	return NET_ERR_RESET;
	case NETB_EPIPE:	return NET_ERR_BROKEN_PIPE;
	case NETB_EADDRINUSE:	return NET_ERR_ADDR_IN_USE;
	case NETB_EADDRNOTAVAIL: return NET_ERR_ADDR_NOT_AVAIL;
	case NETB_EHOSTUNREACH:	return NET_ERR_NO_ROUTE;
	case NETB_ENETUNREACH:	return NET_ERR_NET_UNREACH;
	case NETB_ECONNABORTED:	return NET_ERR_CONN_ABORTED;
	case NETB_ETIMEDOUT:	return NET_ERR_CONN_TIMEOUT;
	case NETB_EMFILE:	return NET_ERR_TOO_MANY_FILES;
	case NETB_ENOBUFS:	return NET_ERR_NO_BUFS;
	case NETB_EMSGSIZE:	return NET_ERR_MSG_SIZE;
	case NETB_EINVAL:	return NET_ERR_INVALID;
	case NETB_ENOTCONN:	return NET_ERR_NOT_CONNECTED;
	default:		return NET_ERR_OTHER;
	}
}

static int poll_err(int w)
{
	return w == POLL_ERR_TIMEOUT ? NET_ERR_TIMEOUT : NET_ERR_CLOSED;
}

/* ---- Go's fdMutex ------------------------------------------------------------ */

static bool fd_incref(struct netfd *fd)
{
	spin_lock(&fd->lock);
	bool ok = !fd->closed;
	if (ok)
		fd->refs++;
	spin_unlock(&fd->lock);
	return ok;
}

static void fd_decref(struct netfd *fd)
{
	spin_lock(&fd->lock);
	if (fd->refs == 0)
		panic("net: %s fd: reference count below zero", fd->net);
	bool last = --fd->refs == 0;
	spin_unlock(&fd->lock);
	if (last)		/* only once closed: the open reference is gone */
		semrelease(&fd->csema);
}

/* rwlock: the reference, then the direction's turn; fails once closed. */
static bool fd_lock(struct netfd *fd, int mode)
{
	if (!fd_incref(fd))
		return false;
	struct mutex *mu = mode == 'r' ? &fd->rmu : &fd->wmu;
	mutex_lock(mu);
	if (atomic_load32(&fd->pd.closing)) {	/* closed while we waited our turn */
		mutex_unlock(mu);
		fd_decref(fd);
		return false;
	}
	return true;
}

static void fd_unlock(struct netfd *fd, int mode)
{
	mutex_unlock(mode == 'r' ? &fd->rmu : &fd->wmu);
	fd_decref(fd);
}

/* Go's pd.prepare: closed, or the deadline passed, fails before trying. */
static int fd_prepare(struct netfd *fd, int mode)
{
	if (atomic_load32(&fd->pd.closing))
		return NET_ERR_CLOSED;
	uint64_t d = atomic_load64(mode == 'r' ? &fd->pd.rd : &fd->pd.wd);
	if (d != 0 && nanotime() >= d)
		return NET_ERR_TIMEOUT;
	return NET_OK;
}

/* Go's FD.Close: mark closed, wake the parked Gs (pd.evict), wait for
 * every G inside to leave, then close the socket. */
static int fd_close(struct netfd *fd)
{
	spin_lock(&fd->lock);
	if (fd->closed) {
		spin_unlock(&fd->lock);
		return NET_ERR_CLOSED;
	}
	fd->closed = true;
	spin_unlock(&fd->lock);
	poll_unblock(&fd->pd);
	fd_decref(fd);			/* the open reference */
	semacquire(&fd->csema);		/* the last one out released it */
	fd_free(fd);
	return NET_OK;
}

void net_backend_ready(void *token, int mode)
{
	struct pollDesc *pd = token;
	if (mode == 'r' || mode == 'r' + 'w')
		netpollready(pd, 'r');
	if (mode == 'w' || mode == 'r' + 'w')
		netpollready(pd, 'w');
}

/* ---- no device ------------------------------------------------------------------ */

#include "kernel/board.h"
#include <stdio.h>

static char nodev[96];
static volatile uint32_t nodev_made;

const char *net_unavailable(void)
{
	if (backend())
		return NULL;
	if (!atomic_load32(&nodev_made)) {	/* load-acquire: the text */
		/* Racing writers write the same bytes. */
		snprintf(nodev, sizeof nodev,
			 "network: board %s has no network device (see docs/network.md)",
			 board_name);
		atomic_store32(&nodev_made, 1);
	}
	return nodev;
}

/* ---- addresses and networks ---------------------------------------------------- */

static int parse_network(const char *network, int *kind)
{
	if (!network)
		return NET_ERR_UNKNOWN_NETWORK;
	if (!strcmp(network, "tcp") || !strcmp(network, "tcp4"))
		*kind = NETB_TCP;
	else if (!strcmp(network, "udp") || !strcmp(network, "udp4"))
		*kind = NETB_UDP;
	else
		return NET_ERR_UNKNOWN_NETWORK;
	return NET_OK;
}

static struct netb_addr to_netb(const struct net_addr *a)
{
	struct netb_addr b;
	memcpy(b.ip, a->ip, 4);
	b.port = a->port;
	return b;
}

static struct net_addr from_netb(const struct netb_addr *b)
{
	struct net_addr a;
	memcpy(a.ip, b->ip, 4);
	a.port = b->port;
	return a;
}

static void fd_getaddrs(struct netfd *fd, bool peer)
{
	struct netb_addr b;
	if (backend()->getaddr(fd->sock, 0, &b) == 0)
		fd->laddr = from_netb(&b);
	if (peer && backend()->getaddr(fd->sock, 1, &b) == 0)
		fd->raddr = from_netb(&b);
}

/* A socket for kind on a fresh netFD (*out), or an error. */
static int fd_socket(int kind, struct netfd **out)
{
	if (!backend())
		return NET_ERR_NO_DEVICE;
	struct netfd *fd = fd_alloc(kind);
	if (!fd)
		return NET_ERR_NO_BUFS;
	int s = backend()->socket(kind, &fd->pd);
	if (s < 0) {
		fd_free(fd);
		return map_err(-s);
	}
	fd->sock = s;
	atomic_xadd32(&nsockets, 1);
	*out = fd;
	return NET_OK;
}

/* Open and bound: Go's ListenConfig.Listen and ListenPacket. */
static int listen_common(const char *network, const char *address, int want,
			 struct netfd **out)
{
	int kind, err;
	struct net_addr a;
	if ((err = parse_network(network, &kind)) != NET_OK)
		return err;
	if (kind != want)
		return NET_ERR_UNKNOWN_NETWORK;
	if ((err = net_parse_addr(address, &a)) != NET_OK)
		return err;
	struct netfd *fd;
	if ((err = fd_socket(kind, &fd)) != NET_OK)
		return err;
	struct netb_addr b = to_netb(&a);
	int r = backend()->bind(fd->sock, &b);
	if (r == 0 && kind == NETB_TCP)
		r = backend()->listen(fd->sock, LISTEN_BACKLOG);
	if (r < 0) {
		fd_free(fd);
		return map_err(-r);
	}
	fd->listener = kind == NETB_TCP;
	fd_getaddrs(fd, false);
	*out = fd;
	return NET_OK;
}

int net_listen(const char *network, const char *address, net_listener **l)
{
	struct netfd *fd;
	int err = listen_common(network, address, NETB_TCP, &fd);
	*l = err ? NULL : (net_listener *)fd;
	return err;
}

int net_listen_packet(const char *network, const char *address, net_conn **c)
{
	struct netfd *fd;
	int err = listen_common(network, address, NETB_UDP, &fd);
	*c = err ? NULL : (net_conn *)fd;
	return err;
}

/* ---- accept ---------------------------------------------------------------------- */

int net_listener_accept(net_listener *l, net_conn **c)
{
	struct netfd *fd = (struct netfd *)l;
	*c = NULL;
	if (!fd_lock(fd, 'r'))
		return NET_ERR_CLOSED;
	int err = fd_prepare(fd, 'r');
	struct netfd *nfd = NULL;
	while (err == NET_OK) {
		if (!nfd && !(nfd = fd_alloc(NETB_TCP))) {
			err = NET_ERR_NO_BUFS;
			break;
		}
		struct netb_addr peer;
		int s = backend()->accept(fd->sock, &peer, &nfd->pd);
		if (s >= 0) {
			nfd->sock = s;
			atomic_xadd32(&nsockets, 1);
			nfd->raddr = from_netb(&peer);
			fd_getaddrs(nfd, false);
			*c = (net_conn *)nfd;
			nfd = NULL;
			break;
		}
		if (s == -NETB_EAGAIN) {
			/* Back to the cache while we wait: only conns count. */
			fd_free(nfd);
			nfd = NULL;
			int w = fd_wait(fd, 'r');
			if (w != POLL_OK)
				err = poll_err(w);
			continue;
		}
		/* Go's accept loop retries a connection that was reset
		 * before it was taken. */
		if (s == -NETB_ECONNABORTED)
			continue;
		err = map_err(-s);
	}
	if (nfd)
		fd_free(nfd);
	fd_unlock(fd, 'r');
	return err;
}

int net_listener_close(net_listener *l)
{
	return fd_close((struct netfd *)l);
}

struct net_addr net_listener_addr(net_listener *l)
{
	return ((struct netfd *)l)->laddr;
}

/* ---- dial ------------------------------------------------------------------------------- */

/* What a context's watcher shares with the dial (Go's connect's
 * interruptRes): the watcher sets the dial's write deadline in the past
 * when the context is done, which wakes the connect's wait. */
struct ctxwatch {
	struct context *ctx;
	struct netfd *fd;
	chan_t stop;			/* closed by the dial when it is done */
	chan_t exited;			/* closed by the watcher as it leaves */
	volatile uint32_t fired;	/* the context ended the wait */
};

static void ctx_watcher(void *arg)
{
	struct ctxwatch *w = arg;
	struct select_case cs[] = {
		SELECT_RECV(context_done(w->ctx), NULL),
		SELECT_RECV(w->stop, NULL),
	};
	if (chan_select(cs, 2, false) == 0) {
		atomic_store32(&w->fired, 1);
		poll_setdeadline(&w->fd->pd, 1, 'w');	/* Go's aLongTimeAgo */
	}
	chan_close(w->exited);
}

/* Go's netFD.connect: non-blocking connect, wait for writability, then
 * the socket's error. deadline 0: none. */
static int fd_connect(struct netfd *fd, const struct netb_addr *to, uint64_t deadline)
{
	int r = backend()->connect(fd->sock, to);
	if (r == 0)
		return NET_OK;
	if (r != -NETB_EINPROGRESS && r != -NETB_EAGAIN)
		return map_err(-r);
	if (deadline)
		poll_setdeadline(&fd->pd, deadline, 'w');
	int err = NET_OK;
	for (;;) {
		int w = fd_wait(fd, 'w');
		if (w != POLL_OK) {
			err = poll_err(w);
			break;
		}
		r = backend()->connect_result(fd->sock);
		if (r == 0)
			break;
		if (r != -NETB_EINPROGRESS && r != -NETB_EAGAIN) {
			err = map_err(-r);
			break;
		}
	}
	if (deadline)
		poll_setdeadline(&fd->pd, 0, 'w');
	return err;
}

static int dial(struct context *ctx, const char *network, const char *address,
		uint64_t deadline, net_conn **c)
{
	int kind, err;
	struct net_addr a;
	*c = NULL;
	if ((err = parse_network(network, &kind)) != NET_OK)
		return err;
	if ((err = net_parse_addr(address, &a)) != NET_OK)
		return err;
	uint64_t cd;
	if (ctx && context_deadline(ctx, &cd) && (deadline == 0 || cd < deadline))
		deadline = cd;
	if (ctx && context_err(ctx))
		return context_err(ctx) == CONTEXT_CANCELED ? NET_ERR_CANCELED : NET_ERR_TIMEOUT;
	struct netfd *fd;
	if ((err = fd_socket(kind, &fd)) != NET_OK)
		return err;
	struct netb_addr b = to_netb(&a);
	struct ctxwatch w = { .ctx = ctx, .fd = fd };
	if (ctx && context_done(ctx)) {
		w.stop = chan_make(0, 0);
		w.exited = chan_make(0, 0);
		go(ctx_watcher, &w);
	}
	err = fd_connect(fd, &b, deadline);
	if (w.stop) {
		chan_close(w.stop);
		chan_recv(w.exited, NULL);	/* it touches fd no more */
		chan_free(w.stop);
		chan_free(w.exited);
		if (atomic_load32(&w.fired) && err == NET_ERR_TIMEOUT)
			err = context_err(ctx) == CONTEXT_CANCELED ? NET_ERR_CANCELED
								  : NET_ERR_TIMEOUT;
		if (err == NET_OK)	/* a fire that came too late */
			poll_setdeadline(&fd->pd, 0, 'w');
	}
	if (err != NET_OK) {
		fd_free(fd);
		return err;
	}
	fd_getaddrs(fd, true);
	*c = (net_conn *)fd;
	return NET_OK;
}

int net_dial(const char *network, const char *address, net_conn **c)
{
	return dial(NULL, network, address, 0, c);
}

int net_dial_timeout(const char *network, const char *address, uint64_t timeout_ns,
		     net_conn **c)
{
	uint64_t d = 0;
	if (timeout_ns)
		d = nanotime() + (timeout_ns < TIME_NEVER / 2 ? timeout_ns : TIME_NEVER / 2);
	return dial(NULL, network, address, d, c);
}

int net_dial_context(struct context *ctx, const char *network, const char *address,
		     net_conn **c)
{
	return dial(ctx, network, address, 0, c);
}

/* ---- read and write (Go's FD.Read, FD.Write) ------------------------------------- */

int net_conn_read(net_conn *c, void *buf, size_t len, size_t *n)
{
	struct netfd *fd = (struct netfd *)c;
	size_t got = 0;
	if (!fd_lock(fd, 'r')) {
		if (n)
			*n = 0;
		return NET_ERR_CLOSED;
	}
	int err = fd_prepare(fd, 'r');
	while (err == NET_OK && len > 0) {	/* Go: a read of nothing does nothing */
		long r = backend()->read(fd->sock, buf, len);
		if (r > 0) {
			got = (size_t)r;
			break;
		}
		if (r == 0) {
			err = NET_EOF;
			break;
		}
		if (r == -NETB_EAGAIN) {
			int w = fd_wait(fd, 'r');
			if (w != POLL_OK)
				err = poll_err(w);
			continue;
		}
		err = map_err((int)-r);
	}
	fd_unlock(fd, 'r');
	if (n)
		*n = got;
	return err;
}

int net_conn_write(net_conn *c, const void *buf, size_t len, size_t *n)
{
	struct netfd *fd = (struct netfd *)c;
	size_t done = 0;
	if (!fd_lock(fd, 'w')) {
		if (n)
			*n = 0;
		return NET_ERR_CLOSED;
	}
	int err = fd_prepare(fd, 'w');
	/* All of it, as Go's Write: n < len only with an error. */
	while (err == NET_OK && done < len) {
		long r = backend()->write(fd->sock, (const char *)buf + done, len - done);
		if (r > 0) {
			done += (size_t)r;
			continue;
		}
		if (r == -NETB_EAGAIN || r == 0) {
			int w = fd_wait(fd, 'w');
			if (w != POLL_OK)
				err = poll_err(w);
			continue;
		}
		err = map_err((int)-r);
	}
	fd_unlock(fd, 'w');
	if (n)
		*n = done;
	return err;
}

int net_conn_read_from(net_conn *c, void *buf, size_t len, size_t *n,
		       struct net_addr *from)
{
	struct netfd *fd = (struct netfd *)c;
	size_t got = 0;
	if (!fd_lock(fd, 'r')) {
		if (n)
			*n = 0;
		return NET_ERR_CLOSED;
	}
	int err = fd_prepare(fd, 'r');
	while (err == NET_OK) {
		struct netb_addr b;
		long r = backend()->recvfrom(fd->sock, buf, len, &b);
		if (r >= 0) {		/* an empty datagram is one too */
			got = (size_t)r;
			if (from)
				*from = from_netb(&b);
			break;
		}
		if (r == -NETB_EAGAIN) {
			int w = fd_wait(fd, 'r');
			if (w != POLL_OK)
				err = poll_err(w);
			continue;
		}
		err = map_err((int)-r);
	}
	fd_unlock(fd, 'r');
	if (n)
		*n = got;
	return err;
}

int net_conn_write_to(net_conn *c, const void *buf, size_t len,
		      const struct net_addr *to, size_t *n)
{
	struct netfd *fd = (struct netfd *)c;
	size_t done = 0;
	if (!fd_lock(fd, 'w')) {
		if (n)
			*n = 0;
		return NET_ERR_CLOSED;
	}
	struct netb_addr b = to_netb(to);
	int err = fd_prepare(fd, 'w');
	while (err == NET_OK) {
		long r = backend()->sendto(fd->sock, buf, len, &b);
		if (r >= 0) {
			done = (size_t)r;
			break;
		}
		if (r == -NETB_EAGAIN) {
			int w = fd_wait(fd, 'w');
			if (w != POLL_OK)
				err = poll_err(w);
			continue;
		}
		err = map_err((int)-r);
	}
	fd_unlock(fd, 'w');
	if (n)
		*n = done;
	return err;
}

/* ---- the rest of a Conn --------------------------------------------------------------- */

int net_conn_close(net_conn *c)
{
	return fd_close((struct netfd *)c);
}

static int fd_shutdown(struct netfd *fd, int how)
{
	if (!fd_incref(fd))
		return NET_ERR_CLOSED;
	int r = backend()->shutdown(fd->sock, how);
	fd_decref(fd);
	return r < 0 ? map_err(-r) : NET_OK;
}

int net_conn_close_read(net_conn *c)
{
	return fd_shutdown((struct netfd *)c, NETB_SHUT_RD);
}

int net_conn_close_write(net_conn *c)
{
	return fd_shutdown((struct netfd *)c, NETB_SHUT_WR);
}

static int fd_setdeadline(struct netfd *fd, uint64_t t, int mode)
{
	if (!fd_incref(fd))
		return NET_ERR_CLOSED;
	poll_setdeadline(&fd->pd, t, mode);
	fd_decref(fd);
	return NET_OK;
}

int net_conn_set_deadline(net_conn *c, uint64_t t)
{
	return fd_setdeadline((struct netfd *)c, t, 'r' + 'w');
}

int net_conn_set_read_deadline(net_conn *c, uint64_t t)
{
	return fd_setdeadline((struct netfd *)c, t, 'r');
}

int net_conn_set_write_deadline(net_conn *c, uint64_t t)
{
	return fd_setdeadline((struct netfd *)c, t, 'w');
}

int net_conn_set_linger(net_conn *c, int sec)
{
	struct netfd *fd = (struct netfd *)c;
	if (!fd_incref(fd))
		return NET_ERR_CLOSED;
	int r = backend()->set_linger(fd->sock, sec);
	fd_decref(fd);
	return r < 0 ? map_err(-r) : NET_OK;
}

struct net_addr net_conn_local_addr(net_conn *c)
{
	return ((struct netfd *)c)->laddr;
}

struct net_addr net_conn_remote_addr(net_conn *c)
{
	return ((struct netfd *)c)->raddr;
}

/* ---- errors printed as Go's *OpError -------------------------------------------------- */

char *net_conn_errstr(net_conn *c, const char *op, int err, char *buf, size_t size)
{
	struct netfd *fd = (struct netfd *)c;
	/* A UDP conn from ListenPacket has no remote: Go's Addr is nil. */
	bool peer = fd->kind == NETB_TCP;
	return net_operr_string(buf, size, op, fd->net, peer ? &fd->laddr : NULL,
				peer ? &fd->raddr : &fd->laddr, err);
}

char *net_listener_errstr(net_listener *l, const char *op, int err, char *buf,
			  size_t size)
{
	struct netfd *fd = (struct netfd *)l;
	return net_operr_string(buf, size, op, fd->net, NULL, &fd->laddr, err);
}
