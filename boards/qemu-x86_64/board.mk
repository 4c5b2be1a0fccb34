# QEMU q35 PC, x86-64: the PC platform (multiboot, ACPI MADT, LAPIC/x2APIC,
# 16550 COM1), left through isa-debug-exit.
ARCH      := x86_64
PLATFORM  := pc
DRIVERS   := dev/uart16550 dev/virtio dev/virtio_net
# 2 MiB: the image starts a large page of its own (paging.c).
LOAD_ADDR := 0x200000
BOARD_CFLAGS :=
# QEMU's -kernel takes multiboot ELFs of class 32 only: the image is an
# elf32 copy of gmk.elf (tools/run-qemu boots it).
IMAGE     := multiboot-elf32
RUN_CMDLINE := run=sched_demo,primes schedtrace=250

# Under QEMU: KVM where /dev/kvm works (and is not kvm-pvm), else TCG.
RUNNER      := qemu
QEMU        := qemu-system-x86_64
QEMU_ARGS   := -M q35 -device isa-debug-exit,iobase=0xf4,iosize=0x04
QEMU_KERNEL  = $(BUILD)/gmk.elf32
QEMU_EXIT   := isa-debug-exit
QEMU_ACCELS := kvm tcg
# The network (docs/network.md): lwIP, and the NIC QEMU adds to a boot
# that asks for one: virtio-net on PCI (legacy I/O layout), on QEMU's
# user network (restrict=on: loopback only).
NET_STACK   := lwip
QEMU_NET    := virtio-net-pci
# The execution trace's way out (arch/x86_64/tracesink.c): the debug
# console, into a file in QEMU's working directory (tools/trace-run).
QEMU_TRACE_ARGS := -debugcon file:gmk-trace.bin
# tools/bench-compare counts x86-64's instructions per operation here:
# under QEMU -icount, a guest nanosecond is a guest instruction.
BENCH_ICOUNT := 1

# QEMU's 16550 holds THRE while the serial backend refuses bytes: make
# test also runs the console output test with its output read slowly
# (tools/serial-slow), so that the writer waits for the UART itself.
QEMU_TX_BACKPRESSURE := 1

# 8 cores only in tools/soak's campaigns: on a 2-core host TCG runs the
# 8 vCPUs on one thread, the slowest boots of make test (docs/testing.md).
TEST_SMPS     := 1 2 4
TEST_VARIANTS :=
TEST_FATAL    := *
