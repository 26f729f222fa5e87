// SPDX-License-Identifier: GPL-2.0
/* The userspace histogram code, compiled into the module unchanged. */
#include "../../lib/hist.c"
