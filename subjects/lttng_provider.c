// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * subjects/lttng_provider.c - the probes of the "tracecost" LTTng-UST
 * provider, built as build/peers/libtracecost-lttng.so (linked with
 * liblttng-ust) and dlopen()ed by tracecost only for --peers lttng, after
 * its private session daemon is up: liblttng-ust registers with it then.
 */
#define LTTNG_UST_TRACEPOINT_CREATE_PROBES
#include "subjects/tc_lttng_tp.h"
