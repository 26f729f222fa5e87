// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * workloads/fs.c - file creation and deletion rates, after lmbench's
 * lat_fs: for each size (0k, 1k, 4k, 10k by default), create N files of that
 * size (open O_CREAT|O_EXCL, write, close) in a fresh directory, then
 * unlink them, timing each phase. Figures: files created per second and
 * files deleted per second, per size. No fsync (as lat_fs): this measures
 * the VFS and page cache path, not the disk.
 *
 * The directory is made by setup with mkdtemp() under --dir and removed by
 * teardown; setup also runs one untimed round of min(N, 100) files per size.
 *
 * Default directory: /dev/shm when it is a tmpfs, else $TMPDIR or /tmp.
 * Measured on a 2-CPU KVM guest whose /tmp is ext4 (issue 13): creates on
 * ext4 took about 1 ms each (700 to 1,400 files/s), set by the journal and
 * the virtual disk, with deletes at 20,000 to 190,000 files/s in the same
 * run (60x apart); on tmpfs the same rounds gave 50,000 to 120,000 creates/s.
 * With the disk in the path the workload measured the disk, not the VFS
 * path a tracing profile can slow down. The tables name the file system
 * ("files on tmpfs"), so a --dir on a disk is visible in every table.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <linux/magic.h>

#include "wl.h"

#define FS_MAX_KB	(64 * 1024)

struct fs_priv {
	char dir[4096];
	int dfd;
	char *buf;
	size_t buf_len;
};

static const char *fs_parent(const struct tc_wl_opts *o)
{
	const char *t = getenv("TMPDIR");
	struct statfs sf;

	if (o->dir)
		return o->dir;
	if (!statfs("/dev/shm", &sf) && sf.f_type == TMPFS_MAGIC &&
	    !access("/dev/shm", W_OK | X_OK))
		return "/dev/shm";
	return t && *t ? t : "/tmp";
}

/* "tmpfs", "ext4", ... of @dir's file system, for the tables */
static const char *fs_type(const char *dir)
{
	static const struct { long magic; const char *name; } types[] = {
		{ TMPFS_MAGIC, "tmpfs" }, { EXT4_SUPER_MAGIC, "ext2/3/4" },
		{ XFS_SUPER_MAGIC, "xfs" }, { BTRFS_SUPER_MAGIC, "btrfs" },
		{ OVERLAYFS_SUPER_MAGIC, "overlayfs" }, { NFS_SUPER_MAGIC, "nfs" },
		{ RAMFS_MAGIC, "ramfs" }, { 0x65735546, "fuse" }, { 0x01021994, "tmpfs" },
	};
	struct statfs sf;
	size_t i;

	if (statfs(dir, &sf))
		return "unknown file system";
	for (i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		if ((long)sf.f_type == types[i].magic)
			return types[i].name;
	return "a disk file system";
}

/* what the tables say one run does: "files on tmpfs (/dev/shm)" */
static char fs_unit[160];

static int fs_check(const struct tc_wl_opts *o, char *msg, size_t len)
{
	const char *dir = fs_parent(o);
	struct stat st;
	int i;

	if (!o->files) {
		snprintf(msg, len, "--files: must be at least 1");
		return -EINVAL;
	}
	if (o->nr_sizes < 1) {
		snprintf(msg, len, "--sizes: empty list");
		return -EINVAL;
	}
	for (i = 0; i < o->nr_sizes; i++) {
		if (o->sizes[i] > FS_MAX_KB) {
			snprintf(msg, len, "--sizes: %uk is out of range [0, %u]k", o->sizes[i],
				 FS_MAX_KB);
			return -EINVAL;
		}
	}
	errno = 0;
	if (stat(dir, &st) || !S_ISDIR(st.st_mode) || access(dir, W_OK | X_OK)) {
		snprintf(msg, len, "--dir: '%s' is not a writable directory%s%s", dir,
			 errno ? ": " : "", errno ? strerror(errno) : "");
		return -EINVAL;
	}
	return 0;
}

static int fs_round(struct tc_wl_ctx *ctx, unsigned int kb, uint64_t n, double *create,
		    double *del, uint64_t *done_c, uint64_t *done_d)
{
	struct fs_priv *p = ctx->priv;
	size_t size = (size_t)kb * 1024;
	uint64_t i, made = 0, gone = 0, t0, t1;
	char name[32];
	int err = 0;

	t0 = tc_wl_now_ns();
	for (i = 0; i < n && !err; i++) {
		int fd;

		snprintf(name, sizeof(name), "f%llu", (unsigned long long)i);
		fd = openat(p->dfd, name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
		if (fd < 0) {
			err = wl_fail(ctx, -errno, "creating %s/%s: %s", p->dir, name,
				      strerror(errno));
			break;
		}
		made++;
		if (size)
			err = wl_write_full(ctx, fd, p->buf, size);
		if (close(fd) && !err)
			err = -errno;
		if (err)
			err = wl_fail(ctx, wl_err(ctx, err), "writing %s/%s: %s", p->dir, name,
				      strerror(-err));
		if (!(i & 63) && tc_wl_stopped(ctx))
			err = -EINTR;
	}
	t1 = tc_wl_now_ns();
	/* delete whatever was made, even after an error */
	for (i = 0; i < made; i++) {
		snprintf(name, sizeof(name), "f%llu", (unsigned long long)i);
		if (unlinkat(p->dfd, name, 0)) {
			if (!err)
				err = wl_fail(ctx, -errno, "unlinking %s/%s: %s", p->dir, name,
					      strerror(errno));
		} else {
			gone++;
		}
	}
	if (err)
		return err;
	*create = (double)made * 1e9 / (double)(t1 - t0);
	*del = (double)gone * 1e9 / (double)(tc_wl_now_ns() - t1);
	*done_c = made;
	*done_d = gone;
	return 0;
}

static int fs_setup(struct tc_wl_ctx *ctx)
{
	const struct tc_wl_opts *o = ctx->o;
	struct fs_priv *p = calloc(1, sizeof(*p));
	unsigned int max_kb = 0;
	int i, err;

	if (!p)
		return wl_fail(ctx, -ENOMEM, "out of memory");
	ctx->priv = p;
	p->dfd = -1;
	snprintf(fs_unit, sizeof(fs_unit), "files on %s (%.100s)", fs_type(fs_parent(o)),
		 fs_parent(o));
	for (i = 0; i < o->nr_sizes; i++) {
		char name[48];

		if (o->sizes[i] > max_kb)
			max_kb = o->sizes[i];
		snprintf(name, sizeof(name), "fs %uk create", o->sizes[i]);
		wl_metric(ctx, name, "files/s", fs_unit, true, o->files);
		snprintf(name, sizeof(name), "fs %uk delete", o->sizes[i]);
		wl_metric(ctx, name, "files/s", fs_unit, true, o->files);
	}
	p->buf_len = (size_t)max_kb * 1024;
	p->buf = malloc(p->buf_len ? p->buf_len : 1);
	if (!p->buf)
		return wl_fail(ctx, -ENOMEM, "out of memory");
	memset(p->buf, 'x', p->buf_len);
	snprintf(p->dir, sizeof(p->dir), "%s/tracecost-fs.XXXXXX", fs_parent(o));
	if (!mkdtemp(p->dir)) {
		p->dir[0] = 0;
		return wl_fail(ctx, -errno, "mkdtemp under %s: %s", fs_parent(o),
			       strerror(errno));
	}
	p->dfd = open(p->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (p->dfd < 0)
		return wl_fail(ctx, -errno, "%s: %s", p->dir, strerror(errno));
	for (i = 0; i < o->nr_sizes; i++) {
		double c, d;
		uint64_t dc, dd;

		err = fs_round(ctx, o->sizes[i], o->files < 100 ? o->files : 100, &c, &d, &dc,
			       &dd);
		if (err)
			return err;
	}
	return 0;
}

static int fs_run(struct tc_wl_ctx *ctx, struct tc_wl_sample *s)
{
	int i, err = 0;

	tc_wl_add_pid(ctx, getpid());
	for (i = 0; i < ctx->o->nr_sizes && !err; i++)
		err = fs_round(ctx, ctx->o->sizes[i], ctx->o->files, &s->value[2 * i],
			       &s->value[2 * i + 1], &s->work[2 * i], &s->work[2 * i + 1]);
	return err;
}

static void fs_teardown(struct tc_wl_ctx *ctx)
{
	struct fs_priv *p = ctx->priv;

	if (!p)
		return;
	if (p->dfd >= 0)
		close(p->dfd);
	if (p->dir[0])
		rmdir(p->dir);
	free(p->buf);
	free(p);
	ctx->priv = NULL;
}

const struct tc_workload tc_workload_fs = {
	.name = "fs",
	.summary = "create and delete files of each size (lmbench lat_fs), files/s",
	.check = fs_check,
	.setup = fs_setup,
	.run = fs_run,
	.teardown = fs_teardown,
};
