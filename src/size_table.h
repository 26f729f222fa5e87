/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * src/size_table.h - code size of the toggle subject's configurations, read
 * from the built objects at build time by scripts/subject-size.sh (objdump,
 * size) into $(O)/gen/subject_size.c.
 */
#ifndef TC_SIZE_TABLE_H
#define TC_SIZE_TABLE_H

enum { TC_SITE_PREEMPT_DISABLE, TC_SITE_PREEMPT_ENABLE, TC_SITE_IRQ_DISABLE,
       TC_SITE_IRQ_ENABLE, TC_SITE_IRQ_SAVE, TC_SITE_IRQ_RESTORE, TC_NR_SITES };

/**
 * struct tc_site_size - one toggle site, compiled alone in a function
 * Counted on the path taken while tracing is off, without the enclosing
 * function's own frame (scripts/subject-size.sh says exactly what):
 * @insns:	instructions at the site (a call counts as one)
 * @bytes:	their bytes
 * @ool_insns:	instructions executed in a called out-of-line toggle (call)
 * @ool_bytes:	bytes off the path: the tracing block and the called toggle
 */
struct tc_site_size {
	const char *site;
	unsigned int insns;
	unsigned int bytes;
	unsigned int ool_insns;
	unsigned int ool_bytes;
};

/** struct tc_subject_size - one configuration's object */
struct tc_subject_size {
	const char *id;
	unsigned long text_bytes;
	struct tc_site_size sites[TC_NR_SITES];
};

extern const struct tc_subject_size tc_subject_sizes[];
extern const int tc_nr_subject_sizes;

#endif
