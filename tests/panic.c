/*
 * panic(): the machine stops with the message (run alone in its own boot
 * by make test, like every TEST_FATAL).
 */
#include "kernel/panic.h"
#include "kernel/test.h"

TEST_FATAL(panic_stops_the_machine_with_its_message, "deliberate panic 42")
{
	panic("deliberate panic %d", 42);
}
