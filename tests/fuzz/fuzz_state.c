// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tests/fuzz/fuzz_state.c - libFuzzer harness of the state file that
 * "tracecost restore" reads (tcfs_state_parse(), lib/tracefs_state.c) and of
 * the checks restore applies to it before touching tracefs: only
 * instances named tracecost-PID (tcfs_state_instance_ok()), only relative
 * paths without "..". The first harness run found "tracecost-..(y" accepted
 * (harmless without a '/', but not a name we make): regress-state/. Nothing is written anywhere: the harness walks the parsed state
 * the way state_undo() does and checks what it would act on.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tracefs_local.h"

static void check(int cond, const char *what)
{
	if (!cond) {
		fprintf(stderr, "fuzz_state: invariant violated: %s\n", what);
		abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	json_t *st, *inst, *files;
	char msg[256];
	size_t i;
	int err = 1;

	msg[0] = 0;
	st = tcfs_state_parse((const char *)data, size, "state", &err, msg, sizeof(msg));
	if (!st) {
		check(err == -EINVAL, "refusal is -EINVAL");
		check(!strncmp(msg, "state: ", 7), "the message names the file");
		return 0;
	}
	check(!err, "no error when parsed");
	inst = json_object_get(st, "instances");
	files = json_object_get(st, "files");
	check(json_is_array(inst) && json_is_array(files), "arrays checked");
	for (i = 0; i < json_array_size(inst); i++) {
		const char *name = json_string_value(json_array_get(inst, i));

		/* what state_undo() would remove: tracecost-DIGITS only */
		if (tcfs_state_instance_ok(name)) {
			size_t k;

			check(!strncmp(name, "tracecost-", 10) && name[10], "named tracecost-PID");
			for (k = 10; name[k]; k++)
				check(name[k] >= '0' && name[k] <= '9', "PID digits only");
		}
	}
	for (i = 0; i < json_array_size(files); i++) {
		json_t *e = json_array_get(files, i);
		const char *path = json_string_value(json_object_get(e, "path"));

		/* what state_undo() would write back */
		if (path && !tcfs_bad_relpath(path))
			check(path[0] != '/' && !strstr(path, ".."), "a restored path stays in tracefs");
	}
	json_decref(st);
	return 0;
}
