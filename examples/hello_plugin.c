// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * hello_plugin.c - a shared object with a static key and its site, built
 * -fPIC against the installed libtracecost:
 *
 *	cc -fPIC -shared hello_plugin.c -o libhello_plugin.so \
 *		$(pkg-config --cflags --libs tracecost)
 */
#include "hello_plugin.h"

TC_DEFINE_STATIC_KEY_FALSE(plugin_verbose);

__attribute__((noinline)) int plugin_verbose_site(void)
{
	return tc_static_branch_unlikely(&plugin_verbose) ? 1 : 0;
}
