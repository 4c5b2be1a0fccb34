/* Must not build: a kernel header through include/.. (an application
 * sees only include/ and its own folder). */
#include <gmk.h>
#include "../kernel/page.h"

PROGRAM(kernel_header, "allocates pages behind the kernel's back")
{
	return page_alloc_try(1) ? 0 : 1;
}
