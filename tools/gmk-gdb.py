# gmk's goroutines in gdb, after Go's runtime-gdb.py.
#
# Loaded by gdb from gmk.elf's .debug_gdb_scripts section (kernel/gdb_scripts.S
# embeds this file), once gdb trusts the directory:
#   gdb-multiarch -iex 'add-auto-load-safe-path .' build/<board>/gmk.elf
# (make debug prints that line; on the hosted board it runs gdb so, on
# build/hosted/gmk, whose cores are its threads). Or by hand:
# (gdb) source tools/gmk-gdb.py
#
#   info goroutines      every live G: id, status, wait reason, M/P, entry, pc
#   goroutine N bt       backtrace of G N from its saved context (the
#                        registers mcall pushed on its stack, or the frame
#                        copy of a preempted G); a running G's from its core;
#                        then Go's "created by F in goroutine P" and its line
#   info ps              each P: status, M, run queue, runnext, timers
#   info sched           the global scheduler state and queue
#
# Everything is read from memory through the kernel's own types (DWARF), so
# it follows struct changes; names are those of sched/runtime2.h.
import gdb

GSTATUS = {0: "idle", 1: "runnable", 2: "running", 3: "waiting", 4: "dead"}
G_RUNNING, G_WAITING, G_DEAD = 2, 3, 4
PSTATUS = {0: "idle", 1: "running"}


def val(expr):
    return gdb.parse_and_eval(expr)


def arch():
    return gdb.selected_frame().architecture().name()


def is_aarch64():
    return "aarch64" in arch()


# Runtime wrappers whose argument starts with the program's function
# (sched/tracebuf.h, g_startpc): a G that runs one is shown by that.
WRAPPERS = ("go_copy_heap_start", "eg_run")


def g_entry(gp):
    """The name a G is shown by: its entry, or the function a runtime
    wrapper of its runs."""
    name = symname(gp["entry"])
    if name in WRAPPERS:
        try:
            arg = int(gp["arg"])
            if arg:
                return symname(gdb.parse_and_eval("*(void **)%d" % arg))
        except (gdb.error, gdb.MemoryError):
            pass
    return name


def symname(addr):
    addr = int(addr)
    if addr == 0:
        return "nil"
    try:
        b = gdb.block_for_pc(addr)
        while b is not None and b.function is None:
            b = b.superblock
        if b is not None and b.function is not None:
            return b.function.name
    except RuntimeError:
        pass
    s = gdb.execute("info symbol 0x%x" % addr, to_string=True).strip()
    return s.split(" in section")[0] if "No symbol" not in s else "0x%x" % addr


def waitreason(r):
    r = int(r)
    try:
        s = val("waitreasons")[r]
        if int(s) != 0:
            return s.string()
    except (gdb.error, RuntimeError):
        pass
    try:
        return str(val("(enum waitreason)%d" % r))
    except gdb.error:
        return "reason %d" % r


def allgs():
    gp = val("sched.allgs")
    while int(gp) != 0:
        yield gp
        gp = gp["alllink"]


def live(gp):
    st = int(gp["atomicstatus"])
    return st not in (0, G_DEAD) and int(gp["goid"]) != 0


def find_g(goid):
    for gp in allgs():
        if int(gp["goid"]) == goid and live(gp):
            return gp
    return None


def word(addr):
    return int(val("*(unsigned long *)0x%x" % addr))


# What mcall pushes onto a parked G's stack (arch/<arch>/gobuf.h), from
# its gobuf's sp up: x86-64 r15 r14 r13 r12 rbx rbp, then the return
# address; aarch64 the frame record x29 x30, then x19..x28 (d8..d15 after).
MCALL_X86 = ("r15", "r14", "r13", "r12", "rbx", "rbp")


class NotStarted(Exception):
    """A G that has not run yet: no stack, no frames (saved_regs)."""


def saved_regs(gp):
    """The registers a G that is not running resumes with, as far as an
    unwinder needs them, and whether it was preempted at an interrupt. Its
    gobuf holds only sp, pc and g; pc says where the rest is: the frame
    copy of a preempted G (arch_preempt_resume), the registers mcall pushed
    on its stack (mcall_resume), or a fresh G's first function (goentry)."""
    buf = gp["sched"]
    pc, sp = int(buf["pc"]), int(buf["sp"])
    regs = {}
    kind = symname(pc)
    a64 = is_aarch64()
    if kind == "arch_preempt_resume":
        tf = val("*(struct trapframe *)0x%x" % sp)
        if a64:
            for i in range(31):
                regs["x%d" % i] = int(tf["x"][i])
            regs["sp"], regs["pc"] = int(tf["sp"]), int(tf["elr"])
        else:
            for r in ("rax", "rbx", "rcx", "rdx", "rsi", "rdi", "rbp", "r8", "r9", "r10",
                      "r11", "r12", "r13", "r14", "r15"):
                regs[r] = int(tf[r])
            regs["rsp"], regs["rip"] = int(tf["rsp"]), int(tf["rip"])
        return regs, True
    if kind == "mcall_resume":
        if a64:
            regs["x29"], regs["x30"] = word(sp), word(sp + 8)
            for i in range(10):
                regs["x%d" % (19 + i)] = word(sp + 16 + 8 * i)
            regs["sp"], regs["pc"] = sp + 160, regs["x30"]
        else:
            for i, r in enumerate(MCALL_X86):
                regs[r] = word(sp + 8 * i)
            # as mcall's caller sees it: the return address popped
            regs["rip"] = word(sp + 8 * len(MCALL_X86))
            regs["rsp"] = sp + 8 * (len(MCALL_X86) + 1)
        return regs, False
    if kind == "goentry":
        # goentry jumps to gstart with sp as the gobuf has it (x86-64:
        # where the G stores its zero fake return address when it runs).
        # sp 0: a G that has not run has no stack yet (it gets one at its
        # first run), so there is nothing to walk.
        if sp == 0:
            raise NotStarted()
        fn = int(val("(unsigned long)gstart"))
        if a64:
            regs["x29"], regs["x30"], regs["sp"], regs["pc"] = 0, 0, sp, fn
        else:
            regs["rbp"], regs["rsp"], regs["rip"] = 0, sp, fn
        return regs, False
    raise gdb.GdbError("goroutine %d: its gobuf's pc 0x%x (%s) is no resume point gmk-gdb.py knows"
                       % (int(gp["goid"]), pc, kind))


def saved_pc(gp):
    """Where a G that is not running will resume (see saved_regs); its
    gobuf's pc where that says nothing more (info goroutines lists on)."""
    try:
        regs, _ = saved_regs(gp)
    except NotStarted:
        return int(val("(unsigned long)gstart"))	# where it will start
    except (gdb.GdbError, gdb.error, gdb.MemoryError):
        return int(gp["sched"]["pc"])
    return regs["pc"] if is_aarch64() else regs["rip"]


def running_on(gp):
    """The M (struct m *) running gp, or None."""
    if int(gp["atomicstatus"]) != G_RUNNING or int(gp["m"]) == 0:
        return None
    mp = gp["m"]
    return mp if int(mp["curg"]) == int(gp) else None


def core_of_thread(t):
    """The core gdb thread t is, or None. Under QEMU the threads are its
    vCPUs in order: thread N is core N-1. On the hosted board they are
    the process's threads, one per core among others (the stdin reader):
    the core is the one whose host_cores[].tid is the thread's LWP."""
    try:
        hc = val("host_cores")
    except gdb.error:
        return t.num - 1
    for i in range(int(val("ncpus"))):
        if int(hc[i]["tid"]) == t.ptid[1]:
            return i
    return None


def thread_of_core(core):
    for t in gdb.selected_inferior().threads():
        if core_of_thread(t) == core:
            return t
    return None


def current_g():
    """The G running on the selected core, from its struct cpu (percpu.h)."""
    try:
        core = core_of_thread(gdb.selected_thread())
        if core is None:
            return 0
        mp = val("cpus")[core]["m"]
        if int(mp) and int(mp["curg"]):
            return int(mp["curg"])
    except (gdb.error, RuntimeError):
        pass
    return 0


class InfoGoroutines(gdb.Command):
    """info goroutines: every live goroutine (Go's runtime-gdb.py layout).
'*' marks the one running on the selected core."""

    def __init__(self):
        super().__init__("info goroutines", gdb.COMMAND_STACK, gdb.COMPLETE_NONE)

    def invoke(self, arg, from_tty):
        cur = current_g()
        print("  %4s  %-9s %-24s %-8s %-28s %s" % ("id", "status", "wait reason", "M/P",
                                                   "entry", "at"))
        for gp in allgs():
            if not live(gp):
                continue
            st = int(gp["atomicstatus"])
            reason = waitreason(gp["waitreason"]) if st == G_WAITING else ""
            mp = running_on(gp)
            where = "M%d/P%d" % (int(mp["id"]), int(mp["p"]["id"])) if mp is not None and int(mp["p"]) else "-"
            pc = "-" if mp is not None else symname(saved_pc(gp))
            print("%s %4d  %-9s %-24s %-8s %-28s %s" % ("*" if int(gp) == cur else " ",
                  int(gp["goid"]), GSTATUS.get(st, "?%d" % st), reason, where,
                  g_entry(gp), pc))


class GoroutineCmd(gdb.Command):
    """goroutine N bt: backtrace of goroutine N, from its saved registers."""

    def __init__(self):
        super().__init__("goroutine", gdb.COMMAND_STACK, gdb.COMPLETE_NONE)

    def invoke(self, arg, from_tty):
        argv = gdb.string_to_argv(arg)
        if len(argv) < 2 or argv[1] not in ("bt", "backtrace"):
            raise gdb.GdbError("usage: goroutine N bt")
        try:
            goid = int(argv[0])
        except ValueError:
            raise gdb.GdbError("goroutine: '%s' is not a goroutine id" % argv[0])
        gp = find_g(goid)
        if gp is None:
            raise gdb.GdbError("goroutine %d: no such live goroutine (info goroutines lists them)" % goid)
        mp = running_on(gp)
        if mp is not None:
            self.bt_on_core(gp, mp)
        else:
            self.bt_saved(gp)

    def bt_on_core(self, gp, mp):
        core = int(mp["cpu"]["id"])
        old = gdb.selected_thread()
        t = thread_of_core(core)
        if t is None:
            raise gdb.GdbError("goroutine %d runs on core %d, which gdb does not see"
                               % (int(gp["goid"]), core))
        t.switch()
        try:
            print("goroutine %d is running on core %d:" % (int(gp["goid"]), core))
            walk(gdb.newest_frame())
        finally:
            old.switch()
        created_by(gp)

    def bt_saved(self, gp):
        try:
            regs, preempted = saved_regs(gp)
        except NotStarted:
            print("goroutine %d (%s): not started yet, no stack; it will run %s" %
                  (int(gp["goid"]), GSTATUS.get(int(gp["atomicstatus"]), "?"),
                   g_entry(gp)))
            created_by(gp)
            return
        gdb.execute("frame 0", to_string=True)
        # gdb gives aarch64's x registers as signed longs: a value with the
        # top bit set reads negative, and "0x%x" of it is no number to set.
        saved = {r: int(gdb.selected_frame().read_register(r)) & (2**64 - 1) for r in regs}
        print("goroutine %d (%s)%s:" % (int(gp["goid"]), GSTATUS.get(int(gp["atomicstatus"]), "?"),
                                       ", preempted at interrupt" if preempted else ""))
        try:
            for r, v in regs.items():
                gdb.execute("set $%s = 0x%x" % (r, v), to_string=True)
            walk(gdb.newest_frame())
        finally:
            gdb.execute("frame 0", to_string=True)
            for r, v in saved.items():
                gdb.execute("set $%s = 0x%x" % (r, v), to_string=True)
        created_by(gp)


def created_by(gp):
    """As Go's traceback ends: the go statement that made gp (its gopc, a
    return address: the call is the instruction before) and the G that
    ran it (none: g0); nothing for the main G."""
    pc = int(gp["gopc"])
    if pc == 0 or int(gp["goid"]) == 1:
        return
    sal = gdb.find_pc_line(pc - 1)
    loc = " at %s:%d" % (sal.symtab.filename, sal.line) if sal.symtab else ""
    parent = int(gp["parentgoid"])
    print("created by %s%s%s" % (symname(pc - 1), " in goroutine %d" % parent if parent else "", loc))


def walk(frame, limit=64):
    """Print frames from frame outwards, ending at gstart (every G's first
    function) or where the stack ends."""
    i = 0
    while frame is not None and i < limit:
        pc = frame.pc()
        name = frame.name() or symname(pc)
        sal = frame.find_sal()
        loc = " at %s:%d" % (sal.symtab.filename, sal.line) if sal.symtab else ""
        print("#%-2d 0x%016x in %s%s" % (i, pc, name, loc))
        if name == "gstart" or pc == 0:
            break
        try:
            frame = frame.older()
        except gdb.error:
            break
        i += 1


def gname(g):
    g = int(g)
    if g == 0:
        return "-"
    gp = val("(struct g *)0x%x" % g)
    return "G%d(%s)" % (int(gp["goid"]), g_entry(gp))


class InfoPs(gdb.Command):
    """info ps: each P's status, M, local run queue, runnext and timers."""

    def __init__(self):
        super().__init__("info ps", gdb.COMMAND_STATUS, gdb.COMPLETE_NONE)

    def invoke(self, arg, from_tty):
        n = int(val("sched.nprocs"))
        size = int(val("sizeof(((struct p *)0)->runq) / sizeof(((struct p *)0)->runq[0])"))
        for i in range(n):
            pp = val("allp")[i]
            head, tail = int(pp["runqhead"]), int(pp["runqtail"])
            q = [gname(pp["runq"][(j % size)]) for j in range(head, tail)] if 0 <= tail - head <= size else ["?"]
            m = "M%d" % int(pp["m"]["id"]) if int(pp["m"]) else "-"
            cur = gname(pp["m"]["curg"]) if int(pp["m"]) and int(pp["m"]["curg"]) else "-"
            print("P%d: %s %s running %s schedtick=%d" % (i, PSTATUS.get(int(pp["status"]), "?"), m, cur,
                                                          int(pp["schedtick"])))
            print("    runnext: %s" % gname(pp["runnext"]))
            print("    runq (%d): %s" % (tail - head, " ".join(q) if q else "empty"))
            ts = pp["timers"]
            tl = []
            for j in range(int(ts["len"])):
                t = ts["heap"][j]
                tl.append("%s@%dns" % (symname(t["f"]), int(t["when"])))
            print("    timers (%d): %s" % (int(ts["len"]), " ".join(tl) if tl else "none"))


class InfoSched(gdb.Command):
    """info sched: the global scheduler state (struct schedt sched)."""

    def __init__(self):
        super().__init__("info sched", gdb.COMMAND_STATUS, gdb.COMPLETE_NONE)

    def invoke(self, arg, from_tty):
        s = val("sched")
        q = []
        gp = s["runq"]["head"]
        while int(gp) and len(q) < 1000:
            q.append(gname(gp))
            gp = gp["schedlink"]
        nlive = sum(1 for g in allgs() if live(g))
        print("nprocs=%d idleprocs=%d spinning=%d needspinning=%d idle Ms=%d" % (
            int(s["nprocs"]), int(s["npidle"]), int(s["nmspinning"]), int(s["needspinning"]),
            int(s["nmidle"])))
        print("goroutines: %d live, %d records, last goid %d" % (nlive, int(s["allglen"]),
                                                                int(s["goidgen"])))
        print("global runq (%d): %s" % (int(s["runq"]["size"]), " ".join(q) if q else "empty"))


InfoGoroutines()
GoroutineCmd()
InfoPs()
InfoSched()
print("gmk-gdb.py: info goroutines, goroutine N bt, info ps, info sched")
