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

void gqueue_push(struct gqueue *q, struct g *gp);	/* at the head */
void gqueue_pushback(struct gqueue *q, struct g *gp);	/* at the tail */
void gqueue_pushbackall(struct gqueue *q, struct gqueue *q2); /* empties q2 */
struct g *gqueue_pop(struct gqueue *q);			/* from the head */

void glist_push(struct glist *l, struct g *gp);
struct g *glist_pop(struct glist *l);

#endif
