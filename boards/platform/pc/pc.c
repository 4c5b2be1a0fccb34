/*
 * The PC platform: an x86-64 PC booted as a multiboot 1 image (QEMU's
 * -kernel, or GRUB). Console on COM1 (a 16550 by port); memory and the
 * command line from the multiboot information; cores from the ACPI MADT,
 * started by INIT-SIPI-SIPI through the trampoline (arch/x86_64/smp.c);
 * interrupts and the timer from each core's local APIC, its rate from the
 * TSC calibrated against the PIT (tsc.c); COM1's receive interrupt through
 * the IOAPIC (ioapic.c). All of kernel/board.h but
 * board_exit, which is the board's (boards/<name>/board.c; its board.c).
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "boards/platform/pc/acpi.h"
#include "boards/platform/pc/ioapic.h"
#include "arch/x86_64/io.h"
#include "arch/x86_64/lapic.h"
#include "arch/x86_64/paging.h"
#include "boards/platform/pc/pic.h"
#include "arch/x86_64/smp.h"
#include "boards/platform/pc/tsc.h"
#include "arch/x86_64/x86.h"
#include "kernel/board.h"
#include "kernel/console_in.h"
#include "kernel/dev/uart16550.h"
#include "kernel/percpu.h"
#include "kernel/trap.h"

const char board_name[] = GMK_BOARD;

#define CONSOLE_BAUD		115200
#define COM1_ISA_IRQ		4
#define VEC_COM1		0x50	/* above the local APIC's own vectors */
#define LOW_MEMORY_END		0x100000ull	/* below: BIOS, trampoline */
#define LAPIC_DEFAULT_BASE	0xfee00000ull

/* Multiboot 1 information (the parts we read). */
#define MBI_FLAG_CMDLINE	(1u << 2)
#define MBI_FLAG_MMAP		(1u << 6)
#define MBI_SIZE		88
#define MBI_CMDLINE		16
#define MBI_MMAP_LENGTH		44
#define MBI_MMAP_ADDR		48
#define MMAP_TYPE_RAM		1

#define MAX_MAP			64
#define CMDLINE_MAX		1024
#define PAGE			4096ull

static char cmdline[CMDLINE_MAX];
static struct phys_range memmap[MAX_MAP];	/* every firmware range */
static unsigned nmemmap;
static struct phys_range ram[MAX_MAP];		/* for the page allocator */
static unsigned nram;
static uintptr_t rsdp;
static uint64_t tsc_hz;
static uint64_t mb_lo = UINT64_MAX, mb_hi;	/* the multiboot structures */

/* COM1 in I/O space: the 16550 driver reaches it through these. */
static uint8_t port_read(uintptr_t port) { return inb((uint16_t)port); }
static void port_write(uintptr_t port, uint8_t v) { outb((uint16_t)port, v); }
static const struct uart16550 com1 = {
	.base = UART16550_COM1, .clock_hz = UART16550_CLOCK_PC,
	.read = port_read, .write = port_write,
};

extern uint32_t x86_boot_magic;			/* start.S */
extern char _kernel_end[];

static void mb_note(uint64_t addr, uint64_t len)
{
	if (addr < mb_lo)
		mb_lo = addr;
	if (addr + len > mb_hi)
		mb_hi = addr + len;
}

static uint32_t rd32(uintptr_t a)
{
	return *(const volatile uint32_t *)a;
}

/* Copy what we need out of the multiboot information: the command line
 * and the memory map. Both are kept here, so the loader's copies die. */
static void multiboot_read(uintptr_t mbi)
{
	uint32_t flags = rd32(mbi);

	mb_note(mbi, MBI_SIZE);
	if (flags & MBI_FLAG_CMDLINE) {
		const char *s = (const char *)(uintptr_t)rd32(mbi + MBI_CMDLINE);
		size_t n = strnlen(s, CMDLINE_MAX - 1);

		mb_note((uintptr_t)s, n + 1);
		/* Loaders (QEMU, GRUB) put the image's path first: drop it. */
		while (n && *s != ' ')
			s++, n--;
		while (n && *s == ' ')
			s++, n--;

		memcpy(cmdline, s, n);
		cmdline[n] = 0;
	}
	if (!(flags & MBI_FLAG_MMAP)) {
		printf("%s: the loader passed no memory map\n", board_name);
		board_exit(3);
	}
	uintptr_t p = rd32(mbi + MBI_MMAP_ADDR);
	uintptr_t end = p + rd32(mbi + MBI_MMAP_LENGTH);
	mb_note(p, end - p);
	/* Each entry: u32 size (of the rest), u64 base, u64 length, u32 type. */
	for (; p < end && nmemmap < MAX_MAP; p += rd32(p) + 4) {
		uint64_t base, len;
		uint32_t type = rd32(p + 20);

		memcpy(&base, (const void *)(p + 4), 8);
		memcpy(&len, (const void *)(p + 12), 8);
		if (!len)
			continue;
		memmap[nmemmap++] = (struct phys_range){ base, len };
		if (type == MMAP_TYPE_RAM && nram < MAX_MAP)
			ram[nram++] = (struct phys_range){ base, len };
	}
}

static void ram_add(uint64_t lo, uint64_t hi, unsigned *n, struct phys_range *out)
{
	lo = (lo + PAGE - 1) & ~(PAGE - 1);
	hi &= ~(PAGE - 1);
	if (hi > lo && *n < MAX_MAP)
		out[(*n)++] = (struct phys_range){ lo, hi - lo };
}

/* Usable RAM for the page allocator: above the kernel image (which is
 * above 1 MiB, the BIOS area and the trampoline page) and not the
 * multiboot structures. */
static void ram_clip(void)
{
	struct phys_range out[MAX_MAP];
	unsigned n = 0;
	uint64_t floor = (uintptr_t)_kernel_end;

	if (floor < LOW_MEMORY_END)
		floor = LOW_MEMORY_END;
	for (unsigned i = 0; i < nram; i++) {
		uint64_t lo = ram[i].base, hi = ram[i].base + ram[i].size;

		if (lo < floor)
			lo = floor;
		if (hi <= lo)
			continue;
		if (mb_hi > lo && mb_lo < hi) {		/* cut the hole out */
			ram_add(lo, mb_lo, &n, out);
			ram_add(mb_hi, hi, &n, out);
		} else {
			ram_add(lo, hi, &n, out);
		}
	}
	memcpy(ram, out, n * sizeof out[0]);
	nram = n;
}

void board_early_init(uintptr_t bootarg)
{
	const char *how = "?";

	uart16550_init(&com1, CONSOLE_BAUD);
	if (x86_boot_magic != MULTIBOOT_BOOT_MAGIC) {
		printf("%s: not started by a multiboot loader (magic 0x%x)\n",
		       board_name, x86_boot_magic);
		board_exit(3);
	}
	multiboot_read(bootarg);
	rsdp = acpi_find_rsdp();	/* reads page 0: before paging_init */
	paging_init(memmap, nmemmap);
	ram_clip();
	tsc_hz = tsc_calibrate(&how);
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
		ioapic_route(com1_gsi, VEC_COM1, lapic_id(),
			     ((fl >> 2) & 3) == MPS_TRIGGER_LEVEL,
			     (fl & 3) == MPS_POLARITY_LOW);
		uart16550_rx_irq_enable(&com1);
		console_rx_irq_enabled = true;
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
	printf("%s: %u cores, %s, timer %s (%llu kHz), COM1 on GSI %u\n",
	       board_name, ncpus, lapic_x2apic() ? "x2APIC" : "xAPIC",
	       lapic_tsc_deadline() ? "TSC-deadline" : "one-shot",
	       (unsigned long long)(lapic_timer_hz() / 1000), com1_gsi);
}

const char *board_cmdline(void)
{
	return cmdline;
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
}

void board_ipi_send(unsigned id)
{
	lapic_send_ipi(cpus[id].hwid, VEC_IPI);
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
		for (int ch; (ch = uart16550_getc(&com1)) >= 0;)
			console_rx_put((uint8_t)ch);
		lapic_eoi();
		kernel_console_interrupt(tf);
		break;
	case VEC_SPURIOUS:
		break;			/* no EOI for the spurious vector */
	default:
		if (tf->vector >= VEC_PIC_BASE && tf->vector < VEC_PIC_END)
			break;		/* a masked 8259's spurious IRQ 7/15 */
		printf("%s: unexpected interrupt vector %lu on core %u\n", board_name,
		       (unsigned long)tf->vector, this_cpu()->id);
		lapic_eoi();
		break;
	}
}
