/*
 * QEMU -M virt (aarch64). Everything is read from the DTB: RAM, cores
 * (PSCI), the GIC version and addresses, the timer interrupt, the UART
 * and the command line. Addresses seen on QEMU 7.2 are in REFERENCE.md;
 * none is assumed here except as a last-resort console.
 */
#include <stdio.h>
#include <string.h>

#include "arch/aarch64/cpu.h"
#include "arch/aarch64/mmu.h"
#include "arch/aarch64/psci.h"
#include "arch/aarch64/semihost.h"
#include "arch/aarch64/timer.h"
#include "kernel/board.h"
#include "kernel/dev/pl011.h"
#include "kernel/fdt.h"
#include "kernel/irq/gic.h"
#include "kernel/page.h"
#include "kernel/panic.h"
#include "kernel/percpu.h"

#ifndef GMK_SEMIHOSTING
#define GMK_SEMIHOSTING 0
#endif

const char board_name[] = "qemu-virt-arm64";

#define IPI_SGI			1	/* the kernel's IPI: SGI 1 */
#define TIMER_VIRT_PPI_DEFAULT	27	/* CNTV, when the DTB does not say */
#define TIMER_DT_VIRT_INDEX	2	/* /timer interrupts: sec, nonsec, virt, hyp */
#define UART_FALLBACK_BASE	0x09000000	/* virt's PL011 without a DTB */
#define GICV2_MAX_CPUS		8
#define MPIDR_AFF_MASK		0xff00ffffffull
#define CMDLINE_MAX		1024
#define MAX_MEM_REGIONS		16

extern char _kernel_end[];
extern char secondary_entry[];

static struct fdt fdt;
static char cmdline[CMDLINE_MAX];
static uint64_t counter_hz;
static const struct gic_driver *gic;
static unsigned timer_intid = TIMER_VIRT_PPI_DEFAULT;
static uint64_t cpu_mpidr[MAX_CPUS];	/* full MPIDR affinity per logical core */

static struct { uintptr_t base, end; } mem[MAX_MEM_REGIONS];
static unsigned nmem;

/* ---- console ------------------------------------------------------------ */

/* reg[0] of the node a /chosen/stdout-path names ("/pl011@9000000:115200"
 * or an alias), if it is a PL011. */
static bool stdout_uart(uintptr_t *base)
{
	int chosen = fdt_path_offset(&fdt, "/chosen");
	const char *sp = fdt_prop_string(&fdt, chosen, "stdout-path");
	char path[128];
	uint64_t addr, size;

	if (!sp)
		return false;
	size_t n = strcspn(sp, ":");
	if (n >= sizeof path)
		return false;
	memcpy(path, sp, n);
	path[n] = 0;
	if (path[0] != '/') {		/* an alias */
		const char *a = fdt_prop_string(&fdt, fdt_path_offset(&fdt, "/aliases"), path);
		if (!a || strlen(a) >= sizeof path)
			return false;
		strcpy(path, a);
	}
	int node = fdt_path_offset(&fdt, path);
	if (node < 0 || !fdt_is_compatible(&fdt, node, "arm,pl011") ||
	    !fdt_reg(&fdt, node, 0, &addr, &size))
		return false;
	*base = (uintptr_t)addr;
	return true;
}

static uintptr_t find_uart(void)
{
	uintptr_t base;
	uint64_t addr, size;

	if (stdout_uart(&base))
		return base;
	int node = fdt_find_compatible(&fdt, -1, "arm,pl011");
	if (node >= 0 && fdt_reg(&fdt, node, 0, &addr, &size))
		return (uintptr_t)addr;
	return UART_FALLBACK_BASE;
}

void board_putc(char c)
{
	pl011_putc(c);
}

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
 * (what lies below it is the loader's: the DTB at RAM start on QEMU), the
 * translation tables, the DTB itself and its reserved ranges.
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
	if (fdt.blob)
		mem_reserve((uintptr_t)fdt.blob & ~(PAGE_SIZE - 1),
			    (uintptr_t)fdt.blob + fdt.size);
	for (unsigned i = 0; fdt_memreserve(&fdt, i, &ra, &rs); i++)
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
	int node = fdt_path_offset(&fdt, "/psci");
	if (node < 0)
		node = fdt_find_compatible(&fdt, -1, "arm,psci-0.2");
	if (node < 0)
		node = fdt_find_compatible(&fdt, -1, "arm,psci");
	const char *method = fdt_prop_string(&fdt, node, "method");

	if (method && strcmp(method, "hvc") == 0)
		psci_init(PSCI_HVC);
	else if (method && strcmp(method, "smc") == 0)
		psci_init(PSCI_SMC);
	else
		psci_init(PSCI_NONE);
}

void board_early_init(uintptr_t bootarg)
{
	if (!fdt_init(&fdt, (const void *)bootarg))
		fdt.blob = NULL;
	pl011_init(find_uart());
	if (!fdt.blob)
		printf("qemu-virt-arm64: no valid DTB (bootarg 0x%lx): "
		       "one core, no command line\n", (unsigned long)bootarg);

	const char *args = fdt_prop_string(&fdt, fdt_path_offset(&fdt, "/chosen"),
					   "bootargs");
	if (args && strlen(args) < sizeof cmdline)
		strcpy(cmdline, args);
	else if (args)
		printf("qemu-virt-arm64: bootargs longer than %d bytes ignored\n",
		       CMDLINE_MAX - 1);

	counter_hz = gtimer_freq();
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

static bool gic_setup(struct gic_config *cfg)
{
	uint64_t addr, size;
	int node;

	memset(cfg, 0, sizeof *cfg);
	if ((node = fdt_find_compatible(&fdt, -1, "arm,gic-v3")) >= 0) {
		uint32_t nregions = 1;
		fdt_prop_u32(&fdt, node, "#redistributor-regions", &nregions);
		if (!fdt_reg(&fdt, node, 0, &addr, &size))
			return false;
		cfg->dist = (uintptr_t)addr;
		for (unsigned r = 0; r < nregions && r < GIC_MAX_REDIST_REGIONS; r++) {
			if (!fdt_reg(&fdt, node, 1 + r, &addr, &size))
				break;
			cfg->redist[r] = (uintptr_t)addr;
			cfg->redist_size[r] = size;
			cfg->nredist++;
		}
		gic = &gicv3_driver;
		return cfg->nredist > 0;
	}
	if ((node = fdt_find_compatible(&fdt, -1, "arm,cortex-a15-gic")) >= 0 ||
	    (node = fdt_find_compatible(&fdt, -1, "arm,gic-400")) >= 0) {
		if (!fdt_reg(&fdt, node, 0, &addr, &size))
			return false;
		cfg->dist = (uintptr_t)addr;
		if (!fdt_reg(&fdt, node, 1, &addr, &size))
			return false;
		cfg->cpuif = (uintptr_t)addr;
		gic = &gicv2_driver;
		return true;
	}
	return false;
}

/* /timer interrupts: <type number flags> per timer; type 1 = PPI. */
static void timer_setup(void)
{
	int node = fdt_find_compatible(&fdt, -1, "arm,armv8-timer");
	uint32_t len, freq;
	const uint8_t *irqs = fdt_getprop(&fdt, node, "interrupts", &len);
	const uint32_t cells = 3;

	if (irqs && len >= (TIMER_DT_VIRT_INDEX + 1) * cells * 4) {
		const uint8_t *e = irqs + TIMER_DT_VIRT_INDEX * cells * 4;
		if (fdt_be32(e) == 1)
			timer_intid = GIC_PPI_BASE + fdt_be32(e + 4);
	}
	/* Firmware that forgot CNTFRQ_EL0 states the rate here. */
	if (fdt_prop_u32(&fdt, node, "clock-frequency", &freq) && freq)
		counter_hz = freq;
}

static uint32_t mpidr_pack(uint64_t mpidr)
{
	return (uint32_t)(mpidr & 0xffffff) | (uint32_t)((mpidr >> 32) & 0xff) << 24;
}

/* The cores: /cpus/cpu@N with reg = MPIDR affinity. The boot core is
 * cpus[0]; the others follow in DTB order. */
static void cpus_setup(unsigned max)
{
	uint64_t boot = sysreg_read(mpidr_el1) & MPIDR_AFF_MASK;
	int parent = fdt_path_offset(&fdt, "/cpus");
	unsigned n = 1;

	cpu_mpidr[0] = boot;
	cpus[0].hwid = mpidr_pack(boot);
	for (int node = fdt_first_child(&fdt, parent); node >= 0;
	     node = fdt_next_sibling(&fdt, node)) {
		const char *type = fdt_prop_string(&fdt, node, "device_type");
		const char *status = fdt_prop_string(&fdt, node, "status");
		uint64_t mpidr, unused;

		if (!type || strcmp(type, "cpu") != 0 ||
		    (status && strcmp(status, "okay") != 0 && strcmp(status, "ok") != 0) ||
		    !fdt_reg(&fdt, node, 0, &mpidr, &unused))
			continue;
		mpidr &= MPIDR_AFF_MASK;
		if (mpidr == boot)
			continue;
		if (n == max) {
			printf("qemu-virt-arm64: more than %u cores; the rest stay off\n", max);
			break;
		}
		cpu_mpidr[n] = mpidr;
		cpus[n].hwid = mpidr_pack(mpidr);
		n++;
	}
	ncpus = psci_available() ? n : 1;
}

void board_init(void)
{
	struct gic_config cfg;

	if (!fdt.blob)
		panic("qemu-virt-arm64: no DTB: cannot find the interrupt controller");
	if (!gic_setup(&cfg))
		panic("qemu-virt-arm64: no GICv2/GICv3 node in the DTB");
	gic->init(&cfg);
	timer_setup();
	cpus_setup(gic == &gicv2_driver && MAX_CPUS > GICV2_MAX_CPUS ?
		   GICV2_MAX_CPUS : MAX_CPUS);

	int32_t v = psci_version();
	printf("qemu-virt-arm64: %s at 0x%lx, timer INTID %u at %lu Hz, "
	       "%u cores, PSCI %d.%d\n", gic->name, (unsigned long)cfg.dist,
	       timer_intid, (unsigned long)counter_hz, ncpus,
	       v < 0 ? 0 : v >> 16, v < 0 ? 0 : v & 0xffff);
}

bool board_start_cpu(unsigned id)
{
	int32_t r = psci_cpu_on(cpu_mpidr[id], (uintptr_t)secondary_entry,
				(uintptr_t)&cpus[id]);
	if (r != PSCI_SUCCESS)
		printf("qemu-virt-arm64: PSCI CPU_ON(0x%lx) failed: %d\n",
		       (unsigned long)cpu_mpidr[id], r);
	return r == PSCI_SUCCESS;
}

void board_cpu_init(void)
{
	struct cpu *c = this_cpu();

	if (!gic->cpu_init(c->id))
		panic("qemu-virt-arm64: core %u: no %s CPU interface", c->id, gic->name);
	gtimer_disarm();
	gic->enable_local(timer_intid);
	gic->enable_local(IPI_SGI);
}

/* ---- interrupts and timer ------------------------------------------------- */

void board_ipi_send(unsigned id)
{
	gic->send_sgi(IPI_SGI, id, cpu_mpidr[id]);
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
 * a handler that never returns (IPI_STOP) leaves the GIC clean; the timer
 * is disarmed first because its line stays asserted until then.
 */
void board_irq(struct trapframe *tf)
{
	uint32_t iar;
	unsigned intid = gic->ack(&iar);

	if (intid >= 1020)		/* spurious (1023) or special: nothing to EOI */
		return;
	if (intid == timer_intid) {
		gtimer_disarm();
		gic->eoi(iar);
		kernel_timer_interrupt(tf);
	} else if (intid == IPI_SGI) {
		gic->eoi(iar);
		kernel_ipi_interrupt(tf);
	} else {
		gic->eoi(iar);
		printf("qemu-virt-arm64: core %u: unexpected interrupt %u\n",
		       this_cpu()->id, intid);
	}
}

/* ---- leaving ------------------------------------------------------------ */

void board_exit(int status)
{
	arch_irq_disable();
	pl011_flush();
	if (GMK_SEMIHOSTING)
		semihost_exit(status);
	/* PSCI SYSTEM_OFF carries no status: say it, for the log. */
	if (status != 0)
		printf("qemu-virt-arm64: exit status %d (lost: powering off by PSCI)\n",
		       status);
	pl011_flush();
	psci_system_off();
	for (;;)
		asm volatile("wfi");
}
