# aarch64: the cross gcc and picolibc (Debian's gcc-aarch64-linux-gnu and
# picolibc-aarch64-linux-gnu). Only sets variables (the Makefile says which).
CROSS   := aarch64-linux-gnu-
CC      := $(CROSS)gcc
OBJCOPY := $(CROSS)objcopy
# -fstack-clash-protection (CFLAGS_COMMON) probes every page of a frame
# bigger than the guard, so a big local array faults in a G's guard page
# instead of jumping it; aarch64 gcc assumes a 64 KiB guard unless told
# that gmk's is one 4 KiB page (2^12).
# Without unwind tables gcc writes the call frame information (-g) to
# .debug_frame, which gdb reads, not to .eh_frame, which the link drops:
# else gdb guesses frames from prologues, and a shrink-wrapped function
# (its frame record saved past a first early return, as
# sched_preempt_safepoint) unwinds to itself (goroutine N bt, gmk-gdb.py).
ARCH_CFLAGS := --specs=picolibc.specs --picolibc-buildtype=release -march=armv8-a -mstrict-align \
	-mno-outline-atomics -fno-pic -mcmodel=small \
	-fno-asynchronous-unwind-tables -fno-unwind-tables \
	--param=stack-clash-protection-guard-size=12 \
	--param=stack-clash-protection-probe-interval=12
# The link line also gets CFLAGS, so --specs=picolibc.specs is there once
# (twice is an error). -T as a driver option (not -Wl,-T): picolibc.specs
# adds its own picolibc.ld unless the driver sees -T.
ARCH_LDFLAGS := -nostartfiles -static \
	-Wl,--build-id=none -T linker/aarch64.ld \
	-Wl,--defsym=LOAD_ADDR=$(LOAD_ADDR) -Wl,--gc-sections
ARCH_LIBS := -lc -lgcc
