#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
#
# kernel/same-image-cmp.py A B: compare two ELF files (a vmlinux, a module)
# byte for byte, and when they differ, section by section: every section of
# either file by name, its type, flags, address, size and bytes (NOBITS
# sections by size alone), then the ELF header and the program headers. For
# each section that differs it prints the first differing ranges and the
# symbol each one falls in (A's symbol table), so that a difference in
# .data can be told apart as __jump_table, __bug_table, a variable...
#
# Exit 0 if identical, 1 if they differ, 2 on bad input.
import struct
import sys

MAX_RANGES = 4


def die(msg, code=2):
    print("same-image-cmp: " + msg, file=sys.stderr)
    sys.exit(code)


class Elf:
    def __init__(self, path):
        self.path = path
        with open(path, "rb") as f:
            self.data = f.read()
        d = self.data
        if d[:4] != b"\x7fELF" or d[4] != 2 or d[5] != 1:
            die(path + " is not a 64-bit little-endian ELF file")
        (self.type, self.machine, _, self.entry, self.phoff, self.shoff, _,
         _, self.phentsize, self.phnum, self.shentsize, self.shnum,
         self.shstrndx) = struct.unpack_from("<HHIQQQIHHHHHH", d, 16)
        self.sections = []
        for i in range(self.shnum):
            (name, typ, flags, addr, off, size, link, info, align,
             entsize) = struct.unpack_from("<IIQQQQIIQQ", d, self.shoff + i * self.shentsize)
            self.sections.append(dict(name=name, type=typ, flags=flags, addr=addr,
                                      off=off, size=size, link=link, entsize=entsize))
        strtab = self.sections[self.shstrndx]
        for s in self.sections:
            s["name"] = self.cstr(strtab["off"] + s["name"])
        self.syms = None

    def cstr(self, off):
        end = self.data.index(b"\0", off)
        return self.data[off:end].decode("latin-1")

    def body(self, s):
        if s["type"] == 8:  # NOBITS
            return b""
        return self.data[s["off"]:s["off"] + s["size"]]

    def symbols(self):
        """(address, name) of the symbols of .symtab, sorted."""
        if self.syms is None:
            self.syms = []
            for s in self.sections:
                if s["type"] != 2:  # SYMTAB
                    continue
                strs = self.sections[s["link"]]
                for i in range(1, s["size"] // 24):
                    name, info, _, shndx, value, _ = struct.unpack_from(
                        "<IBBHQQ", self.data, s["off"] + i * 24)
                    if info & 0xf in (3, 4) or shndx == 0 or name == 0:
                        continue  # SECTION, FILE, undefined, unnamed
                    sym = self.cstr(strs["off"] + name)
                    if sym.startswith("$"):
                        continue  # arm64's mapping symbols: $x, $d
                    self.syms.append((value, sym))
            self.syms.sort()
        return self.syms

    def where(self, addr):
        syms = self.symbols()
        lo, hi = 0, len(syms)
        while lo < hi:
            mid = (lo + hi) // 2
            if syms[mid][0] <= addr:
                lo = mid + 1
            else:
                hi = mid
        if lo == 0:
            return "?"
        value, name = syms[lo - 1]
        return "%s+0x%x" % (name, addr - value)


def ranges(a, b):
    """The first MAX_RANGES [start, end) ranges where a and b differ."""
    out = []
    n = min(len(a), len(b))
    i = 0
    step = 4096
    while i < n and len(out) < MAX_RANGES:
        j = min(i + step, n)
        if a[i:j] == b[i:j]:
            i = j
            continue
        while a[i] == b[i]:
            i += 1
        start = i
        while i < n and a[i] != b[i]:
            i += 1
        out.append((start, i))
    return out


def main():
    if len(sys.argv) != 3:
        die("usage: kernel/same-image-cmp.py A B")
    a, b = Elf(sys.argv[1]), Elf(sys.argv[2])
    if a.data == b.data:
        print("identical: %s and %s, %d bytes, %d sections" %
              (a.path, b.path, len(a.data), a.shnum))
        return 0
    print("differ: %s (%d bytes) and %s (%d bytes)" %
          (a.path, len(a.data), b.path, len(b.data)))
    names_a = [s["name"] for s in a.sections]
    names_b = [s["name"] for s in b.sections]
    for n in names_b:
        if n not in names_a:
            print("  section %s only in %s" % (n, b.path))
    same = 0
    loaded = 0
    for sa in a.sections:
        n = sa["name"]
        if n not in names_b:
            print("  section %s only in %s" % (n, a.path))
            continue
        sb = b.sections[names_b.index(n)]
        what = []
        for k in ("type", "flags", "addr", "size", "entsize"):
            if sa[k] != sb[k]:
                what.append("%s 0x%x -> 0x%x" % (k, sa[k], sb[k]))
        ba, bb = a.body(sa), b.body(sb)
        if ba != bb:
            what.append("bytes")
        if not what:
            same += 1
            continue
        if sa["flags"] & 2 or sb["flags"] & 2:
            loaded += 1
        print("  section %s differs: %s" % (n or "(null)", ", ".join(what)))
        if ba == bb:
            continue
        for lo, hi in ranges(ba, bb):
            if sa["flags"] & 2:  # ALLOC: name the symbol
                at = "0x%x %s" % (sa["addr"] + lo, a.where(sa["addr"] + lo))
            elif sa["type"] == 3:  # STRTAB: the names that differ
                st = ba.rfind(b"\0", 0, lo) + 1
                at = "offset 0x%x: %s -> %s" % (
                    lo, ba[st:ba.index(b"\0", lo)].decode("latin-1"),
                    bb[st:bb.index(b"\0", lo)].decode("latin-1"))
            else:
                at = "offset 0x%x" % lo
            print("    %d byte(s) at %s" % (hi - lo, at))
        if len(ba) != len(bb):
            print("    size %d -> %d" % (len(ba), len(bb)))
    hdr = "ELF header" if a.data[:64] != b.data[:64] else None
    ph = a.data[a.phoff:a.phoff + a.phnum * a.phentsize]
    if ph != b.data[b.phoff:b.phoff + b.phnum * b.phentsize]:
        hdr = (hdr + ", " if hdr else "") + "program headers"
    if hdr:
        print("  %s differ" % hdr)
    print("  %d of %d sections identical; %d of the sections loaded (SHF_ALLOC) differ" %
          (same, a.shnum, loaded))
    return 1


if __name__ == "__main__":
    sys.exit(main())
