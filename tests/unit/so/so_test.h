/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * so_test.h - what test_static_key_so and its shared objects share: keys and
 * a tracepoint defined in the executable, functions of the objects.
 */
#ifndef TC_SO_TEST_H
#define TC_SO_TEST_H

#include <tracecost/static_key.h>
#include <tracecost/tracepoint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* In the executable (default visibility, exported with -rdynamic). */
TC_DECLARE_STATIC_KEY_FALSE(tc_so_exe_key);
TC_DECLARE_STATIC_KEY_TRUE(tc_so_exe_tkey);
TC_DECLARE_TRACEPOINT(tc_so_tp, TC_TP_PROTO(int v), TC_TP_ARGS(v));

/* libtcsite_a.so, linked at start-up (C). */
TC_DECLARE_STATIC_KEY_FALSE(tc_so_a_key);	/* a key of the shared object */
TC_DECLARE_STATIC_KEY_FALSE(tc_so_bad_key);
int tc_so_a_hit(void);		/* unlikely site on tc_so_exe_key */
int tc_so_a_likely(void);	/* likely site on tc_so_exe_tkey */
int tc_so_a_own(void);		/* unlikely site on tc_so_a_key */
int tc_so_a_bad(void);		/* unlikely site on tc_so_bad_key */
void tc_so_a_trace(int v);	/* tracepoint tc_so_tp */

/* libtcsite_b.so, dlopen()ed (C++). */
typedef int (*tc_so_b_hit_fn)(void);
typedef void (*tc_so_b_trace_fn)(int v);

#ifdef __cplusplus
}
#endif

#endif /* TC_SO_TEST_H */
