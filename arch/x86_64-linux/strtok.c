/*
 * strtok on the hosted board. glibc's keeps one position for the whole
 * process (a static): two goroutines tokenizing at once, even on one
 * core, would each go on in the other's string. This one, in the
 * executable, takes the place of glibc's for the kernel's code and an
 * application's (an executable's definition wins over a shared
 * library's), and keeps the position per goroutine, in the G's G-local
 * area (kernel/glocal.h), as newlib's (the G's struct _reent) and
 * picolibc's (its TLS block) do on the other boards. Code that is not a
 * G (g0, the boot) uses its core thread's.
 */
#include <string.h>

#include "kernel/glocal.h"

static __thread char *core_strtok_pos;

char *strtok(char *restrict s, const char *restrict delim)
{
	struct glocal *l = glocal_current();
	char **pos = &core_strtok_pos;

	if (l) {
		/* The arch's block lies below struct glocal (glocal.h). */
		struct host_glocal *b = (struct host_glocal *)((char *)(l + 1) - GLOCAL_SIZE);
		pos = &b->strtok_pos;
	}
	/* A first call without a string: glibc's strtok_r would read
	 * through NULL; newlib's and picolibc's find no token. */
	if (!s && !*pos)
		return NULL;
	return strtok_r(s, delim, pos);
}
