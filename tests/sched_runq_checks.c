/*
 * runqputslow's preconditions, as the debug builds check them there
 * (runq_owner_violation, GMK_DEBUG_ASSERTS: make test boots SAN=debug):
 * the caller owns the P (only the owner writes ring slots) and cannot be
 * moved off it (preemption off, or on g0). The check itself is tested
 * here in every build: it holds for the owner with preemption off, and
 * names a preemptible caller and a P the caller does not own.
 */
#include <stdio.h>

#include "kernel/preempt.h"
#include "kernel/test.h"
#include "sched/schedimpl.h"

TEST(sched_runqputslow_preconditions_are_checked_as_stated)
{
	preempt_disable();
	struct p *pp = getm()->p;
	struct p *other = allp[(pp->id + 1) % sched.nprocs];
	const char *own = runq_owner_violation(pp);
	const char *foreign = other != pp ? runq_owner_violation(other) : "";
	preempt_enable();
	const char *preemptible = runq_owner_violation(pp);
#ifdef GMK_DEBUG_ASSERTS
	printf("# runqputslow checks them in this build\n");
#else
	printf("# runqputslow does not check them in this build (SAN=debug does)\n");
#endif
	EXPECT(own == NULL);
	EXPECT(foreign != NULL);
	EXPECT(preemptible != NULL);
	if (preemptible)
		printf("# preemptible: %s\n", preemptible);
}
