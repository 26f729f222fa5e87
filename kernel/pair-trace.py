# SPDX-License-Identifier: GPL-2.0-or-later
#
# kernel/pair-trace.py: gdb script of kernel/pair-trace.sh.
#
# Connects to QEMU's gdbstub as the guest boots and breaks at the guest's
# first sync(2) (TC_SYNC, the address of __x64_sys_sync): the guest calls it
# once it has written to its data port (TC_DATA) the kernel's _stext, the
# module's kallsyms lines and the addresses of two of the module's timed
# loops, the pair's ("@@LOOP addr") and the empty one ("@@EMPTY addr",
# loop_none, behind the timer overhead O), and before it runs them. Then,
# for each loop, at the first call: single-steps sample TC_SKIP (0-based)
# and keeps the address of every instruction after the RDTSC of its t0 up
# to the RDTSC of its t1 (the loop function's own RDTSCs: sched_clock()
# reads the TSC too). QEMU's gdbstub masks interrupts and timers while it
# steps, so a trace holds the sample's code and nothing that interrupts it.
#
# Then it detaches, the guest runs on, and the addresses are named:
# vmlinux's text symbols (TC_SYSTEM_MAP, shifted to the guest's _stext) and
# the module's. TC_OUT gets the pair's addresses, one per line, TC_OUT.txt
# instructions per function in the order of first execution, with the
# number of entries (the function's first instruction executed), the total,
# and the empty sample's total.
import bisect
import os
import time

import gdb


def text_syms(lines, shift=0, suffix=""):
    syms = []
    for line in lines:
        w = line.split()
        if len(w) >= 3 and w[1] in "tTwW":
            syms.append((int(w[0], 16) + shift, w[2] + suffix))
    return syms


def guest_lines(path):
    """What the guest sent before sync: _stext, module symbols, two loops."""
    got, ksyms, on = {}, [], False
    with open(path, errors="replace") as f:
        for line in f:
            line = line.strip("\r\n")
            w = line.split()
            if len(w) == 2 and w[0] in ("@@STEXT", "@@LOOP", "@@EMPTY"):
                got[w[0]] = int(w[1], 16)
            elif line == "@@BEGIN ksyms":
                on = True
            elif line.startswith("@@END"):
                on = False
            elif on:
                ksyms.append(line)
    for key in ("@@STEXT", "@@LOOP", "@@EMPTY"):
        if not got.get(key):
            raise gdb.GdbError("the guest sent no %s line before sync" % key)
    return got["@@STEXT"], got["@@LOOP"], got["@@EMPTY"], ksyms


def pc_now():
    return int(gdb.parse_and_eval("$pc")) & 0xFFFFFFFFFFFFFFFF


def trace_sample(start, end, skip, limit):
    """Addresses between t0's and t1's RDTSC of sample @skip of [start, end)."""
    inf = gdb.selected_inferior()
    rdtsc, steps, trace = 0, 0, []
    while steps < limit:
        pc = pc_now()
        if start <= pc < end and bytes(inf.read_memory(pc, 2)) == b"\x0f\x31":
            rdtsc += 1
            if rdtsc == 2 * skip + 2:
                return trace
        elif rdtsc == 2 * skip + 1:
            trace.append(pc)
        gdb.execute("stepi", to_string=True)
        steps += 1
    raise gdb.GdbError("no t1 within %d steps of 0x%x" % (limit, start))


port = os.environ.get("TC_GDB_PORT", "1234")
skip = int(os.environ.get("TC_SKIP", "2"))
limit = int(os.environ.get("TC_LIMIT", "200000"))
out = os.environ["TC_OUT"]

gdb.execute("set pagination off")
gdb.execute("set confirm off")
for attempt in range(100):
    try:
        gdb.execute("target remote 127.0.0.1:%s" % port)
        break
    except gdb.error:
        time.sleep(0.1)
else:
    raise gdb.GdbError("no gdbstub on port %s" % port)
gdb.execute("break *0x%x" % int(os.environ["TC_SYNC"], 16))
gdb.execute("continue")
gdb.execute("delete")
stext, loop, empty, ksyms = guest_lines(os.environ["TC_DATA"])

# each loop function ends where the module's next symbol starts
mod_addrs = sorted(a for a, _ in text_syms(ksyms))
traces = {}
pending = {loop, empty}
for a in pending:
    gdb.execute("break *0x%x" % a)
while pending:
    gdb.execute("continue")
    at = pc_now()
    if at not in pending:
        raise gdb.GdbError("stopped at 0x%x, not at a loop" % at)
    gdb.execute("delete")
    pending.discard(at)
    for a in pending:
        gdb.execute("break *0x%x" % a)
    end = min([a for a in mod_addrs if a > at] or [at + 4096])
    traces[at] = trace_sample(at, end, skip, limit)
gdb.execute("detach")

trace = traces[loop]
with open(out, "w") as f:
    for pc in trace:
        f.write("%x\n" % pc)

with open(os.environ["TC_SYSTEM_MAP"]) as f:
    smap = f.readlines()
stext_map = [int(w[0], 16) for w in (l.split() for l in smap) if len(w) >= 3 and w[2] == "_stext"]
syms = sorted(text_syms(smap, stext - stext_map[0]) + text_syms(ksyms, 0, " [tracecost]"))
addrs = [a for a, _ in syms]
count, entries, order = {}, {}, []
for pc in trace:
    i = bisect.bisect_right(addrs, pc) - 1
    fn = syms[i][1] if i >= 0 else "?"
    if fn not in count:
        order.append(fn)
        count[fn] = entries[fn] = 0
    count[fn] += 1
    if i >= 0 and addrs[i] == pc:
        entries[fn] += 1
with open(out + ".txt", "w") as f:
    f.write("%-44s %7s %7s\n" % ("function", "insns", "entries"))
    for fn in order:
        f.write("%-44s %7d %7d\n" % (fn, count[fn], entries[fn]))
    f.write("%-44s %7d %7d\n" % ("total", len(trace), sum(entries.values())))
    f.write("%-44s %7d\n" % ("empty sample (loop_none)", len(traces[empty])))
