# A real x86-64 PC (a mini-PC, a laptop) booted by GRUB through a BIOS or
# UEFI from a hybrid USB-stick/CD image: the PC platform with multiboot 2,
# the console also on the screen (dev/fbcon), ACPI power-off at the end.
# Runs here under QEMU q35 with SeaBIOS or OVMF (tools/run-pc).
ARCH      := x86_64
PLATFORM  := pc
# dev/virtio: the PCI scan (boards/platform/pc/pci.c) names its transport.
DRIVERS   := dev/uart16550 dev/fbcon dev/virtio
# 2 MiB: the image starts a large page of its own (paging.c).
LOAD_ADDR := 0x200000
BOARD_CFLAGS :=
# make image: build/pc/gmk-pc.iso (tools/mkimage-pc), with CMDLINE (or
# RUN_CMDLINE) in its grub.cfg; GRUB and gmk talk on COM1 at this rate.
IMAGE     := grub-iso
SERIAL_BAUD := 115200
RUN_CMDLINE := run=sched_demo,primes

# Under QEMU: tools/run-pc makes the image with the command line and boots
# it under SeaBIOS (FIRMWARE=bios, as a CD) or OVMF (FIRMWARE=uefi). There
# is no isa-debug-exit on a PC: the kernel prints "gmk: exit status N" and
# powers off through ACPI, and the runner reads that line.
RUNNER      := pc
FIRMWARE    ?= bios
QEMU        := qemu-system-x86_64
QEMU_ARGS   := -M q35
QEMU_KERNEL  = $(KERNEL)
QEMU_EXIT   := status-line
QEMU_ACCELS := tcg

# test=* under SeaBIOS at 4 cores (plus nprocs=2 and the programs); then
# tools/test-pc: OVMF at 4 cores, the screen read back from a screendump,
# and the first option of GRUB's command line not lost.
TEST_SMPS     := 4
TEST_VARIANTS :=
TEST_FATAL    :=
TEST_EXTRA    := tools/test-pc
