/*
 * Channels and select, as in Go (runtime/chan.go, runtime/select.go).
 *
 *   chan_t c = chan_make(sizeof(int), 0);   unbuffered; capacity > 0 = a ring
 *   chan_send(c, &v);                       blocks until received / room
 *   bool ok = chan_recv(c, &v);             false once closed and drained
 *   chan_close(c);
 *
 * Values are copied in and out by elem_size bytes (elem_size 0 is Go's
 * chan struct{}: pass NULL). A blocked G is parked (gopark) and costs no
 * core; the G that unblocks it makes it runnable on its own P (runnext).
 *
 * Misuse panics with Go's words: "send on closed channel", "close of closed
 * channel", "close of nil channel". A blocking operation on a NULL channel
 * parks forever, which the deadlock detector reports.
 *
 * Memory: Go collects an unreachable channel; here the program frees it
 * with chan_free once no G can touch it any more.
 */
#ifndef GMK_SCHED_CHAN_H
#define GMK_SCHED_CHAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct hchan *chan_t;

chan_t chan_make(size_t elem_size, size_t capacity);
void chan_free(chan_t c);
void chan_send(chan_t c, const void *elem);
bool chan_recv(chan_t c, void *elem);		/* elem may be NULL */
void chan_close(chan_t c);
size_t chan_len(chan_t c);			/* values buffered now */
size_t chan_cap(chan_t c);

/* Non-blocking (Go's select with a default case): true if the value was
 * sent / something was received. chan_tryrecv sets *ok as chan_recv's
 * result (false: the channel is closed and drained). */
bool chan_trysend(chan_t c, const void *elem);
bool chan_tryrecv(chan_t c, void *elem, bool *ok);

/*
 * select over ncases send and receive cases. Exactly one case proceeds;
 * when several are ready, each is equally likely (Go's pollorder). With
 * has_default, returns SELECT_DEFAULT at once if none is ready; otherwise
 * blocks until one is. Returns the index of the case chosen. A case on a
 * NULL channel is never ready. A receive case stores its value at elem
 * (unless NULL) and sets .ok as chan_recv would.
 *
 *   struct select_case cs[] = { SELECT_RECV(in, &v), SELECT_SEND(out, &w) };
 *   switch (chan_select(cs, 2, false)) { case 0: ...; case 1: ...; }
 *
 * SELECT_AFTER(ns) is Go's `case <-time.After(d)` with the timer owned by
 * the select: it is chosen when ns have passed since the call and no other
 * case proceeded first; its timer lives in the select's frame, costs no
 * allocation and is gone when the select returns, whichever case won. At
 * most one per select; a deadline past the end of time never comes. A
 * channel case that is ready is chosen before an expired SELECT_AFTER.
 */
enum select_dir { SELECT_DIR_SEND = 1, SELECT_DIR_RECV = 2, SELECT_DIR_AFTER = 3 };

struct select_case {
	chan_t c;
	enum select_dir dir;
	union {
		void *elem;		/* send: the value; recv: where to store it */
		uint64_t ns;		/* after: the timeout */
	};
	bool ok;			/* recv, after: set when the case is chosen */
};

#define SELECT_SEND(ch, p) { .c = (ch), .dir = SELECT_DIR_SEND, .elem = (void *)(p) }
#define SELECT_RECV(ch, p) { .c = (ch), .dir = SELECT_DIR_RECV, .elem = (p) }
#define SELECT_AFTER(d) { .c = NULL, .dir = SELECT_DIR_AFTER, .ns = (d) }
#define SELECT_DEFAULT (-1)
/* Cases per select: at most SELECT_MAX_CASES (Go's limit). Up to
 * SELECT_STACK_CASES its sudogs and orders live on the G's stack and cost
 * no allocation; above, chan_select kmallocs them for the call. */
#define SELECT_MAX_CASES 65536
#define SELECT_STACK_CASES 64

int chan_select(struct select_case *cases, int ncases, bool has_default);

#endif
