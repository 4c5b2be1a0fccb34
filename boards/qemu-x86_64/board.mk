# QEMU q35 PC, x86-64: multiboot entry, ACPI MADT, LAPIC/x2APIC, 16550 COM1.
ARCH      := x86_64
# 2 MiB: the image starts a large page of its own (paging.c).
LOAD_ADDR := 0x200000
BOARD_SRCS := boards/qemu-x86_64/board.c kernel/dev/uart16550.c
BOARD_CFLAGS :=
# QEMU's -kernel takes multiboot ELFs of class 32 only: keep an elf32 copy
# beside gmk.elf (tools/run-qemu boots it). Recursive: KERNEL and BUILD are
# set after this file is read.
BOARD_POSTLINK = $(OBJCOPY) -O elf32-i386 $(KERNEL) $(BUILD)/gmk.elf32
BOARD_RUN_CMDLINE := run=sched_demo,primes schedtrace=250
