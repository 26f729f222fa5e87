// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * sitecheck.c - a disabled static-key site is the stock code plus one NOP,
 * read from the compiled code (issue 17).
 *
 * Usage: sitecheck [-v] [--functions-only] STOCK.o STATIC.o
 *   -v                 list the path and every instruction that differs
 *   --functions-only   the site functions only, not the timed loops
 *
 * STOCK.o and STATIC.o are two configurations of the toggle subject
 * (subjects/toggle_subject.c built with -DTC_SUBJECT_HOOKS=0 and =2, x86-64
 * or AArch64 objects, read with libelf and capstone whatever the host). For
 * every timed loop (loop_irq, loop_preempt, loop_irq_save and their _work
 * variants) and every site function (<id>_site_<toggle>), the path the
 * static configuration runs while its keys are disabled must be the stock
 * configuration's code plus exactly one NOP per site:
 *
 *  - the sites are the "code" fields of the object's tc_jump_table entries
 *    (their relocations); each one the path reaches must hold the NOP
 *    (x86-64: the 5 bytes 0f 1f 44 00 00; AArch64: d503201f);
 *  - the disabled path is followed from the code: a site falls through
 *    (its jump target is not followed), a conditional branch goes both
 *    ways, a jump to its target, a call returns; it ends at a return, a
 *    tail call or a branch out of the function (e.g. to a .cold part). In a
 *    loop it is the timed region: from a counter read (rdtsc; mrs
 *    cntvct_el0) to the next one, of the regions that never reach a return
 *    (the region after the closing read reaches the function's return); in
 *    a site function, from the entry to the return;
 *  - the instructions on it, site NOPs aside, compared with the stock
 *    function's as a multiset of normalised instructions
 *    (mnemonic; operands with registers reduced to their size class, the
 *    stack and frame registers kept, memory operands by base kind, segment,
 *    index, scale and displacement, branch targets dropped):
 *    an added jump, load, store or spill is an instruction too many, and is
 *    printed with its address, its text and the site it follows.
 *
 * What is asserted, per function, by class of instruction on the path:
 * loads and stores exactly as many as stock's (they are the toggles' own
 * accesses: fewer means the loop was not unrolled as stock's was, and pays
 * its loop branch more often per pair); jumps, conditional branches, calls,
 * stack accesses (push, pop, [rsp]/[rbp]/[sp]/[x29] operands: spills) and
 * alignment NOPs no more than stock's. Other instructions (register moves,
 * arithmetic) are counted and printed, not asserted: where a site's
 * out-of-line block calls a function, values that live across it sit in
 * callee-saved registers, and the compiler's choices around that differ
 * (-v lists every instruction that differs). In site functions the
 * function's own frame is left out (see is_frame()).
 *
 * Every site of a checked function must lie on its disabled path (so that a
 * region the walk missed cannot pass unseen), and the static object must
 * have at least one site in every checked function.
 *
 * Exit: 0 every function passes; 1 a function fails (printed); 2 bad input
 * (unreadable object, no symbol table, a function missing, no sites).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <gelf.h>
#include <libelf.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <capstone/capstone.h>

#define MAX_SITES	4096
#define MAX_RELOCS	65536
#define MAX_KEY		160

static int verbose;
static int functions_only;	/* the site functions, not the loops */

static void __attribute__((noreturn, format(printf, 1, 2))) usage(const char *fmt, ...)
{
	va_list ap;

	fputs("sitecheck: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(2);
}

/* One ELF relocatable object. */
struct obj {
	const char *path;
	int fd;
	Elf *elf;
	GElf_Ehdr eh;
	Elf_Scn *symscn;
	GElf_Shdr symsh;
	Elf_Data *syms;
	size_t nsyms;
	cs_arch arch;
	cs_mode mode;
	csh cs;			/* capstone, with details */
	/* sites: section index and offset of each jump-table entry's code */
	size_t nr_sites;
	struct { size_t shndx; uint64_t off; } site[MAX_SITES];
};

/* One function, disassembled. */
struct func {
	const char *name;
	size_t shndx;
	uint64_t start, size;	/* section offsets */
	cs_insn *insn;
	size_t n;
	uint64_t *relocs;	/* offsets of relocations in the function's section */
	size_t nr_relocs;
};

static Elf_Scn *section_named(struct obj *o, const char *name, size_t *idx)
{
	size_t shstrndx;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	if (elf_getshdrstrndx(o->elf, &shstrndx))
		usage("%s: unreadable section names: %s", o->path, elf_errmsg(-1));
	while ((scn = elf_nextscn(o->elf, scn))) {
		const char *n;

		if (!gelf_getshdr(scn, &sh))
			continue;
		n = elf_strptr(o->elf, shstrndx, sh.sh_name);
		if (n && !strcmp(n, name)) {
			*idx = elf_ndxscn(scn);
			return scn;
		}
	}
	return NULL;
}

/* The relocation section (SHT_RELA) that applies to section @target, or NULL. */
static Elf_Data *rela_for(struct obj *o, size_t target, size_t *n)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(o->elf, scn))) {
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_RELA && sh.sh_info == target) {
			Elf_Data *d = elf_getdata(scn, NULL);

			*n = d && sh.sh_entsize ? d->d_size / sh.sh_entsize : 0;
			return d;
		}
	}
	*n = 0;
	return NULL;
}

static void obj_open(struct obj *o, const char *path)
{
	Elf_Scn *scn = NULL;
	Elf_Data *rel;
	size_t jt, i, n;

	memset(o, 0, sizeof(*o));
	o->path = path;
	o->fd = open(path, O_RDONLY);
	if (o->fd < 0)
		usage("%s: %s", path, strerror(errno));
	o->elf = elf_begin(o->fd, ELF_C_READ, NULL);
	if (!o->elf || elf_kind(o->elf) != ELF_K_ELF || !gelf_getehdr(o->elf, &o->eh))
		usage("%s: not an ELF file", path);
	if (o->eh.e_type != ET_REL)
		usage("%s: not a relocatable object (give the subject's .o)", path);
	switch (o->eh.e_machine) {
	case EM_X86_64:
		o->arch = CS_ARCH_X86;
		o->mode = CS_MODE_64;
		break;
	case EM_AARCH64:
		o->arch = CS_ARCH_ARM64;
		o->mode = CS_MODE_ARM;
		break;
	default:
		usage("%s: machine %u: only x86-64 and AArch64 objects", path, o->eh.e_machine);
	}
	if (cs_open(o->arch, o->mode, &o->cs) != CS_ERR_OK)
		usage("capstone: no disassembler for %s's machine", path);
	cs_option(o->cs, CS_OPT_DETAIL, CS_OPT_ON);
	while ((scn = elf_nextscn(o->elf, scn))) {
		if (gelf_getshdr(scn, &o->symsh) && o->symsh.sh_type == SHT_SYMTAB) {
			o->symscn = scn;
			break;
		}
	}
	if (!o->symscn || !(o->syms = elf_getdata(o->symscn, NULL)) || !o->symsh.sh_entsize)
		usage("%s: no symbol table", path);
	o->nsyms = o->syms->d_size / o->symsh.sh_entsize;

	/* the sites: relocations of the entries' first field (offset 0 mod 16) */
	if (!section_named(o, "tc_jump_table", &jt))
		return;
	rel = rela_for(o, jt, &n);
	for (i = 0; rel && i < n; i++) {
		GElf_Rela r;
		GElf_Sym s;

		if (!gelf_getrela(rel, (int)i, &r) || r.r_offset % 16)
			continue;
		if (!gelf_getsym(o->syms, (int)GELF_R_SYM(r.r_info), &s))
			usage("%s: jump-table relocation %zu: bad symbol", path, i);
		if (o->nr_sites == MAX_SITES)
			usage("%s: more than %d sites", path, MAX_SITES);
		o->site[o->nr_sites].shndx = s.st_shndx;
		o->site[o->nr_sites].off = s.st_value + (uint64_t)r.r_addend;
		o->nr_sites++;
	}
}

static bool is_site(const struct obj *o, size_t shndx, uint64_t off)
{
	size_t i;

	for (i = 0; i < o->nr_sites; i++)
		if (o->site[i].shndx == shndx && o->site[i].off == off)
			return true;
	return false;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Find function @name (STT_FUNC) in @o and disassemble it; false if absent. */
static bool func_load(struct obj *o, csh cs, const char *name, struct func *f)
{
	size_t i, n;

	memset(f, 0, sizeof(*f));
	f->name = name;
	for (i = 0; i < o->nsyms; i++) {
		GElf_Sym s;
		const char *sn;
		Elf_Scn *scn;
		Elf_Data *d, *rel;

		if (!gelf_getsym(o->syms, (int)i, &s) || GELF_ST_TYPE(s.st_info) != STT_FUNC ||
		    !s.st_size || s.st_shndx == SHN_UNDEF || s.st_shndx >= SHN_LORESERVE)
			continue;
		sn = elf_strptr(o->elf, o->symsh.sh_link, s.st_name);
		if (!sn || strcmp(sn, name))
			continue;
		scn = elf_getscn(o->elf, s.st_shndx);
		d = scn ? elf_getdata(scn, NULL) : NULL;
		if (!d || !d->d_buf || s.st_value > d->d_size || s.st_size > d->d_size - s.st_value)
			usage("%s: %s lies outside its section", o->path, name);
		f->shndx = s.st_shndx;
		f->start = s.st_value;
		f->size = s.st_size;
		f->n = cs_disasm(cs, (const uint8_t *)d->d_buf + s.st_value, s.st_size,
				 s.st_value, 0, &f->insn);
		if (!f->n)
			usage("%s: %s: capstone cannot decode it", o->path, name);
		rel = rela_for(o, s.st_shndx, &n);
		f->relocs = calloc(n ? n : 1, sizeof(*f->relocs));
		if (!f->relocs)
			usage("out of memory");
		for (i = 0; rel && i < n; i++) {
			GElf_Rela r;

			if (gelf_getrela(rel, (int)i, &r))
				f->relocs[f->nr_relocs++] = r.r_offset;
		}
		qsort(f->relocs, f->nr_relocs, sizeof(*f->relocs), cmp_u64);
		return true;
	}
	return false;
}

static void func_free(struct func *f)
{
	if (f->insn)
		cs_free(f->insn, f->n);
	free(f->relocs);
}

/* Index of the instruction at section offset @off, or -1. */
static long insn_at(const struct func *f, uint64_t off)
{
	size_t lo = 0, hi = f->n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (f->insn[mid].address == off)
			return (long)mid;
		if (f->insn[mid].address < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

/* Does a relocation apply to the bytes of instruction @k (a branch out of the section)? */
static bool relocated(const struct func *f, size_t k)
{
	uint64_t a = f->insn[k].address, b = a + f->insn[k].size;
	size_t lo = 0, hi = f->nr_relocs;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (f->relocs[mid] < a)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < f->nr_relocs && f->relocs[lo] < b;
}

/* What an instruction does to the path. */
enum flow { F_NEXT, F_JUMP, F_COND, F_CALL, F_STOP, F_INDIRECT, F_CLOCK };

static enum flow flow_of(const struct obj *o, const cs_insn *in, uint64_t *target)
{
	if (o->arch == CS_ARCH_X86) {
		const cs_x86 *x = &in->detail->x86;
		const cs_x86_op *last = x->op_count ? &x->operands[x->op_count - 1] : NULL;

		switch (in->id) {
		case X86_INS_RDTSC:
		case X86_INS_RDTSCP:
			return F_CLOCK;
		case X86_INS_RET:
		case X86_INS_UD2:
		case X86_INS_HLT:
		case X86_INS_INT3:
			return F_STOP;
		case X86_INS_CALL:
			return F_CALL;
		default:
			break;
		}
		if (!cs_insn_group(o->cs, in, CS_GRP_JUMP))
			return F_NEXT;
		if (!last || last->type != X86_OP_IMM)
			return F_INDIRECT;
		*target = (uint64_t)last->imm;
		return in->id == X86_INS_JMP ? F_JUMP : F_COND;
	} else {
		const cs_arm64 *a = &in->detail->arm64;
		int i;

		switch (in->id) {
		case ARM64_INS_MRS:
			for (i = 0; i < a->op_count; i++)
				if ((a->operands[i].type == ARM64_OP_REG_MRS ||
				     a->operands[i].type == ARM64_OP_SYS) &&
				    a->operands[i].reg == (unsigned int)ARM64_SYSREG_CNTVCT_EL0)
					return F_CLOCK;
			return F_NEXT;
		case ARM64_INS_RET:
		case ARM64_INS_BRK:
		case ARM64_INS_HLT:
			return F_STOP;
		case ARM64_INS_BL:
		case ARM64_INS_BLR:
			return F_CALL;
		case ARM64_INS_BR:
			return F_INDIRECT;
		case ARM64_INS_B:
		case ARM64_INS_CBZ:
		case ARM64_INS_CBNZ:
		case ARM64_INS_TBZ:
		case ARM64_INS_TBNZ:
			for (i = a->op_count - 1; i >= 0; i--)
				if (a->operands[i].type == ARM64_OP_IMM) {
					*target = (uint64_t)a->operands[i].imm;
					break;
				}
			if (i < 0)
				return F_INDIRECT;
			return in->id == ARM64_INS_B &&
			       (a->cc == ARM64_CC_INVALID || a->cc == ARM64_CC_AL) ? F_JUMP : F_COND;
		default:
			return F_NEXT;
		}
	}
}

static bool is_nop(const struct obj *o, const cs_insn *in)
{
	return o->arch == CS_ARCH_X86 ? in->id == X86_INS_NOP : in->id == ARM64_INS_NOP;
}

/* The site instruction: x86-64 0f 1f 44 00 00, AArch64 d503201f (little-endian). */
static bool is_site_nop(const struct obj *o, const cs_insn *in)
{
	static const uint8_t x86[5] = { 0x0f, 0x1f, 0x44, 0x00, 0x00 };
	static const uint8_t a64[4] = { 0x1f, 0x20, 0x03, 0xd5 };

	if (o->arch == CS_ARCH_X86)
		return in->size == 5 && !memcmp(in->bytes, x86, 5);
	return in->size == 4 && !memcmp(in->bytes, a64, 4);
}

/* Is @n one of the names of the NULL-terminated @list? */
static bool name_in(const char *n, const char *const *list)
{
	for (; *list; list++)
		if (!strcmp(n, *list))
			return true;
	return false;
}

/* Append to @buf (size MAX_KEY) with snprintf semantics, never overflowing. */
static void __attribute__((format(printf, 2, 3))) cat(char *buf, const char *fmt, ...)
{
	size_t l = strlen(buf);
	va_list ap;

	if (l >= MAX_KEY - 1)
		return;
	va_start(ap, fmt);
	vsnprintf(buf + l, MAX_KEY - l, fmt, ap);
	va_end(ap);
}

/* A register, reduced to its class: the stack and frame registers are kept. */
static void reg_key(char *k, csh cs, const struct obj *o, unsigned int reg, unsigned int size)
{
	const char *n = cs_reg_name(cs, reg);

	if (!n)
		n = "?";
	if (o->arch == CS_ARCH_X86) {
		static const char *const kept[] = { "rsp", "esp", "rbp", "ebp", "rip",
			"cs", "ds", "es", "fs", "gs", "ss", NULL };

		if (name_in(n, kept))
			cat(k, "%s", n);
		else if (!strncmp(n, "xmm", 3))
			cat(k, "xmm");
		else
			cat(k, "r%u", size * 8);
	} else {
		if (!strcmp(n, "sp") || !strcmp(n, "wsp") || !strcmp(n, "x29") ||
		    !strcmp(n, "x30") || !strcmp(n, "xzr") || !strcmp(n, "wzr") ||
		    !strcmp(n, "fp") || !strcmp(n, "lr"))
			cat(k, "%s", n);
		else
			cat(k, "%c", n[0]);
	}
}

/* The normalised form of instruction @in (see the header comment). */
static void insn_key(char *k, csh cs, const struct obj *o, const cs_insn *in, bool branch)
{
	int i;

	k[0] = 0;
	cat(k, "%s", in->mnemonic);
	if (o->arch == CS_ARCH_X86) {
		const cs_x86 *x = &in->detail->x86;

		for (i = 0; i < x->op_count; i++) {
			const cs_x86_op *op = &x->operands[i];

			cat(k, i ? "," : " ");
			switch (op->type) {
			case X86_OP_REG:
				reg_key(k, cs, o, op->reg, op->size);
				break;
			case X86_OP_IMM:
				if (branch)
					cat(k, "T");
				else
					cat(k, "$%lld", (long long)op->imm);
				break;
			case X86_OP_MEM:
				cat(k, "m%u[", op->size * 8);
				if (op->mem.segment != X86_REG_INVALID)
					cat(k, "%s:", cs_reg_name(cs, op->mem.segment));
				if (op->mem.base != X86_REG_INVALID)
					reg_key(k, cs, o, op->mem.base, 8);
				if (op->mem.index != X86_REG_INVALID) {
					cat(k, "+");
					reg_key(k, cs, o, op->mem.index, 8);
					cat(k, "*%d", op->mem.scale);
				}
				if (op->mem.base == X86_REG_RIP)
					cat(k, "+d]");
				else
					cat(k, "%+lld]", (long long)op->mem.disp);
				break;
			default:
				cat(k, "?");
			}
		}
	} else {
		const cs_arm64 *a = &in->detail->arm64;
		int last_imm = -1;

		for (i = 0; i < a->op_count; i++)
			if (a->operands[i].type == ARM64_OP_IMM)
				last_imm = i;
		if (a->cc != ARM64_CC_INVALID)
			cat(k, ".cc%d", a->cc);
		for (i = 0; i < a->op_count; i++) {
			const cs_arm64_op *op = &a->operands[i];

			cat(k, i ? "," : " ");
			switch (op->type) {
			case ARM64_OP_REG:
				reg_key(k, cs, o, op->reg, 8);
				break;
			case ARM64_OP_IMM:
			case ARM64_OP_CIMM:
				if (branch && i == last_imm)
					cat(k, "T");
				else
					cat(k, "#%lld", (long long)op->imm);
				break;
			case ARM64_OP_MEM:
				cat(k, "[");
				if (op->mem.base != ARM64_REG_INVALID)
					reg_key(k, cs, o, op->mem.base, 8);
				if (op->mem.index != ARM64_REG_INVALID) {
					cat(k, "+");
					reg_key(k, cs, o, op->mem.index, 8);
				}
				cat(k, "%+d]", op->mem.disp);
				break;
			case ARM64_OP_REG_MRS:
			case ARM64_OP_REG_MSR:
			case ARM64_OP_SYS:
				cat(k, "s%u", op->reg);
				break;
			default:
				cat(k, "o%d", op->type);
			}
			if (op->shift.type != ARM64_SFT_INVALID)
				cat(k, "<<%d:%u", op->shift.type, op->shift.value);
			if (op->ext != ARM64_EXT_INVALID)
				cat(k, "x%d", op->ext);
		}
		if (a->writeback)
			cat(k, "!");
	}
}

/* The disabled path of one function: visited instructions and the site each follows. */
struct path {
	bool *on;		/* instruction k is on the path */
	long *after;		/* the site instruction the walk passed last before k, or -1 */
	size_t sites;		/* site NOPs on the path */
	size_t pads;		/* alignment NOPs on the path */
	bool bad;		/* a site that is not the NOP, or a branch it cannot follow */
};

/*
 * Walk from instruction @k0 until a return, a tail call, a counter read (not
 * included) or the end of the function. Returns true if the walk reached a
 * return or left the function (the end of the function's path, not of a
 * timed region).
 */
static bool walk(const struct obj *o, const struct func *f, size_t k0, struct path *p)
{
	size_t *stack = malloc(f->n * sizeof(*stack)), sp = 0;
	bool exits = false;

	if (!stack)
		usage("out of memory");
	if (!p->on[k0]) {
		p->on[k0] = true;
		stack[sp++] = k0;
	}
	while (sp) {
		size_t k = stack[--sp];
		const cs_insn *in = &f->insn[k];
		long next[2] = { -1, -1 }, site = p->after[k];
		uint64_t t = 0;
		int j;

		if (is_site(o, f->shndx, in->address)) {
			if (!is_site_nop(o, in)) {
				printf("  %#" PRIx64 ": site holds \"%s %s\", not the %d-byte NOP\n",
				       in->address, in->mnemonic, in->op_str,
				       o->arch == CS_ARCH_X86 ? 5 : 4);
				p->bad = true;
			}
			site = (long)k;
			next[0] = (long)k + 1;
		} else {
			switch (flow_of(o, in, &t)) {
			case F_CLOCK:
				p->on[k] = false;	/* the next region's start, not this one's */
				continue;
			case F_STOP:
				exits = true;
				break;
			case F_INDIRECT:
				printf("  %#" PRIx64 ": \"%s %s\": an indirect jump, not followed\n",
				       in->address, in->mnemonic, in->op_str);
				p->bad = true;
				break;
			case F_JUMP:
			case F_COND:
				if (relocated(f, k) || t < f->start || t >= f->start + f->size) {
					exits = true;	/* tail call or a branch to another part */
				} else {
					next[0] = insn_at(f, t);
					if (next[0] < 0) {
						printf("  %#" PRIx64 ": branch into an instruction\n",
						       in->address);
						p->bad = true;
					}
				}
				if (flow_of(o, in, &t) == F_COND)
					next[1] = (long)k + 1;
				break;
			case F_CALL:
			case F_NEXT:
				next[0] = (long)k + 1;
				break;
			}
		}
		for (j = 0; j < 2; j++) {
			if (next[j] < 0)
				continue;
			if ((size_t)next[j] >= f->n) {
				exits = true;
				continue;
			}
			if (p->on[next[j]])
				continue;
			p->on[next[j]] = true;
			p->after[next[j]] = site;
			stack[sp++] = (size_t)next[j];
		}
	}
	free(stack);
	return exits;
}

/*
 * The disabled path of @f: for a loop (@timed) the union of its timed
 * regions, else entry to return. Returns false (and prints why) if @f has no
 * timed region.
 */
static bool path_of(const struct obj *o, const struct func *f, bool timed, struct path *p)
{
	size_t k, regions = 0;

	p->on = calloc(f->n, sizeof(*p->on));
	p->after = malloc(f->n * sizeof(*p->after));
	if (!p->on || !p->after)
		usage("out of memory");
	for (k = 0; k < f->n; k++)
		p->after[k] = -1;
	if (!timed) {
		walk(o, f, 0, p);
	} else {
		bool *one = calloc(f->n, sizeof(*one));
		struct path r = { .on = one, .after = p->after };
		uint64_t t;

		if (!one)
			usage("out of memory");
		for (k = 0; k + 1 < f->n; k++) {
			size_t i;

			if (flow_of(o, &f->insn[k], &t) != F_CLOCK)
				continue;
			memset(one, 0, f->n * sizeof(*one));
			r.bad = false;
			if (walk(o, f, k + 1, &r))
				continue;	/* reaches the return: after the closing read */
			regions++;
			p->bad |= r.bad;
			for (i = 0; i < f->n; i++)
				p->on[i] |= one[i];
		}
		free(one);
		if (!regions) {
			printf("  no timed region (a counter read followed by code that "
			       "reaches another one)\n");
			return false;
		}
	}
	for (k = 0; k < f->n; k++) {
		if (!p->on[k])
			continue;
		if (is_site(o, f->shndx, f->insn[k].address))
			p->sites++;
		else if (is_nop(o, &f->insn[k]))
			p->pads++;
	}
	return true;
}

/* What an instruction on the path is, for the comparison. */
enum cls { C_JUMP, C_BRANCH, C_CALL, C_LOAD, C_STORE, C_STACK, C_PAD, C_FRAME, C_OTHER,
	   NR_CLS };

static const char *const cls_name[NR_CLS] = {
	[C_JUMP] = "jumps", [C_BRANCH] = "conditional branches", [C_CALL] = "calls",
	[C_LOAD] = "loads", [C_STORE] = "stores", [C_STACK] = "stack accesses (spills)",
	[C_PAD] = "alignment NOPs", [C_FRAME] = "frame", [C_OTHER] = "other",
};

/*
 * The function's own frame, as scripts/subject-size.sh counts it (a site
 * inlined into a larger function does not pay it per use): x86-64 push/pop
 * of %rbp and the callee-saved registers (and their restore from the frame,
 * mov -N(%rbp),%rbx before leave), mov %rsp,%rbp, leave, %rsp adjustments
 * (clang's push %rax for the 16-byte alignment too), endbr64; AArch64 stp/ldp/str/ldr of x19-x30 at [sp],
 * mov x29, sp, sp adjustments, PAC/BTI hints.
 */
static bool is_frame(const struct obj *o, const cs_insn *in)
{
	static const char *const x86_saved[] = { "rbp", "rbx", "r12", "r13", "r14", "r15", NULL };
	static const char *const a64_saved[] = { "x19", "x20", "x21", "x22", "x23", "x24",
		"x25", "x26", "x27", "x28", "x29", "x30", NULL };
	const char *m = in->mnemonic, *ops = in->op_str;
	char first[16] = "";

	sscanf(ops, "%15[^,]", first);
	if (o->arch == CS_ARCH_X86)
		return !strcmp(m, "endbr64") || !strcmp(m, "leave") ||
		       ((!strcmp(m, "push") || !strcmp(m, "pop")) && name_in(first, x86_saved)) ||
		       (!strcmp(m, "mov") && !strcmp(ops, "rbp, rsp")) ||
		       (!strcmp(m, "mov") && name_in(first, x86_saved) &&
			strstr(ops, "ptr [rbp - ")) ||
		       ((!strcmp(m, "sub") || !strcmp(m, "add")) && !strncmp(ops, "rsp, ", 5)) ||
		       (!strcmp(m, "push") && !strcmp(ops, "rax"));
	return !strcmp(m, "paciasp") || !strcmp(m, "autiasp") || !strcmp(m, "bti") ||
	       ((!strcmp(m, "stp") || !strcmp(m, "ldp") || !strcmp(m, "str") ||
		 !strcmp(m, "ldr")) && name_in(first, a64_saved) && strstr(ops, "[sp")) ||
	       (!strcmp(m, "mov") && !strcmp(ops, "x29, sp")) ||
	       ((!strcmp(m, "sub") || !strcmp(m, "add")) && !strncmp(ops, "sp, sp, ", 8));
}

static bool stack_reg(csh cs, unsigned int reg)
{
	static const char *const sp[] = { "rsp", "esp", "rbp", "sp", "wsp", "x29", "fp", NULL };
	const char *n = reg ? cs_reg_name(cs, reg) : NULL;

	return n && name_in(n, sp);
}

/* Class of instruction @k of @f; an instruction that both reads and writes memory is a store. */
static enum cls classify(const struct obj *o, const struct func *f, size_t k, bool frame)
{
	const cs_insn *in = &f->insn[k];
	uint64_t t;
	int i;

	if (is_nop(o, in))
		return C_PAD;
	if (frame && is_frame(o, in))
		return C_FRAME;
	switch (flow_of(o, in, &t)) {
	case F_JUMP:
	case F_INDIRECT:
		return C_JUMP;
	case F_COND:
		return C_BRANCH;
	case F_CALL:
		return C_CALL;
	default:
		break;
	}
	if (o->arch == CS_ARCH_X86) {
		const cs_x86 *x = &in->detail->x86;
		bool rd = false, wr = false;

		if (in->id == X86_INS_PUSH || in->id == X86_INS_POP || in->id == X86_INS_PUSHFQ ||
		    in->id == X86_INS_POPFQ || in->id == X86_INS_LEAVE)
			return C_STACK;
		if (in->id == X86_INS_LEA)
			return C_OTHER;
		for (i = 0; i < x->op_count; i++) {
			const cs_x86_op *op = &x->operands[i];

			if (op->type != X86_OP_MEM)
				continue;
			if (op->mem.segment == X86_REG_INVALID && stack_reg(o->cs, op->mem.base))
				return C_STACK;
			rd |= !!(op->access & CS_AC_READ);
			wr |= !!(op->access & CS_AC_WRITE);
			if (!op->access)	/* capstone did not say: count it as a load */
				rd = true;
		}
		return wr ? C_STORE : rd ? C_LOAD : C_OTHER;
	} else {
		const cs_arm64 *a = &in->detail->arm64;
		bool mem = false;

		for (i = 0; i < a->op_count; i++) {
			if (a->operands[i].type != ARM64_OP_MEM)
				continue;
			mem = true;
			if (stack_reg(o->cs, a->operands[i].mem.base))
				return C_STACK;
		}
		if (!mem || !strncmp(in->mnemonic, "prfm", 4))
			return C_OTHER;
		return in->mnemonic[0] == 's' ? C_STORE : C_LOAD;
	}
}

struct entry {
	char key[MAX_KEY];
	long k;		/* instruction index */
	enum cls c;
};

static int cmp_entry(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;
	int c = strcmp(x->key, y->key);

	return c ? c : (x->k > y->k) - (x->k < y->k);
}

/* The normalised instructions of path @p, site NOPs left out, sorted; counts per class. */
static struct entry *entries(const struct obj *o, const struct func *f, const struct path *p,
			     bool frame, size_t *n, size_t *count)
{
	struct entry *e = calloc(f->n ? f->n : 1, sizeof(*e));
	size_t k;
	uint64_t t;

	if (!e)
		usage("out of memory");
	*n = 0;
	memset(count, 0, NR_CLS * sizeof(*count));
	for (k = 0; k < f->n; k++) {
		const cs_insn *in = &f->insn[k];
		enum flow fl;

		if (!p->on[k] || is_site(o, f->shndx, in->address))
			continue;
		fl = flow_of(o, in, &t);
		insn_key(e[*n].key, o->cs, o, in, fl == F_JUMP || fl == F_COND || fl == F_CALL);
		e[*n].k = (long)k;
		e[*n].c = classify(o, f, k, frame);
		count[e[*n].c]++;
		(*n)++;
	}
	qsort(e, *n, sizeof(*e), cmp_entry);
	return e;
}

static void print_insn(const struct func *f, const struct path *p, long k, const char *tag)
{
	const cs_insn *in = &f->insn[k];

	printf("    %s %#" PRIx64 ": %s %s", tag, in->address, in->mnemonic, in->op_str);
	if (p && p->after[k] >= 0)
		printf("   (after the site at %#" PRIx64 ")", f->insn[p->after[k]].address);
	putchar('\n');
}

/*
 * Print the instructions of class @c (all classes if NR_CLS) that one list
 * has and the other lacks: @plus from @et (static), else from @es (stock).
 */
static void print_diff(const struct entry *et, size_t nt, const struct entry *es, size_t ns,
		       enum cls c, bool plus, const struct func *ft, const struct path *pt,
		       const struct func *fs)
{
	size_t i = 0, j = 0;

	while (i < nt || j < ns) {
		int d;

		if (i < nt && c != NR_CLS && et[i].c != c) {
			i++;
			continue;
		}
		if (j < ns && c != NR_CLS && es[j].c != c) {
			j++;
			continue;
		}
		d = i == nt ? 1 : j == ns ? -1 : strcmp(et[i].key, es[j].key);
		if (!d) {
			i++;
			j++;
		} else if (d < 0) {
			if (plus)
				print_insn(ft, pt, et[i].k, "+");
			i++;
		} else {
			if (!plus)
				print_insn(fs, NULL, es[j].k, "-");
			j++;
		}
	}
}

/*
 * Compare function @stat_name of @stat with @stock_name of @stock; prints
 * one line per function (and what fails). Returns 0 pass, 1 fail.
 */
static int check(struct obj *stock, struct obj *stat, const char *stock_name,
		 const char *stat_name, bool timed)
{
	struct func fs, ft;
	struct path ps = { 0 }, pt = { 0 };
	struct entry *es, *et;
	size_t ns, nt, i, in_fn = 0, cs[NR_CLS], ct[NR_CLS];
	int fail = 0;
	enum cls c;

	if (!func_load(stock, stock->cs, stock_name, &fs))
		usage("%s: no function %s", stock->path, stock_name);
	if (!func_load(stat, stat->cs, stat_name, &ft))
		usage("%s: no function %s", stat->path, stat_name);
	for (i = 0; i < stat->nr_sites; i++)
		if (stat->site[i].shndx == ft.shndx && stat->site[i].off >= ft.start &&
		    stat->site[i].off < ft.start + ft.size)
			in_fn++;
	if (!in_fn)
		usage("%s: %s has no static-key site (not the static configuration?)",
		      stat->path, stat_name);

	printf("%s:\n", stat_name);
	if (!path_of(stock, &fs, timed, &ps) || !path_of(stat, &ft, timed, &pt)) {
		fail = 1;
		goto out;
	}
	if (ps.bad || pt.bad)
		fail = 1;
	if (pt.sites != in_fn) {
		printf("  %zu of its %zu sites are on the disabled path\n", pt.sites, in_fn);
		fail = 1;
	}
	es = entries(stock, &fs, &ps, !timed, &ns, cs);
	et = entries(stat, &ft, &pt, !timed, &nt, ct);
	for (c = 0; c < C_FRAME; c++) {
		if (ct[c] > cs[c]) {
			printf("  %zu %s more than %s %s:\n", ct[c] - cs[c], cls_name[c],
			       stock->path, stock_name);
			print_diff(et, nt, es, ns, c, true, &ft, &pt, &fs);
			fail = 1;
		} else if (ct[c] < cs[c] && (c == C_LOAD || c == C_STORE)) {
			/* the toggles' own accesses: as many, or the loop is shaped otherwise */
			printf("  %zu %s fewer than %s %s (the toggles' own accesses: the "
			       "loop is not unrolled as stock's is?)\n", cs[c] - ct[c],
			       cls_name[c], stock->path, stock_name);
			fail = 1;
		}
	}
	if (verbose) {
		printf("  instructions that differ (+ static, - stock):\n");
		print_diff(et, nt, es, ns, NR_CLS, true, &ft, &pt, &fs);
		print_diff(et, nt, es, ns, NR_CLS, false, &ft, &pt, &fs);
		printf("  path (%s):\n", stat->path);
		for (i = 0; i < ft.n; i++)
			if (pt.on[i])
				print_insn(&ft, NULL, (long)i,
					   is_site(stat, ft.shndx, ft.insn[i].address) ? "S" : " ");
	}
	printf("  %s: %zu site NOPs", fail ? "FAIL" : "ok", pt.sites);
	for (c = 0; c < NR_CLS; c++)
		if (c != C_FRAME || !timed)
			printf(", %s %zu/%zu", cls_name[c], ct[c], cs[c]);
	printf(" (static/stock, %s)\n", timed ? "timed regions" : "entry to return");
	free(es);
	free(et);
out:
	free(ps.on);
	free(ps.after);
	free(pt.on);
	free(pt.after);
	func_free(&fs);
	func_free(&ft);
	return fail;
}

/* "<prefix>_site_<toggle>" of the first function of @o whose name has "_site_", or NULL. */
static const char *site_prefix(struct obj *o, char *buf, size_t len)
{
	size_t i;

	for (i = 0; i < o->nsyms; i++) {
		GElf_Sym s;
		const char *n, *p;

		if (!gelf_getsym(o->syms, (int)i, &s) || GELF_ST_TYPE(s.st_info) != STT_FUNC)
			continue;
		n = elf_strptr(o->elf, o->symsh.sh_link, s.st_name);
		if (n && (p = strstr(n, "_site_")) && (size_t)(p - n) < len) {
			snprintf(buf, len, "%.*s", (int)(p - n), n);
			return buf;
		}
	}
	return NULL;
}

int main(int argc, char **argv)
{
	static const char *const loops[] = {
		"loop_irq", "loop_irq_work", "loop_preempt", "loop_preempt_work",
		"loop_irq_save", "loop_irq_save_work",
	};
	static const char *const sites[] = {
		"preempt_disable", "preempt_enable", "irq_disable", "irq_enable",
		"irq_save", "irq_restore",
	};
	static struct obj stock, stat;
	char ps[64], pt[64], a[160], b[160];
	size_t i;
	int fails = 0, n = 0;

	while (argc > 1 && argv[1][0] == '-') {
		if (!strcmp(argv[1], "-v"))
			verbose = 1;
		else if (!strcmp(argv[1], "--functions-only"))
			functions_only = 1;
		else
			usage("unknown option %s", argv[1]);
		argc--;
		argv++;
	}
	if (argc != 3)
		usage("usage: sitecheck [-v] [--functions-only] STOCK.o STATIC.o");
	if (elf_version(EV_CURRENT) == EV_NONE)
		usage("libelf: %s", elf_errmsg(-1));
	obj_open(&stock, argv[1]);
	obj_open(&stat, argv[2]);
	if (stock.arch != stat.arch)
		usage("%s and %s are for different machines", argv[1], argv[2]);
	if (!stat.nr_sites)
		usage("%s: no tc_jump_table entries (not the static configuration?)", argv[2]);
	if (!site_prefix(&stock, ps, sizeof(ps)) || !site_prefix(&stat, pt, sizeof(pt)))
		usage("no <id>_site_<toggle> functions in %s or %s", argv[1], argv[2]);

	for (i = 0; !functions_only && i < sizeof(loops) / sizeof(loops[0]); i++, n++)
		fails += check(&stock, &stat, loops[i], loops[i], true);
	for (i = 0; i < sizeof(sites) / sizeof(sites[0]); i++, n++) {
		snprintf(a, sizeof(a), "%s_site_%s", ps, sites[i]);
		snprintf(b, sizeof(b), "%s_site_%s", pt, sites[i]);
		fails += check(&stock, &stat, a, b, false);
	}
	printf("sitecheck %s: %d of %d functions pass (%s vs %s, %zu sites)\n",
	       stock.arch == CS_ARCH_X86 ? "x86-64" : "aarch64", n - fails, n, argv[2], argv[1],
	       stat.nr_sites);
	cs_close(&stock.cs);
	cs_close(&stat.cs);
	return fails ? 1 : 0;
}
