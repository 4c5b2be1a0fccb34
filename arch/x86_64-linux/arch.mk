# x86-64 code run as a Linux process (the hosted board): cores are
# threads, interrupts are signals. The host's gcc and glibc. It is the
# x86_64 arch in a new setting: its headers come next on the include path
# (atomics, the trap frame, the gobuf's layout) and its switch code is
# x86_64's (switch_linux.S). Only sets variables (the Makefile says which).
#
# SAN=tsan (ThreadSanitizer, with compiler-builtin atomics it can see) or
# SAN=asan (ASan + UBSan) build with clang into build/<board>-<san>/;
# SAN=fuzz is the libFuzzer target (tests/fuzz/, make fuzz). The
# executable is $(BUILD)/gmk; its arguments are the command line.
ARCH_DIRS  := arch/x86_64-linux arch/x86_64
# glibc's headers as the board amends them (errno.h: the errno a G keeps
# across a preemption), first on the kernel's include path and on an
# application's (it holds nothing else: an application sees no kernel
# header through it).
ARCH_LIBC_DIRS := arch/x86_64-linux/libc
BUILD   := build/$(BOARD)$(if $(SAN),-$(SAN))
KERNEL  := $(BUILD)/gmk
CC      := gcc
OBJCOPY := objcopy
ARCH_CFLAGS := -DGMK_HOSTED -pthread
ifeq ($(SAN),tsan)
CC      := clang
# No function entry/exit hooks: g0's code never returns (each mcall starts
# its stack afresh), so a shadow call stack would only grow. Reports then
# give the racing accesses' own pc, not their callers.
ARCH_CFLAGS += -fsanitize=thread -DGMK_HOST_BUILTIN_ATOMICS -DGMK_SAN_FIBERS -DGMK_DEBUG_ASSERTS \
	-mllvm -tsan-instrument-func-entry-exit=false
else ifeq ($(SAN),asan)
CC      := clang
ARCH_CFLAGS += -fsanitize=address,undefined -fno-sanitize-recover=undefined \
	-DGMK_SAN_FIBERS -DGMK_DEBUG_ASSERTS
else ifeq ($(SAN),fuzz)
# Coverage for libFuzzer, ASan and UBSan; libFuzzer's main calls the
# board's (hosted_main).
CC      := clang
ARCH_CFLAGS += -fsanitize=fuzzer-no-link,address,undefined \
	-fno-sanitize-recover=undefined -DGMK_SAN_FIBERS -DGMK_DEBUG_ASSERTS -DGMK_FUZZ
else ifeq ($(SAN),debug)
# No sanitizer: the plain build with the debug checks (GMK_DEBUG_ASSERTS:
# preconditions of the scheduler's paths that the normal build leaves out).
ARCH_CFLAGS += -DGMK_DEBUG_ASSERTS
else ifneq ($(SAN),)
$(error SAN=$(SAN): want tsan, asan, fuzz or debug)
endif
ifeq ($(CC),clang)
ARCH_CFLAGS += -Wno-unused-command-line-argument \
	-Wno-incompatible-pointer-types-discards-qualifiers
endif
# The kernel's linker-script symbols: its first byte and its text. Linked
# at a fixed address (no PIE): the addresses in a trace, a crash report
# and gdb are the executable's own, as on the other boards, not moved by
# a load address that changes at every run. linker/x86_64-linux.ld adds
# to ld's default script what gmk needs of it: the bounds of its own text
# (the kernel's objects and an application's: where the tick preempts a
# G), and the test and program tables, even when empty.
ARCH_LDFLAGS := -pthread -no-pie -Wl,--gc-sections -Wl,-T,linker/x86_64-linux.ld \
	-Wl,--defsym=_kernel_start=__executable_start \
	-Wl,--defsym=_text_start=__executable_start
ARCH_LIBS :=
ifeq ($(SAN),fuzz)
ARCH_LDFLAGS += -fsanitize=fuzzer
endif
