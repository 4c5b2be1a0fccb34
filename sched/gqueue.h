/*
 * gQueue and gList: intrusive lists of Gs linked through g->schedlink, as
 * in Go's runtime2.go/proc.go. A G is on at most one of them at a time.
 * They are plain data: whoever owns the list (a lock, or a single core)
 * serialises access.
 *
 *   gQueue  FIFO with head, tail and size (the global run queue, batches)
 *   gList   LIFO stack with head and size (free G lists)
 */
#ifndef GMK_SCHED_GQUEUE_H
#define GMK_SCHED_GQUEUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct g;

struct gqueue {
	struct g *head;
	struct g *tail;
	int32_t size;
};

struct glist {
	struct g *head;
	int32_t size;
};

/* g->schedlink is the only field these touch; runtime2.h defines struct g,
 * and the inline bodies need it, so they live below its definition. */
static inline bool gqueue_empty(const struct gqueue *q) { return q->head == NULL; }
static inline bool glist_empty(const struct glist *l) { return l->head == NULL; }

/* Inline at the end of sched/runtime2.h (they need struct g):
 *   gqueue_push(q, gp)      at the head
 *   gqueue_pushback(q, gp)  at the tail
 *   gqueue_pop(q)           from the head, or NULL
 *   glist_push(l, gp), glist_pop(l) */
void gqueue_pushbackall(struct gqueue *q, struct gqueue *q2); /* empties q2 */

#endif
