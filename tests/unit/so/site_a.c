// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * site_a.c - libtcsite_a.so for test_static_key_so: static-key sites and a
 * tracepoint site in a -fPIC shared object, on keys with default visibility
 * defined in the executable and in this object.
 */
#include <tracecost/compiler.h>
#include "so_test.h"

TC_DEFINE_STATIC_KEY_FALSE(tc_so_a_key);
TC_DEFINE_STATIC_KEY_FALSE(tc_so_bad_key);

tc_noinline int tc_so_a_hit(void)
{
	return tc_static_branch_unlikely(&tc_so_exe_key) ? 1 : 0;
}

tc_noinline int tc_so_a_likely(void)
{
	return tc_static_branch_likely(&tc_so_exe_tkey) ? 1 : 0;
}

tc_noinline int tc_so_a_own(void)
{
	return tc_static_branch_unlikely(&tc_so_a_key) ? 1 : 0;
}

tc_noinline int tc_so_a_bad(void)
{
	return tc_static_branch_unlikely(&tc_so_bad_key) ? 1 : 0;
}

tc_noinline void tc_so_a_trace(int v)
{
	tc_trace_tc_so_tp(v);
}
