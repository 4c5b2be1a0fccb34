/* Hosted runtime for tests/host: see host.c. */
#ifndef GMK_TESTS_HOST_HOST_H
#define GMK_TESTS_HOST_HOST_H

/* Make the calling thread core `id` (this_cpu(), spin_held, ...). */
void host_cpu_init(unsigned id);

#endif
