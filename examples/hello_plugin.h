/* SPDX-License-Identifier: GPL-2.0-or-later */
/* hello_plugin.h - the shared object of examples/hello.c. */
#ifndef HELLO_PLUGIN_H
#define HELLO_PLUGIN_H

#include <tracecost/static_key.h>

#ifdef __cplusplus
extern "C" {
#endif

TC_DECLARE_STATIC_KEY_FALSE(plugin_verbose);
int plugin_verbose_site(void);

#ifdef __cplusplus
}
#endif

#endif
