# Raspberry Pi 4 Model B (BCM2711, 4 Cortex-A72): the arm64 device-tree
# platform with the GIC-400 (GICv2), cores by spin table, PL011 console.
# Runs under QEMU 9.0 and later (-M raspi4b; make deps installs QEMU 10)
# and on the board itself from an SD card (make image / make sdcard).
ARCH      := aarch64
PLATFORM  := arm64-dt
DRIVERS   := irq/gicv2 dev/pl011
LOAD_ADDR := 0x200000
BOARD_CFLAGS :=
RUN_CMDLINE := run=sched_demo,primes schedtrace=250

IMAGE        := rpi
RPI_FIRMWARE := start4.elf fixup4.dat bcm2711-rpi-4-b.dtb overlays/disable-bt.dtbo
RPI_CONFIG   := arm_64bit=1 kernel=kernel8.img kernel_address=$(LOAD_ADDR) \
	enable_uart=1 enable_gic=1 dtoverlay=disable-bt

# Under QEMU: the raw image and this board's DTB, as on raspi3b; the
# machine has 4 cores and 2 GiB, no other choice (this DTB states
# them, less the VideoCore's share below 1 GiB). QEMU 7.2 has no raspi4b: make test says so and boots
# the other boards.
RUNNER      := qemu
QEMU        := qemu-system-aarch64
QEMU_ARGS    = -M raspi4b -semihosting -dtb $(BUILD)/board.dtb
QEMU_KERNEL  = $(BUILD)/kernel8.img
QEMU_EXIT   := status
QEMU_ACCELS := tcg
QEMU_SMPS   := 4
QEMU_MEM    := 2G
# The first QEMU with -M raspi4b: tools/deps replaces an older one.
QEMU_MIN    := 9.0

# The fatal tests booted here are those that go through this board's own
# paths (exceptions and faults, the MMU with RAM from 0, stopping the
# other cores by the GIC-400's SGIs, a G's guard page); the rest are the
# same code on every aarch64 board and are booted on qemu-virt-arm64.
TEST_SMPS     := 4
TEST_VARIANTS :=
TEST_FATAL    := fault_* panic_* sched_stack_overflow_*
