/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * site_insn.h - what a static-key site holds, read byte by byte, for the
 * tests: the NOP, or a jump and where it lands (x86-64: e9 rel32 or eb rel8;
 * AArch64: B imm26). Independent of the library's own decoder on purpose.
 */
#ifndef TC_TEST_SITE_INSN_H
#define TC_TEST_SITE_INSN_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <tracecost/static_key.h>

/* Bytes that are neither the NOP nor a jump (x86-64: 5 x nop; AArch64: yield). */
#if defined(__aarch64__)
#define TC_TEST_OTHER_INSN	0x3f, 0x20, 0x03, 0xd5
#else
#define TC_TEST_OTHER_INSN	0x90, 0x90, 0x90, 0x90, 0x90
#endif

static inline bool tc_test_site_is_nop(const void *site)
{
	static const unsigned char nop[TC_JUMP_SITE_SIZE] = { TC_JUMP_NOP };

	return !memcmp(site, nop, TC_JUMP_SITE_SIZE);
}

/*
 * Where the jump at @site lands, or 0 if @site is not a jump. *@forced (may
 * be NULL): the form the compiler emits for an initially taken site (x86-64:
 * e9 rel32; AArch64: any B).
 */
static inline uintptr_t tc_test_site_jump(const void *site, bool *forced)
{
	const unsigned char *s = site;
	bool f;
#if defined(__aarch64__)
	uint32_t v;

	memcpy(&v, s, sizeof(v));
	f = true;
	if ((v & 0xfc000000u) != 0x14000000u)
		return 0;
	if (forced)
		*forced = f;
	return (uintptr_t)s + (uintptr_t)((int64_t)((uint64_t)(v & 0x03ffffffu) << 38) >> 36);
#else
	int32_t rel32;

	f = s[0] == 0xe9;
	if (forced)
		*forced = f;
	if (s[0] == 0xe9) {
		memcpy(&rel32, s + 1, sizeof(rel32));
		return (uintptr_t)s + 5 + (intptr_t)rel32;
	}
	if (s[0] == 0xeb)
		return (uintptr_t)s + 2 + (intptr_t)(int8_t)s[1];
	return 0;
#endif
}

/* The site's bytes as hex, for messages (a static buffer). */
static inline const char *tc_test_site_bytes(const void *site)
{
	static char buf[3 * TC_JUMP_SITE_SIZE + 1];
	const unsigned char *s = site;
	int i;

	for (i = 0; i < TC_JUMP_SITE_SIZE; i++)
		snprintf(buf + 3 * i, sizeof(buf) - 3 * (size_t)i, "%02x ", s[i]);
	return buf;
}

#endif /* TC_TEST_SITE_INSN_H */
