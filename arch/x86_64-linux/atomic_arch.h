/*
 * Atomic primitives of x86-64 code in a Linux process. The default build
 * runs x86_64's own (the next atomic_arch.h on the include path: inline
 * assembly, user-mode code like any other), so that the hosted figures
 * are the kernel's. GMK_HOST_BUILTIN_ATOMICS (the ThreadSanitizer builds:
 * TSan cannot see into inline assembly) takes the compiler's builtins
 * instead (arch/generic/atomic_builtin.h). Only through kernel/atomic.h.
 */
#ifndef GMK_ARCH_X86_64_LINUX_ATOMIC_ARCH_H
#define GMK_ARCH_X86_64_LINUX_ATOMIC_ARCH_H

#ifdef GMK_HOST_BUILTIN_ATOMICS
#include "atomic_builtin.h"
#else
#include_next "atomic_arch.h"
#endif

#endif
