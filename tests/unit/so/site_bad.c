// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * site_bad.c - libtcsite_bad.so for test_static_key_so: a jump-table entry
 * on tc_so_exe_key whose site holds neither the NOP nor a jump (as if
 * something else had written over it). Loading it must be refused loudly,
 * never leave a site the library cannot patch.
 */
#include <tracecost/compiler.h>
#include "so_test.h"

__attribute__((visibility("hidden")))
struct tc_static_key *const tc_so_bad_ptr = &tc_so_exe_key.key;

#if defined(__aarch64__)
#define BAD_SITE	".inst 0x00000000\n\t"	/* udf #0 */
#else
#define BAD_SITE	".byte 0x0f, 0x0b, 0x90, 0x90, 0x90\n\t"	/* ud2; 3 x nop */
#endif

__asm__(".pushsection .text\n\t"
	".globl tc_so_bad_site\n\t"
	".type tc_so_bad_site, %function\n"
	"tc_so_bad_site:\n\t"
	BAD_SITE
	"ret\n\t"
	".popsection\n\t"
	".pushsection tc_jump_table, \"aw\"\n\t"
	".balign 8\n\t"
	".long tc_so_bad_site - ., tc_so_bad_site + " TC_STR(TC_JUMP_SITE_SIZE) " - .\n\t"
	".quad tc_so_bad_ptr + 2 - .\n\t"
	".popsection");
