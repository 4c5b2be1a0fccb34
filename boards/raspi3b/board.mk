# Raspberry Pi 3 Model B (BCM2837, 4 Cortex-A53): the arm64 device-tree
# platform with the BCM2836 local interrupt block, cores by spin table,
# PL011 console. Runs under QEMU (-M raspi3b) and on the board itself from
# an SD card (make image / make sdcard).
ARCH      := aarch64
PLATFORM  := arm64-dt
DRIVERS   := irq/bcm2836 dev/pl011
# The image header's text offset (2 MiB): QEMU loads a raw image there,
# the firmware where config.txt's kernel_address says.
LOAD_ADDR := 0x200000
BOARD_CFLAGS :=
RUN_CMDLINE := run=sched_demo,primes schedtrace=250

IMAGE        := rpi
RPI_FIRMWARE := bootcode.bin start.elf fixup.dat bcm2710-rpi-3-b.dtb overlays/disable-bt.dtbo
RPI_CONFIG   := arm_64bit=1 kernel=kernel8.img kernel_address=$(LOAD_ADDR) \
	enable_uart=1 dtoverlay=disable-bt

# Under QEMU: the raw image (an ELF would start every core at EL3) and
# this board's DTB; the machine has 4 cores and 1 GiB, no other choice.
RUNNER      := qemu
QEMU        := qemu-system-aarch64
QEMU_ARGS    = -M raspi3b -semihosting -dtb $(BUILD)/board.dtb
QEMU_KERNEL  = $(BUILD)/kernel8.img
QEMU_EXIT   := status
QEMU_ACCELS := tcg
QEMU_SMPS   := 4

# QEMU's raspi3b has exactly 4 cores. The fatal tests booted here are
# those that go through this board's own paths (exceptions and faults,
# the MMU with RAM from 0, stopping the other cores by mailbox IPIs, a
# G's guard page, the stacks a fault prints with the other cores
# stopped); the rest (channels, sync, the poller, memory, time,
# the scheduler, the Go library) are the same code on every aarch64 board
# and are booted on qemu-virt-arm64.
TEST_SMPS     := 4
TEST_VARIANTS :=
TEST_FATAL    := fault_* panic_* sched_stack_overflow_* traceback_fault_* traceback_all_*
