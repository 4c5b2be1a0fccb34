/*
 * The arm64 device-tree platform: an aarch64 machine that describes
 * itself in the DTB its loader passes (QEMU virt, Raspberry Pi 3 and 4).
 * Everything the kernel asks of a board (kernel/board.h) is answered here
 * from the DTB: RAM (/memory, less the kernel, the tables, the DTB and its
 * reservations), the command line (/chosen/bootargs), the console (the
 * PL011 /chosen/stdout-path names), the interrupt controller (the driver
 * whose compatible matches, kernel/irq/irqchip.h), the timer interrupt
 * (/timer), and the cores (/cpus, each started by PSCI CPU_ON or by its
 * spin table). A board's DTB when the loader passes none is its own
 * board.dts, built in (arch/aarch64/mmu.c, boot_dtb).
 *
 * How the machine is left has a default here (board_exit, below: the
 * Raspberry Pis' way); a board that leaves otherwise writes its own
 * board_exit in its board.c from the pieces in arm64-dt.h.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "kernel/cpu.h"
#include "arch/aarch64/mmu.h"
#include "arch/aarch64/psci.h"
#include "arch/aarch64/semihost.h"
#include "arch/aarch64/timer.h"
#include "boards/platform/arm64-dt/arm64-dt.h"
#include "kernel/board.h"
#include "kernel/cmdline.h"
#include "kernel/console.h"
#include "kernel/console_in.h"
#include "kernel/dev/pl011.h"
#include "kernel/irq/irqchip.h"
#include "kernel/page.h"
#include "kernel/panic.h"
#include "kernel/percpu.h"
#include "kernel/sched_hooks.h"
#include "kernel/spinlock.h"

const char board_name[] = GMK_BOARD;

#define TIMER_DT_VIRT_INDEX	2	/* /timer interrupts: sec, nonsec, virt, hyp */
#define MPIDR_AFF_MASK		0xff00ffffffull
#define MAX_MEM_REGIONS		16
#define SPIN_TABLE_SLOTS	8	/* cores by MPIDR.Aff0 */

extern char _kernel_end[];
extern char secondary_entry[], spin_table_entry[];

struct fdt arm64_dt;
static char cmdline[CMDLINE_MAX + 2];	/* cmdline_copy's */
static uint64_t counter_hz;
static const struct irqchip *chip;
static int chip_node = -1, cascade_node = -1;	/* their DT nodes */
static unsigned timer_irq;
static int uart_node = -1;		/* the console PL011's DT node */
static unsigned uart_irq = IRQ_SPURIOUS;	/* its receive interrupt */
static const void *uart_irq_spec;

/* virtio-mmio slots ("virtio,mmio" nodes: QEMU virt lists 32), and the
 * device interrupts routed to a driver's handler (board_virtio_mmio_irq). */
#define MAX_VIRTIO_MMIO		32
#define MAX_DEV_IRQS		8
static struct { uintptr_t base; unsigned irq; const void *spec; } vmmio[MAX_VIRTIO_MMIO];
static unsigned nvmmio;
static struct dev_irq {
	unsigned irq;
	void (*handler)(void *);	/* set last: the entry is complete */
	void *arg;
} dev_irqs[MAX_DEV_IRQS];
static struct spinlock dev_irq_lock = SPINLOCK_INIT("dev_irq");

/* How each core is started: by PSCI, or by writing its spin table. */
static struct {
	uint64_t mpidr;		/* full MPIDR affinity */
	uint64_t release;	/* spin-table release address, 0 for PSCI */
} core[MAX_CPUS];

/* spin_table_entry (spintable.S) reads its struct cpu * here, by Aff0,
 * with the MMU off: the boot core cleans it to memory before release. */
uintptr_t spin_table_cpu[SPIN_TABLE_SLOTS];

static struct { uintptr_t base, end; } mem[MAX_MEM_REGIONS];
static unsigned nmem;

/* The drivers a board links (board.mk's DRIVERS); the others are NULL. */
#pragma weak gicv2_driver
#pragma weak gicv3_driver
#pragma weak bcm2836_local_driver
static const struct irqchip *const chips[] = {
	&gicv3_driver, &gicv2_driver, &bcm2836_local_driver,
};

static int chosen(void)
{
	return fdt_path_offset(&arm64_dt, "/chosen");
}

static bool chosen_has(const char *prop)
{
	uint32_t len;

	return arm64_dt.blob && fdt_getprop(&arm64_dt, chosen(), prop, &len) != NULL;
}

/* ---- console ------------------------------------------------------------ */

/* The PL011 that /chosen/stdout-path names ("/pl011@9000000:115200",
 * "serial0:115200n8" through /aliases), else the first PL011. */
static uintptr_t find_uart(void)
{
	const char *sp = fdt_prop_string(&arm64_dt, chosen(), "stdout-path");
	uint64_t addr, size;
	char path[128];
	int node = -1;

	if (sp && strcspn(sp, ":") < sizeof path) {
		size_t n = strcspn(sp, ":");
		memcpy(path, sp, n);
		path[n] = 0;
		if (path[0] != '/') {		/* an alias */
			const char *a = fdt_prop_string(&arm64_dt,
				fdt_path_offset(&arm64_dt, "/aliases"), path);
			path[0] = 0;
			if (a && strlen(a) < sizeof path)
				strcpy(path, a);
		}
		node = path[0] ? fdt_path_offset(&arm64_dt, path) : -1;
		if (node >= 0 && !fdt_is_compatible(&arm64_dt, node, "arm,pl011"))
			node = -1;
	}
	if (node < 0)
		node = fdt_find_compatible(&arm64_dt, -1, "arm,pl011");
	if (node >= 0 && fdt_reg_phys(&arm64_dt, node, 0, &addr, &size)) {
		uart_node = node;
		return (uintptr_t)addr;
	}
#ifdef BOARD_UART_FALLBACK
	return BOARD_UART_FALLBACK;
#else
	return 0;			/* no console */
#endif
}

void board_putc(char c)
{
	pl011_putc(c);
}

/* Console output by the UART's transmit interrupt (kernel/console.h). */
static void uart_tx_put(char c) { pl011_tx_put(c); }
static const struct console_tx_ops uart_tx = {
	.room = pl011_tx_room, .put = uart_tx_put, .irq = pl011_tx_irq,
	.fifo = PL011_TX_FIFO,
};
static const struct console_rx_ops uart_rx = {
	.get = pl011_getc, .irq = pl011_rx_irq,
};

/* ---- memory ------------------------------------------------------------- */

/* Take [lo, hi) out of the usable regions, splitting one if needed. */
static void mem_reserve(uintptr_t lo, uintptr_t hi)
{
	for (unsigned i = 0; i < nmem; i++) {
		uintptr_t b = mem[i].base, e = mem[i].end;
		if (hi <= b || lo >= e)
			continue;
		if (lo > b && hi < e && nmem < MAX_MEM_REGIONS) {
			mem[nmem].base = hi;		/* the upper part */
			mem[nmem].end = e;
			nmem++;
			mem[i].end = lo;
		} else if (lo <= b) {
			mem[i].base = hi < e ? hi : e;
		} else {
			mem[i].end = lo;
		}
	}
}

/*
 * Usable RAM: what the MMU mapped, minus everything up to the kernel's end
 * (what lies below it is the loader's: the DTB at RAM start on QEMU virt,
 * the spin table on a Pi), the translation tables, the DTB itself and its
 * reserved ranges.
 */
static void mem_setup(void)
{
	uintptr_t b, s, tlo, thi;
	uint64_t ra, rs;

	for (unsigned i = 0; mmu_ram_region(i, &b, &s) && nmem < MAX_MEM_REGIONS; i++) {
		mem[nmem].base = b;
		mem[nmem].end = b + s;
		nmem++;
	}
	mem_reserve(0, (uintptr_t)_kernel_end);
	mmu_tables_range(&tlo, &thi);
	mem_reserve(tlo, thi);
	if (arm64_dt.blob)
		mem_reserve((uintptr_t)arm64_dt.blob & ~(PAGE_SIZE - 1),
			    (uintptr_t)arm64_dt.blob + arm64_dt.size);
	for (unsigned i = 0; fdt_memreserve(&arm64_dt, i, &ra, &rs); i++)
		mem_reserve((uintptr_t)ra, (uintptr_t)(ra + rs));
}

bool board_mem_region(unsigned i, uintptr_t *base, uintptr_t *size)
{
	for (unsigned k = 0; k < nmem; k++) {
		uintptr_t b = (mem[k].base + PAGE_SIZE - 1) & ~(PAGE_SIZE - 1);
		uintptr_t e = mem[k].end & ~(PAGE_SIZE - 1);
		if (e <= b)
			continue;
		if (i-- == 0) {
			*base = b;
			*size = e - b;
			return true;
		}
	}
	return false;
}

/* ---- boot --------------------------------------------------------------- */

static void psci_setup(void)
{
	int node = fdt_path_offset(&arm64_dt, "/psci");
	if (node < 0)
		node = fdt_find_compatible(&arm64_dt, -1, "arm,psci-0.2");
	if (node < 0)
		node = fdt_find_compatible(&arm64_dt, -1, "arm,psci");
	const char *method = fdt_prop_string(&arm64_dt, node, "method");

	if (method && strcmp(method, "hvc") == 0)
		psci_init(PSCI_HVC);
	else if (method && strcmp(method, "smc") == 0)
		psci_init(PSCI_SMC);
	else
		psci_init(PSCI_NONE);
}

void board_early_init(uintptr_t bootarg)
{
	if (!fdt_init(&arm64_dt, (const void *)bootarg))
		arm64_dt.blob = NULL;
	pl011_init(find_uart());
	if (!arm64_dt.blob)
		printf("%s: no valid DTB (bootarg 0x%lx): one core, no command line\n",
		       board_name, (unsigned long)bootarg);

	const char *args = fdt_prop_string(&arm64_dt, chosen(), "bootargs");
	/* A Raspberry Pi's firmware puts Linux options of its own before
	 * cmdline.txt's text (make image writes it as "-- options"). */
	args = cmdline_after_loader(args);
	cmdline_copy(cmdline, args, SIZE_MAX);	/* longer: cmdline_parse refuses it */

	counter_hz = gtimer_freq();	/* 62.5 MHz on QEMU, 19.2/54 MHz on a Pi 3/4 */
	mem_setup();
	psci_setup();
}

const char *board_cmdline(void)
{
	return cmdline;
}

uint64_t board_counter_hz(void)
{
	return counter_hz;
}

static void cascade_setup(struct irqchip_config *cfg)
{
	const char *const *co = chip->cascade_compatible;
	uint64_t a, sz;

	for (; co && *co; co++) {
		int node = fdt_find_compatible(&arm64_dt, -1, *co);
		if (node < 0)
			continue;
		cfg->cascade_node = node;
		if (fdt_reg_phys(&arm64_dt, node, 0, &a, &sz))
			cfg->cascade_reg = (uintptr_t)a;
		return;
	}
}

/* The first interrupt controller in the DTB that a linked driver knows,
 * and the controller chained into it if the driver has one. */
static bool irqchip_setup(struct irqchip_config *cfg)
{
	memset(cfg, 0, sizeof *cfg);
	cfg->cascade_node = -1;
	for (unsigned c = 0; c < sizeof chips / sizeof chips[0]; c++) {
		if (!chips[c])
			continue;		/* not linked into this board */
		for (const char *const *co = chips[c]->compatible; *co; co++) {
			int node = fdt_find_compatible(&arm64_dt, -1, *co);
			if (node < 0)
				continue;
			uint32_t nredist = 1;
			fdt_prop_u32(&arm64_dt, node, "#redistributor-regions", &nredist);
			cfg->nredist = nredist;
			uint64_t a, s;
			while (cfg->nreg < IRQCHIP_MAX_REGS &&
			       fdt_reg_phys(&arm64_dt, node, cfg->nreg, &a, &s)) {
				cfg->reg[cfg->nreg] = (uintptr_t)a;
				cfg->reg_size[cfg->nreg++] = s;
			}
			chip = chips[c];
			chip_node = node;
			cascade_setup(cfg);
			cascade_node = cfg->cascade_node;
			return true;
		}
	}
	return false;
}

/* The virtual timer's interrupt: entry 2 of /timer's interrupts, in the
 * controller's own cells; the driver's default if the DT does not say. */
static void timer_setup(void)
{
	int node = fdt_find_compatible(&arm64_dt, -1, "arm,armv8-timer");
	uint32_t len, freq;

	if (node < 0)
		node = fdt_find_compatible(&arm64_dt, -1, "arm,armv7-timer");
	const uint8_t *irqs = fdt_getprop(&arm64_dt, node, "interrupts", &len);
	uint32_t entry = 4 * chip->dt_cells;

	timer_irq = chip->timer;
	if (irqs && len >= (TIMER_DT_VIRT_INDEX + 1) * entry) {
		unsigned irq = chip->dt_irq(irqs + TIMER_DT_VIRT_INDEX * entry);
		if (irq != IRQ_SPURIOUS)
			timer_irq = irq;
	}
	/* Firmware that forgot CNTFRQ_EL0 states the rate here. */
	if (fdt_prop_u32(&arm64_dt, node, "clock-frequency", &freq) && freq)
		counter_hz = freq;
}

/* The controller a device's interrupts are specified for: the node
 * that its own or its nearest ancestor's interrupt-parent names (by
 * phandle); -1 if none names one. */
static int interrupt_parent(int node)
{
	uint32_t ph = 0, p;

	for (; node >= 0; node = fdt_parent(&arm64_dt, node))
		if (fdt_prop_u32(&arm64_dt, node, "interrupt-parent", &ph))
			break;
	if (node < 0)
		return -1;
	for (int n = fdt_next_node(&arm64_dt, -1); n >= 0; n = fdt_next_node(&arm64_dt, n))
		if ((fdt_prop_u32(&arm64_dt, n, "phandle", &p) ||
		     fdt_prop_u32(&arm64_dt, n, "linux,phandle", &p)) && p == ph)
			return n;
	return -1;
}

/* The console PL011's interrupt, if the controller's driver can route
 * it (kernel/console_in.h: input then wakes a G through the poller). Its
 * specifier is in the cells of the controller its interrupt-parent
 * names: the driver's own, or the one chained into it (BCM2835 ARM
 * controller on the Pi 3); a DT without interrupt-parent means the
 * driver's own. A parent the driver does not know leaves input polled,
 * and says so. */
static void uart_irq_setup(void)
{
	uint32_t len = 0;
	const uint8_t *spec = uart_node < 0 ? NULL :
		fdt_getprop(&arm64_dt, uart_node, "interrupts", &len);

	if (!spec || !chip->enable_device)
		return;
	int parent = interrupt_parent(uart_node);
	unsigned cells = chip->dt_cells;
	unsigned (*to_irq)(const void *) = chip->dt_irq;
	if (parent >= 0 && parent != chip_node) {
		if (parent != cascade_node || !chip->cascade_dt_irq) {
			printf("%s: UART interrupt: its controller %s is not %s's; "
			       "input is polled\n", board_name,
			       fdt_node_name(&arm64_dt, parent), chip->name);
			return;
		}
		cells = chip->cascade_dt_cells;
		to_irq = chip->cascade_dt_irq;
	}
	if (len < 4 * cells)
		return;
	uart_irq = to_irq(spec);
	uart_irq_spec = spec;
}

/* A device node's interrupt as the controller's driver numbers it (the
 * driver's own cells only); IRQ_SPURIOUS when it has none we can route. */
static unsigned device_irq(int node, const void **specp)
{
	uint32_t len = 0;
	const uint8_t *spec = fdt_getprop(&arm64_dt, node, "interrupts", &len);
	int parent = interrupt_parent(node);

	if (!spec || !chip->enable_device || len < 4 * chip->dt_cells ||
	    (parent >= 0 && parent != chip_node))
		return IRQ_SPURIOUS;
	*specp = spec;
	return chip->dt_irq(spec);
}

/* The "virtio,mmio" nodes, in DTB order (QEMU's virt lists its 32
 * slots from the highest address down; a -device takes the lowest
 * free, so the order only has to be stable). */
static void virtio_mmio_setup(void)
{
	for (int n = fdt_find_compatible(&arm64_dt, -1, "virtio,mmio");
	     n >= 0 && nvmmio < MAX_VIRTIO_MMIO;
	     n = fdt_find_compatible(&arm64_dt, n, "virtio,mmio")) {
		uint64_t a, sz;
		if (!fdt_reg_phys(&arm64_dt, n, 0, &a, &sz))
			continue;
		vmmio[nvmmio].base = (uintptr_t)a;
		vmmio[nvmmio].irq = device_irq(n, &vmmio[nvmmio].spec);
		nvmmio++;
	}
}

bool board_virtio_mmio(unsigned i, uintptr_t *base)
{
	if (i >= nvmmio)
		return false;
	*base = vmmio[i].base;
	return true;
}

bool board_virtio_mmio_irq(unsigned i, void (*handler)(void *), void *arg)
{
	if (i >= nvmmio || vmmio[i].irq == IRQ_SPURIOUS)
		return false;
	unsigned long flags = spin_lock_irqsave(&dev_irq_lock);
	struct dev_irq *d = NULL;
	for (unsigned k = 0; k < MAX_DEV_IRQS && !d; k++)
		if (!dev_irqs[k].handler || dev_irqs[k].irq == vmmio[i].irq)
			d = &dev_irqs[k];
	if (d) {
		d->irq = vmmio[i].irq;
		d->arg = arg;
		__atomic_store_n(&d->handler, handler, __ATOMIC_RELEASE);
		/* The distributor is global: from any core, to the boot core. */
		chip->enable_device(vmmio[i].irq, vmmio[i].spec);
	}
	spin_unlock_irqrestore(&dev_irq_lock, flags);
	return d != NULL;
}

static uint32_t mpidr_pack(uint64_t mpidr)
{
	return (uint32_t)(mpidr & 0xffffff) | (uint32_t)((mpidr >> 32) & 0xff) << 24;
}

/* How /cpus/cpu@N says it is started; false: it cannot be. */
static bool cpu_method(int node, uint64_t mpidr, uint64_t *release)
{
	const char *m = fdt_prop_string(&arm64_dt, node, "enable-method");
	uint32_t len;
	const uint8_t *r = fdt_getprop(&arm64_dt, node, "cpu-release-addr", &len);

	*release = 0;
	if (m && strcmp(m, "spin-table") == 0) {
		if (!r || (len != 4 && len != 8) || (mpidr & ~0xffull) ||
		    (mpidr & 0xff) >= SPIN_TABLE_SLOTS) {
			printf("%s: core 0x%lx: spin-table without a usable "
			       "cpu-release-addr\n", board_name, (unsigned long)mpidr);
			return false;
		}
		*release = fdt_read_cells(r, len / 4);
		return true;
	}
	return psci_available();	/* "psci", or no method: PSCI if present */
}

/* The cores: /cpus/cpu@N with reg = MPIDR affinity. The boot core is
 * cpus[0]; the others follow in DTB order. */
static void cpus_setup(unsigned max)
{
	uint64_t boot = sysreg_read(mpidr_el1) & MPIDR_AFF_MASK;
	int parent = fdt_path_offset(&arm64_dt, "/cpus");
	unsigned n = 1;

	core[0].mpidr = boot;
	cpus[0].hwid = mpidr_pack(boot);
	for (int node = fdt_first_child(&arm64_dt, parent); node >= 0;
	     node = fdt_next_sibling(&arm64_dt, node)) {
		const char *type = fdt_prop_string(&arm64_dt, node, "device_type");
		const char *status = fdt_prop_string(&arm64_dt, node, "status");
		uint64_t mpidr, unused, release;

		if (!type || strcmp(type, "cpu") != 0 ||
		    (status && strcmp(status, "okay") != 0 && strcmp(status, "ok") != 0) ||
		    !fdt_reg(&arm64_dt, node, 0, &mpidr, &unused))
			continue;
		mpidr &= MPIDR_AFF_MASK;
		if (mpidr == boot || !cpu_method(node, mpidr, &release))
			continue;
		if (n == max) {
			printf("%s: more than %u cores; the rest stay off\n", board_name, max);
			break;
		}
		core[n].mpidr = mpidr;
		core[n].release = release;
		cpus[n].hwid = mpidr_pack(mpidr);
		n++;
	}
	ncpus = n;
}

void board_init(void)
{
	struct irqchip_config cfg;

	if (!arm64_dt.blob)
		panic("%s: no DTB: cannot find the interrupt controller", board_name);
	if (!irqchip_setup(&cfg))
		panic("%s: no interrupt controller in the DTB that this board's "
		      "drivers know", board_name);
	if (!chip->init(&cfg))
		panic("%s: %s at 0x%lx: unusable DT node", board_name, chip->name,
		      (unsigned long)cfg.reg[0]);
	timer_setup();
	uart_irq_setup();
	virtio_mmio_setup();
	cpus_setup(chip->max_cpus < MAX_CPUS ? chip->max_cpus : MAX_CPUS);

	int32_t v = psci_version();
	printf("%s: %s at 0x%lx, timer interrupt %u at %lu Hz, ",
	       board_name, chip->name, (unsigned long)cfg.reg[0], timer_irq,
	       (unsigned long)counter_hz);
	if (uart_irq != IRQ_SPURIOUS)
		printf("UART interrupt %u, ", uart_irq);
	printf("%u cores, ", ncpus);
	if (v >= 0)
		printf("PSCI %d.%d\n", v >> 16, v & 0xffff);
	else
		printf("no PSCI\n");
}

/*
 * A spin table (Documentation/arm64/booting.rst): the core waits in wfe
 * with its MMU off until its release address holds an entry point. That
 * address is firmware's, below the RAM gmk maps, so it is mapped for the
 * write; the core gets no argument, so spin_table_entry finds its struct
 * cpu by Aff0 in spin_table_cpu[].
 */
static bool spin_table_release(unsigned id)
{
	unsigned slot = core[id].mpidr & 0xff;
	uintptr_t rel = (uintptr_t)core[id].release;

	spin_table_cpu[slot] = (uintptr_t)&cpus[id];
	arch_dcache_clean_poc(&spin_table_cpu[slot], sizeof spin_table_cpu[slot]);
	mmu_map_boot_page(rel);
	*(volatile uint64_t *)rel = (uintptr_t)spin_table_entry;
	arch_send_event();
	mmu_unmap_boot_page(rel);
	return true;
}

bool board_start_cpu(unsigned id)
{
	if (core[id].release)
		return spin_table_release(id);
	int32_t r = psci_cpu_on(core[id].mpidr, (uintptr_t)secondary_entry,
				(uintptr_t)&cpus[id]);
	if (r != PSCI_SUCCESS)
		printf("%s: PSCI CPU_ON(0x%lx) failed: %d\n", board_name,
		       (unsigned long)core[id].mpidr, r);
	return r == PSCI_SUCCESS;
}

void board_cpu_init(void)
{
	struct cpu *c = this_cpu();

	if (!chip->cpu_init(c->id))
		panic("%s: core %u: no %s CPU interface", board_name, c->id, chip->name);
	gtimer_disarm();
	chip->enable_local(timer_irq);
	chip->enable_local(chip->ipi);
	if (c->id == 0 && uart_irq != IRQ_SPURIOUS) {	/* to the boot core */
		chip->enable_device(uart_irq, uart_irq_spec);
		console_rx_attach(&uart_rx);
		console_tx_attach(&uart_tx);	/* the same line: TX too */
	}
}

/* ---- interrupts and timer ------------------------------------------------- */

void board_ipi_send(unsigned id)
{
	chip->send_ipi(id, core[id].mpidr);
}

void board_ipi_wake_idle(unsigned id)
{
	board_ipi_send(id);	/* wfi ends on an interrupt */
}

void board_timer_arm(uint64_t deadline)
{
	if (deadline)
		gtimer_arm(deadline);
	else
		gtimer_disarm();
}

/*
 * One interrupt per entry: if another is pending the core takes the IRQ
 * again right after returning. EOI comes before the kernel's handler, so
 * a handler that never returns (IPI_STOP) leaves the controller clean;
 * the timer is disarmed first because its line stays asserted until then.
 */
static struct dev_irq *dev_irq_find(unsigned irq)
{
	for (unsigned k = 0; k < MAX_DEV_IRQS; k++)
		if (__atomic_load_n(&dev_irqs[k].handler, __ATOMIC_ACQUIRE) &&
		    dev_irqs[k].irq == irq)
			return &dev_irqs[k];
	return NULL;
}

void board_irq(struct trapframe *tf)
{
	struct dev_irq *dev;
	uint32_t token;
	unsigned irq = chip->ack(&token);

	if (irq == IRQ_SPURIOUS || irq >= 1020)	/* GIC special: nothing to EOI */
		return;
	if (irq == timer_irq) {
		gtimer_disarm();
		chip->eoi(token);
		kernel_timer_interrupt(tf);
	} else if (irq == chip->ipi) {
		chip->eoi(token);
		kernel_ipi_interrupt(tf);
	} else if (irq == uart_irq) {
		/* Level-triggered: drain the FIFO (the line drops) or, with
		 * the console's ring full, mask RX, first. */
		console_rx_interrupt();
		console_tx_interrupt();	/* refill the FIFO (or mask TX) */
		chip->eoi(token);
		kernel_console_interrupt(tf);
	} else if ((dev = dev_irq_find(irq)) != NULL) {
		dev->handler(dev->arg);		/* acknowledges the device */
		chip->eoi(token);
		netpoll_kick(tf);		/* may not return */
	} else {
		chip->eoi(token);
		printf("%s: core %u: unexpected interrupt %u\n", board_name,
		       this_cpu()->id, irq);
	}
}

/* ---- leaving ------------------------------------------------------------ */

void arm64_dt_console_flush(void)
{
	console_flush();	/* the ring, polled */
	pl011_flush();
}

void arm64_dt_power_off(int status)
{
	arch_irq_disable();
	console_flush();
	if (psci_available()) {
		/* PSCI SYSTEM_OFF carries no status: say it, for the log. */
		if (status != 0)
			printf("%s: exit status %d (lost: powering off by PSCI)\n",
			       board_name, status);
		pl011_flush();
		psci_system_off();
	}
	arm64_dt_halt(status);
}

void arm64_dt_halt(int status)
{
	arch_irq_disable();
	console_flush();
	stop_other_cpus();
	printf("%s: exit status %d (%s); halted\n", board_name, status,
	       status == 0 ? "success" : "failure");
	pl011_flush();
	arch_halt_forever();
}

/* The default, weak: a board's own board_exit replaces it (qemu-virt-arm64,
 * whose DTB is QEMU's). QEMU is left by semihosting when the DTB says
 * QEMU is listening (/chosen/gmk,semihosting, in a board.dts written for
 * QEMU: the Pis'); real hardware has nothing to return to and halts with
 * the status on the console. */
__attribute__((weak)) void board_exit(int status)
{
	arch_irq_disable();
	arm64_dt_console_flush();
	if (chosen_has("gmk,semihosting"))
		semihost_exit(status);
	arm64_dt_halt(status);
}
