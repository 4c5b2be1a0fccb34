# QEMU -M virt, aarch64: PSCI, GICv2 or v3, PL011, generic timer, DTB.
ARCH      := aarch64
# 2 MiB above RAM start: QEMU then leaves the DTB at RAM start (0x40000000)
# for an ELF image, where start.S finds it (x0 is 0 in that case).
LOAD_ADDR := 0x40200000
# Semihosting (exit status to QEMU): only where something listens;
# run-qemu always passes -semihosting. SEMIHOSTING=0 exits by PSCI.
SEMIHOSTING ?= 1
BOARD_CFLAGS := -DGMK_SEMIHOSTING=$(SEMIHOSTING) -DBOARD_DTB_PROBE_ADDR=0x40000000
# (kernel/fdt.c, used here and by arch/aarch64/mmu.c, is in kernel/*.c.)
BOARD_SRCS := boards/qemu-virt-arm64/board.c \
	kernel/irq/gicv2.c \
	kernel/irq/gicv3.c \
	kernel/dev/pl011.c
BOARD_POSTLINK :=
BOARD_RUN_CMDLINE := run=sched_demo,primes schedtrace=250
