// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tests/fuzz/fuzz_profile.c - libFuzzer harness of the profile-file parser
 * (tc_profile_file_parse(), lib/profile.c): any bytes either load (every
 * profile named, events and tracer within bounds) or are refused with one
 * line naming the file and a line. Violations abort (a crash for libFuzzer).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tracecost/profile.h>

static void check(int cond, const char *what)
{
	if (!cond) {
		fprintf(stderr, "fuzz_profile: invariant violated: %s\n", what);
		abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tc_profile *ps = (void *)1;
	char err[512];
	int nr = -1, i, ret;

	err[0] = 0;
	ret = tc_profile_file_parse((const char *)data, size, "f", &ps, &nr, err, sizeof(err));
	if (ret) {
		check(ret < 0, "error is a negative errno");
		check(!ps && !nr, "nothing returned on error");
		check(!strncmp(err, "f:", 2), "the message names the file");
		check(!strchr(err, '\n'), "the message is one line");
		return 0;
	}
	check(nr > 0 && ps, "a loaded file has a profile");
	for (i = 0; i < nr; i++) {
		check(ps[i].name[0] != 0, "a profile has a name");
		check(ps[i].nr_events >= 0 && ps[i].nr_events <= TC_PROFILE_MAX_EVENTS,
		      "event count in bounds");
		check(ps[i].nr_events > 0 || ps[i].tracer[0], "a profile enables something");
		tc_profile_release(&ps[i]);
	}
	free(ps);
	return 0;
}
