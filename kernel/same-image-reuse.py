#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
#
# kernel/same-image-reuse.py ADIR BDIR PRISTINE PATCHED: before kbuild builds
# BDIR (a copy of the pristine build ADIR whose .cmd files were rewritten to
# the patched source tree PATCHED), find every target that depends on a file
# whose content differs between the two builds: a file of PATCHED that
# differs from PRISTINE's (or is not there: the files the series edits or
# adds), or a generated file of BDIR that differs from ADIR's. Content, not
# time stamps: a pristine build newer than the patched tree's edited files
# would look up to date to kbuild. For each such object compiled from C or
# assembler, preprocess its translation unit twice with kbuild's own
# command, -E -P instead of -c: in ADIR from PRISTINE, in BDIR from PATCHED.
# Where the two token streams are identical, the compiler is given the same
# input with the same flags (no debug info; kbuild maps the source tree out
# of __FILE__), so the object ADIR holds is the one BDIR would compile: it is
# kept (its time stamp renewed). Every other such target is removed from
# BDIR, so that kbuild rebuilds it from the patched source. Prints one line
# per removed target and a summary.
#
# Environment: JOBS (default 2).
import filecmp
import multiprocessing
import os
import re
import subprocess
import sys
import tempfile


def parse_cmd(path):
    """target, command, [dependency paths] of a kbuild .cmd file."""
    target = cmd = None
    deps = []
    with open(path, encoding="latin-1") as f:
        lines = f.read().split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("cmd_") and " := " in line and cmd is None:
            target, cmd = line[4:].split(" := ", 1)
        elif line.startswith("source_") and " := " in line:
            deps.append(line.split(" := ", 1)[1].strip())
        elif line.startswith("deps_") and line.endswith(":= \\"):
            i += 1
            while i < len(lines):
                d = lines[i].strip()
                more = d.endswith("\\")
                d = d.rstrip("\\").strip()
                m = re.match(r"\$\(wildcard (.*)\)$", d)
                if m:
                    d = m.group(1)
                if d:
                    deps.append(d)
                if not more:
                    break
                i += 1
        i += 1
    return target, cmd, deps


# gcc, or a cross compiler (aarch64-linux-gnu-gcc)
COMPILE = re.compile(r"^(\S*gcc .*) -c -o (\S+) (\S+\.[cS])$")


def preprocess(cmd, cwd, out):
    m = COMPILE.match(cmd)
    args = re.sub(r" -Wp,-MM?D,\S+", "", m.group(1))
    full = "%s -E -P -o %s %s" % (args, out, m.group(3))
    r = subprocess.run(full, shell=True, cwd=cwd, stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE)
    if r.returncode != 0:
        return None
    with open(out, "rb") as f:
        return f.read()


def check(job):
    adir, bdir, pristine, patched, target, cmd = job
    with tempfile.TemporaryDirectory() as t:
        b = preprocess(cmd, bdir, os.path.join(t, "b.i"))
        a = preprocess(cmd.replace(patched, pristine), adir, os.path.join(t, "a.i"))
    return target, a is not None and a == b


class Edited:
    """Whether a dependency's content differs between the two builds."""

    def __init__(self, adir, bdir, pristine, patched):
        self.adir, self.bdir = adir, bdir
        self.pristine, self.patched = pristine, patched
        self.seen = {}
        self.files = []

    def __call__(self, d):
        p = d if os.path.isabs(d) else os.path.join(self.bdir, d)
        p = os.path.normpath(p)
        if p in self.seen:
            return self.seen[p]
        if p.startswith(self.patched + "/"):
            q = self.pristine + p[len(self.patched):]
        elif p.startswith(self.bdir + "/"):
            q = self.adir + p[len(self.bdir):]
        else:
            q = p  # outside both trees (the compiler's headers): shared
        if q == p:
            diff = False
        elif os.path.isfile(p) != os.path.isfile(q):
            diff = True
        elif not os.path.isfile(p):
            diff = False
        else:
            diff = not filecmp.cmp(p, q, shallow=False)
        if diff:
            self.files.append(p)
        self.seen[p] = diff
        return diff


def main():
    if len(sys.argv) != 5:
        print("usage: kernel/same-image-reuse.py ADIR BDIR PRISTINE PATCHED", file=sys.stderr)
        return 2
    adir, bdir, pristine, patched = [os.path.normpath(a) for a in sys.argv[1:]]
    edited = Edited(adir, bdir, pristine, patched)
    jobs = []
    other = []
    ncmd = 0
    for root, dirs, files in os.walk(bdir):
        if root == bdir:
            dirs[:] = [d for d in dirs if d not in ("tools", "source")]
        for name in files:
            if not (name.startswith(".") and name.endswith(".cmd")):
                continue
            target, cmd, deps = parse_cmd(os.path.join(root, name))
            if not target:
                continue
            tpath = os.path.join(bdir, target)
            if not os.path.exists(tpath):
                continue
            ncmd += 1
            # every dependency looked at, so that the list of files is whole
            if not any([edited(d) for d in deps]):
                continue
            cmd = cmd.split(" ; ")[0].strip()
            if target.endswith(".o") and COMPILE.match(cmd):
                jobs.append((adir, bdir, pristine, patched, target, cmd))
            else:
                other.append(target)
    n = int(os.environ.get("JOBS", "2"))
    kept = 0
    rebuilt = []
    with multiprocessing.Pool(n) as pool:
        for target, same in pool.imap_unordered(check, jobs, chunksize=4):
            if same:
                os.utime(os.path.join(bdir, target))
                kept += 1
            else:
                rebuilt.append(target)
    for t in rebuilt + other:
        os.remove(os.path.join(bdir, t))
    for f in sorted(edited.files):
        print("same-image: differs between the trees: " + f)
    for t in sorted(rebuilt):
        print("same-image: recompiled from the patched source (its preprocessed source differs): " + t)
    for t in sorted(other):
        print("same-image: rebuilt by kbuild (not a C/assembler compile): " + t)
    print("same-image: %d targets in the build, %d depend on a file that differs between the "
          "trees (%d files): %d objects token-identical from both trees (the pristine object "
          "kept), %d recompiled, %d other targets rebuilt" %
          (ncmd, len(jobs) + len(other), len(edited.files), kept, len(rebuilt), len(other)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
