# gmk: one entry point.
#   make [BOARD=qemu-virt-arm64] [SMP=4] [CMDLINE='...'] run | test | bench | bench-compare | debug | image | sdcard | trace | deps | clean
#   make replay [BOARD=b] [SMP=n] [SEED=s] [TESTS=glob] [CMDLINE='...']
#   make help: the targets and variables in short (README.md, docs/).
#   V=1 shows full command lines.
#
# What is built: build/<board>/gmk.elf, from arch/<arch>/ (and
# arch/generic/), kernel/, sched/, net/, tests/, bench/, examples/, the
# board's platform (boards/platform/<platform>/), its drivers (kernel/irq,
# kernel/dev) and boards/<board>/, with the toolchain and C library of the arch
# (arch/<arch>/arch.mk: picolibc on aarch64, newlib on x86-64).

BOARD   ?= qemu-virt-arm64
SMP     ?= 4
CMDLINE ?=
TIMEOUT ?= 60
GIC     ?=
comma   := ,

# ---- the board ----------------------------------------------------------
# boards/<name>/board.mk only sets variables; every board states:
#   ARCH          aarch64 | x86_64 | x86_64-linux (arch/<ARCH>/, whose
#                 arch.mk gives the toolchain)
#   PLATFORM      the shared platform code it is (boards/platform/<name>/)
#   DRIVERS       drivers it links, as kernel/<DRIVER>.c (irq/gicv2, dev/pl011)
#   LOAD_ADDR     link and load address
#   BOARD_CFLAGS  board facts for C (-D...), if any
#   IMAGE         what `make image` makes: arm64-image (gmk.bin),
#                 multiboot-elf32 (gmk.elf32), rpi (SD-card FAT files),
#                 grub-iso (a BIOS+UEFI USB/CD image, gmk-pc.iso)
#   RUN_CMDLINE   the kernel command line of `make run`
#   RUNNER        how it runs here: qemu (tools/run-qemu), or empty when it
#                 does not (an image for real hardware only); a board that
#                 runs otherwise names its own tools/run-<RUNNER>
#   QEMU, QEMU_ARGS, QEMU_KERNEL (what -kernel loads; empty: none),
#   QEMU_EXIT (status | isa-debug-exit),
#   QEMU_ACCELS (tcg, or kvm tcg), QEMU_SMPS (the core counts QEMU's
#   machine takes; empty: any), QEMU_MEM (its RAM; empty: 1G),
#   QEMU_MIN (the first QEMU with its machine; empty: any)  for RUNNER=qemu
#   NET_STACK     lwip: the network stack is built in (docs/network.md)
#   QEMU_NET      the NIC's QEMU device that a boot with the network gets
#                 (tools/run-qemu, GMK_QEMU_NET); empty: none here
#   TEST_SMPS     core counts make test boots test=* at (tools/test-plan)
#   TEST_VARIANTS make-variable settings (GIC=3) for one more boot each
#   TEST_FATAL    globs: the TEST_FATAL tests booted alone on this board ('*': all;
#                 -glob leaves its matches out, so a new fatal test is in)
#   MAX_SMP, MAX_SMP_WHY  optional: the most cores it boots with, and why
#                 (its runner refuses more, saying so)
#   NO_REPLAY     why `make replay` cannot replay it exactly (empty: it
#                 can, when RUNNER=qemu)
#   TEST_EXTRA    a board's own checks, run by make test after its boots
#                 (a tools/ script taking --board; last line "N passed, N failed")
#   BENCH_ICOUNT  1: tools/bench-compare counts its arch's instructions per
#                 operation on this board (QEMU -icount); one board per arch
#   FIRMWARE, SERIAL_BAUD                      board settings its tools read
#   SETTINGS      the make variables of BOARD_SETTING_VARS it takes (GIC);
#                 one given to a board that does not take it is refused
#   BOARD_MAIN    a board that is a Linux process: the file of its main()
# and a boards/<name>/board.c with its quirks: at least board_exit, unless
# its platform's default fits (arm64-dt's: the Pis have no board.c); and
# optionally boards/<name>/board.dts: its DTB, built in as the fallback
# when the loader passes none (and handed to QEMU with -dtb).
BOARDS_ALL := $(patsubst boards/%/board.mk,%,$(wildcard boards/*/board.mk))
ifeq ($(wildcard boards/$(BOARD)/board.mk),)
$(error no board '$(BOARD)': the boards are $(BOARDS_ALL))
endif
include boards/$(BOARD)/board.mk

# A board setting the board does not take is an error, not ignored (GIC=3
# on a PC would otherwise boot the PC as if nothing had been said).
BOARD_SETTING_VARS := GIC
$(foreach v,$(BOARD_SETTING_VARS),$(if $(and $($(v)),$(filter-out $(SETTINGS),$(v))),\
  $(error $(v)=$($(v)): board $(BOARD) takes no $(v) setting ($(v)= is for: $(strip \
  $(patsubst boards/%/board.mk,%,$(shell grep -lE '^SETTINGS[[:space:]]*:?=.*\<$(v)\>' boards/*/board.mk)))))))

# The kernel command line: CMDLINE as given, or the board's demo. Taken
# with $(value ...), so that make expands nothing in it (a '$y' stays
# '$y'), and put in the recipes as one single-quoted shell word
# ($(call shell_quote,...)), so that the shell neither splits it at its
# quotes nor expands it: the kernel gets exactly the text given.
KCMDLINE = $(if $(value CMDLINE),$(value CMDLINE),$(RUN_CMDLINE))
shell_quote = '$(subst ','\'',$(1))'

BUILD  := build/$(BOARD)
KERNEL := $(BUILD)/gmk.elf
BOARD_DTS := $(wildcard boards/$(BOARD)/board.dts)
BOARD_DTB  = $(if $(BOARD_DTS),$(BUILD)/board.dtb)

ifeq ($(V),1)
Q :=
else
Q := @
endif

# ---- the arch ------------------------------------------------------------
# arch/<ARCH>/arch.mk only sets variables: the arch's toolchain and flags,
#   CC, OBJCOPY, ARCH_CFLAGS, ARCH_LDFLAGS, ARCH_LIBS
# and, where the defaults below do not fit:
#   ARCH_DIRS     the folders of its headers, searched in this order
#                 (an arch that is another one in a new setting names that
#                 one after its own), then arch/generic
#   ARCH_LIBC_DIRS  folders of the C library's headers as the arch
#                 amends them, first on the kernel's include path and on
#                 an application's
#   ARCH_FIRST, ARCH_LAST   its sources linked first and last (its
#                 others: arch/<ARCH>/*.c and *.S)
#   BUILD, KERNEL where the build goes and what it makes
# kernel/cpu.h, atomic.h, gobuf.h and trap.h each include the arch's
# header by name (cpu_arch.h, ...), found on this path.
ARCH_DIRS  := arch/$(ARCH)
ARCH_LIBC_DIRS :=
ARCH_FIRST :=
ARCH_LAST  :=
include arch/$(ARCH)/arch.mk
# FASTPATH=0: the reference build (docs/internals.md, "The fast paths and
# their references"): each of the switch's fast paths takes its Go-shaped
# reference instead (GMK_FASTPATH, sched/schedimpl.h). Its own build
# folder, build/<board>-ref/ (build/hosted-asan-ref/ with SAN=asan), so
# that its objects never mix with the default build's.
FASTPATH ?= 1
FASTPATH_CFLAGS :=
ifeq ($(FASTPATH),0)
BUILD  := $(BUILD)-ref
KERNEL := $(BUILD)/$(notdir $(KERNEL))
FASTPATH_CFLAGS := -DGMK_FASTPATH=0
else ifneq ($(FASTPATH),1)
$(error FASTPATH=$(FASTPATH): want 1 (the fast paths, the default) or 0 (the reference build))
endif
# Where the kernel's own objects go: the board's build, shared by every
# application built for it (the APP block below moves only what differs).
OBJ_BUILD := $(BUILD)
TRACE_CMDLINE := run=primes trace=4M
TEST_ENV :=

# ---- an application outside the tree (APP=path; docs/programs.md) --------
#   make APP=path/to/app [BOARD=b] kernel | run | image | sdcard | debug | trace | test
# The application is the folder's *.c files (its PROGRAMs and TESTs), with
# the folder on their include path, and an optional app.mk setting:
#   APP_NAME      its name (default: the folder's), [a-z0-9_-]
#   APP_CMDLINE   the command line its image boots with when given none
#                 (default: run=<APP_NAME>); make run/image use it too
#   APP_READY     a regex: the line APP_CMDLINE's program prints once it
#                 serves (make test APP= ends that boot there, passed,
#                 rather than wait for exit status 0: tools/test-plan-app)
#   APP_CFLAGS    more flags for the application's files
#   APP_SRC_DIRS  more folders of *.c files, relative to the application's
# Its image goes into build/<board>-app-<name>/ and links the kernel's
# objects from build/<board>/; gmk's own tests (tests/), benchmarks
# (bench/), demo programs and examples are left out (APP_WITH_TESTS=1
# keeps them). The kernel's own image carries the examples (examples/*/),
# their TESTs running with gmk's. The public
# headers are include/ (the application's only include path besides its
# own folder, gmk's and the C library's being for the kernel).
APP ?=
ifneq ($(APP),)
# make splits names at blanks: a folder whose path has one cannot be built.
ifneq ($(words $(APP)),1)
$(error APP='$(APP)': the path has a blank, which make cannot take in a file name (move the folder, or link it: ln -s '$(APP)' ~/app))
endif
APP_DIR := $(patsubst %/,%,$(APP))
ifeq ($(wildcard $(APP_DIR)/*.c),)
$(error APP=$(APP): no *.c files there (an application is a folder of C files; make new-app DIR=$(APP) writes one))
endif
APP_NAME := $(notdir $(abspath $(APP_DIR)))
APP_CMDLINE = run=$(APP_NAME)
APP_READY :=
APP_CFLAGS :=
APP_SRC_DIRS :=
ifneq ($(wildcard $(APP_DIR)/app.mk),)
include $(APP_DIR)/app.mk
# app.mk is make's text: '$x' there is make's variable x (empty), which
# would vanish from the command line (or the regex) without a word.
# ($(open) is a '(': one written here would end the $(shell ...).)
open := (
app_dollar = $(shell sed -n 's/^[[:space:]]*$(1)[[:space:]]*[:?+]*=//p' $(APP_DIR)/app.mk | \
	sed 's/\$$\$$//g' | grep -o '\$$[^$(open){]' | head -n 1)
app_text.APP_CMDLINE := the command line
app_text.APP_READY := the regex
$(foreach v,APP_CMDLINE APP_READY,$(if $(call app_dollar,$(v)),$(error $(APP_DIR)/app.mk: $(v): make reads '$(call app_dollar,$(v))' there as its variable (empty); write $$$$ for each $$ of $(app_text.$(v)))))
endif
ifeq ($(strip $(APP_NAME)),)
$(error APP_NAME is empty: leave it out of app.mk for the folder's name, or give 1-32 of [a-z0-9_-])
endif
ifneq ($(shell printf '%s' '$(APP_NAME)' | grep -xE '[a-z0-9_-]{1,32}'),$(APP_NAME))
$(error APP_NAME '$(APP_NAME)': want 1-32 of [a-z0-9_-] (it names the build folder))
endif
# APP_CMDLINE given to make (make run APP=... APP_CMDLINE='...') is taken
# as CMDLINE is: verbatim, a '$y' staying '$y'; APP_READY too.
ifeq ($(origin APP_CMDLINE),command line)
override APP_CMDLINE := $(value APP_CMDLINE)
endif
ifeq ($(origin APP_READY),command line)
override APP_READY := $(value APP_READY)
endif
$(foreach d,$(APP_SRC_DIRS),$(if $(filter ..,$(subst /, ,$(d))),$(error APP_SRC_DIRS: '$(d)' leaves the application's folder)))
$(foreach d,$(APP_SRC_DIRS),$(if $(wildcard $(APP_DIR)/$(d)/.),,$(error APP_SRC_DIRS: no folder $(APP_DIR)/$(d))))
APP_SRCS := $(wildcard $(APP_DIR)/*.c $(APP_SRC_DIRS:%=$(APP_DIR)/%/*.c))
# (With gmk's tests it is another image: its own folder, so that neither
# is left linked from the other's objects.)
BUILD  := $(BUILD)-app-$(APP_NAME)$(if $(filter 1,$(APP_WITH_TESTS)),-with-tests)
KERNEL := $(BUILD)/$(notdir $(KERNEL))
# An application's build folder is its name's: one built from another
# folder of that name starts afresh (its dependency files name the other's
# sources).
ifneq ($(shell cat $(BUILD)/app/.source 2>/dev/null),$(abspath $(APP_DIR)))
$(shell rm -rf $(BUILD)/app && mkdir -p $(BUILD)/app && echo '$(abspath $(APP_DIR))' >$(BUILD)/app/.source)
endif
RUN_CMDLINE = $(APP_CMDLINE)
TRACE_CMDLINE = trace=4M $(APP_CMDLINE)
TEST_ENV = PLAN=tools/test-plan-app APP=$(call shell_quote,$(APP_DIR)) APP_READY=$(call shell_quote,$(APP_READY)) \
	TEST_SOURCES=$(call shell_quote,$(APP_SRCS))
APP_DROP := $(if $(filter 1,$(APP_WITH_TESTS)),,tests/% bench/% examples/%)
# The application's own files, where the kernel's image has them too.
APP_DROP += $(patsubst $(CURDIR)/%,%,$(abspath $(APP_SRCS)))
APP_OBJS := $(APP_SRCS:$(APP_DIR)/%=$(BUILD)/app/%.o) $(BUILD)/app/gmk_app_cmdline.c.o
# Its include path: its own folder and the public headers (include/), none
# of the kernel's (CFLAGS' -I folders are left out; the C library's stay,
# with the arch's amendments, ARCH_LIBC_DIRS); a kernel header reached
# anyway ("../kernel/page.h") fails the build, named
# (tools/check-app-headers reads the file's dependencies).
APP_CFLAGS_ALL = $(filter-out -I%,$(CFLAGS)) $(ARCH_LIBC_DIRS:%=-I%) -Iinclude -I$(APP_DIR) $(APP_CFLAGS)
$(BUILD)/app/%.c.o: $(APP_DIR)/%.c | $(DEPS_STAMP)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(APP_CFLAGS_ALL) -c $< -o $@
	$(Q)tools/check-app-headers $(@:.o=.d) $(call shell_quote,$(APP_DIR)) $(ARCH_LIBC_DIRS) || { rm -f $@; exit 1; }
# The default command line, in the image (kernel/main.c: gmk_app_cmdline).
$(BUILD)/app/gmk_app_cmdline.c: Makefile $(wildcard $(APP_DIR)/app.mk)
	@mkdir -p $(dir $@)
	$(Q)printf '%s' $(call shell_quote,$(APP_CMDLINE)) | \
		sed 's/[\\"]/\\&/g; s/^/const char gmk_app_cmdline[] = "/; s/$$/";/' >$@ && echo >>$@
$(BUILD)/app/gmk_app_cmdline.c.o: $(BUILD)/app/gmk_app_cmdline.c
	$(Q)$(CC) $(CFLAGS) -c $< -o $@
endif
# make new-app DIR=path: a working skeleton to start from.
.PHONY: new-app
new-app:
	$(Q)tools/new-app $(call shell_quote,$(DIR))
# ---- end of the application block ------------------------------------------

# ---- sources -----------------------------------------------------------
# BOARD_MAIN (board.mk): a board that is a Linux process names the file of
# its main(), which a libFuzzer build (SAN=fuzz) and the board's library
# for the host tests (libgmk.a) leave out.
SRCS := $(filter-out $(ARCH_FIRST) $(ARCH_LAST),$(wildcard arch/$(ARCH)/*.c arch/$(ARCH)/*.S)) \
        $(wildcard arch/generic/*.c) \
        $(wildcard kernel/*.c kernel/*.S) \
        $(wildcard sched/*.c) \
        $(wildcard lib/*.c) \
        $(wildcard net/*.c) \
        $(wildcard tests/*.c tests/*_$(ARCH).S) \
        $(wildcard tests/fixtures/*.c) \
        $(wildcard examples/*/*.c) \
        $(wildcard bench/*.c) \
        $(wildcard boards/platform/$(PLATFORM)/*.c boards/platform/$(PLATFORM)/*.S) \
        $(DRIVERS:%=kernel/%.c) \
        $(wildcard boards/$(BOARD)/*.c)
# SAN=fuzz: the libFuzzer target (tests/fuzz/, make fuzz), whose main is
# libFuzzer's, not the board's.
ifeq ($(SAN),fuzz)
SRCS := $(filter-out $(BOARD_MAIN),$(SRCS)) $(wildcard tests/fuzz/*.c)
endif
SRCS := $(filter-out $(APP_DROP),$(SRCS))
OBJS := $(patsubst %,$(OBJ_BUILD)/%.o,$(ARCH_FIRST) $(SRCS) $(ARCH_LAST)) \
	$(if $(BOARD_DTB),$(BUILD)/board-dtb.o) $(APP_OBJS)
DEPS := $(OBJS:.o=.d)
# The board as a library, without its main: the host tests (tests/host)
# link the kernel's own spinlocks, panic, time and run queues from it.
HOSTLIB := $(if $(BOARD_MAIN),$(BUILD)/libgmk.a)

# ---- flags ---------------------------------------------------------------
# Frame records in every function, leaves too, and no tail calls (a jump
# leaves no frame of its caller), for the stacks fatal errors print as Go
# does (kernel/traceback.h; gcc 12 still leaves the records out of x86-64
# leaves, whose return address the walk finds at the stack pointer).
CFLAGS_COMMON := -std=gnu11 -O2 -g -Wall -Wextra -Werror \
	-Wno-unused-parameter -ffreestanding -fno-common \
	-fno-omit-frame-pointer -mno-omit-leaf-frame-pointer -fno-optimize-sibling-calls \
	-fno-stack-protector -fno-strict-aliasing \
	-fstack-clash-protection \
	-ffunction-sections -fdata-sections \
	-I. $(ARCH_LIBC_DIRS:%=-I%) $(ARCH_DIRS:%=-I%) -Iarch/generic -Iinclude \
	-MMD -MP -DGMK_BOARD=\"$(BOARD)\"

# The screen console's font (kernel/dev/fbcon.c), converted to C at build
# time by tools/psf2c: Terminus Font (SIL Open Font License 1.1), from
# Debian's console-setup-linux. A board.mk may pick another 8-pixel-wide one.
ifneq ($(filter dev/fbcon,$(DRIVERS)),)
CONSOLE_FONT ?= /usr/share/consolefonts/Lat15-Terminus16.psf.gz
FONT_SRC := $(OBJ_BUILD)/gen/console_font.c
OBJS += $(OBJ_BUILD)/$(FONT_SRC).o
endif

CFLAGS  := $(CFLAGS_COMMON) $(ARCH_CFLAGS) $(BOARD_CFLAGS) $(FASTPATH_CFLAGS)
ASFLAGS := $(CFLAGS) -D__ASSEMBLY__

# ---- the network stack: lwIP (NET_STACK=lwip in board.mk; docs/network.md)
# lwIP 2.1 is Debian's source package, fetched into build/lwip-src by
# tools/fetch-lwip (tools/deps runs it), never committed; its port (arch/cc.h,
# lwipopts.h) and the stack goroutine are net/lwip/. Its files are compiled
# with the kernel's flags less -Werror (its code, not ours, to keep warning
# free under gcc's next release).
ifeq ($(NET_STACK),lwip)
LWIP_DIR   := build/lwip-src/src
LWIP_FILES := $(addprefix core/,def.c inet_chksum.c init.c ip.c mem.c memp.c netif.c \
	pbuf.c raw.c stats.c sys.c tcp.c tcp_in.c tcp_out.c timeouts.c udp.c) \
	$(addprefix core/ipv4/,dhcp.c etharp.c icmp.c ip4.c ip4_addr.c ip4_frag.c) \
	netif/ethernet.c
LWIP_OBJS  := $(LWIP_FILES:%=$(OBJ_BUILD)/lwip/%.o)
NET_OBJS   := $(patsubst %,$(OBJ_BUILD)/%.o,$(wildcard net/lwip/*.c))
OBJS += $(NET_OBJS) $(LWIP_OBJS)
DEPS += $(NET_OBJS:.o=.d) $(LWIP_OBJS:.o=.d)
CFLAGS += -DGMK_NET_LWIP -Inet/lwip/port -I$(LWIP_DIR)/include
LWIP_CFLAGS = $(filter-out -Werror,$(CFLAGS)) -Wno-sign-compare -Wno-address
build/lwip-src/.stamp:
	$(Q)tools/fetch-lwip
# Every object: the kernel's files that include lwIP's headers too, and a
# build folder whose deps stamp predates the stack.
$(OBJS): | build/lwip-src/.stamp
$(addprefix $(LWIP_DIR)/,$(LWIP_FILES)): | build/lwip-src/.stamp ;
$(OBJ_BUILD)/lwip/%.c.o: $(LWIP_DIR)/%.c | $(DEPS_STAMP)
	@mkdir -p $(dir $@)
	@$(call say,CC      lwip/$*.c)
	$(Q)$(CC) $(LWIP_CFLAGS) -c $< -o $@
endif

# ---- dependencies from Debian (tools/deps installs, builds newlib) -------
# make deps: everything, a QEMU without raspi4b replaced (on Debian 12 by
# QEMU 10 from bookworm-backports; BACKPORTS=0 keeps Debian 12's 7.2);
# make test: everything that is missing; make run and the other targets
# of one board: what the board needs to build and boot, plus what the
# target itself uses (--for debug, trace, image); a build directory: once,
# before its first object (the stamp).
DEPS_STAMP := $(BUILD)/.deps-ok
# The board's settings that change what it needs (SAN=tsan: clang;
# FIRMWARE=uefi: OVMF) go with it.
DEPS_SETTINGS := SAN FIRMWARE GIC
BOARD_DEPS  = tools/deps --board $(BOARD) $(strip $(foreach v,$(DEPS_SETTINGS),$(if $($(v)),$(v)=$($(v))))) --stamp $(DEPS_STAMP)
deps:
	$(Q)tools/deps --qemu-upgrade
$(DEPS_STAMP):
	$(Q)$(BOARD_DEPS)
# make run's first build of a board prints one line, not one per file;
# make kernel, and later builds, name each file they compile.
QUIET_CC ?=
say = $(if $(Q),$(if $(QUIET_CC),:,echo "  $(1)"),:)

# ---- rules -------------------------------------------------------------
.PHONY: all kernel run test bench bench-compare bench-net debug image sdcard deps clean host-test replay fuzz fuzz-replay help
all: kernel

# make help: the targets and variables in short; the documentation has the
# rest (README.md's "Make targets", docs/).
help:
	@printf '%s\n' \
	'make [VARIABLE=value]... TARGET  (README.md: Make targets; docs/*.md)' \
	'' \
	'Targets:' \
	'  run              build, boot BOARD with CMDLINE (none: its demo); the console is this terminal' \
	'  kernel           build the kernel (the default)' \
	'  test             the whole suite, "N passed, N failed" (docs/testing.md)' \
	'  replay           one boot that repeats exactly: SEED, TESTS, CMDLINE (docs/replay.md)' \
	'  trace            boot with the execution tracer, for go tool trace and Perfetto (docs/debugging.md)' \
	'  debug            boot halted for gdb, goroutine commands loaded (docs/debugging.md)' \
	'  image, sdcard    the bootable files; a Raspberry Pi SD card (docs/boards/)' \
	'  bench, bench-compare, bench-net  benchmarks; gmk beside Go (docs/benchmarks.md)' \
	'  new-app DIR=d    an application skeleton (docs/programs.md)' \
	'  fuzz, fuzz-replay CRASH=f, host-test, board-facts, deps, clean, distclean' \
	'' \
	'Variables:' \
	'  BOARD=b          $(BOARDS_ALL) (default qemu-virt-arm64)' \
	'  SMP=n            cores (default 4)    TIMEOUT=s  make run'"'"'s limit (default 60, 0: none)' \
	'  CMDLINE=...      the kernel command line: options, then -- and the program'"'"'s arguments (docs/cmdline.md)' \
	'  APP=path         an application outside the tree, for run, test, image, debug, trace (docs/programs.md)' \
	'  SEED=n TESTS=glob  for replay; TESTS, BOARDS, SMPS, JOBS for test (docs/testing.md)' \
	'  FASTPATH=0       the reference build: the switch'"'"'s fast paths as Go'"'"'s code (docs/internals.md)' \
	'  V=1              show the full command lines'
# The kernel, and what its runner boots (an image, a DTB).
kernel: $(KERNEL) $(if $(RUNNER),$(QEMU_KERNEL)) $(BOARD_DTB)

$(OBJ_BUILD)/%.c.o: %.c | $(DEPS_STAMP)
	@mkdir -p $(dir $@)
	@$(call say,CC      $<)
	$(Q)$(CC) $(CFLAGS) -c $< -o $@

$(OBJ_BUILD)/%.S.o: %.S | $(DEPS_STAMP)
	@mkdir -p $(dir $@)
	@$(call say,AS      $<)
	$(Q)$(CC) $(ASFLAGS) -c $< -o $@

ifneq ($(HOSTLIB),)
$(HOSTLIB): $(filter-out $(BUILD)/$(BOARD_MAIN).o,$(OBJS))
	@$(if $(Q),echo "  AR      $@")
	$(Q)rm -f $@ && ar rcs $@ $^

# A host test (tests/host/<name>.c), linked against that library.
$(BUILD)/host-tests/%: tests/host/%.c $(HOSTLIB)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CCLD    $@")
	$(Q)$(CC) $(CFLAGS) $(ARCH_LDFLAGS) -o $@ $< $(HOSTLIB)

# The hosted board linked statically (make BOARD=hosted static): one file
# that runs on any x86-64 Linux, for scaling runs on a machine with more
# cores and no toolchain (tools/bench-scaling).
.PHONY: static
static: $(BUILD)/gmk-static
$(BUILD)/gmk-static: $(OBJS)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(CFLAGS) $(ARCH_LDFLAGS) -static -o $@ $(OBJS) $(ARCH_LIBS)
endif

# Linked twice: the first link, with an empty symbol and line table, is
# what tools/mksymtab builds the table from (its symbols and DWARF lines),
# and the second carries it (gmk_symtab, kernel/symtab.c) in .rodata,
# after the text, so the text stays where the table says (mksymtab
# --same-text checks it).
SYMTAB_BIN  := $(BUILD)/symtab.bin
SYMTAB_OBJ  := $(BUILD)/symtab.o
SYMTAB_TOOLS := $(patsubst %objcopy,%,$(OBJCOPY))
symtab_obj = printf '.section .rodata.gmk_symtab, "a"\n.balign 8\n.global gmk_symtab\ngmk_symtab:\n.incbin "%s"\n.global gmk_symtab_end\ngmk_symtab_end:\n.section .note.GNU-stack, "", %%progbits\n' $(SYMTAB_BIN) | \
	$(CC) $(ASFLAGS) -x assembler-with-cpp -c - -o $(SYMTAB_OBJ)
$(KERNEL): $(OBJS) $(wildcard linker/$(ARCH).ld) tools/mksymtab
	@$(if $(Q),echo "  LD      $@")
	$(Q): > $(SYMTAB_BIN) && $(symtab_obj)
	$(Q)$(CC) $(CFLAGS) $(ARCH_LDFLAGS) -o $@.link1 $(OBJS) $(SYMTAB_OBJ) $(ARCH_LIBS)
	$(Q)tools/mksymtab --tools "$(SYMTAB_TOOLS)" $@.link1 $(SYMTAB_BIN) && $(symtab_obj)
	$(Q)$(CC) $(CFLAGS) $(ARCH_LDFLAGS) -o $@ $(OBJS) $(SYMTAB_OBJ) $(ARCH_LIBS)
	$(Q)tools/mksymtab --tools "$(SYMTAB_TOOLS)" --same-text $@.link1 $@

# The board's DTB (dtc, from Debian's device-tree-compiler), and the same
# bytes built into the kernel as board_dtb (arch/aarch64/mmu.c, boot_dtb).
$(BUILD)/board.dtb: $(BOARD_DTS) | $(DEPS_STAMP)
	@mkdir -p $(dir $@)
	@$(call say,DTC     $<)
	$(Q)dtc -q -I dts -O dtb -o $@ $<
$(BUILD)/board-dtb.o: $(BUILD)/board.dtb
	@$(call say,DTB     $@)
	$(Q)printf '.section .rodata.board_dtb, "a"\n.balign 8\n.global board_dtb\nboard_dtb:\n.incbin "%s"\n' $< | \
		$(CC) $(ASFLAGS) -x assembler-with-cpp -c - -o $@

# Raw images: the ELF's loadable bytes from LOAD_ADDR (aarch64: it starts
# with an arm64 Linux image header, so QEMU, U-Boot's booti or a Pi's
# firmware load it at its text offset and pass the DTB in x0).
$(BUILD)/gmk.bin $(BUILD)/kernel8.img: $(KERNEL)
	$(Q)$(OBJCOPY) -O binary $< $@
# QEMU's -kernel takes multiboot ELFs of class 32 only.
$(BUILD)/gmk.elf32: $(KERNEL)
	$(Q)$(OBJCOPY) -O elf32-i386 $< $@

ifneq ($(FONT_SRC),)
$(FONT_SRC): tools/psf2c | $(DEPS_STAMP)
	@mkdir -p $(dir $@)
	@$(call say,FONT    $(CONSOLE_FONT))
	$(Q)python3 tools/psf2c $(CONSOLE_FONT) $@
endif

-include $(DEPS)

# The flags live here and in the board's board.mk: a change to them
# rebuilds every object (a stale object would keep the old flags).
$(OBJS): Makefile boards/$(BOARD)/board.mk arch/$(ARCH)/arch.mk

# ---- images --------------------------------------------------------------
# make image: the board's bootable files (IMAGE in board.mk).
#   arm64-image      build/<board>/gmk.bin
#   multiboot-elf32  build/<board>/gmk.elf32
#   rpi              build/<board>/boot/: the FAT partition of a Raspberry
#                    Pi's SD card: kernel8.img, config.txt, cmdline.txt and
#                    FIRMWARE.txt naming the firmware files to add (RPI_FIRMWARE,
#                    not in Debian's main archive); make sdcard also writes
#                    build/<board>/sdcard.img, partitioned, with that FAT
#                    partition (mtools, no root, no loop mounts).
ifeq ($(IMAGE),arm64-image)
image: $(BUILD)/gmk.bin
	@echo "image: $(BUILD)/gmk.bin"
else ifeq ($(IMAGE),multiboot-elf32)
image: $(BUILD)/gmk.elf32
	@echo "image: $(BUILD)/gmk.elf32"
else ifeq ($(IMAGE),grub-iso)
# build/<board>/gmk-pc.iso: GRUB for BIOS and UEFI (tools/mkimage-pc), for
# a USB stick (dd) or a CD; CMDLINE (or RUN_CMDLINE) goes into grub.cfg.
image: $(KERNEL)
	$(Q)$(BOARD_DEPS) --for image
	$(Q)tools/mkimage-pc --kernel $(KERNEL) --baud $(SERIAL_BAUD) \
		--out $(BUILD)/gmk-pc.iso -- $(call shell_quote,$(KCMDLINE))
else ifeq ($(IMAGE),rpi)
image: $(BUILD)/kernel8.img
	$(Q)$(BOARD_DEPS) --for image
	$(Q)tools/rpi-image --out $(BUILD)/boot --kernel $(BUILD)/kernel8.img \
		--config "$(RPI_CONFIG)" --firmware "$(RPI_FIRMWARE)" \
		--cmdline $(call shell_quote,$(KCMDLINE)) --board $(BOARD)
sdcard: image
	$(Q)tools/rpi-image --out $(BUILD)/boot --sdcard $(BUILD)/sdcard.img
else
image:
	$(error board $(BOARD) has IMAGE='$(IMAGE)': no rule makes that)
endif
ifneq ($(IMAGE),rpi)
sdcard:
	$(error board $(BOARD) has no SD-card image (IMAGE=$(IMAGE)); try make image)
endif

# ---- running -----------------------------------------------------------
# RUNNER names tools/run-<RUNNER>; every runner takes the arguments of
# tools/lib/runner.sh: --board, --smp, --timeout, --set VAR=VALUE (board
# variables such as GIC=3), --stdin, --gdb and the command line.
# A board with a NIC under QEMU (QEMU_NET) gets it in make run, on QEMU's
# user network, with 127.0.0.1:NET_PORT forwarded to the guest's NET_PORT
# (tools/run-qemu, GMK_QEMU_NET; docs/network.md).
NET_PORT ?= 8080
RUN_TOOL = $(if $(RUNNER),tools/run-$(RUNNER),$(error board $(BOARD) does not run here (RUNNER is empty: it is an image for real hardware); make image BOARD=$(BOARD)))
# SMP and TIMEOUT go quoted: an empty one reaches the runner, which says
# so, rather than vanish and shift the words after it.
run:
	$(Q)$(BOARD_DEPS)
	$(if $(wildcard $(KERNEL)),,@echo "  BUILD   $(KERNEL), $(words $(OBJS)) files (make kernel names each)")
	$(Q)$(MAKE) --no-print-directory kernel $(if $(wildcard $(KERNEL)),,QUIET_CC=1)
	$(Q)$(if $(QEMU_NET),GMK_QEMU_NET='$(NET_PORT)' )$(RUN_TOOL) --board $(BOARD) --smp '$(SMP)' --timeout '$(TIMEOUT)' $(if $(GIC),--set GIC=$(GIC)) \
		--stdin -- $(call shell_quote,$(KCMDLINE))

debug:
	$(Q)$(BOARD_DEPS) --for debug
	$(Q)$(MAKE) --no-print-directory kernel
	$(Q)$(RUN_TOOL) --board $(BOARD) --smp '$(SMP)' $(if $(GIC),--set GIC=$(GIC)) --gdb \
		-- $(call shell_quote,$(value CMDLINE))

test:
	$(Q)tools/deps
	$(Q)$(TEST_ENV) tools/test-all

# replay: one boot in deterministic mode (tools/run-qemu --deterministic:
# single-threaded TCG with -icount), which repeats exactly: the same
# output, interleaving and fingerprint every time. The command line is
# test=$(TESTS), then $(CMDLINE); with neither, the board's demo (an
# application's APP_CMDLINE); seed=$(SEED) goes among its options, before
# a program's "--" (tools/lib/cmdline.sh). Slower than make run, hence its
# own timeout. Only under QEMU; a board that cannot replay says why in
# NO_REPLAY.
SEED  ?=
TESTS ?=
REPLAY_TIMEOUT ?= 900
REPLAY_CMDLINE = $(if $(TESTS),test=$(TESTS)$(if $(value CMDLINE), ))$(value CMDLINE)
REPLAY_REFUSAL = $(or $(NO_REPLAY),$(if $(filter qemu,$(RUNNER)),,it does not run under QEMU (RUNNER='$(RUNNER)')))
replay:
ifneq ($(REPLAY_REFUSAL),)
	@echo "make replay: $(BOARD) cannot replay exactly: $(REPLAY_REFUSAL)" >&2; exit 2
endif
	$(Q)$(BOARD_DEPS)
	$(Q)$(MAKE) --no-print-directory kernel
	$(Q)line=$$(tools/lib/cmdline.sh with $(call shell_quote,$(if $(REPLAY_CMDLINE),$(REPLAY_CMDLINE),$(RUN_CMDLINE))) \
		$(if $(SEED),$(call shell_quote,seed=$(SEED)))) && \
	tools/run-qemu --board $(BOARD) --smp '$(SMP)' --timeout '$(REPLAY_TIMEOUT)' \
		$(if $(GIC),--set GIC=$(GIC)) --deterministic -- "$$line"

# Benchmarks (docs/benchmarks.md): the kernel's at nprocs=1 and all cores
# (SMP defaults to the host's core count here), and gmk against Go.
BENCH_SMP ?= $(shell nproc)
# bench-compare puts gmk beside native Go: on the hosted board (native) by
# default, the one whose CPU is the host's.
BENCH_COMPARE_BOARD ?= hosted
bench:
	$(Q)$(BOARD_DEPS)
	$(Q)$(MAKE) --no-print-directory kernel
	$(Q)tools/bench --board $(BOARD) --smp '$(BENCH_SMP)'

bench-compare:
	$(Q)tools/deps --board $(BENCH_COMPARE_BOARD) --for bench-compare
	$(Q)tools/bench-compare --board $(BENCH_COMPARE_BOARD) --smp '$(BENCH_SMP)'

# The hosted board's echo and HTTP servers against Go's (tools/bench-net).
bench-net:
	$(Q)tools/deps --board hosted --for bench-compare
	$(Q)tools/bench-net

# ---- seeing the scheduler: execution trace and gdb ----------------------
# make trace: boot with trace=on, get the trace out, convert it for
# `go tool trace` and Perfetto (tools/trace-run, tools/gmktrace).
# TRACEOUT=hex forces the console hex dump that real boards use. A board's
# QEMU_TRACE_ARGS give the trace its way out under QEMU (board.mk).
trace:
	$(Q)$(BOARD_DEPS) --for trace
	$(Q)$(MAKE) --no-print-directory kernel
	$(Q)tools/trace-run --board $(BOARD) --smp '$(SMP)' $(if $(filter hex,$(TRACEOUT)),--hex) \
		$(if $(GIC),--set GIC=$(GIC)) \
		-- $(call shell_quote,$(if $(value CMDLINE),$(value CMDLINE),$(TRACE_CMDLINE)))
# The gdb script rides in the ELF (kernel/gdb_scripts.S .incbin's it).
$(OBJ_BUILD)/kernel/gdb_scripts.S.o: tools/gmk-gdb.py
.PHONY: trace

# ---- the libFuzzer target (tests/fuzz/) on the hosted board --------------
# make fuzz: FUZZ_TIME seconds (default 600) from the seeds in
# tests/fuzz/corpus, new inputs into build/hosted-fuzz/corpus, crashes into
# build/hosted-fuzz/crash-*; FUZZ_SMP cores (default 4), FUZZ_ARGS for
# libFuzzer (-jobs=2, -seed=N, ...). make fuzz-replay CRASH=file runs one
# input FUZZ_RUNS times (default 200): its interleaving is the host's.
FUZZ_TIME ?= 600
FUZZ_SMP  ?= 4
FUZZ_RUNS ?= 200
FUZZ_ARGS ?=
FUZZ_BIN  := build/hosted-fuzz/gmk
fuzz:
	$(Q)$(MAKE) --no-print-directory BOARD=hosted SAN=fuzz kernel
	@mkdir -p build/hosted-fuzz/corpus
	GMK_FUZZ_SMP=$(FUZZ_SMP) $(FUZZ_BIN) -max_total_time=$(FUZZ_TIME) -max_len=517 \
		-len_control=0 -print_final_stats=1 -artifact_prefix=build/hosted-fuzz/ \
		$(FUZZ_ARGS) build/hosted-fuzz/corpus tests/fuzz/corpus
fuzz-replay:
	$(if $(CRASH),,$(error make fuzz-replay CRASH=<input file>))
	$(Q)$(MAKE) --no-print-directory BOARD=hosted SAN=fuzz kernel
	GMK_FUZZ_SMP=$(FUZZ_SMP) $(FUZZ_BIN) -runs=$(FUZZ_RUNS) $(FUZZ_ARGS) $(CRASH)

host-test:
	$(Q)$(MAKE) --no-print-directory -C tests/host

clean:
	rm -rf $(BOARDS_ALL:%=build/%) build/host build/hosted-* build/*-app-* build/*-ref

# The board's facts for the tools, one VAR=value a line (tools/lib/board.sh
# reads them for every tool; no tool names a board).
BOARD_FACTS := ARCH PLATFORM IMAGE KERNEL RUNNER RUN_CMDLINE QEMU QEMU_ARGS QEMU_KERNEL \
	QEMU_EXIT QEMU_ACCELS QEMU_SMPS QEMU_MEM TEST_SMPS TEST_VARIANTS TEST_FATAL MAX_SMP MAX_SMP_WHY NO_REPLAY QEMU_TRACE_ARGS TEST_EXTRA FIRMWARE \
	SERIAL_BAUD CONSOLE_FONT QEMU_TX_BACKPRESSURE SAN BOARD_DTS NET_STACK QEMU_NET BENCH_ICOUNT QEMU_MIN
board-facts:
	@$(foreach v,$(BOARD_FACTS),printf '%s=%s\n' '$(v)' '$($(v))';)

distclean:
	rm -rf build

print-%:
	@echo $($*)
