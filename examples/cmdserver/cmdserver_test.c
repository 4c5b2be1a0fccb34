/* The example's test (make test APP=examples/cmdserver): a scripted
 * session, answered by a goroutine per line, slow ones included. */
#include "gmk.h"
#include "gmk_test.h"

long cmdserver_serve(int nscript, char **script, long *nerrs, long *sum);

TEST(example_cmdserver_answers_every_scripted_line)
{
	char *script[] = { "cmdserver", "add", "1", "2", ";", "sleep 50", ";", "mul 3", "4",
			   ";", "echo hi", ";", "frob 1", ";", "add 40 2", ";", "quit", ";",
			   "add 100 100", NULL };
	long nerrs, sum;

	/* quit ends it: the line after it is not served. */
	ASSERT_EQ(cmdserver_serve(19, script, &nerrs, &sum), 6);
	ASSERT_EQ(nerrs, 1);		/* frob */
	ASSERT_EQ(sum, 3 + 12 + 42);
}
