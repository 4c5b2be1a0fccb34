/*
 * The board interface: everything the kernel asks of a machine. A board is
 * one folder, boards/<name>/, whose board.c, and the platform it is
 * built on where it has one (boards/platform/<name>/), implement these
 * (often by wiring shared drivers from kernel/irq, kernel/dev and arch/).
 *
 * Boot order, driven by kernel/main.c:
 *   arch entry (MMU/paging on, BSS clear, boot stack) -> kmain(bootarg)
 *   kmain: board_early_init(bootarg)   console usable, cmdline and memory known
 *          board_init()                 interrupt controller, timer frequency,
 *                                       cores discovered (sets ncpus, cpus[i].hwid)
 *          cpu_start() on core 0, then board_start_cpu(i) for i = 1..ncpus-1
 *   each secondary: arch entry -> cpu_start(cpu) -> board_cpu_init() -> ...
 */
#ifndef GMK_KERNEL_BOARD_H
#define GMK_KERNEL_BOARD_H

#include <stdbool.h>
#include <stdint.h>

struct cpu;

extern const char board_name[];

/* Boot core, once. bootarg is what the firmware/loader handed over (DTB
 * address on aarch64, multiboot info on x86-64), as the arch entry got it. */
void board_early_init(uintptr_t bootarg);
void board_init(void);

/* Kernel command line ("" when none), valid after board_early_init. */
const char *board_cmdline(void);

/* RAM the page allocator may use, after the kernel image: iterate i = 0..
 * until it returns false. */
bool board_mem_region(unsigned i, uintptr_t *base, uintptr_t *size);

/* Start core `id` (cpus[id].hwid is its hardware id); it enters the arch
 * secondary entry and then cpu_start(&cpus[id]). Returns false on failure. */
bool board_start_cpu(unsigned id);

/* Per core, on that core, with interrupts masked: interrupt controller CPU
 * interface, timer interrupt enabled (not yet armed). */
void board_cpu_init(void);

/* Polled console output of one byte (no locking: kernel/console.c locks). */
void board_putc(char c);
/* Optional, for a board that gathers board_putc's bytes (the hosted one:
 * one write(2) per line): the end of a piece of output, which goes out
 * now even without its newline (a prompt, an echoed key). */
void board_putc_flush(void) __attribute__((weak));

/* Send the IPI interrupt to core id. The kernel's mailbox (cpu->ipi_pending)
 * says why; the board only raises the interrupt. */
void board_ipi_send(unsigned id);

/* The same, for a core known to be in arch_wait_for_interrupt or on its
 * way there with interrupts masked, looking at its mailbox before it
 * sleeps (an idle M in stopm): it only has to be woken, not interrupted.
 * Hardware boards raise the IPI all the same; the hosted board wakes the
 * thread if it sleeps and sends no signal (ipi_wake_idle, kernel/ipi.c). */
void board_ipi_wake_idle(unsigned id);

/* Arm this core's one-shot timer to fire at counter value `deadline`
 * (arch_counter units); 0 disarms. */
void board_timer_arm(uint64_t deadline);

/* Counter frequency in Hz (for arch_counter). */
uint64_t board_counter_hz(void);

/* Optional (a board with virtio devices; weak: NULL elsewhere): its
 * virtio-mmio slots, i = 0.. until false (the DTB's "virtio,mmio"
 * nodes, empty ones too: the device says what it is), and routing slot
 * i's interrupt to handler(arg), which runs in the interrupt before the
 * controller's EOI (it acknowledges the device) and is followed by
 * netpoll_kick, as the console's receive interrupt is. false: the slot
 * has no interrupt this board can route. */
bool board_virtio_mmio(unsigned i, uintptr_t *base) __attribute__((weak));
bool board_virtio_mmio_irq(unsigned i, void (*handler)(void *), void *arg)
	__attribute__((weak));
/* The same for virtio devices on PCI (the pc platform): device i's
 * transport, ready to start, into *d (kernel/dev/virtio.h); false past
 * the last. */
struct virtio_dev;
bool board_virtio_pci(unsigned i, struct virtio_dev *d) __attribute__((weak));
bool board_virtio_pci_irq(unsigned i, void (*handler)(void *), void *arg)
	__attribute__((weak));

/* Leave the machine with a status (0 = success). Under QEMU this ends QEMU
 * with that status; on real hardware it powers off or halts. */
__attribute__((noreturn)) void board_exit(int status);

/* Called by the arch interrupt entry for an IRQ: the board acknowledges the
 * controller and calls kernel_timer_interrupt() or kernel_ipi_interrupt(). */
struct trapframe;
void board_irq(struct trapframe *tf);

/* Kernel entry points the board calls. */
__attribute__((noreturn)) void kmain(uintptr_t bootarg);
__attribute__((noreturn)) void cpu_start(struct cpu *c);
void kernel_timer_interrupt(struct trapframe *tf);
void kernel_ipi_interrupt(struct trapframe *tf);

#endif
