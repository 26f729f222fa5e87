/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tracecost/file.h - checked opening and reading of the files a user names
 * (result files, profile files, ELF files, the module, the state file):
 * anything but a regular file is refused before it can block (a FIFO) or
 * feed endless data (a device); a size bound is applied before reading.
 */
#ifndef TRACECOST_FILE_H
#define TRACECOST_FILE_H

#include <stddef.h>
#include <sys/stat.h>

/**
 * tc_file_open() - open a regular file read-only without ever blocking
 * @path:	file name
 * @st:		its stat (of the opened file), or NULL
 * @err:	on failure, the reason without the file name ("is a FIFO, not
 *		a regular file", "cannot open: Permission denied")
 * @errlen:	size of @err
 *
 * stat() first, so that a FIFO, socket or device is refused before open()
 * could block on it; then open(O_NONBLOCK) and fstat() again, so that a
 * FIFO put in its place between the two is refused too.
 * Return: a file descriptor (O_CLOEXEC, blocking) or -errno: -EINVAL for a
 * file that is not regular (-EISDIR for a directory), open()'s error else.
 */
int tc_file_open(const char *path, struct stat *st, char *err, size_t errlen);

/**
 * tc_file_read() - read a whole regular file of at most @max bytes
 * @path:	file name
 * @max:	largest accepted size in bytes
 * @buf:	the contents, malloc'ed, NUL-terminated (one byte more than *@len)
 * @len:	number of bytes read
 * @err:	on failure, the reason without the file name
 * @errlen:	size of @err
 *
 * A file whose stat size is above @max is refused before any read; files
 * whose stat size is 0 or wrong (procfs, sysfs) are read to their end, and
 * refused once they exceed @max.
 * Return: 0, or -errno as tc_file_open(), -EFBIG above @max, -ENOMEM, or
 * read()'s error.
 */
int tc_file_read(const char *path, size_t max, char **buf, size_t *len, char *err,
		 size_t errlen);

/**
 * tc_file_kind() - "a FIFO", "a directory", "a socket", "a character device",
 * "a block device", "a symbolic link" or "a regular file" for @mode
 */
const char *tc_file_kind(mode_t mode);

#endif /* TRACECOST_FILE_H */
