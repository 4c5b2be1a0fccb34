/* Must not build: two programs named dup (this one and one.c's). */
#include <gmk.h>

PROGRAM(dup, "the second dup")
{
	return 2;
}
