// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * src/cmd_size.c - "tracecost size": binary size impact of ELF files
 * (vmlinux, modules, objects, executables) against the first one, and with
 * --symbols the instructions and bytes of each matching function, so that
 * the code-size cost of instrumented sites shows per function.
 *
 * Sections are read with libelf and counted like binutils' "size" in its
 * default (Berkeley) format: allocated sections only; text = executable or
 * read-only, data = writable, bss = SHT_NOBITS. Instructions are decoded
 * with capstone over each function symbol's bytes (st_value, st_size).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <gelf.h>
#include <getopt.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <capstone/capstone.h>

#include <tracecost/file.h>
#include <tracecost/report.h>

#include "cli.h"

/* One function of one file: duplicates of a name (static functions) add up. */
struct func {
	char *name;
	unsigned long insns;	/* decoded instructions */
	unsigned long bytes;	/* st_size */
	unsigned long bad;	/* bytes capstone could not decode */
	int count;		/* symbols of this name */
};

struct elf_size {
	const char *path;
	char label[96];
	unsigned long long text, data, bss;
	int disasm;		/* capstone knows the architecture */
	struct func *funcs;
	int nr_funcs, cap_funcs;
};

enum { OPT_SYMBOLS = 256, OPT_LABEL, OPT_FORMAT, OPT_HELP };

static const struct option long_opts[] = {
	{ "symbols", required_argument, NULL, OPT_SYMBOLS },
	{ "label", required_argument, NULL, OPT_LABEL },
	{ "format", required_argument, NULL, OPT_FORMAT },
	{ "help", no_argument, NULL, OPT_HELP },
	{ NULL, 0, NULL, 0 },
};

static void usage(void)
{
	printf("usage: tracecost size ELF... [--symbols PATTERN] [--label NAME]...\n"
	       "                      [--format text|markdown|csv]\n\n"
	       "  ELF              vmlinux, modules (.ko), objects (.o) or executables; the\n"
	       "                   first is the reference of the changes\n"
	       "  --symbols PATTERN  add, per function whose name matches the shell pattern\n"
	       "                   (fnmatch, e.g. 'trace_*'), its instructions and bytes\n"
	       "  --label NAME     name of the next column (repeat; default: the file name)\n"
	       "  --format F       text (default), markdown or csv\n");
}

static struct func *func_get(struct elf_size *e, const char *name)
{
	int i;

	for (i = 0; i < e->nr_funcs; i++)
		if (!strcmp(e->funcs[i].name, name))
			return &e->funcs[i];
	if (e->nr_funcs == e->cap_funcs) {
		e->cap_funcs = e->cap_funcs ? 2 * e->cap_funcs : 64;
		e->funcs = realloc(e->funcs, (size_t)e->cap_funcs * sizeof(*e->funcs));
		if (!e->funcs)
			tc_cli_fail("out of memory");
	}
	e->funcs[e->nr_funcs] = (struct func){ .name = strdup(name) };
	if (!e->funcs[e->nr_funcs].name)
		tc_cli_fail("out of memory");
	return &e->funcs[e->nr_funcs++];
}

/* Capstone architecture and mode of an ELF machine; 0 when unknown. */
static int cs_target(const GElf_Ehdr *eh, cs_arch *arch, cs_mode *mode)
{
	cs_mode endian = eh->e_ident[EI_DATA] == ELFDATA2MSB ? CS_MODE_BIG_ENDIAN :
			 CS_MODE_LITTLE_ENDIAN;

	switch (eh->e_machine) {
	case EM_X86_64:
		*arch = CS_ARCH_X86;
		*mode = CS_MODE_64;
		return 1;
	case EM_386:
		*arch = CS_ARCH_X86;
		*mode = CS_MODE_32;
		return 1;
	case EM_AARCH64:
		*arch = CS_ARCH_ARM64;
		*mode = CS_MODE_ARM | endian;
		return 1;
	case EM_ARM:
		*arch = CS_ARCH_ARM;
		*mode = CS_MODE_ARM | endian;
		return 1;
	case EM_PPC64:
		*arch = CS_ARCH_PPC;
		*mode = CS_MODE_64 | endian;
		return 1;
	case EM_S390:
		*arch = CS_ARCH_SYSZ;
		*mode = CS_MODE_BIG_ENDIAN;
		return 1;
	case EM_MIPS:
		*arch = CS_ARCH_MIPS;
		*mode = (eh->e_ident[EI_CLASS] == ELFCLASS64 ? CS_MODE_MIPS64 : CS_MODE_MIPS32) |
			endian;
		return 1;
	default:
		return 0;
	}
}

/* Instructions in @len bytes at @code; undecodable bytes are skipped and counted. */
static void count_insns(csh cs, cs_mode mode, cs_arch arch, const uint8_t *code, size_t len,
			uint64_t addr, struct func *fn)
{
	cs_insn *insn = cs_malloc(cs);
	size_t step = arch == CS_ARCH_X86 ? 1 : (mode & CS_MODE_THUMB) ? 2 :
		      arch == CS_ARCH_SYSZ ? 2 : 4;

	if (!insn)
		tc_cli_fail("out of memory");
	while (len) {
		if (cs_disasm_iter(cs, &code, &len, &addr, insn)) {
			fn->insns++;
			continue;
		}
		step = step < len ? step : len;
		fn->bad += step;
		code += step;
		len -= step;
		addr += step;
	}
	cs_free(insn, 1);
}

static void read_symbols(Elf *elf, const GElf_Ehdr *eh, struct elf_size *e, const char *pattern)
{
	Elf_Scn *scn = NULL, *symscn = NULL;
	GElf_Shdr sh, symsh;
	Elf_Data *syms;
	cs_arch arch = CS_ARCH_X86;
	cs_mode mode = CS_MODE_64;
	csh cs = 0;
	size_t i, nsyms;

	while ((scn = elf_nextscn(elf, scn))) {
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_SYMTAB) {
			symscn = scn;
			symsh = sh;
			break;
		}
	}
	if (!symscn)
		tc_cli_usage("%s: no symbol table (stripped): --symbols needs one", e->path);
	syms = elf_getdata(symscn, NULL);
	if (!syms || !symsh.sh_entsize)
		tc_cli_usage("%s: unreadable symbol table: %s", e->path, elf_errmsg(-1));
	e->disasm = cs_target(eh, &arch, &mode) && cs_open(arch, mode, &cs) == CS_ERR_OK;
	nsyms = syms->d_size / gelf_fsize(elf, ELF_T_SYM, 1, EV_CURRENT);
	for (i = 0; i < nsyms; i++) {
		GElf_Sym sym;
		GElf_Shdr fsh;
		Elf_Scn *fscn;
		Elf_Data *d;
		const char *name;
		struct func *fn;
		uint64_t off, value;
		cs_mode m = mode;

		if (!gelf_getsym(syms, (int)i, &sym))
			tc_cli_usage("%s: unreadable symbol %zu: %s", e->path, i, elf_errmsg(-1));
		if ((GELF_ST_TYPE(sym.st_info) != STT_FUNC &&
		     GELF_ST_TYPE(sym.st_info) != STT_GNU_IFUNC) || !sym.st_size ||
		    sym.st_shndx == SHN_UNDEF || sym.st_shndx >= SHN_LORESERVE)
			continue;
		name = elf_strptr(elf, symsh.sh_link, sym.st_name);
		if (!name || fnmatch(pattern, name, 0))
			continue;
		fscn = elf_getscn(elf, sym.st_shndx);
		if (!fscn || !gelf_getshdr(fscn, &fsh))
			tc_cli_usage("%s: symbol %.64s: bad section index %u", e->path, name,
				     sym.st_shndx);
		fn = func_get(e, name);
		fn->bytes += sym.st_size;
		fn->count++;
		if (!e->disasm || fsh.sh_type != SHT_PROGBITS || !(fsh.sh_flags & SHF_EXECINSTR))
			continue;
		value = sym.st_value;
		if (eh->e_machine == EM_ARM && (value & 1)) {
			value &= ~1ull;
			m |= CS_MODE_THUMB;
		}
		off = eh->e_type == ET_REL ? value : value - fsh.sh_addr;
		d = elf_getdata(fscn, NULL);
		if (!d || !d->d_buf || off > d->d_size || sym.st_size > d->d_size - off)
			tc_cli_usage("%s: symbol %.64s lies outside its section", e->path, name);
		if (m != mode)
			cs_option(cs, CS_OPT_MODE, m);
		count_insns(cs, m, arch, (const uint8_t *)d->d_buf + off, sym.st_size, value, fn);
		if (m != mode)
			cs_option(cs, CS_OPT_MODE, mode);
	}
	if (cs)
		cs_close(&cs);
}

static void read_elf(struct elf_size *e, const char *pattern)
{
	Elf_Scn *scn = NULL;
	GElf_Ehdr eh;
	GElf_Shdr sh;
	struct stat st;
	char why[128];
	Elf *elf;
	int fd;

	/* a FIFO or device is refused before open() could block on it */
	fd = tc_file_open(e->path, &st, why, sizeof(why));
	if (fd < 0)
		tc_cli_usage("%s: %s", e->path, why);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF)
		tc_cli_usage("%s: not an ELF file%s", e->path,
			     elf && elf_kind(elf) == ELF_K_AR ?
			     " (an archive: give its members)" : "");
	if (!gelf_getehdr(elf, &eh))
		tc_cli_usage("%s: unreadable ELF header: %s", e->path, elf_errmsg(-1));
	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh))
			tc_cli_usage("%s: unreadable section header: %s", e->path, elf_errmsg(-1));
		if (!(sh.sh_flags & SHF_ALLOC))
			continue;
		if (sh.sh_type == SHT_NOBITS)
			e->bss += sh.sh_size;
		else if (sh.sh_flags & SHF_WRITE)
			e->data += sh.sh_size;
		else
			e->text += sh.sh_size;
	}
	if (elf_errno())
		tc_cli_usage("%s: unreadable sections: %s", e->path, elf_errmsg(-1));
	if (!e->text && !e->data && !e->bss)
		tc_cli_usage("%s: no allocated section (stripped of its contents?)", e->path);
	if (pattern)
		read_symbols(elf, &eh, e, pattern);
	elf_end(elf);
	close(fd);
}

static void fmt_change(char *buf, size_t len, unsigned long long v, unsigned long long ref,
		       int first)
{
	long long d = (long long)v - (long long)ref;

	if (first)
		snprintf(buf, len, "%llu", v);
	else if (ref)
		snprintf(buf, len, "%llu %+lld (%+.1f%%)", v, d, 100.0 * (double)d / (double)ref);
	else
		snprintf(buf, len, "%llu %+lld", v, d);
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every matching name of every file, sorted; exit 2 when there is none. */
static char **collect_names(struct elf_size *e, int n, const char *pattern, int *nr)
{
	char **all = NULL;
	int i, nr_all = 0;

	for (i = 0; i < n; i++) {
		int k;

		for (k = 0; k < e[i].nr_funcs; k++) {
			int j;

			for (j = 0; j < nr_all; j++)
				if (!strcmp(all[j], e[i].funcs[k].name))
					break;
			if (j < nr_all)
				continue;
			all = realloc(all, ((size_t)nr_all + 1) * sizeof(*all));
			if (!all)
				tc_cli_fail("out of memory");
			all[nr_all++] = e[i].funcs[k].name;
		}
	}
	if (!nr_all)
		tc_cli_usage("--symbols '%s': no function matches in any file", pattern);
	qsort(all, (size_t)nr_all, sizeof(*all), cmp_name);
	*nr = nr_all;
	return all;
}

static void print_table(struct elf_size *e, int n, const char *pattern, char **all,
			int nr_all, enum tc_table_format fmt)
{
	const char **names = calloc((size_t)n, sizeof(*names));
	char **cells = calloc((size_t)n, sizeof(*cells));
	struct tc_table *t;
	int i, r;

	if (!names || !cells)
		tc_cli_fail("out of memory");
	for (i = 0; i < n; i++) {
		names[i] = e[i].label;
		cells[i] = malloc(96);
		if (!cells[i])
			tc_cli_fail("out of memory");
	}
	t = tc_table_new("Binary size impact", "bytes", n, names);
	if (!t)
		tc_cli_fail("out of memory");
	for (r = 0; r < 4; r++) {
		static const char *const labels[] = { "text", "data", "bss", "total" };

		for (i = 0; i < n; i++) {
			unsigned long long v[4] = { e[i].text, e[i].data, e[i].bss,
						    e[i].text + e[i].data + e[i].bss };
			unsigned long long v0[4] = { e[0].text, e[0].data, e[0].bss,
						     e[0].text + e[0].data + e[0].bss };

			fmt_change(cells[i], 96, v[r], v0[r], i == 0);
		}
		if (tc_table_add_row(t, labels[r], (const char *const *)cells))
			tc_cli_fail("out of memory");
	}
	tc_table_print(t, stdout, fmt);
	tc_table_free(t);
	if (fmt == TC_TABLE_TEXT)
		printf("Allocated sections as binutils size -B: text = executable or read-only,\n"
		       "data = writable, bss = no file contents. Changes against %s.\n\n",
		       e[0].label);
	if (!pattern)
		goto out;

	t = tc_table_new("Functions: instructions/bytes", "function", n, names);
	if (!t)
		tc_cli_fail("out of memory");
	for (r = 0; r < nr_all; r++) {
		const struct func *f0 = NULL;
		int k;

		for (k = 0; k < e[0].nr_funcs; k++)
			if (!strcmp(e[0].funcs[k].name, all[r]))
				f0 = &e[0].funcs[k];
		for (i = 0; i < n; i++) {
			const struct func *f = NULL;
			char insns[32];

			for (k = 0; k < e[i].nr_funcs; k++)
				if (!strcmp(e[i].funcs[k].name, all[r]))
					f = &e[i].funcs[k];
			if (!f) {
				snprintf(cells[i], 96, "-");
				continue;
			}
			if (e[i].disasm)
				snprintf(insns, sizeof(insns), "%lu%s", f->insns,
					 f->bad ? "?" : "");
			else
				snprintf(insns, sizeof(insns), "?");
			if (i && f0)
				snprintf(cells[i], 96, "%s/%lu (%+ld/%+ld)", insns, f->bytes,
					 (long)f->insns - (long)f0->insns,
					 (long)f->bytes - (long)f0->bytes);
			else
				snprintf(cells[i], 96, "%s/%lu", insns, f->bytes);
		}
		if (tc_table_add_row(t, all[r], (const char *const *)cells))
			tc_cli_fail("out of memory");
	}
	tc_table_print(t, stdout, fmt);
	tc_table_free(t);
	if (fmt == TC_TABLE_TEXT)
		printf("Functions matching '%s': instructions (capstone)/bytes (ELF symbol\n"
		       "size); in parentheses the change against %s; '?' marks bytes that\n"
		       "did not decode, '-' a function the file lacks; same-name functions\n"
		       "add up.\n\n",
		       pattern, e[0].label);
out:
	for (i = 0; i < n; i++)
		free(cells[i]);
	free(cells);
	free(names);
}

int cmd_size(int argc, char **argv)
{
	enum tc_table_format fmt = TC_TABLE_TEXT;
	const char *pattern = NULL;
	struct elf_size *e;
	char **labels, **all = NULL;
	int c, i, k, n, nr_labels = 0, nr_all = 0;
	bool *dup;

	labels = calloc((size_t)argc + 1, sizeof(*labels));
	if (!labels)
		tc_cli_fail("out of memory");
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":", long_opts, NULL)) != -1) {
		switch (c) {
		case OPT_SYMBOLS:
			if (!*optarg)
				tc_cli_usage("--symbols: empty pattern");
			pattern = optarg;
			break;
		case OPT_LABEL:
			labels[nr_labels++] = optarg;
			break;
		case OPT_FORMAT:
			if (!strcmp(optarg, "text"))
				fmt = TC_TABLE_TEXT;
			else if (!strcmp(optarg, "markdown"))
				fmt = TC_TABLE_MARKDOWN;
			else if (!strcmp(optarg, "csv"))
				fmt = TC_TABLE_CSV;
			else
				tc_cli_usage("--format: '%s' is not text, markdown or csv", optarg);
			break;
		case OPT_HELP:
			usage();
			exit(TC_EXIT_OK);
		default:
			tc_cli_bad_option(c, argv, "tracecost size --help");
		}
	}
	n = argc - optind;
	if (n < 1)
		tc_cli_usage("size: no ELF file (try 'tracecost size --help')");
	if (nr_labels > n)
		tc_cli_usage("--label: %d labels for %d files", nr_labels, n);
	if (elf_version(EV_CURRENT) == EV_NONE)
		tc_cli_fail("libelf: %s", elf_errmsg(-1));
	e = calloc((size_t)n, sizeof(*e));
	if (!e)
		tc_cli_fail("out of memory");
	for (i = 0; i < n; i++) {
		const char *base = strrchr(argv[optind + i], '/');

		e[i].path = argv[optind + i];
		if (i < nr_labels && (!*labels[i] || strlen(labels[i]) >= sizeof(e[i].label)))
			tc_cli_usage("--label: '%.40s' must have 1 to %zu characters", labels[i],
				     sizeof(e[i].label) - 1);
		snprintf(e[i].label, sizeof(e[i].label), "%s",
			 i < nr_labels ? labels[i] : base && base[1] ? base + 1 : e[i].path);
		read_elf(&e[i], pattern);
	}
	/* default labels that collide (build/tracecost, build-arm64/tracecost): the paths */
	dup = calloc((size_t)n, sizeof(*dup));
	if (!dup)
		tc_cli_fail("out of memory");
	for (i = nr_labels; i < n; i++)
		for (k = 0; k < n; k++)
			dup[i] |= k != i && !strcmp(e[i].label, e[k].label);
	for (i = nr_labels; i < n; i++) {
		size_t len = strlen(e[i].path), max = sizeof(e[i].label) - 1;

		if (dup[i])
			snprintf(e[i].label, sizeof(e[i].label), "%s",
				 e[i].path + (len > max ? len - max : 0));
	}
	free(dup);
	if (pattern)
		all = collect_names(e, n, pattern, &nr_all);
	print_table(e, n, pattern, all, nr_all, fmt);
	free(all);
	if (fflush(stdout))
		tc_cli_fail("writing the output: %s", strerror(errno));
	for (i = 0; i < n; i++) {
		for (k = 0; k < e[i].nr_funcs; k++)
			free(e[i].funcs[k].name);
		free(e[i].funcs);
	}
	free(e);
	free(labels);
	return TC_EXIT_OK;
}
