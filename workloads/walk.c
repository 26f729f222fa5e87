// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * workloads/walk.c - the seed's "find / > /dev/null": a recursive traversal
 * of a tree (default /usr) with lstat of every entry (nftw, FTW_PHYS: no
 * symlink is followed), counting the entries. Setup walks once untimed
 * (warm cache; its count is what each run is expected to find). Figure:
 * seconds per traversal.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "wl.h"

/* nftw() passes no context: the walk in progress (one at a time). */
static __thread struct {
	const struct tc_wl_ctx *ctx;
	uint64_t entries;
	int stopped;
} walk_state;

static int walk_entry(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	walk_state.entries++;
	if (!(walk_state.entries & 1023) && tc_wl_stopped(walk_state.ctx)) {
		walk_state.stopped = 1;
		return FTW_STOP;
	}
	return FTW_CONTINUE;
}

static int walk_check(const struct tc_wl_opts *o, char *msg, size_t len)
{
	struct stat st;

	if (!o->tree || stat(o->tree, &st) || !S_ISDIR(st.st_mode)) {
		snprintf(msg, len, "--tree: '%s' is not a directory", o->tree ? o->tree : "");
		return -EINVAL;
	}
	if (access(o->tree, R_OK | X_OK)) {
		snprintf(msg, len, "--tree: '%s': %s", o->tree, strerror(errno));
		return -EINVAL;
	}
	return 0;
}

static int walk_once(struct tc_wl_ctx *ctx, uint64_t *entries)
{
	int r;

	walk_state.ctx = ctx;
	walk_state.entries = 0;
	walk_state.stopped = 0;
	r = nftw(ctx->o->tree, walk_entry, 64, FTW_PHYS | FTW_ACTIONRETVAL);
	if (walk_state.stopped)
		return -EINTR;
	if (r < 0)
		return wl_fail(ctx, -errno, "walking %s: %s", ctx->o->tree, strerror(errno));
	*entries = walk_state.entries;
	return 0;
}

static int walk_setup(struct tc_wl_ctx *ctx)
{
	uint64_t n = 0;
	int err = walk_once(ctx, &n);

	if (err)
		return err;
	wl_metric(ctx, "walk", "s", "entries", false, n);
	return 0;
}

static int walk_run(struct tc_wl_ctx *ctx, struct tc_wl_sample *s)
{
	uint64_t t0 = tc_wl_now_ns();
	int err;

	tc_wl_add_pid(ctx, getpid());
	err = walk_once(ctx, &s->work[0]);
	if (!err)
		s->value[0] = (double)(tc_wl_now_ns() - t0) / 1e9;
	return err;
}

const struct tc_workload tc_workload_walk = {
	.name = "walk",
	.summary = "recursive traversal with lstat of every entry (find), s",
	.check = walk_check,
	.setup = walk_setup,
	.run = walk_run,
};
