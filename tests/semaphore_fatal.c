/*
 * Misuse of the weighted semaphore ends the program with Go's words. It
 * runs alone in its own boot (make test does that).
 */
#include "kernel/test.h"
#include "tests/kernel_api.h"

TEST_FATAL(semaphore_release_of_more_than_held, "semaphore: released more than held")
{
	static struct semaphore s = SEMAPHORE_INIT(4);
	semaphore_try_acquire(&s, 2);
	semaphore_release(&s, 3);
}

/* semaphore_init refuses a negative size; SEMAPHORE_INIT cannot, so the
 * first use does. */
TEST_FATAL(semaphore_of_negative_size_from_semaphore_init_macro,
	   "semaphore_try_acquire: the semaphore's size is negative (-1): "
	   "SEMAPHORE_INIT of a negative n")
{
	static struct semaphore s = SEMAPHORE_INIT(-1);
	semaphore_try_acquire(&s, 1);
}
