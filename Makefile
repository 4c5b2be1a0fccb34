# gmk: one entry point.
#   make [BOARD=qemu-virt-arm64] [SMP=4] [CMDLINE='...'] run | test | bench | bench-compare | debug | image | deps | clean
#   V=1 shows full command lines.
#
# What is built: build/<board>/gmk.elf, from arch/<arch>/, kernel/, sched/,
# tests/ and boards/<board>/, with the C library of the arch (picolibc on
# aarch64, newlib on x86-64).

BOARD   ?= qemu-virt-arm64
SMP     ?= 4
CMDLINE ?=
TIMEOUT ?= 60
GIC     ?=

# ---- the board: sets ARCH, BOARD_SRCS, LOAD_ADDR and QEMU details -------
include boards/$(BOARD)/board.mk

BUILD  := build/$(BOARD)
KERNEL := $(BUILD)/gmk.elf

ifeq ($(V),1)
Q :=
else
Q := @
endif

# ---- sources -----------------------------------------------------------
SRCS := $(wildcard arch/$(ARCH)/*.c arch/$(ARCH)/*.S) \
        $(wildcard kernel/*.c) \
        $(wildcard sched/*.c) \
        $(wildcard tests/*.c tests/*_$(ARCH).S) \
        $(wildcard tests/bench/*.c) \
        $(BOARD_SRCS)
OBJS := $(patsubst %,$(BUILD)/%.o,$(SRCS))
DEPS := $(OBJS:.o=.d)

# ---- flags common to every arch ----------------------------------------
CFLAGS_COMMON := -std=gnu11 -O2 -g -Wall -Wextra -Werror \
	-Wno-unused-parameter -ffreestanding -fno-common \
	-fno-omit-frame-pointer -fno-stack-protector -fno-strict-aliasing \
	-ffunction-sections -fdata-sections \
	-I. -MMD -MP -DGMK_BOARD=\"$(BOARD)\"

# ---- aarch64: cross gcc + picolibc -------------------------------------
ifeq ($(ARCH),aarch64)
CROSS   := aarch64-linux-gnu-
CC      := $(CROSS)gcc
OBJCOPY := $(CROSS)objcopy
ARCH_CFLAGS := --specs=picolibc.specs -march=armv8-a -mstrict-align \
	-mno-outline-atomics -fno-pic -mcmodel=small
# The link line also gets CFLAGS, so --specs=picolibc.specs is there once
# (twice is an error). -T as a driver option (not -Wl,-T): picolibc.specs
# adds its own picolibc.ld unless the driver sees -T.
ARCH_LDFLAGS := -nostartfiles -static \
	-Wl,--build-id=none -T linker/aarch64.ld \
	-Wl,--defsym=LOAD_ADDR=$(LOAD_ADDR) -Wl,--gc-sections
ARCH_LIBS := -lc -lgcc
QEMU_ARCH := aarch64
endif

# ---- x86-64: host gcc, freestanding + newlib built from newlib-source ----
ifeq ($(ARCH),x86_64)
CC      := gcc
OBJCOPY := objcopy
NEWLIB  := build/newlib-x86_64
# -mcmodel=small: the kernel is identity-mapped below 2 GiB (LOAD_ADDR).
# No red zone: exceptions push onto the interrupted stack. newlib is built
# with the same flags and __DYNAMIC_REENT__ (tools/build-newlib); only its
# headers and gcc's own are searched, never the host's /usr/include.
ARCH_CFLAGS := -m64 -march=x86-64 -mno-red-zone -mcmodel=small -fno-pic \
	-fno-pie -fno-asynchronous-unwind-tables -D__DYNAMIC_REENT__ \
	-nostdinc -isystem $(NEWLIB)/include \
	-isystem $(shell $(CC) -print-file-name=include)
ARCH_LDFLAGS := -nostdlib -static -no-pie -Wl,--build-id=none \
	-Wl,-z,max-page-size=4096 -Wl,-z,noexecstack -Wl,-T,linker/x86_64.ld \
	-Wl,--defsym=LOAD_ADDR=$(LOAD_ADDR) -Wl,--gc-sections
ARCH_LIBS := $(NEWLIB)/lib/libc.a -lgcc
QEMU_ARCH := x86_64
endif

CFLAGS  := $(CFLAGS_COMMON) $(ARCH_CFLAGS) $(BOARD_CFLAGS)
ASFLAGS := $(CFLAGS) -D__ASSEMBLY__

# ---- dependencies from Debian 12 (tools/deps installs, builds newlib) ----
DEPS_STAMP := build/.deps-ok
deps:
	$(Q)tools/deps
$(DEPS_STAMP):
	$(Q)tools/deps

# ---- rules -------------------------------------------------------------
.PHONY: all kernel run test bench bench-compare debug image deps clean host-test
all: kernel
kernel: $(KERNEL)

$(BUILD)/%.c.o: %.c | $(DEPS_STAMP)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(CFLAGS) -c $< -o $@

$(BUILD)/%.S.o: %.S | $(DEPS_STAMP)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  AS      $<")
	$(Q)$(CC) $(ASFLAGS) -c $< -o $@

$(KERNEL): $(OBJS) linker/$(ARCH).ld
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(CFLAGS) $(ARCH_LDFLAGS) -o $@ $(OBJS) $(ARCH_LIBS)
ifneq ($(BOARD_POSTLINK),)
	$(Q)$(BOARD_POSTLINK)
endif

-include $(DEPS)

# ---- running -----------------------------------------------------------
# image: the board's bootable file. aarch64: a raw binary (it carries an
# arm64 Linux image header, so QEMU -kernel or a boot loader passes the DTB
# in x0); x86-64: the multiboot elf32 copy.
image: kernel
ifeq ($(ARCH),aarch64)
	$(Q)$(OBJCOPY) -O binary $(KERNEL) $(BUILD)/gmk.bin
	@echo "image: $(BUILD)/gmk.bin"
else
	@echo "image: $(BUILD)/gmk.elf32"
endif

run: deps
	$(Q)$(MAKE) --no-print-directory kernel
	$(Q)tools/run-qemu --board $(BOARD) --smp $(SMP) --timeout $(TIMEOUT) $(if $(GIC),--gic $(GIC)) \
		--kernel $(KERNEL) -- "$(if $(CMDLINE),$(CMDLINE),$(BOARD_RUN_CMDLINE))"

debug: deps
	$(Q)$(MAKE) --no-print-directory kernel
	$(Q)tools/run-qemu --board $(BOARD) --smp $(SMP) $(if $(GIC),--gic $(GIC)) --gdb \
		--kernel $(KERNEL) -- "$(CMDLINE)"

test: deps
	$(Q)tools/test-all

# Benchmarks (shared/BENCH.md): the kernel's at nprocs=1 and all cores
# (SMP defaults to the host's core count here), and gmk against Go.
BENCH_SMP ?= $(shell nproc)
bench: deps
	$(Q)$(MAKE) --no-print-directory kernel
	$(Q)tools/bench --board $(BOARD) --smp $(BENCH_SMP)

bench-compare: deps
	$(Q)tools/bench-compare --smp $(BENCH_SMP)

host-test:
	$(Q)$(MAKE) --no-print-directory -C tests/host

clean:
	rm -rf build/qemu-* build/host

distclean:
	rm -rf build

print-%:
	@echo $($*)
