// SPDX-License-Identifier: LGPL-2.1-or-later
/* lib/result_write.c - the common JSON header and writers (see tracecost/result.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <tracecost/result.h>

#ifndef TC_VERSION
#define TC_VERSION "unknown"
#endif
#ifndef TC_GIT_SHA
#define TC_GIT_SHA "unknown"
#endif

static json_t *iso_time(const struct timespec *ts)
{
	char buf[64];
	struct tm tm;

	gmtime_r(&ts->tv_sec, &tm);
	snprintf(buf, sizeof(buf), "%04d-%02d-%02dT%02d:%02d:%02d.%03ldZ",
		 tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min,
		 tm.tm_sec, ts->tv_nsec / 1000000);
	return json_string(buf);
}

/* The command line as one string, each argument single-quoted when needed. */
static json_t *command_line(int argc, char *const *argv)
{
	size_t len = 1;
	char *s, *p;
	int i;
	json_t *j;

	for (i = 0; i < argc; i++)
		len += strlen(argv[i]) * 4 + 3;
	s = p = malloc(len);
	if (!s)
		return NULL;
	*p = 0;
	for (i = 0; i < argc; i++) {
		const char *a = argv[i];
		int quote = !*a || strpbrk(a, " \t\n'\"\\$`*?[]{}()<>|&;#~!") != NULL;

		if (i)
			*p++ = ' ';
		if (quote)
			*p++ = '\'';
		for (; *a; a++) {
			if (*a == '\'') {
				memcpy(p, "'\\''", 4);
				p += 4;
			} else {
				*p++ = *a;
			}
		}
		if (quote)
			*p++ = '\'';
		*p = 0;
	}
	j = json_string(s);
	free(s);
	return j;
}

json_t *tc_result_new(const struct tc_result_header *h)
{
	const struct tc_sysinfo *si = h->si;
	json_t *root, *cpus, *irqs;
	int i;

	root = json_object();
	if (!root)
		return NULL;
	json_object_set_new(root, "file_version", json_integer(TC_RESULT_RUN_VERSION));
	json_object_set_new(root, "tool", json_pack("{s:s, s:s, s:s}", "name", "tracecost",
						     "version", TC_VERSION, "git", TC_GIT_SHA));
	json_object_set_new(root, "suite", json_string(h->suite));
	json_object_set_new(root, "command", command_line(h->argc, h->argv));
	json_object_set_new(root, "start", iso_time(&h->start));
	json_object_set_new(root, "end", iso_time(&h->end));
	json_object_set_new(root, "uname",
			    json_pack("{s:s, s:s, s:s, s:s, s:s}", "sysname", si->sysname,
				      "nodename", si->nodename, "release", si->release,
				      "version", si->version, "machine", si->machine));
	json_object_set_new(root, "host",
			    json_pack("{s:s, s:i, s:s, s:s, s:s, s:s, s:s, s:s, s:s}",
				      "cpu_model", si->cpu_model,
				      "cpus_online", si->cpus_online,
				      "cmdline", si->cmdline,
				      "clocksource", si->clocksource,
				      "preemption", si->preemption,
				      "mitigations", si->mitigations,
				      "mitigations_summary", si->mitigations_summary,
				      "compiler", si->compiler,
				      "cflags", si->cflags));
	/* only under user-mode emulation: the figures are then not measurements */
	if (si->emulation[0])
		json_object_set_new(json_object_get(root, "host"), "emulation",
				    json_string(si->emulation));
	if (h->clock)
		json_object_set_new(root, "counter",
				    json_pack("{s:s, s:f, s:I, s:I, s:b, s:s}",
					      "name", h->clock->name,
					      "frequency_hz", h->clock->freq_hz,
					      "resolution_ticks", (json_int_t)h->clock->resolution,
					      "read_cost_ticks", (json_int_t)h->clock->read_cost,
					      "constant_rate", h->clock->constant_rate,
					      "frequency_source", h->clock->source));
	if (h->static_key_impl)
		json_object_set_new(root, "static_key_impl", json_string(h->static_key_impl));
	cpus = json_array();
	irqs = json_array();
	for (i = 0; i < h->nr_cpus; i++) {
		json_array_append_new(cpus, json_integer(h->cpus[i]));
		if (h->irqs)
			json_array_append_new(irqs, json_integer((json_int_t)h->irqs[i]));
	}
	json_object_set_new(root, "cpus", cpus);
	if (h->irqs)
		json_object_set_new(root, "interrupts", irqs);
	else
		json_decref(irqs);
	return root;
}

json_t *tc_result_runs_new(json_t *const *runs, int nr, int argc, char *const *argv,
			   const struct timespec *start, const struct timespec *end)
{
	static const char *const copied[] = { "tool", "suite", "uname", "host", "counter",
					      "static_key_impl" };
	json_t *root, *arr;
	const char *suite;
	size_t i;
	int r;

	if (nr < 1 || nr > TC_RESULT_MAX_RUNS || !json_is_object(runs[0]))
		return NULL;
	suite = json_string_value(json_object_get(runs[0], "suite"));
	for (r = 0; r < nr; r++) {
		const char *s = json_string_value(json_object_get(runs[r], "suite"));

		if (!suite || !s || strcmp(s, suite))
			return NULL;
	}
	root = json_object();
	arr = json_array();
	if (!root || !arr)
		goto fail;
	json_object_set_new(root, "file_version", json_integer(TC_RESULT_FILE_VERSION));
	for (i = 0; i < sizeof(copied) / sizeof(copied[0]); i++) {
		json_t *v = json_object_get(runs[0], copied[i]);

		if (v && json_object_set(root, copied[i], v))
			goto fail;
	}
	json_object_set_new(root, "command", command_line(argc, argv));
	json_object_set_new(root, "start", iso_time(start));
	json_object_set_new(root, "end", iso_time(end));
	for (r = 0; r < nr; r++)
		if (json_array_append(arr, runs[r]))
			goto fail;
	if (json_object_set_new(root, "runs", arr))
		goto fail_root;
	for (r = 0; r < nr; r++)
		json_decref(runs[r]);
	return root;
fail:
	json_decref(arr);
fail_root:
	json_decref(root);
	return NULL;
}

json_t *tc_stats_to_json(const struct tc_stats *s, double div)
{
	return json_pack("{s:I, s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:I, s:I, s:b, s:b, s:f, s:f}",
			 "n", (json_int_t)s->n,
			 "min", (double)s->min / div,
			 "average", s->average / div,
			 "median", (double)s->median / div,
			 "percentile", (double)s->percentile / div,
			 "p", s->p,
			 "max_avg", s->max_avg / div,
			 "max", (double)s->max / div,
			 "highest", (json_int_t)s->highest,
			 "overflow", (json_int_t)s->overflow,
			 "median_exact", s->median_exact,
			 "percentile_exact", s->percentile_exact,
			 "median_upper", (double)s->median_upper / div,
			 "percentile_upper", (double)s->percentile_upper / div);
}

int tc_result_write(json_t *root, const char *path)
{
	char tmp[4096];
	int err;

	if (!strcmp(path, "-")) {
		err = json_dumpf(root, stdout, JSON_INDENT(1) | JSON_COMPACT);
		fputc('\n', stdout);
		return err ? -EIO : 0;
	}
	if (snprintf(tmp, sizeof(tmp), "%s.tmp.%d", path, (int)getpid()) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	if (json_dump_file(root, tmp, JSON_INDENT(1) | JSON_COMPACT)) {
		err = errno ? -errno : -EIO;
		unlink(tmp);
		return err;
	}
	if (rename(tmp, path)) {
		err = -errno;
		unlink(tmp);
		return err;
	}
	return 0;
}
