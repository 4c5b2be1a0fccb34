/*
 * Hosted gobuf: the x86-64 kernel's (arch/x86_64/gobuf_arch.h), since the
 * hosted board runs arch/x86_64/switch.S as it is, plus one word at the end
 * for the sanitizers: the G's fiber (ThreadSanitizer's __tsan_create_fiber
 * handle), used by the sanitizer builds' switch annotations
 * (arch/x86_64-linux/san.c) and 0 elsewhere. switch.S only uses the GOBUF_*
 * offsets, and struct g's M follows the gobuf at GOBUF_SIZE (G_M), so the
 * longer gobuf needs nothing of it. Only through kernel/gobuf.h.
 */
#ifndef GMK_ARCH_X86_64_LINUX_GOBUF_ARCH_H
#define GMK_ARCH_X86_64_LINUX_GOBUF_ARCH_H

/* The kernel's gobuf under another name, for its layout and its
 * gobuf_init and gobuf_set_stack. */
#define gobuf gobuf_x86_64
#define gobuf_init gobuf_init_x86_64
#define gobuf_set_stack gobuf_set_stack_x86_64
#include_next "gobuf_arch.h"
#undef gobuf
#undef gobuf_init
#undef gobuf_set_stack

#define GOBUF_FIBER	24
#undef GOBUF_SIZE
#define GOBUF_SIZE	32

#ifndef __ASSEMBLY__
struct gobuf {
	uintptr_t sp;
	uintptr_t pc;
	void *g;
	void *fiber;			/* sanitizer builds: the G's fiber */
};
_Static_assert(__builtin_offsetof(struct gobuf, g) == GOBUF_G, "gobuf");
_Static_assert(__builtin_offsetof(struct gobuf, fiber) == GOBUF_FIBER, "gobuf");
_Static_assert(sizeof(struct gobuf) == GOBUF_SIZE, "gobuf");
_Static_assert(sizeof(struct gobuf_x86_64) == GOBUF_FIBER, "gobuf");

/* A G's fiber outlives its gobuf's reinitialisation (G records are reused). */
void *host_san_fiber_for(void *old_fiber, void *g);

static inline void gobuf_init(struct gobuf *b, void *g)
{
	void *fiber = b->fiber;

	gobuf_init_x86_64((struct gobuf_x86_64 *)b, g);
	b->fiber = host_san_fiber_for(fiber, g);
}

static inline void gobuf_set_stack(struct gobuf *b, uintptr_t sp_top)
{
	gobuf_set_stack_x86_64((struct gobuf_x86_64 *)b, sp_top);
}
#endif

#endif
