// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * lib/calibration.c - the calibration file (tracecost/calibration.h,
 * doc/calibration-format.md): write, read and validate, look-ups, and
 * whether it covers a result file. The estimate from sessions is in
 * lib/calibration_estimate.c, which uses the comparison; the comparison
 * uses only this file, so the two do not depend on each other in a circle.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include <tracecost/calibration.h>
#include <tracecost/metric.h>
#include <tracecost/file.h>

/* A calibration holds a few hundred entries; anything far larger is not one. */
#define CAL_MAX_BYTES	(16u << 20)
#define CAL_MAX_ENTRIES	100000

void tc_calibration_free(struct tc_calibration *c)
{
	int i;

	if (!c)
		return;
	for (i = 0; i < c->nr_entries; i++) {
		free(c->entries[i].row);
		free(c->entries[i].config);
	}
	free(c->entries);
	free(c->path);
	free(c->suite);
	free(c->nodename);
	free(c->machine);
	free(c->cpu_model);
	free(c->release);
	free(c->start);
	free(c->end);
	free(c->command);
	free(c);
}

const struct tc_calibration_entry *tc_calibration_find(const struct tc_calibration *c,
							const char *row, const char *config,
							int metric)
{
	const struct tc_calibration_entry *pooled = NULL;
	int i;

	for (i = 0; i < c->nr_entries; i++) {
		const struct tc_calibration_entry *e = &c->entries[i];

		if (e->metric != metric || strcmp(e->row, row))
			continue;
		if (!strcmp(e->config, config))
			return e;
		if (!strcmp(e->config, TC_CALIBRATION_ALL))
			pooled = e;
	}
	return pooled;
}

static bool same(const char *a, const char *b)
{
	return !strcmp(a ? a : "", b ? b : "");
}

bool tc_calibration_covers(const struct tc_calibration *c, const struct tc_result_file *f,
			   char *why, size_t len)
{
	int r;

	if (!same(c->suite, f->suite)) {
		snprintf(why, len, "calibrated for the %s suite, the file is of the %s suite",
			 c->suite, f->suite);
		return false;
	}
	if (!same(c->nodename, f->nodename) || !same(c->machine, f->machine) ||
	    !same(c->cpu_model, f->cpu_model)) {
		snprintf(why, len, "calibrated on %s (%s), the file was measured on %s (%s)",
			 c->nodename, c->cpu_model, f->nodename, f->cpu_model);
		return false;
	}
	for (r = 0; r < f->nr_runs; r++) {
		if (!same(c->nodename, f->runs[r].nodename)) {
			snprintf(why, len, "calibrated on %s, a run of the file was measured on %s",
				 c->nodename, f->runs[r].nodename);
			return false;
		}
	}
	if (c->batch != f->batch) {
		snprintf(why, len, "calibrated at --batch %u, the file was measured at --batch %u",
			 c->batch, f->batch);
		return false;
	}
	return true;
}

int tc_calibration_default_path(const char *suite, char *buf, size_t len)
{
	const char *dir = getenv("TRACECOST_CALIBRATION_DIR");
	int n;

	if (!dir || !*dir)
		dir = "/var/lib/tracecost";
	n = snprintf(buf, len, "%s/calibration-%s.json", dir, suite);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

static json_t *num(double v)
{
	return isnan(v) ? json_null() : json_real(v);
}

int tc_calibration_write(const struct tc_calibration *c, const char *path)
{
	json_t *root, *entries = json_array(), *host;
	int i, err;

	if (!entries)
		return -ENOMEM;
	for (i = 0; i < c->nr_entries; i++) {
		const struct tc_calibration_entry *e = &c->entries[i];

		if (json_array_append_new(entries, json_pack(
			"{s:s, s:s, s:s, s:o, s:o, s:o, s:o, s:o}", "row", e->row,
			"config", e->config, "metric", tc_metric_name(e->metric),
			"mean", num(e->mean), "session_cv", num(e->session_cv),
			"run_cv", num(e->run_cv), "rep_cv", num(e->rep_cv),
			"df", num(e->df)))) {
			json_decref(entries);
			return -ENOMEM;
		}
	}
	host = json_pack("{s:s, s:s, s:s, s:s}", "nodename", c->nodename, "machine", c->machine,
			 "cpu_model", c->cpu_model, "release", c->release);
	root = json_pack("{s:i, s:s, s:o, s:s, s:s, s:i, s:i, s:i, s:i, s:f, s:s, s:o}",
			 "calibration_version", TC_CALIBRATION_VERSION, "suite", c->suite,
			 "host", host, "start", c->start, "end", c->end,
			 "sessions", c->sessions, "runs", c->runs, "repeat", (int)c->repeat,
			 "batch", (int)c->batch, "spacing_s", c->spacing_s,
			 "command", c->command, "entries", entries);
	if (!root)
		return -ENOMEM;
	err = tc_result_write(root, path);
	json_decref(root);
	return err;
}

/* Reading: one line "PATH: what" for anything that is not as written above. */
struct crd {
	const char *path;
	char *err;
	size_t errlen;
};

static __attribute__((format(printf, 2, 3))) int bad(struct crd *r, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	snprintf(r->err, r->errlen, "%s: %s", r->path, msg);
	return -EINVAL;
}

static int get_str(struct crd *r, json_t *obj, const char *key, char **out)
{
	json_t *j = json_object_get(obj, key);
	const char *s;
	size_t i;

	if (!json_is_string(j))
		return bad(r, "no string '%s' (not a tracecost calibration file)", key);
	s = json_string_value(j);
	for (i = 0; s[i]; i++)
		if ((unsigned char)s[i] < 0x20)
			return bad(r, "'%s' holds a control character", key);
	*out = strdup(s);
	return *out ? 0 : -ENOMEM;
}

static int get_num(struct crd *r, json_t *obj, const char *key, double lo, double hi,
		   bool null_ok, double *out)
{
	json_t *j = json_object_get(obj, key);

	if (null_ok && json_is_null(j)) {
		*out = NAN;
		return 0;
	}
	if (!json_is_number(j))
		return bad(r, "no number '%s'", key);
	*out = json_number_value(j);
	if (!(*out >= lo && *out <= hi))
		return bad(r, "'%s' out of range", key);
	return 0;
}

static int read_entry(struct crd *r, json_t *j, struct tc_calibration_entry *e)
{
	char *metric = NULL;
	int err;

	if (!json_is_object(j))
		return bad(r, "%s: an entry is not an object", "entries");
	err = get_str(r, j, "row", &e->row);
	err = err ?: get_str(r, j, "config", &e->config);
	err = err ?: get_str(r, j, "metric", &metric);
	if (err) {
		free(metric);
		return err;
	}
	e->metric = tc_metric_parse(metric);
	if (e->metric < 0) {
		err = bad(r, "unknown metric '%s'", metric);
		free(metric);
		return err;
	}
	free(metric);
	err = get_num(r, j, "mean", -1e300, 1e300, true, &e->mean);
	err = err ?: get_num(r, j, "session_cv", 0, 1e6, false, &e->session_cv);
	err = err ?: get_num(r, j, "run_cv", 0, 1e6, true, &e->run_cv);
	err = err ?: get_num(r, j, "rep_cv", 0, 1e6, true, &e->rep_cv);
	err = err ?: get_num(r, j, "df", 1, 1e9, false, &e->df);
	return err;
}

int tc_calibration_read(const char *path, struct tc_calibration **out, char *err,
			size_t errlen)
{
	struct crd r = { .path = path, .err = err, .errlen = errlen };
	struct tc_calibration *c;
	json_t *root = NULL, *host, *entries;
	json_error_t je;
	char why[256], *buf;
	double v = 0;
	size_t len, i;
	int ret;

	*out = NULL;
	ret = tc_file_read(path, CAL_MAX_BYTES, &buf, &len, why, sizeof(why));
	if (ret) {
		snprintf(err, errlen, "%s: %s", path, why);
		return ret;
	}
	root = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &je);
	free(buf);
	if (!root) {
		snprintf(err, errlen, "%s: not JSON (line %d: %s)", path, je.line, je.text);
		return -EINVAL;
	}
	c = calloc(1, sizeof(*c));
	if (!c) {
		json_decref(root);
		return -ENOMEM;
	}
	ret = -EINVAL;
	if (!json_is_object(root)) {
		bad(&r, "%s", "not a tracecost calibration file (not an object)");
		goto out;
	}
	if (!json_is_integer(json_object_get(root, "calibration_version"))) {
		bad(&r, "%s", "no calibration_version (not a tracecost calibration file)");
		goto out;
	}
	if (json_integer_value(json_object_get(root, "calibration_version")) !=
	    TC_CALIBRATION_VERSION) {
		snprintf(err, errlen, "%s: calibration_version %lld, this tracecost reads %d",
			 path, (long long)json_integer_value(
				 json_object_get(root, "calibration_version")),
			 TC_CALIBRATION_VERSION);
		ret = -EPROTONOSUPPORT;
		goto out;
	}
	host = json_object_get(root, "host");
	if (!json_is_object(host)) {
		bad(&r, "%s", "no host object");
		goto out;
	}
	ret = get_str(&r, root, "suite", &c->suite);
	ret = ret ?: get_str(&r, host, "nodename", &c->nodename);
	ret = ret ?: get_str(&r, host, "machine", &c->machine);
	ret = ret ?: get_str(&r, host, "cpu_model", &c->cpu_model);
	ret = ret ?: get_str(&r, host, "release", &c->release);
	ret = ret ?: get_str(&r, root, "start", &c->start);
	ret = ret ?: get_str(&r, root, "end", &c->end);
	ret = ret ?: get_str(&r, root, "command", &c->command);
	ret = ret ?: get_num(&r, root, "sessions", TC_CALIBRATION_MIN_SESSIONS, 1e6, false, &v);
	c->sessions = (int)v;
	ret = ret ?: get_num(&r, root, "runs", 1, 1e6, false, &v);
	c->runs = (int)v;
	ret = ret ?: get_num(&r, root, "repeat", 1, 1e6, false, &v);
	c->repeat = (unsigned int)v;
	ret = ret ?: get_num(&r, root, "batch", 0, 1e9, false, &v);
	c->batch = (unsigned int)v;
	ret = ret ?: get_num(&r, root, "spacing_s", -1e9, 1e9, false, &c->spacing_s);
	if (ret)
		goto out;
	ret = -EINVAL;
	if (strcmp(c->suite, "user") && strcmp(c->suite, "system")) {
		bad(&r, "suite '%s': a calibration is of the user or system suite", c->suite);
		goto out;
	}
	entries = json_object_get(root, "entries");
	if (!json_is_array(entries) || !json_array_size(entries) ||
	    json_array_size(entries) > CAL_MAX_ENTRIES) {
		bad(&r, "%s", "no entries (an array of 1 to 100000)");
		goto out;
	}
	c->entries = calloc(json_array_size(entries), sizeof(*c->entries));
	if (!c->entries) {
		ret = -ENOMEM;
		goto out;
	}
	for (i = 0; i < json_array_size(entries); i++) {
		ret = read_entry(&r, json_array_get(entries, i), &c->entries[i]);
		c->nr_entries++;
		if (ret)
			goto out;
	}
	c->path = strdup(path);
	ret = c->path ? 0 : -ENOMEM;
out:
	json_decref(root);
	if (ret)
		tc_calibration_free(c);
	else
		*out = c;
	return ret;
}
