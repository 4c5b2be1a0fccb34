/*
 * gQueue and gList operations (see sched/gqueue.h); the short ones are
 * inline, at the end of sched/runtime2.h.
 */
#include "sched/runtime2.h"

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

