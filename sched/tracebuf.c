/*
 * The execution tracer: per-P event buffers, and writing them out.
 *
 * trace=on (1 MiB per P) or trace=<size> (bytes, or with K/M: trace=256K,
 * at most 4M)
 * turns it on; traceout=hex forces the console hex dump even where the
 * board has a faster way out. Off by default: every hook in sched/ is then
 * one load of trace_enabled and a branch (sched/tracebuf.h).
 *
 * Recording. Each P has its own buffer, written only by the M that holds
 * the P (every hook runs on the G or g0 of that M, and the P changes hands
 * only under sched.lock, which orders one owner's writes before the
 * next's): no lock and no atomic read-modify-write. Interrupts are masked
 * for the few stores of one record, so that nothing on this core can
 * interleave with them. A full buffer stops recording on that P and
 * counts what it lost; the host tool then ends the whole trace at the
 * moment the first buffer filled, so that what it shows is complete.
 *
 * Writing out (trace_dump, at the end of the run): trace_enabled goes
 * false, then each P's count is read with load-acquire (it is published
 * with store-release after the record) and the records below it are
 * written. A hook that read trace_enabled just before may still add a
 * record above the count read: it is not written, never half-written.
 *
 * The dump, little-endian, the same on every way out:
 *   header   "GMKTRACE", u32 version (2), u32 nprocs, u64 counter_hz,
 *            u64 counter at trace_init, u32 record size (24), u32 0,
 *            char board[24]                                     (64 bytes)
 *   per P    u32 P id, u32 records, u32 capacity, u32 lost, then the
 *            records: u64 counter << 8 | type, u64 a, u64 b; a
 *            GoCreate's or GoUnpark's stack follows it in up to
 *            TRACE_STACK_PCS / 2 traceEvStack records with its counter
 *            (version 2; version 1 had none)
 *   trailer  "GMKTREND"
 * Ways out: the arch's sink (kernel/tracesink.h: semihosting file on
 * aarch64 QEMU, debugcon on x86 QEMU), else the console: lines
 *   gmktrace: hex begin <bytes> bytes <chunks> chunks
 *   GMKTRACE <chunk#> <hex of up to 48 bytes> <crc32 of the chunk>
 *   gmktrace: hex end crc32 <crc32 of all>
 * which `tools/gmktrace unhex` reassembles from a captured serial log.
 */
#include <stdio.h>
#include <string.h>

#include "kernel/atomic.h"
#include "kernel/board.h"
#include "kernel/cmdline.h"
#include "kernel/compiler.h"
#include "kernel/cpu.h"
#include "kernel/page.h"
#include "kernel/percpu.h"
#include "kernel/time.h"
#include "kernel/tracesink.h"
#include "sched/schedimpl.h"
#include "sched/tracebuf.h"

#define TRACE_VERSION		2
#define TRACE_DEFAULT_BYTES	(1024 * 1024)	/* per P, trace=on */
/* The page allocator's largest block (kernel/page.c, MAX_ORDER): one
 * contiguous buffer per P. */
#define TRACE_MAX_BYTES		(4ul * 1024 * 1024)
#define TRACE_HEX_CHUNK		48		/* bytes per hex line */

struct traceevent {
	uint64_t tsty;		/* counter << 8 | enum traceev */
	uint64_t a, b;
};
_Static_assert(sizeof(struct traceevent) == 24, "dump format");

/* One per P; written by the P's owner only. */
struct tracebuf {
	struct traceevent *ev;
	uint32_t cap;
	volatile uint32_t n;	/* store-release by the owner, load-acquire by the dump */
	uint32_t lost;
} __cacheline_aligned;

bool trace_enabled;
static struct tracebuf tracebufs[MAX_CPUS];
static uint64_t trace_start_counter;
static bool trace_hex_only;

/* The event and npc return addresses after it, two to a traceEvStack
 * record, into this P's buffer: all of them or, where they do not fit,
 * none (counted lost). The first event that does not fit ends the P's
 * recording: a smaller one after it (a GoStart of 24 bytes after a
 * GoUnpark with its stack) would otherwise still fit, and the trace
 * would start a G whose unblock it lost. */
static __always_inline void
trace_put(uint32_t type, uint64_t a, uint64_t b, const uint64_t *pcs, uint32_t npc)
{
	unsigned long flags = arch_irq_save();
	struct m *mp = this_cpu()->m;
	struct p *pp = mp ? mp->p : NULL;

	if (pp && __atomic_load_n(&trace_enabled, __ATOMIC_ACQUIRE)) {
		struct tracebuf *tb = &tracebufs[pp->id];
		uint32_t n = tb->n, need = 1 + (npc + 1) / 2;
		if (tb->lost == 0 && tb->cap - n >= need) {
			uint64_t ts = arch_counter() << 8;
			tb->ev[n] = (struct traceevent){ ts | type, a, b };
			for (uint32_t i = 0; i < npc; i += 2)
				tb->ev[n + 1 + i / 2] = (struct traceevent){
					ts | traceEvStack, pcs[i], i + 1 < npc ? pcs[i + 1] : 0 };
			/* store-release: the records before the count (trace_dump) */
			atomic_store32(&tb->n, n + need);
		} else {
			tb->lost++;
		}
	}
	arch_irq_restore(flags);
}

void trace_event(uint32_t type, uint64_t a, uint64_t b)
{
	trace_put(type, a, b, NULL, 0);
}

/*
 * The stack for a GoCreate or GoUnpark, as Go's traceEvent takes one
 * (callers) for GoCreate and GoUnblock: `go tool trace` groups its
 * scheduler-latency profile (unblock or creation to the next start) by
 * it, and leaves out events without one. Up to TRACE_STACK_PCS return
 * addresses from the hook's site up, by the frame records that every
 * arch keeps ({previous fp, return address} at fp, -fno-omit-frame-pointer;
 * kernel/panic.c walks them too). The walk stays on the running G's stack
 * (g0's on g0) and goes only up it, so a bad record ends it rather than
 * faulting; on another stack (an interrupt's) only the site is kept. Out
 * of line: its own frame record holds the site.
 */
__noinline void trace_event_stack(uint32_t type, uint64_t a, uint64_t b)
{
	uint64_t pcs[TRACE_STACK_PCS];
	uint32_t npc = 0;
	struct g *gp = getg();
	uintptr_t fp = arch_frame_address();
	bool on_stack = gp && fp >= gp->stack_lo && fp + 16 <= gp->stack_hi;

	pcs[npc++] = (uintptr_t)__builtin_return_address(0);
	while (on_stack && npc < TRACE_STACK_PCS) {
		uintptr_t next = ((uintptr_t *)fp)[0];
		if (next <= fp || (next & 7) || next + 16 > gp->stack_hi)
			break;
		fp = next;
		uintptr_t ret = ((uintptr_t *)fp)[1];
		if (!ret)	/* gstart's record: the G's first frame */
			break;
		pcs[npc++] = ret;
	}
	trace_put(type, a, b, pcs, npc);
}

/* trace=on | off | <bytes>[K|M] */
static bool trace_parse(const char *s, uint64_t *bytes)
{
	uint64_t v = 0;
	const char *p = s;

	if (strcmp(s, "on") == 0) {
		*bytes = TRACE_DEFAULT_BYTES;
		return true;
	}
	if (strcmp(s, "off") == 0) {
		*bytes = 0;
		return true;
	}
	for (; *p >= '0' && *p <= '9'; p++) {
		v = v * 10 + (uint64_t)(*p - '0');
		if (v > TRACE_MAX_BYTES)
			return false;
	}
	if (p == s)
		return false;
	if (*p == 'K' || *p == 'k')
		v <<= 10, p++;
	else if (*p == 'M' || *p == 'm')
		v <<= 20, p++;
	if (*p || v > TRACE_MAX_BYTES || v < PAGE_SIZE)
		return false;
	*bytes = v;
	return true;
}

/* A bad trace= or traceout= stops the boot as any bad option does
 * (kernel/main.c), naming it. */
static void trace_bad_option(const char *what)
{
	printf("gmk: bad kernel command line: %s\n", what);
	board_exit(2);
}

void trace_init(void)
{
	uint64_t bytes = 0;
	char msg[120];

	if (strcmp(kopts.traceout, "hex") == 0) {
		trace_hex_only = true;
	} else if (kopts.traceout[0] && strcmp(kopts.traceout, "auto") != 0) {
		snprintf(msg, sizeof msg, "traceout=%s: expected auto or hex", kopts.traceout);
		trace_bad_option(msg);
	}
	if (kopts.traceout[0] && !kopts.trace[0])
		trace_bad_option("traceout= without trace=on (or a size)");
	if (!kopts.trace[0])
		return;
	if (!trace_parse(kopts.trace, &bytes)) {
		snprintf(msg, sizeof msg, "trace=%s: expected on, off or a size per P "
			 "from 4K to 4M (bytes, or with K or M)", kopts.trace);
		trace_bad_option(msg);
	}
	if (bytes == 0)
		return;
	size_t npages = (bytes + PAGE_SIZE - 1) / PAGE_SIZE;
	/* A buffer for every P there can be: gomaxprocs may add Ps up to
	 * the cores online. */
	for (uint32_t i = 0; i < ncpus_online && i < MAX_CPUS; i++) {
		tracebufs[i].ev = page_alloc(npages);
		tracebufs[i].cap = (uint32_t)(npages * PAGE_SIZE / sizeof(struct traceevent));
	}
	trace_start_counter = arch_counter();
	printf("gmk: execution trace on: %llu KiB per P (%u events)\n",
	       (unsigned long long)(npages * PAGE_SIZE / 1024), tracebufs[0].cap);
	__atomic_store_n(&trace_enabled, true, __ATOMIC_RELEASE);	/* before the other cores start (smp_release_cores) */
	for (uint32_t i = 0; i < MAX_CPUS; i++)
		allp[i]->xattn.trace = 1;	/* execute's traceGoStart */
}

/* ---- writing out --------------------------------------------------- */

static uint32_t crc32_update(uint32_t crc, const uint8_t *p, size_t n)
{
	crc = ~crc;
	while (n--) {
		crc ^= *p++;
		for (int k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (0xEDB88320u & -(crc & 1));
	}
	return ~crc;
}

/* A byte stream to the sink, or to the console as checksummed hex lines. */
static struct {
	bool hex;
	bool failed;
	uint32_t chunk;		/* hex lines written */
	uint32_t fill;		/* bytes in buf */
	uint32_t crc;		/* of everything written */
	uint8_t buf[TRACE_HEX_CHUNK];
} out;

static void hex_line(void)
{
	static const char digits[] = "0123456789abcdef";
	char line[2 * TRACE_HEX_CHUNK + 1];

	for (uint32_t i = 0; i < out.fill; i++) {
		line[2 * i] = digits[out.buf[i] >> 4];
		line[2 * i + 1] = digits[out.buf[i] & 15];
	}
	line[2 * out.fill] = '\0';
	printf("GMKTRACE %u %s %08x\n", out.chunk++, line,
	       (unsigned)crc32_update(0, out.buf, out.fill));
	out.fill = 0;
}

static void out_write(const void *data, size_t len)
{
	const uint8_t *p = data;

	out.crc = crc32_update(out.crc, p, len);
	if (!out.hex) {
		if (!out.failed && !arch_trace_sink_write(p, len))
			out.failed = true;
		return;
	}
	while (len) {
		uint32_t n = TRACE_HEX_CHUNK - out.fill;
		if (n > len)
			n = (uint32_t)len;
		memcpy(out.buf + out.fill, p, n);
		out.fill += n;
		p += n;
		len -= n;
		if (out.fill == TRACE_HEX_CHUNK)
			hex_line();
	}
}

static void out_u32(uint32_t v) { out_write(&v, sizeof v); }
static void out_u64(uint64_t v) { out_write(&v, sizeof v); }

void trace_dump(void)
{
	uint32_t counts[MAX_CPUS];
	uint64_t total = 64 + 8, records = 0, lost = 0;
	const char *sink = NULL;

	if (!__atomic_load_n(&trace_enabled, __ATOMIC_ACQUIRE))
		return;
	__atomic_store_n(&trace_enabled, false, __ATOMIC_SEQ_CST);
	for (uint32_t i = 0; i < sched.maxprocs; i++) {
		/* load-acquire: pairs with trace_event's store-release */
		counts[i] = atomic_load32(&tracebufs[i].n);
		total += 16 + (uint64_t)counts[i] * sizeof(struct traceevent);
		records += counts[i];
		lost += tracebufs[i].lost;
	}
	memset(&out, 0, sizeof out);
	if (!trace_hex_only)
		sink = arch_trace_sink_open();
	out.hex = sink == NULL;
	if (out.hex) {
		sink = "console (hex)";
		printf("gmktrace: hex begin %llu bytes %llu chunks\n",
		       (unsigned long long)total,
		       (unsigned long long)((total + TRACE_HEX_CHUNK - 1) / TRACE_HEX_CHUNK));
	}

	char board[24] = { 0 };
	strncpy(board, GMK_BOARD, sizeof board - 1);
	out_write("GMKTRACE", 8);
	out_u32(TRACE_VERSION);
	out_u32(sched.maxprocs);	/* every P there has been (gomaxprocs) */
	out_u64(board_counter_hz());
	out_u64(trace_start_counter);
	out_u32(sizeof(struct traceevent));
	out_u32(0);
	out_write(board, sizeof board);
	for (uint32_t i = 0; i < sched.maxprocs; i++) {
		out_u32(i);
		out_u32(counts[i]);
		out_u32(tracebufs[i].cap);
		out_u32(tracebufs[i].lost);
		out_write(tracebufs[i].ev, (size_t)counts[i] * sizeof(struct traceevent));
	}
	out_write("GMKTREND", 8);

	if (out.hex) {
		if (out.fill)
			hex_line();
		printf("gmktrace: hex end crc32 %08x\n", (unsigned)out.crc);
	} else {
		arch_trace_sink_close();
	}
	printf("gmktrace: %llu records from %u Ps (%llu events lost to full buffers), "
	       "%llu bytes, crc32 %08x, to %s%s\n", (unsigned long long)records,
	       sched.maxprocs, (unsigned long long)lost, (unsigned long long)total,
	       (unsigned)out.crc, sink, out.failed ? ": WRITE FAILED" : "");
}
