/*
 * gQueue and gList operations (see sched/gqueue.h).
 */
#include "sched/runtime2.h"

void gqueue_push(struct gqueue *q, struct g *gp)
{
	gp->schedlink = q->head;
	q->head = gp;
	if (q->tail == NULL)
		q->tail = gp;
	q->size++;
}

void gqueue_pushback(struct gqueue *q, struct g *gp)
{
	gp->schedlink = NULL;
	if (q->tail != NULL)
		q->tail->schedlink = gp;
	else
		q->head = gp;
	q->tail = gp;
	q->size++;
}

void gqueue_pushbackall(struct gqueue *q, struct gqueue *q2)
{
	if (q2->tail == NULL)
		return;
	q2->tail->schedlink = NULL;
	if (q->tail != NULL)
		q->tail->schedlink = q2->head;
	else
		q->head = q2->head;
	q->tail = q2->tail;
	q->size += q2->size;
	q2->head = q2->tail = NULL;
	q2->size = 0;
}

struct g *gqueue_pop(struct gqueue *q)
{
	struct g *gp = q->head;
	if (gp != NULL) {
		q->head = gp->schedlink;
		if (q->head == NULL)
			q->tail = NULL;
		q->size--;
		gp->schedlink = NULL;
	}
	return gp;
}

void glist_push(struct glist *l, struct g *gp)
{
	gp->schedlink = l->head;
	/* Atomic store (a plain mov): gfget peeks at sched.gfree.head
	 * without the lock. */
	__atomic_store_n(&l->head, gp, __ATOMIC_RELAXED);
	l->size++;
}

struct g *glist_pop(struct glist *l)
{
	struct g *gp = l->head;
	if (gp != NULL) {
		__atomic_store_n(&l->head, gp->schedlink, __ATOMIC_RELAXED);
		l->size--;
		gp->schedlink = NULL;
	}
	return gp;
}
