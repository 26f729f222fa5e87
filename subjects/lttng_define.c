// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * subjects/lttng_define.c - the tracepoint definitions of the "tracecost"
 * LTTng-UST provider in tracecost itself, with dynamic linkage: the sites in
 * the lttng columns need no LTTng library at link time; the probes arrive
 * when build/peers/libtracecost-lttng.so is dlopen()ed (--peers lttng).
 */
#define LTTNG_UST_TRACEPOINT_DEFINE
#define LTTNG_UST_TRACEPOINT_PROBE_DYNAMIC_LINKAGE
#include "subjects/tc_lttng_tp.h"
