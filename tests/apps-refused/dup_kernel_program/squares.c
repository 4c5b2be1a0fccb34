/* Must not build: with gmk's tests and examples in (app.mk), the kernel
 * has a program named squares (examples/squares) too. */
#include <gmk.h>

PROGRAM(squares, "not the example's squares")
{
	return 1;
}
