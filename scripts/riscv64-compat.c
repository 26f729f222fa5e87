// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * scripts/riscv64-compat.c - linked into the static tracecost of the riscv64
 * guest only (Makefile, SYSROOT; scripts/deps.sh kernels-riscv).
 *
 * riscv64 is no Debian 12 architecture: that tracecost is built with Debian
 * 12's cross C library (glibc 2.36, libc6-dev-riscv64-cross) and Debian 13's
 * riscv64 libraries (Debian 13's own libc.a carries relocations Debian 12's
 * linker does not know). What those libraries call and neither provides:
 *
 *  - glibc 2.38's C23 entry points of strtol() and scanf(), which callers
 *    built with _GNU_SOURCE against glibc >= 2.38 reach; they differ from
 *    the old ones only in accepting 0b binary prefixes (strto*) and %b
 *    (scanf), which those libraries do not parse;
 *  - four search-tree functions of elfutils' internal libeu, which Debian
 *    13's libelf.a (elfutils 0.192) calls but does not contain: tsearch(3)
 *    on the tree's root, its first member (the tree has no lock in an
 *    elfutils built without thread safety, and the guest's tracecost reads
 *    ELF files from one thread).
 */
#define _GNU_SOURCE
#include <search.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

long __isoc23_strtol(const char *s, char **end, int base);
long long __isoc23_strtoll(const char *s, char **end, int base);
unsigned long __isoc23_strtoul(const char *s, char **end, int base);
unsigned long long __isoc23_strtoull(const char *s, char **end, int base);
int __isoc23_sscanf(const char *s, const char *fmt, ...);
int __isoc23_fscanf(FILE *f, const char *fmt, ...);

long __isoc23_strtol(const char *s, char **end, int base)
{
	return strtol(s, end, base);
}

long long __isoc23_strtoll(const char *s, char **end, int base)
{
	return strtoll(s, end, base);
}

unsigned long __isoc23_strtoul(const char *s, char **end, int base)
{
	return strtoul(s, end, base);
}

unsigned long long __isoc23_strtoull(const char *s, char **end, int base)
{
	return strtoull(s, end, base);
}

int __isoc23_sscanf(const char *s, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsscanf(s, fmt, ap);
	va_end(ap);
	return n;
}

int __isoc23_fscanf(FILE *f, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vfscanf(f, fmt, ap);
	va_end(ap);
	return n;
}

struct eu_search_tree {
	void *root;
};

void eu_search_tree_init(struct eu_search_tree *tree);
void eu_search_tree_fini(struct eu_search_tree *tree);
void *eu_tsearch(const void *key, struct eu_search_tree *tree,
		 int (*compare)(const void *, const void *));
void *eu_tdelete(const void *key, struct eu_search_tree *tree,
		 int (*compare)(const void *, const void *));

void eu_search_tree_init(struct eu_search_tree *tree)
{
	tree->root = NULL;
}

void eu_search_tree_fini(struct eu_search_tree *tree)
{
	(void)tree;
}

void *eu_tsearch(const void *key, struct eu_search_tree *tree,
		 int (*compare)(const void *, const void *))
{
	return tsearch(key, &tree->root, compare);
}

void *eu_tdelete(const void *key, struct eu_search_tree *tree,
		 int (*compare)(const void *, const void *))
{
	return tdelete(key, &tree->root, compare);
}
