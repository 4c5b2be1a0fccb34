# Raspberry Pi 4 Model B (BCM2711, 4 Cortex-A72): the arm64 device-tree
# platform with the GIC-400 (GICv2), cores by spin table, PL011 console.
# An SD-card image only: QEMU 7.2 has no raspi4b machine, so nothing here
# runs it (RUNNER is empty); make test builds it and its image.
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

RUNNER        :=
TEST_SMPS     :=
TEST_VARIANTS :=
TEST_FATAL    :=
