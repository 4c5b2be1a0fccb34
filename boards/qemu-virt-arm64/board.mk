# QEMU -M virt, aarch64: PSCI, GICv2 or v3, PL011, generic timer, all from
# the DTB QEMU generates. (A board.mk only sets variables; the Makefile
# says what each means.)
ARCH      := aarch64
PLATFORM  := arm64-dt
DRIVERS   := irq/gicv2 irq/gicv3 dev/pl011 dev/virtio dev/virtio_net
# 2 MiB above RAM start: QEMU then leaves the DTB at RAM start (0x40000000)
# for an ELF image, where boot_dtb finds it (x0 is 0 in that case).
LOAD_ADDR := 0x40200000
# Semihosting (exit status to QEMU): only where something listens.
# SEMIHOSTING=0 exits by PSCI.
SEMIHOSTING ?= 1
BOARD_CFLAGS := -DGMK_SEMIHOSTING=$(SEMIHOSTING) \
	-DBOARD_DTB_PROBE_ADDR=0x40000000 -DBOARD_UART_FALLBACK=0x09000000
IMAGE     := arm64-image
RUN_CMDLINE := run=sched_demo,primes schedtrace=250

# Under QEMU. GIC=3 selects GICv3.
SETTINGS     := GIC
ifneq ($(filter-out 2 3,$(GIC)),)
$(error GIC=$(GIC): the interrupt controller is GICv2 (GIC=2, the default) or GICv3 (GIC=3))
endif
# GICv2 has 8 CPU interfaces; QEMU's virt takes up to 512 cores with GICv3.
MAX_SMP      = $(if $(filter 3,$(GIC)),512,8)
MAX_SMP_WHY  = $(if $(filter 3,$(GIC)),QEMU virt with GICv3,GICv2 serves 8; GIC=3 (GICv3) lifts the limit)
RUNNER      := qemu
QEMU        := qemu-system-aarch64
QEMU_ARGS    = -M virt$(if $(GIC),$(comma)gic-version=$(GIC)) -cpu cortex-a72 -semihosting
QEMU_KERNEL  = $(KERNEL)
QEMU_EXIT   := status
QEMU_ACCELS := tcg
# The network (docs/network.md): lwIP, and the NIC QEMU adds to a boot
# that asks for one (make run; tools/run-qemu --net): virtio-net on
# virtio-mmio, on QEMU's user network (restrict=on: loopback only).
NET_STACK   := lwip
QEMU_NET    := virtio-net-device
# The execution trace leaves by semihosting (in QEMU_ARGS), as the file
# gmk-trace.bin in QEMU's working directory (arch/aarch64/tracesink.c).
QEMU_TRACE_ARGS :=
# tools/bench-compare counts arm64's instructions per operation here
# (QEMU -icount, as on qemu-x86_64).
BENCH_ICOUNT := 1

# make test: test=* at each core count, then at 4 cores once per variant.
# 8 cores only in tools/soak's campaigns: on a 2-core host TCG runs the
# 8 vCPUs on one thread, the slowest boots of make test (docs/testing.md).
TEST_SMPS     := 1 2 4
TEST_VARIANTS := GIC=3
TEST_FATAL    := *
