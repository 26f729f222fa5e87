// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tests/integration/seccomp-deny.c - run a command with one system call
 * made to fail with a given errno by a seccomp filter, as a container
 * runtime's profile or an old kernel would.
 * Usage: seccomp-deny membarrier|pwrite64 ERRNO-NUMBER COMMAND [ARG]...
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

int main(int argc, char **argv)
{
	unsigned int nr, err;

	if (argc < 4) {
		fprintf(stderr, "usage: seccomp-deny membarrier|pwrite64 ERRNO COMMAND [ARG]...\n");
		return 2;
	}
	if (!strcmp(argv[1], "membarrier"))
		nr = __NR_membarrier;
	else if (!strcmp(argv[1], "pwrite64"))
		nr = __NR_pwrite64;
	else
		return 2;
	err = (unsigned int)atoi(argv[2]);
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, nr, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (err & SECCOMP_RET_DATA)),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { .len = sizeof(f) / sizeof(f[0]), .filter = f };

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog)) {
		perror("seccomp-deny: prctl");
		return 1;
	}
	execvp(argv[3], argv + 3);
	perror("seccomp-deny: exec");
	return 127;
}
