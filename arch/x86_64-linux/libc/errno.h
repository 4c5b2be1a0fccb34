/*
 * <errno.h> on the hosted board: glibc's errno, reached by one
 * instruction through %fs. (Before glibc's on the include path of the
 * kernel's files and of an application's: ARCH_LIBC_DIRS, arch.mk.)
 *
 * glibc's errno is the core thread's, and a goroutine moves between the
 * board's core threads: the scheduler moves each G's value from thread to
 * thread at its switches (kernel/glocal.h). glibc's own `errno` computes
 * the thread's errno address (__errno_location, declared const, so the
 * compiler may keep it across calls) and then reads or writes it: a G
 * that yields, blocks or is preempted between the two (any instruction
 * of the kernel's or an application's text may be preempted,
 * arch_frame_preemptible) would resume on another thread and use the old
 * thread's errno, under another goroutine's feet (a strtol's ERANGE read
 * back as 0). glibc's errno is in the static TLS block, at the same
 * offset from the thread pointer in every thread (host_errno_tpoff,
 * cpu.c, checked on every core thread): an access at that offset in
 * %fs's segment is one instruction, never split by a switch, and always
 * the running thread's. glibc's own code is unaffected: a G never
 * changes thread inside it.
 */
#include_next <errno.h>

#ifndef GMK_ARCH_X86_64_LINUX_ERRNO_H
#define GMK_ARCH_X86_64_LINUX_ERRNO_H
/* arch/x86_64-linux/cpu.c: glibc's errno's offset from the thread
 * pointer, set before main (a constructor). */
extern long host_errno_tpoff;
#undef errno
#define errno (*(int __seg_fs *)host_errno_tpoff)
#endif
