// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_static_key_so.c - static keys across ELF objects: a key defined in
 * the executable with sites in the executable, in libtcsite_a.so (linked at
 * start-up, -fPIC, C) and in libtcsite_b.so (dlopen()ed after the key was
 * enabled, C++); a key defined in a shared object; a tracepoint of the
 * executable run from both objects; an enable that cannot patch a known site
 * fails and changes nothing; an object with a site that cannot be patched is
 * refused at load (abort with a message); dlopen()/dlclose() while another
 * thread flips the key and a third runs its sites.
 *
 * Built by the Makefile with -rdynamic (the objects use the executable's
 * keys, tracepoint and library), the objects in $(O)/tests/so/.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include <tracecost/compiler.h>
#include "site_insn.h"
#include "so/so_test.h"

TC_DEFINE_STATIC_KEY_FALSE(tc_so_exe_key);
TC_DEFINE_STATIC_KEY_TRUE(tc_so_exe_tkey);
TC_DEFINE_TRACEPOINT(tc_so_tp, TC_TP_PROTO(int v), TC_TP_ARGS(v));

static tc_noinline int exe_hit(void)
{
	return tc_static_branch_unlikely(&tc_so_exe_key) ? 1 : 0;
}

static tc_noinline int exe_own(void)
{
	return tc_static_branch_unlikely(&tc_so_a_key) ? 1 : 0;
}

static tc_noinline int exe_bad(void)
{
	return tc_static_branch_unlikely(&tc_so_bad_key) ? 1 : 0;
}

/* Probe: counts events and sums their typed argument. */
static unsigned long probe_events;
static long probe_sum;

static void count_probe(void *data, int v)
{
	(void)data;
	__atomic_fetch_add(&probe_events, 1, __ATOMIC_RELAXED);
	__atomic_fetch_add(&probe_sum, v, __ATOMIC_RELAXED);
}

static char so_dir[PATH_MAX];

static void *open_so(const char *name)
{
	char path[PATH_MAX + 64];
	void *h;

	snprintf(path, sizeof(path), "%s/%s", so_dir, name);
	h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!h)
		fail_msg("dlopen %s: %s", path, dlerror());
	return h;
}

static void *sym(void *h, const char *name)
{
	void *p = dlsym(h, name);

	if (!p)
		fail_msg("dlsym %s: %s", name, dlerror());
	return p;
}

/* Sites of @key, at most 8. */
static int sites_of(struct tc_static_key *key, void **a)
{
	int n = (tc_static_key_sites)(key, a, 8);

	assert_true(n >= 0 && n <= 8);
	return n;
}

/* Is every site of @key a jump (true) or the NOP (false)? */
static void check_sites(struct tc_static_key *key, bool jump, int expect_n)
{
	void *a[8];
	int i, n = sites_of(key, a);

	assert_int_equal(n, expect_n);
	for (i = 0; i < n; i++) {
		if (jump ? !tc_test_site_jump(a[i], NULL) : !tc_test_site_is_nop(a[i]))
			fail_msg("site %d of %d: expected %s, got %s", i, n,
				 jump ? "a jump" : "the NOP", tc_test_site_bytes(a[i]));
	}
}

static void test_sites_in_objects(void **state)
{
	(void)state;
	/* Sites: the executable's and libtcsite_a.so's, both registered. */
	check_sites(&tc_so_exe_key.key, false, 2);
	check_sites(&tc_so_a_key.key, false, 2);
	assert_int_equal(tc_so_a_hit(), 0);
	assert_int_equal(exe_hit(), 0);
	assert_int_equal(tc_so_a_likely(), 1);

	assert_int_equal(tc_static_key_enable(&tc_so_exe_key), 0);
	check_sites(&tc_so_exe_key.key, true, 2);
	assert_int_equal(tc_so_a_hit(), 1);
	assert_int_equal(exe_hit(), 1);

	/* A key of the shared object, with a site in the executable too. */
	assert_int_equal(tc_static_key_enable(&tc_so_a_key), 0);
	assert_int_equal(tc_so_a_own(), 1);
	assert_int_equal(exe_own(), 1);
	assert_int_equal(tc_static_key_disable(&tc_so_a_key), 0);
	assert_int_equal(tc_so_a_own(), 0);
	assert_int_equal(exe_own(), 0);

	/* The true key's likely site: NOP while enabled, jmp when disabled. */
	assert_int_equal(tc_static_key_disable(&tc_so_exe_tkey), 0);
	assert_int_equal(tc_so_a_likely(), 0);
	assert_int_equal(tc_static_key_enable(&tc_so_exe_tkey), 0);
	assert_int_equal(tc_so_a_likely(), 1);

	assert_int_equal(tc_static_key_disable(&tc_so_exe_key), 0);
	assert_int_equal(tc_so_a_hit(), 0);
}

static void test_dlopen_after_enable(void **state)
{
	tc_so_b_hit_fn b_hit, b_likely;
	tc_so_b_trace_fn b_trace;
	void *h;

	(void)state;
	assert_int_equal(tc_static_key_enable(&tc_so_exe_key), 0);
	assert_int_equal(tc_static_key_disable(&tc_so_exe_tkey), 0);
	h = open_so("libtcsite_b.so");
	b_hit = (tc_so_b_hit_fn)sym(h, "tc_so_b_hit");
	b_likely = (tc_so_b_hit_fn)sym(h, "tc_so_b_likely");
	b_trace = (tc_so_b_trace_fn)sym(h, "tc_so_b_trace");

	/* Patched by its constructor, before dlopen() returned. */
	check_sites(&tc_so_exe_key.key, true, 3);
	assert_int_equal(b_hit(), 1);
	assert_int_equal(b_likely(), 0);
	assert_int_equal(tc_static_key_enable(&tc_so_exe_tkey), 0);
	assert_int_equal(b_likely(), 1);

	assert_int_equal(tc_static_key_disable(&tc_so_exe_key), 0);
	check_sites(&tc_so_exe_key.key, false, 3);
	assert_int_equal(b_hit(), 0);
	assert_int_equal(tc_so_a_hit(), 0);

	/* The executable's tracepoint, run from both objects: 2 + 2 events. */
	probe_events = 0;
	probe_sum = 0;
	assert_int_equal(tc_register_trace_tc_so_tp(count_probe, NULL), 0);
	tc_so_a_trace(1);
	tc_so_a_trace(2);
	b_trace(10);
	b_trace(20);
	assert_int_equal(tc_unregister_trace_tc_so_tp(count_probe, NULL), 0);
	tc_tracepoint_synchronize_unregister();
	b_trace(100);
	assert_int_equal(probe_events, 4);
	assert_int_equal(probe_sum, 33);

	assert_int_equal(dlclose(h), 0);
	/* Its table is gone with it. */
	check_sites(&tc_so_exe_key.key, false, 2);
	assert_int_equal(tc_static_key_enable(&tc_so_exe_key), 0);
	check_sites(&tc_so_exe_key.key, true, 2);
	assert_int_equal(tc_static_key_disable(&tc_so_exe_key), 0);
}

static int mem_write(void *addr, const void *buf, size_t len)
{
	int fd = open("/proc/self/mem", O_RDWR | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = pwrite(fd, buf, len, (off_t)(uintptr_t)addr);
	close(fd);
	return n == (ssize_t)len ? 0 : -EIO;
}

static void test_enable_fails_on_unknown_bytes(void **state)
{
	static const unsigned char nop[] = { TC_JUMP_NOP };
	static const unsigned char other[] = { TC_TEST_OTHER_INSN };
	void *a[8], *so_site = NULL;
	int i, n;

	(void)state;
	n = sites_of(&tc_so_bad_key.key, a);
	assert_int_equal(n, 2);
	/* The site in libtcsite_a.so: the one dladdr() places there. */
	for (i = 0; i < n; i++) {
		Dl_info info;

		if (dladdr(a[i], &info) && info.dli_fname && strstr(info.dli_fname, "libtcsite_a"))
			so_site = a[i];
	}
	assert_non_null(so_site);
	assert_int_equal(mem_write(so_site, other, sizeof(other)), 0);

	assert_int_equal(tc_static_key_enable(&tc_so_bad_key), -EINVAL);
	assert_false(tc_static_key_enabled(&tc_so_bad_key));
	/* Nothing changed: the executable's site is still the NOP. */
	for (i = 0; i < n; i++)
		if (a[i] != so_site)
			assert_true(tc_test_site_is_nop(a[i]));
	assert_memory_equal(so_site, other, sizeof(other));
	assert_int_equal(exe_bad(), 0);

	assert_int_equal(mem_write(so_site, nop, sizeof(nop)), 0);
	assert_int_equal(tc_static_key_enable(&tc_so_bad_key), 0);
	assert_int_equal(tc_so_a_bad(), 1);
	assert_int_equal(exe_bad(), 1);
	assert_int_equal(tc_static_key_disable(&tc_so_bad_key), 0);
}

static void test_unpatchable_object_refused(void **state)
{
	int pfd[2], status;
	char buf[512];
	ssize_t len;
	pid_t pid;

	(void)state;
	assert_int_equal(pipe(pfd), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		dup2(pfd[1], 2);
		close(pfd[0]);
		open_so("libtcsite_bad.so");
		_exit(0);	/* loaded: the test fails */
	}
	close(pfd[1]);
	len = read(pfd[0], buf, sizeof(buf) - 1);
	close(pfd[0]);
	buf[len > 0 ? len : 0] = '\0';
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFSIGNALED(status));
	assert_int_equal(WTERMSIG(status), SIGABRT);
	assert_non_null(strstr(buf, "cannot patch the static-key sites"));
}

static bool stop_flag;

static void *flipper(void *arg)
{
	unsigned long n = 0;

	(void)arg;
	while (!__atomic_load_n(&stop_flag, __ATOMIC_RELAXED)) {
		assert_int_equal(tc_static_key_enable(&tc_so_exe_key), 0);
		assert_int_equal(tc_static_key_disable(&tc_so_exe_key), 0);
		n++;
	}
	return (void *)n;
}

static void *runner(void *arg)
{
	unsigned long n = 0;

	(void)arg;
	while (!__atomic_load_n(&stop_flag, __ATOMIC_RELAXED))
		n += (unsigned long)(tc_so_a_hit() + exe_hit());
	return (void *)n;
}

static void test_dlclose_while_flipping(void **state)
{
	pthread_t f, r;
	void *flips;
	unsigned long hits0 = tc_static_key_int3_hits();
	int i;

	(void)state;
	tc_static_key_set_poke_delay(20);
	assert_int_equal(pthread_create(&f, NULL, flipper, NULL), 0);
	assert_int_equal(pthread_create(&r, NULL, runner, NULL), 0);
	for (i = 0; i < 100; i++) {
		void *h = open_so("libtcsite_b.so");
		tc_so_b_hit_fn b_hit = (tc_so_b_hit_fn)sym(h, "tc_so_b_hit");
		int v = b_hit();

		assert_true(v == 0 || v == 1);
		assert_int_equal(dlclose(h), 0);
	}
	__atomic_store_n(&stop_flag, true, __ATOMIC_RELAXED);
	pthread_join(f, &flips);
	pthread_join(r, NULL);
	tc_static_key_set_poke_delay(0);
	print_message("dlopen/dlclose x100 during %lu flips, %lu int3 redirects\n",
		      (unsigned long)flips, tc_static_key_int3_hits() - hits0);

	/* Consistent afterwards: every remaining site follows the key. */
	assert_false(tc_static_key_enabled(&tc_so_exe_key));
	check_sites(&tc_so_exe_key.key, false, 2);
	assert_int_equal(tc_static_key_enable(&tc_so_exe_key), 0);
	check_sites(&tc_so_exe_key.key, true, 2);
	assert_int_equal(tc_so_a_hit() + exe_hit(), 2);
	assert_int_equal(tc_static_key_disable(&tc_so_exe_key), 0);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sites_in_objects),
		cmocka_unit_test(test_dlopen_after_enable),
		cmocka_unit_test(test_enable_fails_on_unknown_bytes),
		cmocka_unit_test(test_unpatchable_object_refused),
		cmocka_unit_test(test_dlclose_while_flipping),
	};
	ssize_t n;
	char *slash;

	(void)argc;
	(void)argv;
	if (!TC_STATIC_KEY_ASM_GOTO) {
		printf("test_static_key_so: skipped (flag build, nothing is patched)\n");
		return 0;
	}
	n = readlink("/proc/self/exe", so_dir, sizeof(so_dir) - 4);
	if (n <= 0)
		return 1;
	so_dir[n] = '\0';
	slash = strrchr(so_dir, '/');
	strcpy(slash ? slash : so_dir, "/so");
	return cmocka_run_group_tests(tests, NULL, NULL);
}
