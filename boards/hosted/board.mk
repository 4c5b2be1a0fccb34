# gmk as a Linux process: one thread per core, signals for interrupts
# (arch/x86_64-linux/, boards/hosted/board.c). SAN=tsan or SAN=asan builds under a
# sanitizer into build/hosted-<san>/. Runs natively (tools/run-hosted);
# tools/test-all has a section of its own for it.
ARCH      := x86_64-linux
BOARD_MAIN := boards/hosted/main.c
PLATFORM  :=
DRIVERS   :=
LOAD_ADDR :=
SAN       ?=
BOARD_CFLAGS :=
IMAGE     :=
RUN_CMDLINE := run=sched_demo,primes schedtrace=250
RUNNER    := hosted
NO_REPLAY := it is a Linux process: its cores are threads that Linux schedules and its tick a signal from a host timer, so no run repeats another exactly
# make run: every host CPU unless SMP= is given.
ifeq ($(origin SMP),file)
SMP := $(shell nproc)
endif
TEST_SMPS     := 1 2 4 8
TEST_VARIANTS :=
TEST_FATAL    := *
