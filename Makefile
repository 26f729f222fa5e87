# SPDX-License-Identifier: GPL-2.0-or-later
#
# tracecost: plain GNU Makefile.
#
#   make            build build/tracecost and the unit tests
#   make run        install dependencies, build, run the user suite
#   make check      install dependencies, build, run every test (also under ASan+UBSan)
#   make bench      print benchmark figures (see BENCHMARKS.md)
#   make deps       install missing Debian packages (root) or print the apt-get line
#   make kernels    build kernels from Debian's linux-source (KERNELS="debug ...", kernel/build.sh)
#
# Layout: include/tracecost (public API), lib/ (libtracecost), subjects/ (the toggle
# subject, one source built once per configuration), src/ (the CLI), tests/, bench/.

VERSION		:= 0.1.0
GIT_SHA		:= $(shell git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)

CC		?= gcc
ifeq ($(CC),cc)
CC		:= gcc
endif
O		?= build
OPTFLAGS	?= -O2
WARNFLAGS	:= -Wall -Wextra -Wno-unused-parameter -Wshadow -Wstrict-prototypes \
		   -Wmissing-prototypes -Wformat=2 -Wvla
PKGS		:= liburcu-memb jansson libtracefs libtraceevent
PKG_CFLAGS	:= $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS	:= $(shell pkg-config --libs $(PKGS) 2>/dev/null || echo -lurcu-memb -lurcu-common -ljansson -ltracefs -ltraceevent)
BASE_CFLAGS	:= -std=gnu11 -g -pthread -fno-strict-aliasing -fno-omit-frame-pointer \
		   -Iinclude -Ilib $(PKG_CFLAGS) \
		   -DTC_VERSION='"$(VERSION)"' -DTC_GIT_SHA='"$(GIT_SHA)"'
# Extra flags for experiments, e.g. EXTRA_CFLAGS=-DTC_STATIC_KEY_FORCE_FLAG
EXTRA_CFLAGS	?=
SAN		?=
ifeq ($(SAN),1)
# a separate tree, also when O= is given: sanitizer objects never mix with the others
override O	:= $(O)-san
OPTFLAGS	:= -O1
SANFLAGS	:= -fsanitize=address,undefined -fno-sanitize-recover=all
endif
ALL_CFLAGS	= $(BASE_CFLAGS) $(OPTFLAGS) $(WARNFLAGS) $(SANFLAGS) $(EXTRA_CFLAGS) \
		  -DTC_CFLAGS='"$(strip $(OPTFLAGS) $(SANFLAGS) $(EXTRA_CFLAGS))"'
LDLIBS		:= $(PKG_LIBS) -lm -pthread
# tracecost size: ELF sections and symbols (libelf), instructions (capstone)
ELF_LIBS	:= -lelf -lcapstone
LDFLAGS		+= $(SANFLAGS)

LIB_SRCS	:= $(sort $(wildcard lib/*.c))
LIB_OBJS	:= $(LIB_SRCS:%.c=$(O)/%.o)
CLI_SRCS	:= $(sort $(wildcard src/*.c))
CLI_OBJS	:= $(CLI_SRCS:%.c=$(O)/%.o)
# The system suite's workloads: one file each, one registration table.
WORKLOAD_SRCS	:= $(sort $(wildcard workloads/*.c))
WORKLOAD_OBJS	:= $(WORKLOAD_SRCS:%.c=$(O)/%.o)
# One object per configuration of the toggle subject, from one source file.
SUBJECT_CFGS	:= stock call callp static staticp
SUBJECT_OBJS	:= $(SUBJECT_CFGS:%=$(O)/subjects/toggle_%.o)
UNIT_SRCS	:= $(sort $(wildcard tests/unit/test_*.c))
UNIT_BINS	:= $(UNIT_SRCS:tests/unit/%.c=$(O)/tests/%)
UNIT_COMMON	:= $(O)/tests/unit/helpers.o

LIBTC		:= $(O)/libtracecost.a
LIBSUBJ		:= $(O)/libsubjects.a
LIBWL		:= $(O)/libworkloads.a
TRACECOST	:= $(O)/tracecost

# User-suite defaults for `make run`; override: make run RUN_ARGS="--samples 10000000"
RUN_ARGS	?=

.PHONY: all run check check-unit check-san check-integration bench deps clean asm \
	check-kernel deps-kernel check-kernel-if-available check-fuzz kernels deps-kernels \
	check-vm check-vm-if-available seed-table check-seed-table
all: $(TRACECOST) $(UNIT_BINS)

$(O)/%.o: %.c $(wildcard include/tracecost/*.h lib/*.h) Makefile
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -c $< -o $@

subj_cfg_stock	:= -DTC_SUBJECT_HOOKS=0 -DTC_SUBJECT_PROBES=0
subj_cfg_call	:= -DTC_SUBJECT_HOOKS=1 -DTC_SUBJECT_PROBES=0
subj_cfg_callp	:= -DTC_SUBJECT_HOOKS=1 -DTC_SUBJECT_PROBES=1
subj_cfg_static	:= -DTC_SUBJECT_HOOKS=2 -DTC_SUBJECT_PROBES=0
subj_cfg_staticp := -DTC_SUBJECT_HOOKS=2 -DTC_SUBJECT_PROBES=1

# Functions and loops of the subject aligned to a cache line, so that where
# the linker puts each configuration's object cannot change how the front end
# sees its timed loops (measured: +0.5 tick per irq pair at --batch 64 from
# placement alone with the default 16-byte alignment).
SUBJ_ALIGN	:= -falign-functions=64 -falign-loops=64
$(O)/subjects/toggle_%.o: subjects/toggle_subject.c $(wildcard include/tracecost/*.h) Makefile
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(SUBJ_ALIGN) $(subj_cfg_$*) -DTC_SUBJECT_ID=$* -c $< -o $@

$(LIBTC): $(LIB_OBJS)
	@rm -f $@
	$(AR) rcs $@ $^

$(LIBSUBJ): $(SUBJECT_OBJS)
	@rm -f $@
	$(AR) rcs $@ $^

$(WORKLOAD_OBJS): $(wildcard workloads/*.h)

$(LIBWL): $(WORKLOAD_OBJS)
	@rm -f $@
	$(AR) rcs $@ $^

# Code size of each configuration, read from the built objects.
SIZE_OBJ	:= $(O)/gen/subject_size.o
$(O)/gen/subject_size.c: $(SUBJECT_OBJS) scripts/subject-size.sh
	@mkdir -p $(dir $@)
	sh scripts/subject-size.sh $(SUBJECT_OBJS) > $@.tmp && mv $@.tmp $@

$(SIZE_OBJ): $(O)/gen/subject_size.c src/size_table.h
	$(CC) $(ALL_CFLAGS) -Isrc -c $< -o $@

$(TRACECOST): $(CLI_OBJS) $(SUBJECT_OBJS) $(SIZE_OBJ) $(LIBWL) $(LIBTC)
	$(CC) $(LDFLAGS) -o $@ $(CLI_OBJS) $(SUBJECT_OBJS) $(SIZE_OBJ) $(LIBWL) $(LIBTC) $(LDLIBS) \
		$(ELF_LIBS)

$(O)/tests/%: tests/unit/%.c $(UNIT_COMMON) $(LIBSUBJ) $(LIBWL) $(LIBTC)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -o $@ $< $(UNIT_COMMON) $(LIBSUBJ) $(LIBWL) $(LIBTC) $(LDLIBS) -lcmocka $(LDFLAGS)

deps:
	@sh scripts/deps.sh

run: deps
	@$(MAKE) --no-print-directory $(TRACECOST)
	$(TRACECOST) run --suite user $(RUN_ARGS)

check-unit: $(UNIT_BINS)
	@sh tests/run-unit.sh $(O) $(UNIT_BINS)

check-san:
	@$(MAKE) --no-print-directory SAN=1 check-unit

check-integration: $(TRACECOST)
	@sh tests/integration/run.sh $(TRACECOST)
	@sh tests/integration/system.sh $(TRACECOST)
	@sh tests/integration/compare.sh $(TRACECOST)

check: deps
	@$(MAKE) --no-print-directory all
	@$(MAKE) --no-print-directory check-unit
	@$(MAKE) --no-print-directory check-integration
	@$(MAKE) --no-print-directory check-san
	@$(MAKE) --no-print-directory check-fuzz
	@$(MAKE) --no-print-directory check-kernel-if-available
	@$(MAKE) --no-print-directory check-vm-if-available
	@echo "check: all test groups passed"

# A static tracecost for the QEMU initramfs (no shared libraries there).
$(O)/tracecost-static: $(CLI_OBJS) $(SUBJECT_OBJS) $(SIZE_OBJ) $(LIBWL) $(LIBTC)
	$(CC) -static -o $@ $(CLI_OBJS) $(SUBJECT_OBJS) $(SIZE_OBJ) $(LIBWL) $(LIBTC) \
		-lurcu-memb -lurcu-common -ljansson -ltracefs -ltraceevent -lelf -lz -lcapstone \
		-ldl -lm -pthread

# The kernel suite, booted under QEMU with Debian's kernel (tests/vm/run.sh).
check-kernel: deps-kernel
	@$(MAKE) --no-print-directory $(O)/tracecost-static
	@sh tests/vm/run.sh $(O)

deps-kernel:
	@sh scripts/deps.sh kernel

# Kernels from Debian's linux-source-6.1: kernel/configs/NAME.config on top of
# tinyconfig + base.config, each a kbuild O= tree $(KERNEL_CACHE)/NAME (bzImage,
# vmlinux, Module.symvers), cached by a hash of its inputs (kernel/build.sh).
KERNELS		?= debug
KERNEL_CACHE	?= $(O)/kernels
kernels: deps-kernels
	@KERNEL_CACHE="$(KERNEL_CACHE)" V="$(V)" bash kernel/build.sh $(KERNELS)

deps-kernels:
	@sh scripts/deps.sh kernels

# tracecost vm end to end with Debian's kernel (tests/vm/vm.sh): bad input,
# missing QEMU, a module that does not build, a kernel that does not boot, two
# deterministic boots with identical counts, the system suite in the guest.
check-vm: deps-kernel
	@$(MAKE) --no-print-directory $(TRACECOST) $(O)/tracecost-static
	@sh tests/vm/vm.sh $(O)

# The preemptirq thread's tables from source (kernel/seed-table.sh, doc/
# seed-table.md): the kernels stock, irqsoff, preemptirq (our patch series)
# and lockdep, built by make kernels and booted by tracecost vm --deterministic.
SEED_KERNELS	:= stock irqsoff preemptirq lockdep
seed-table: deps-kernel
	@$(MAKE) --no-print-directory $(TRACECOST) $(O)/tracecost-static
	@$(MAKE) --no-print-directory kernels KERNELS="$(SEED_KERNELS)" KERNEL_CACHE="$(KERNEL_CACHE)"
	@sh kernel/seed-table.sh $(O) $(KERNEL_CACHE)

# seed-table, then its assertions (tests/vm/seed-table.sh)
check-seed-table: seed-table
	@sh tests/vm/seed-table.sh $(O) $(KERNEL_CACHE)

# make check runs the QEMU test when QEMU and Debian's kernel packages are here
# (.ci/run installs them); elsewhere it says why it skipped.
check-kernel-if-available:
	@if sh scripts/deps.sh --check kernel; then \
		$(MAKE) --no-print-directory check-kernel; \
	else echo "check-kernel: skipped (run 'make deps-kernel' as root to install QEMU and the kernel packages)"; fi

check-vm-if-available:
	@if sh scripts/deps.sh --check kernel; then \
		$(MAKE) --no-print-directory check-vm; \
	else echo "check-vm: skipped (run 'make deps-kernel' as root to install QEMU and the kernel packages)"; fi

# libFuzzer (clang) on the result reader and the comparison behind it, for
# FUZZ_SECONDS, from the seed corpus in tests/fuzz/; inputs that once
# crashed it are replayed first (tests/fuzz/regress/).
FUZZ_SECONDS	?= 60
FUZZ_CC		?= clang
FUZZ_BIN	:= $(O)/fuzz/fuzz_result_read
FUZZ_SRCS	:= tests/fuzz/fuzz_result_read.c lib/result_read.c lib/compare.c lib/hist.c \
		   lib/stats.c

$(FUZZ_BIN): $(FUZZ_SRCS) $(wildcard include/tracecost/*.h) Makefile
	@mkdir -p $(dir $@)
	$(FUZZ_CC) -std=gnu11 -g -O1 -Iinclude $(PKG_CFLAGS) \
		-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
		-o $@ $(FUZZ_SRCS) -ljansson -lm

check-fuzz: $(FUZZ_BIN)
	@sh tests/fuzz/run.sh $(FUZZ_BIN) $(FUZZ_SECONDS)

bench: deps
	@$(MAKE) --no-print-directory $(TRACECOST)
	@sh bench/run.sh $(TRACECOST)
	@sh bench/system.sh $(TRACECOST)

# Disassembly of the toggle subject, one file per configuration.
asm: $(SUBJECT_OBJS)
	@for f in $(SUBJECT_OBJS); do objdump -d --no-show-raw-insn $$f > $${f%.o}.asm; echo $${f%.o}.asm; done

clean:
	rm -rf build build-san
