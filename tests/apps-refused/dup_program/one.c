/* Must not build: two programs named dup (this one and two.c's). */
#include <gmk.h>

PROGRAM(dup, "the first dup")
{
	return 1;
}
