# x86-64, freestanding: the host's gcc and newlib, built once for gmk from
# Debian's newlib-source (tools/build-newlib). Only sets variables (the
# Makefile says which).
CC      := gcc
OBJCOPY := objcopy
NEWLIB  := build/newlib-x86_64
# -mcmodel=small: the kernel is identity-mapped below 2 GiB (LOAD_ADDR).
# No red zone: exceptions push onto the interrupted stack. newlib is built
# with the same flags and __DYNAMIC_REENT__ (tools/build-newlib); only its
# headers and gcc's own are searched, never the host's /usr/include.
ARCH_CFLAGS := -m64 -march=x86-64 -mno-red-zone -mcmodel=small -fno-pic \
	-fno-pie -fno-asynchronous-unwind-tables -D__DYNAMIC_REENT__ \
	-nostdinc -isystem $(NEWLIB)/include \
	-isystem $(shell $(CC) -print-file-name=include)
ARCH_LDFLAGS := -nostdlib -static -no-pie -Wl,--build-id=none \
	-Wl,-z,max-page-size=4096 -Wl,-z,noexecstack -Wl,-T,linker/x86_64.ld \
	-Wl,--defsym=LOAD_ADDR=$(LOAD_ADDR) -Wl,--gc-sections
ARCH_LIBS := $(NEWLIB)/lib/libc.a -lgcc
