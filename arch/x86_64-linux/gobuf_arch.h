/*
 * x86-64's gobuf (the next gobuf_arch.h on the include path: the hosted
 * board runs x86_64's switch.S as it is), plus, in the sanitizer builds
 * (GMK_SAN_FIBERS), one word after g: the G's fiber (ThreadSanitizer's
 * __tsan_create_fiber handle), used by their switch annotations
 * (san.c). switch.S only uses the GOBUF_* offsets, and struct g's M
 * follows the gobuf at GOBUF_SIZE (G_M), so the longer gobuf needs
 * nothing of it. Only through kernel/gobuf.h.
 */
#ifndef GMK_ARCH_X86_64_LINUX_GOBUF_ARCH_H
#define GMK_ARCH_X86_64_LINUX_GOBUF_ARCH_H

#include_next "gobuf_arch.h"

/* glibc keeps errno per thread, and a G moves between the board's core
 * threads: the scheduler saves and restores a G's errno at each switch
 * (kernel/glocal.h). Nothing else of glibc's per-thread state can leave
 * with a G: a G is switched out only in the kernel's or an application's
 * text, never inside glibc (arch_frame_preemptible, cpu.c). */
#undef GLOCAL_ARCH_LIBC
#define GLOCAL_ARCH_ERRNO 1

/* The board's block in each G's G-local area (kernel/glocal.h): glibc's
 * strtok keeps one position for the whole process, the board's strtok
 * (strtok.c) one per G, here. */
#define GLOCAL_ARCH_TLS	16

/* The sanitizer builds' gogo is a C function (san.c), which needs a call. */
#ifdef GMK_SAN_FIBERS
#undef arch_gogo_jump
#endif

/* Only in the builds that switch fibers: elsewhere the word would push
 * struct g's gopc and parentgoid out of its first two lines (the record
 * of a sanitizer build takes four). */
#ifdef GMK_SAN_FIBERS
#define GOBUF_SIZE	32
#define GOBUF_ARCH_FIELDS	void *fiber;	/* the G's fiber */
#define G_RECORD_PAD	48	/* struct g's argbuf, then, at its fourth line */
#endif

#ifndef __ASSEMBLY__
#ifdef GMK_SAN_FIBERS
/* A G's fiber outlives its gobuf's reinitialisation (G records are
 * reused): gobuf_init keeps it. */
void *host_san_fiber_for(void *old_fiber, void *g);
#define arch_gobuf_init(b, g)	((b)->fiber = host_san_fiber_for((b)->fiber, (g)))
#endif

struct host_glocal {
	char *strtok_pos;	/* strtok's position (strtok.c) */
	void *unused;
};
_Static_assert(sizeof(struct host_glocal) == GLOCAL_ARCH_TLS, "GLOCAL_ARCH_TLS");

/* A G's block as a new thread's: inline on the path of every go(). */
static inline void arch_glocal_tls_init(void *block)
{
	*(struct host_glocal *)block = (struct host_glocal){ 0 };
}
#define arch_glocal_tls_init arch_glocal_tls_init
#endif

#endif
