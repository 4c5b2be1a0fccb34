/*
 * The PC platform: an x86-64 PC booted as a multiboot 1 image (QEMU's
 * -kernel) or a multiboot 2 image (GRUB, under a BIOS or UEFI). Console on
 * COM1 (a 16550 by port) and, when the loader gives a framebuffer and the
 * board links dev/fbcon, on the screen; memory, the command line and, under
 * UEFI, the ACPI RSDP from the multiboot information (multiboot.c); cores from the ACPI MADT,
 * started by INIT-SIPI-SIPI through the trampoline (arch/x86_64/smp.c);
 * interrupts and the timer from each core's local APIC, its rate from the
 * TSC calibrated against the PIT (tsc.c); COM1's receive interrupt through
 * the IOAPIC (ioapic.c), and its transmit interrupt for console output
 * (kernel/console.h). All of kernel/board.h but
 * board_exit, which is the board's (boards/<name>/board.c; its board.c).
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "boards/platform/pc/acpi.h"
#include "boards/platform/pc/ioapic.h"
#include "boards/platform/pc/multiboot.h"
#include "boards/platform/pc/pc.h"
#include "arch/x86_64/io.h"
#include "arch/x86_64/lapic.h"
#include "arch/x86_64/paging.h"
#include "boards/platform/pc/pic.h"
#include "arch/x86_64/smp.h"
#include "boards/platform/pc/tsc.h"
#include "arch/x86_64/x86.h"
#include "kernel/board.h"
#include "kernel/console.h"
#include "kernel/console_in.h"
#include "kernel/dev/fbcon.h"
#include "kernel/dev/uart16550.h"
#include "kernel/percpu.h"
#include "kernel/sched_hooks.h"
#include "kernel/trap.h"

const char board_name[] = GMK_BOARD;

#define CONSOLE_BAUD		115200
#define COM1_ISA_IRQ		4
#define VEC_COM1		0x50	/* above the local APIC's own vectors */

/* For device interrupts routed after boot (pc_route_device_irq). */
static struct { bool ioapic; uint32_t isa_gsi[16]; uint32_t boot_apic; } irqs;
#define LOW_MEMORY_END		0x100000ull	/* below: BIOS, trampoline */
#define LAPIC_DEFAULT_BASE	0xfee00000ull

#define PAGE			4096ull

static struct boot_info boot;			/* from the loader */
static struct phys_range ram[BOOT_MAX_MAP];	/* for the page allocator */
static unsigned nram;
static uintptr_t rsdp;
static uint64_t tsc_hz;

/* COM1 in I/O space: the 16550 driver reaches it through these. */
static uint8_t port_read(uintptr_t port) { return inb((uint16_t)port); }
static void port_write(uintptr_t port, uint8_t v) { outb((uint16_t)port, v); }
static const struct uart16550 com1 = {
	.base = UART16550_COM1, .clock_hz = UART16550_CLOCK_PC,
	.read = port_read, .write = port_write,
};

extern uint32_t x86_boot_magic;			/* start.S */
extern char _kernel_end[];

static void ram_add(uint64_t lo, uint64_t hi, unsigned *n, struct phys_range *out)
{
	lo = (lo + PAGE - 1) & ~(PAGE - 1);
	hi &= ~(PAGE - 1);
	if (hi > lo && *n < BOOT_MAX_MAP)
		out[(*n)++] = (struct phys_range){ lo, hi - lo };
}

/* Usable RAM for the page allocator: above the kernel image (which is
 * above 1 MiB, the BIOS area and the trampoline page) and not the
 * multiboot structures. */
static void ram_clip(void)
{
	uint64_t floor = (uintptr_t)_kernel_end;
	uint64_t mb_lo = boot.info_lo, mb_hi = boot.info_hi;

	if (floor < LOW_MEMORY_END)
		floor = LOW_MEMORY_END;
	nram = 0;
	for (unsigned i = 0; i < boot.nram; i++) {
		uint64_t lo = boot.ram[i].base, hi = boot.ram[i].base + boot.ram[i].size;

		if (lo < floor)
			lo = floor;
		if (hi <= lo)
			continue;
		if (mb_hi > lo && mb_lo < hi) {		/* cut the hole out */
			ram_add(lo, mb_lo, &nram, ram);
			ram_add(mb_hi, hi, &nram, ram);
		} else {
			ram_add(lo, hi, &nram, ram);
		}
	}
}

uintptr_t pc_rsdp(void)
{
	return rsdp;
}

/* The screen console, where the board links dev/fbcon. */
#pragma weak fbcon_init
#pragma weak fbcon_putc

/* Console output by COM1's "THR empty" interrupt (kernel/console.h); the
 * screen is written as the bytes go into the ring. */
static bool com1_tx_room(void) { return uart16550_tx_room(&com1); }
static void com1_tx_put(char c) { uart16550_tx_put(&com1, c); }
static void com1_tx_irq(bool on) { uart16550_tx_irq(&com1, on); }
static struct console_tx_ops com1_tx = {
	.room = com1_tx_room, .put = com1_tx_put, .irq = com1_tx_irq,
	.fifo = UART16550_TX_FIFO,
};
static int com1_rx_getc(bool *overrun) { return uart16550_getc(&com1, overrun); }
static void com1_rx_irq(bool on) { uart16550_rx_irq(&com1, on); }
static const struct console_rx_ops com1_rx = { .get = com1_rx_getc, .irq = com1_rx_irq };

void board_early_init(uintptr_t bootarg)
{
	const char *how = "?";
	char err[120];

	uart16550_init(&com1, CONSOLE_BAUD);
	if (!multiboot_read(x86_boot_magic, bootarg, &boot, err, sizeof err)) {
		printf("%s: %s\n", board_name, err);
		board_exit(3);
	}
	/* The loader's RSDP copy first (the only one under UEFI), else the
	 * BIOS-area scan, which reads page 0: before paging_init. */
	rsdp = boot.has_rsdp ? (uintptr_t)boot.rsdp : acpi_find_rsdp();
	paging_init(boot.memmap, boot.nmemmap);
	ram_clip();
	if (boot.fb.kind != FB_NONE && fbcon_init) {
		if (boot.fb.kind == FB_RGB)
			paging_map_framebuffer(boot.fb.addr,
					       (uint64_t)boot.fb.pitch * boot.fb.height);
		fbcon_init(&boot.fb);
	}
	printf("%s: multiboot %d from \"%s\"%s, %u memory ranges, ACPI RSDP %s\n",
	       board_name, boot.protocol, boot.loader, boot.efi ? " under UEFI" : "",
	       boot.nmemmap, !rsdp ? "not found" :
	       boot.has_rsdp ? "from the loader" : "from the BIOS area");
	if (boot.fb.kind == FB_RGB)
		printf("%s: framebuffer %ux%u, %u bpp at 0x%llx\n", board_name,
		       boot.fb.width, boot.fb.height, boot.fb.bpp,
		       (unsigned long long)boot.fb.addr);
	else if (boot.fb.kind == FB_EGA_TEXT)
		printf("%s: VGA text console %ux%u\n", board_name, boot.fb.width,
		       boot.fb.height);
	tsc_hz = tsc_calibrate(&how);
	if (!tsc_hz) {
		printf("%s: cannot tell the TSC frequency: CPUID does not state it "
		       "and neither the PIT nor the HPET counts\n", board_name);
		board_exit(3);
	}
	printf("%s: TSC %llu.%03llu MHz (%s)\n", board_name,
	       (unsigned long long)(tsc_hz / 1000000),
	       (unsigned long long)(tsc_hz / 1000 % 1000), how);
}

void board_init(void)
{
	struct acpi_madt madt;
	uint64_t lapic_base = LAPIC_DEFAULT_BASE;

	if (acpi_read_madt(rsdp, &madt)) {
		lapic_base = madt.lapic_base;
		if (madt.ncpus_ignored)
			printf("%s: %u cores beyond MAX_CPUS=%d ignored\n", board_name,
			       madt.ncpus_ignored, MAX_CPUS);
	} else {
		printf("%s: no ACPI MADT: running on the boot core only\n", board_name);
		madt.ncpus = 0;
		madt.pcat_compat = true;
	}
	if (madt.pcat_compat)
		pic_disable(VEC_PIC_BASE);
	lapic_init(lapic_base, tsc_hz);

	/* COM1's receive interrupt, through the IOAPIC to the boot core. */
	uint32_t com1_gsi = COM1_ISA_IRQ;
	if (madt.ioapic_base) {
		uint16_t fl = madt.isa_flags[COM1_ISA_IRQ];
		com1_gsi = madt.isa_gsi[COM1_ISA_IRQ];
		ioapic_init(madt.ioapic_base);
		irqs.ioapic = true;
		irqs.boot_apic = lapic_id();
		for (unsigned i = 0; i < 16; i++)
			irqs.isa_gsi[i] = madt.isa_gsi[i];
		ioapic_route(com1_gsi, VEC_COM1, lapic_id(),
			     ((fl >> 2) & 3) == MPS_TRIGGER_LEVEL,
			     (fl & 3) == MPS_POLARITY_LOW);
		console_rx_attach(&com1_rx);
		if (fbcon_putc)
			com1_tx.mirror = fbcon_putc;
		console_tx_attach(&com1_tx);
	} else {
		printf("%s: no IOAPIC in the MADT: console input is not available\n",
		       board_name);
	}

	/* cpus[0] is the boot core, whatever its APIC id; then MADT order. */
	uint32_t me = lapic_id();
	cpus[0].hwid = me;
	ncpus = 1;
	for (unsigned i = 0; i < madt.ncpus; i++)
		if (madt.apic_id[i] != me)
			cpus[ncpus++].hwid = madt.apic_id[i];
	/* The secondary cores start in real mode at TRAMPOLINE_BASE: it must
	 * be RAM. It always is under QEMU's firmwares; a PC's UEFI could keep
	 * low pages for itself. */
	bool tramp_ram = false;
	for (unsigned i = 0; i < boot.nram; i++)
		tramp_ram |= boot.ram[i].base <= TRAMPOLINE_BASE &&
			     TRAMPOLINE_BASE + PAGE <= boot.ram[i].base + boot.ram[i].size;
	if (ncpus > 1 && !tramp_ram)
		printf("%s: warning: the AP start page 0x%x is not RAM in the firmware's "
		       "memory map; the other cores may not start\n", board_name,
		       TRAMPOLINE_BASE);
	printf("%s: %u cores, %s, timer %s (%llu kHz), COM1 on GSI %u\n",
	       board_name, ncpus, lapic_x2apic() ? "x2APIC" : "xAPIC",
	       lapic_tsc_deadline() ? "TSC-deadline" : "one-shot",
	       (unsigned long long)(lapic_timer_hz() / 1000), com1_gsi);
}

const char *board_cmdline(void)
{
	return boot.cmdline;
}

bool board_mem_region(unsigned i, uintptr_t *base, uintptr_t *size)
{
	if (i >= nram)
		return false;
	*base = ram[i].base;
	*size = ram[i].size;
	return true;
}

bool board_start_cpu(unsigned id)
{
	return x86_start_ap(&cpus[id]);
}

void board_cpu_init(void)
{
	lapic_cpu_init();
}

void board_putc(char c)
{
	uart16550_putc(&com1, c);
	if (fbcon_putc)
		fbcon_putc(c);
}

void board_ipi_send(unsigned id)
{
	lapic_send_ipi(cpus[id].hwid, VEC_IPI);
}

void board_ipi_wake_idle(unsigned id)
{
	board_ipi_send(id);	/* hlt ends on an interrupt */
}

void board_timer_arm(uint64_t deadline)
{
	lapic_timer_arm(deadline);
}

uint64_t board_counter_hz(void)
{
	return tsc_hz;
}

/* From isr.S/trap.c for vectors >= 32, interrupts masked. The APIC is
 * acknowledged before the kernel's handler runs: that handler may switch
 * away and come back much later, and the in-service bit must not block
 * the next interrupt meanwhile. Interrupts stay masked until iretq, so
 * the early EOI cannot let a second one in on this stack. */
bool pc_route_device_irq(unsigned line, uint8_t vec)
{
	if (!irqs.ioapic || line >= 16)
		return false;
	/* A PCI INTx: level-triggered, whatever the ISA override says of
	 * the line's polarity (QEMU's IOAPIC takes the level as it is). */
	ioapic_route(irqs.isa_gsi[line], vec, irqs.boot_apic, true, false);
	return true;
}

void board_irq(struct trapframe *tf)
{
	switch (tf->vector) {
	case VEC_TIMER:
		lapic_eoi();
		kernel_timer_interrupt(tf);
		break;
	case VEC_IPI:
		lapic_eoi();
		kernel_ipi_interrupt(tf);
		break;
	case VEC_COM1:
		console_rx_interrupt();	/* drain RBR, or mask RDA: ring full */
		console_tx_interrupt();	/* refill THR (or THRI off) */
		uart16550_irq_rearm(&com1);	/* an edge for what is left */
		lapic_eoi();
		kernel_console_interrupt(tf);
		break;
	case VEC_SPURIOUS:
		break;			/* no EOI for the spurious vector */
	default:
		if (tf->vector >= VEC_PCI_BASE && tf->vector < VEC_PCI_BASE + PC_MAX_DEV_IRQS) {
			struct pc_dev_irq *d = &pc_dev_irqs[tf->vector - VEC_PCI_BASE];
			void (*h)(void *) = __atomic_load_n(&d->handler, __ATOMIC_ACQUIRE);
			if (h)
				h(d->arg);	/* acknowledges: the level drops */
			lapic_eoi();
			netpoll_kick(tf);	/* may not return */
			break;
		}
		if (tf->vector >= VEC_PIC_BASE && tf->vector < VEC_PIC_END)
			break;		/* a masked 8259's spurious IRQ 7/15 */
		printf("%s: unexpected interrupt vector %lu on core %u\n", board_name,
		       (unsigned long)tf->vector, this_cpu()->id);
		lapic_eoi();
		break;
	}
}
