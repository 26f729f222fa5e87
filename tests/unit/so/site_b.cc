// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * site_b.cc - libtcsite_b.so for test_static_key_so, in C++ (the public
 * headers compile as C++): dlopen()ed after tc_so_exe_key was enabled.
 */
#include "so_test.h"
/* Every public header, so that each is compiled as C++ by the tests. */
#include <tracecost/clock.h>
#include <tracecost/compare.h>
#include <tracecost/compiler.h>
#include <tracecost/hist.h>
#include <tracecost/kmod.h>
#include <tracecost/kmod_results.h>
#include <tracecost/profile.h>
#include <tracecost/report.h>
#include <tracecost/result.h>
#include <tracecost/ringbuf.h>
#include <tracecost/sampler.h>
#include <tracecost/static_key.h>
#include <tracecost/stats.h>
#include <tracecost/subject.h>
#include <tracecost/sysinfo.h>
#include <tracecost/toggle.h>
#include <tracecost/tracefs.h>
#include <tracecost/tracepoint.h>
#include <tracecost/workload.h>

extern "C" __attribute__((noinline)) int tc_so_b_hit(void)
{
	return tc_static_branch_unlikely(&tc_so_exe_key) ? 1 : 0;
}

extern "C" __attribute__((noinline)) int tc_so_b_likely(void)
{
	return tc_static_branch_likely(&tc_so_exe_tkey) ? 1 : 0;
}

extern "C" __attribute__((noinline)) void tc_so_b_trace(int v)
{
	tc_trace_tc_so_tp(v);
}
