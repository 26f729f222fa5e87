// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_static_key.c - userspace static keys: site bytes before/after a flip,
 * reference counting, the branch value of all four key x branch kinds, the
 * int3 path while other threads run a site, SIGTRAP chaining, and the
 * implementation string.
 *
 * On x86-64 and AArch64 with GCC/clang the asm-goto implementation is
 * required: the test fails if the flag fallback got compiled in, unless the
 * build asked for it with -DTC_STATIC_KEY_FORCE_FLAG (then the byte-level
 * tests are skipped). The int3 and SIGTRAP tests are x86-64's; on AArch64
 * (no breakpoint step) they check that no handler is installed and no
 * thread is ever redirected.
 *
 * Order matters for the first test: it installs its own SIGTRAP handler
 * before the library installs its handler (on the first patch), so the
 * library's must chain to it.
 */
#define _GNU_SOURCE
#include <errno.h>
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
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <cmocka.h>

#include <tracecost/compiler.h>
#include <tracecost/static_key.h>

#include "site_insn.h"

#if (defined(__x86_64__) || defined(__aarch64__)) && (defined(__GNUC__) || defined(__clang__)) && \
	!defined(TC_STATIC_KEY_FORCE_FLAG)
#define EXPECT_ASM_GOTO	1
#else
#define EXPECT_ASM_GOTO	0
#endif

#if defined(__aarch64__)
#define ARCH_IMPL	"aarch64 asm goto"
#define AUDIT_ARCH_SELF	AUDIT_ARCH_AARCH64
#else
#define ARCH_IMPL	"x86-64 asm goto"
#define AUDIT_ARCH_SELF	AUDIT_ARCH_X86_64
#endif

/* One key per test function, so that each key has known sites. */
static TC_DEFINE_STATIC_KEY_FALSE(key_chain);
static TC_DEFINE_STATIC_KEY_FALSE(key_fu);	/* false key, unlikely site */
static TC_DEFINE_STATIC_KEY_TRUE(key_tl);	/* true key, likely site */
static TC_DEFINE_STATIC_KEY_FALSE(key_f4);	/* false key, both kinds */
static TC_DEFINE_STATIC_KEY_TRUE(key_t4);	/* true key, both kinds */
static TC_DEFINE_STATIC_KEY_FALSE(key_ref);
static TC_DEFINE_STATIC_KEY_TRUE(key_tref);
static TC_DEFINE_STATIC_KEY_FALSE(key_two);	/* two sites */
static TC_DEFINE_STATIC_KEY_FALSE(key_spin);
static TC_DEFINE_STATIC_KEY_FALSE(key_nosite);	/* no site at all */
static TC_DEFINE_STATIC_KEY_FALSE(key_fail);	/* patched in children only */

static tc_noinline bool run_chain(void) { return tc_static_branch_unlikely(&key_chain); }
static tc_noinline bool run_fu(void) { return tc_static_branch_unlikely(&key_fu); }
static tc_noinline bool run_tl(void) { return tc_static_branch_likely(&key_tl); }
static tc_noinline bool run_f4_unlikely(void) { return tc_static_branch_unlikely(&key_f4); }
static tc_noinline bool run_f4_likely(void) { return tc_static_branch_likely(&key_f4); }
static tc_noinline bool run_t4_unlikely(void) { return tc_static_branch_unlikely(&key_t4); }
static tc_noinline bool run_t4_likely(void) { return tc_static_branch_likely(&key_t4); }
static tc_noinline bool run_ref(void) { return tc_static_branch_unlikely(&key_ref); }
static tc_noinline bool run_tref(void) { return tc_static_branch_unlikely(&key_tref); }
static tc_noinline bool run_two_a(void) { return tc_static_branch_unlikely(&key_two); }
static tc_noinline bool run_two_b(void) { return tc_static_branch_likely(&key_two); }
static tc_noinline bool run_spin(void) { return tc_static_branch_unlikely(&key_spin); }
static tc_noinline bool run_fail(void) { return tc_static_branch_unlikely(&key_fail); }

/* The jump-table entry of the site at @site (the test reads the table itself). */
static const struct tc_jump_entry *entry_of(const void *site)
{
	const struct tc_jump_entry *e;

	for (e = __start_tc_jump_table; e < __stop_tc_jump_table; e++)
		if (tc_jump_entry_code(e) == (uintptr_t)site)
			return e;
	return NULL;
}

/* The only site of @key. */
static const unsigned char *only_site(const struct tc_static_key *key)
{
	void *addr[4];
	int n = tc_static_key_sites(key, addr, 4);

	assert_int_equal(n, 1);
	return addr[0];
}

/*
 * Checks the bytes at @site: the NOP when !@jump, else a jump (x86-64: e9
 * rel32 or eb rel8; AArch64: B) that lands on the target recorded in the
 * site's entry.
 */
static void check_site(const unsigned char *site, bool jump, const char *what)
{
	const struct tc_jump_entry *e = entry_of(site);
	uintptr_t dest;
	bool forced;

	if (!e)
		fail_msg("%s: site %p not in tc_jump_table", what, (const void *)site);
	if (!jump) {
		if (!tc_test_site_is_nop(site))
			fail_msg("%s: expected the NOP, got %s", what, tc_test_site_bytes(site));
		return;
	}
	dest = tc_test_site_jump(site, &forced);
	if (!dest) {
		fail_msg("%s: expected a jump, got %s", what, tc_test_site_bytes(site));
		return;
	}
	if (dest != tc_jump_entry_target(e))
		fail_msg("%s: jmp lands on %#lx, target is %#lx", what, (unsigned long)dest,
			 (unsigned long)tc_jump_entry_target(e));
}

static bool have_asm(void)
{
	return TC_STATIC_KEY_ASM_GOTO;
}

/* ---- SIGTRAP chaining (must run first) ---------------------------------- */

static volatile sig_atomic_t my_traps;
static volatile sig_atomic_t my_trap_code;

static void my_sigtrap(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)uc;
	my_traps++;
	my_trap_code = si->si_code;
}

static void test_sigtrap_chain(void **state)
{
	struct sigaction sa, cur, saved;

	(void)state;
	if (!have_asm()) {
		printf("# flag build: no SIGTRAP handler to chain, skipped\n");
		skip();
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = my_sigtrap;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	assert_int_equal(sigaction(SIGTRAP, &sa, &saved), 0);

	/* The first patch installs the library's handler over ours (x86-64). */
	assert_int_equal(tc_static_branch_enable(&key_chain), 0);
	assert_true(run_chain());
	assert_int_equal(sigaction(SIGTRAP, NULL, &cur), 0);
#if defined(__x86_64__)
	if ((cur.sa_flags & SA_SIGINFO) && cur.sa_sigaction == my_sigtrap)
		fail_msg("the library did not install its SIGTRAP handler "
			 "(this test must run before any other patch)");
#else
	/* AArch64: no breakpoint step, so no handler of the library's. */
	if (!(cur.sa_flags & SA_SIGINFO) || cur.sa_sigaction != my_sigtrap)
		fail_msg("the library replaced the SIGTRAP handler on AArch64");
#endif

	/* A user SIGTRAP reaches our handler... */
	my_traps = 0;
	assert_int_equal(raise(SIGTRAP), 0);
	assert_int_equal(my_traps, 1);
	/* ...and so does a kernel one from a breakpoint that is not on a site. */
#if defined(__x86_64__)
	__asm__ __volatile__("int3" ::: "memory");
#else
	raise(SIGTRAP);		/* a BRK would be resumed on itself: not testable */
#endif
	assert_int_equal(my_traps, 2);
#if defined(__x86_64__)
	assert_true(my_trap_code > 0);
#endif

	assert_int_equal(tc_static_branch_disable(&key_chain), 0);
	assert_false(run_chain());
	raise(SIGTRAP);
	assert_int_equal(my_traps, 3);
}

/* ---- implementation string ----------------------------------------------- */

static void test_impl(void **state)
{
	const char *impl = tc_static_key_impl();

	(void)state;
	assert_non_null(impl);
	printf("# tc_static_key_impl(): %s\n", impl);
	assert_true(strlen(impl) > 10);
	if (EXPECT_ASM_GOTO) {
		if (!TC_STATIC_KEY_ASM_GOTO)
			fail_msg("compiler with asm goto, but the header chose "
				 "the flag fallback");
		if (strncmp(impl, ARCH_IMPL, strlen(ARCH_IMPL)))
			fail_msg("expected \"%s...\", the library says \"%s\"", ARCH_IMPL, impl);
	} else {
		printf("# not an asm-goto build: byte-level tests are skipped\n");
		if (strncmp(impl, "flag test", 9) && strncmp(impl, ARCH_IMPL, strlen(ARCH_IMPL)))
			fail_msg("unknown implementation \"%s\"", impl);
	}
}

/* ---- site bytes ---------------------------------------------------------- */

static void test_false_unlikely_site(void **state)
{
	const unsigned char *site;

	(void)state;
	assert_false(run_fu());
	if (!have_asm()) {
		assert_int_equal(tc_static_key_sites(&key_fu, NULL, 0), 0);
		skip();
	}
	site = only_site(&key_fu.key);
	check_site(site, false, "false key, unlikely, initial");
	assert_int_equal(tc_static_branch_enable(&key_fu), 0);
	check_site(site, true, "false key, unlikely, enabled");
	printf("# enabled unlikely site: %s\n", tc_test_site_bytes(site));
	assert_true(run_fu());
	assert_int_equal(tc_static_branch_disable(&key_fu), 0);
	check_site(site, false, "false key, unlikely, disabled again");
	assert_false(run_fu());
}

static void test_true_likely_site(void **state)
{
	const unsigned char *site;

	(void)state;
	assert_true(run_tl());
	if (!have_asm())
		skip();
	site = only_site(&key_tl.key);
	check_site(site, false, "true key, likely, initial");
	assert_int_equal(tc_static_branch_disable(&key_tl), 0);
	check_site(site, true, "true key, likely, disabled");
	assert_false(run_tl());
	assert_int_equal(tc_static_branch_enable(&key_tl), 0);
	check_site(site, false, "true key, likely, enabled again");
	assert_true(run_tl());
}

/* Initially-taken kinds (false key likely, true key unlikely): a forced 5-byte jmp, or a B. */
static void check_initial(const struct tc_static_key *key, bool key_default)
{
	void *a[2];
	int i;

	assert_int_equal(tc_static_key_sites(key, a, 2), 2);
	for (i = 0; i < 2; i++) {
		const struct tc_jump_entry *e = entry_of(a[i]);
		const unsigned char *s = a[i];
		bool jump;

		assert_non_null(e);
		jump = key_default ^ tc_jump_entry_is_likely(e);
		if (jump) {
			bool forced = false;

			assert_true(tc_test_site_jump(s, &forced));
			assert_true(forced);
		}
		check_site(s, jump, key_default ? "true key, initial" : "false key, initial");
	}
}

static void test_initial_jmp_sites(void **state)
{
	(void)state;
	if (!have_asm())
		skip();
	check_initial(&key_f4.key, false);
	check_initial(&key_t4.key, true);
}

/* ---- branch values: false/true key x likely/unlikely --------------------- */

static void check_four(bool f_on, bool t_on)
{
	void *a[2];
	int i;

	assert_int_equal(tc_static_key_enabled(&key_f4), f_on);
	assert_int_equal(tc_static_key_enabled(&key_t4), t_on);
	assert_int_equal(run_f4_unlikely(), f_on);
	assert_int_equal(run_f4_likely(), f_on);
	assert_int_equal(run_t4_unlikely(), t_on);
	assert_int_equal(run_t4_likely(), t_on);
	if (!have_asm())
		return;
	/* A site jumps iff enabled XOR likely. */
	assert_int_equal(tc_static_key_sites(&key_f4, a, 2), 2);
	for (i = 0; i < 2; i++)
		check_site(a[i], f_on ^ tc_jump_entry_is_likely(entry_of(a[i])), "f4");
	assert_int_equal(tc_static_key_sites(&key_t4, a, 2), 2);
	for (i = 0; i < 2; i++)
		check_site(a[i], t_on ^ tc_jump_entry_is_likely(entry_of(a[i])), "t4");
}

static void test_four_kinds(void **state)
{
	(void)state;
	check_four(false, true);
	assert_int_equal(tc_static_branch_enable(&key_f4), 0);
	check_four(true, true);
	assert_int_equal(tc_static_branch_disable(&key_t4), 0);
	check_four(true, false);
	assert_int_equal(tc_static_branch_disable(&key_f4), 0);
	check_four(false, false);
	assert_int_equal(tc_static_branch_enable(&key_t4), 0);
	check_four(false, true);
}

/* ---- reference counting -------------------------------------------------- */

static void test_refcount(void **state)
{
	const unsigned char *site = NULL;

	(void)state;
	if (have_asm())
		site = only_site(&key_ref.key);
	assert_false(tc_static_key_enabled(&key_ref));
	assert_int_equal(tc_static_key_enable(&key_ref.key), 0);
	assert_int_equal(tc_static_key_enable(&key_ref.key), 0);
	assert_int_equal(tc_static_key_disable(&key_ref.key), 0);
	assert_true(tc_static_key_enabled(&key_ref));
	assert_true(run_ref());
	if (site)
		check_site(site, true, "refcount 1");
	assert_int_equal(tc_static_key_disable(&key_ref.key), 0);
	assert_false(tc_static_key_enabled(&key_ref));
	assert_false(run_ref());
	if (site)
		check_site(site, false, "refcount 0");
	/* Below zero: -EINVAL, nothing changes. */
	assert_int_equal(tc_static_key_disable(&key_ref.key), -EINVAL);
	assert_false(tc_static_key_enabled(&key_ref));
	assert_false(run_ref());
	if (site)
		check_site(site, false, "after -EINVAL");
	assert_int_equal(key_ref.key.enabled, 0);

	/* A true key starts at 1: one disable reaches 0, a second is -EINVAL. */
	assert_true(tc_static_key_enabled(&key_tref));
	assert_true(run_tref());
	assert_int_equal(tc_static_branch_enable(&key_tref), 0);	/* 2 */
	assert_int_equal(tc_static_branch_disable(&key_tref), 0);	/* 1 */
	assert_true(run_tref());
	assert_int_equal(tc_static_branch_disable(&key_tref), 0);	/* 0 */
	assert_false(run_tref());
	assert_false(tc_static_key_enabled(&key_tref));
	assert_int_equal(tc_static_branch_disable(&key_tref), -EINVAL);
	assert_int_equal(tc_static_branch_enable(&key_tref), 0);
	assert_true(run_tref());

	/* NULL */
	assert_int_equal((tc_static_key_enable)(NULL), -EINVAL);
	assert_int_equal((tc_static_key_disable)(NULL), -EINVAL);
	assert_false((tc_static_key_enabled)(NULL));

	/* A key without sites still counts. */
	assert_int_equal(tc_static_key_sites(&key_nosite, NULL, 0), 0);
	assert_int_equal(tc_static_branch_enable(&key_nosite), 0);
	assert_true(tc_static_key_enabled(&key_nosite));
	assert_int_equal(tc_static_branch_disable(&key_nosite), 0);
	assert_false(tc_static_key_enabled(&key_nosite));
}

/* ---- tc_static_key_sites() ------------------------------------------------ */

static void test_sites(void **state)
{
	void *a[1];
	int n;

	(void)state;
	assert_int_equal(tc_static_key_sites(&key_two, NULL, -1), -EINVAL);
	assert_int_equal(tc_static_key_sites(&key_two, NULL, 1), -EINVAL);
	assert_int_equal((tc_static_key_sites)(NULL, a, 1), -EINVAL);
	n = tc_static_key_sites(&key_two, a, 1);	/* may exceed max */
	assert_int_equal(n, have_asm() ? 2 : 0);
	assert_false(run_two_a());
	assert_false(run_two_b());
	assert_int_equal(tc_static_branch_enable(&key_two), 0);
	assert_true(run_two_a());
	assert_true(run_two_b());
	assert_int_equal(tc_static_branch_disable(&key_two), 0);
	assert_false(run_two_a());
	assert_false(run_two_b());
	printf("# jump table: %ld entries\n",
	       (long)(__stop_tc_jump_table - __start_tc_jump_table));
}

/* ---- unavailable mechanisms: an error, nothing half-patched -------------- */

/* In a child: make system call @nr fail with @err (seccomp filter). */
static int deny_syscall(long nr, int err)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_SELF, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned int)nr, 0, 1),
		BPF_STMT(BPF_RET | BPF_K,
			 SECCOMP_RET_ERRNO | ((unsigned int)err & SECCOMP_RET_DATA)),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { .len = TC_ARRAY_SIZE(f), .filter = f };

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return -1;
	return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog);
}

/*
 * Forks; the child denies @nr (if >= 0) and enables key_fail, expecting
 * @expect; it exits with a bit mask of what went wrong (0: all as expected).
 */
static int child_enable(long nr, int err, int expect)
{
	const unsigned char *site = only_site(&key_fail.key);
	int status, code = 0, ret;
	bool forced;
	pid_t pid;

	fflush(NULL);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		if (nr >= 0 && deny_syscall(nr, err))
			_exit(64);
		ret = tc_static_branch_enable(&key_fail);
		if (ret != expect)
			code |= 1;
		if (expect && !tc_test_site_is_nop(site))
			code |= 2;	/* half-patched */
		if (!expect && !tc_test_site_jump(site, &forced))
			code |= 2;
		if (tc_static_key_enabled(&key_fail) != !expect)
			code |= 4;
		if (run_fail() != !expect)
			code |= 8;
		if (!expect && (tc_static_branch_disable(&key_fail) || run_fail() ||
				!tc_test_site_is_nop(site)))
			code |= 16;
		_exit(code);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	return WEXITSTATUS(status);
}

/*
 * Can this process install a seccomp filter? Not under qemu-user, which
 * refuses PR_SET_SECCOMP (a filter would apply to the emulator's own calls).
 */
static bool have_seccomp(void)
{
	int status;
	pid_t pid;

	fflush(NULL);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		_exit(deny_syscall(__NR_getppid, EPERM) ? 1 : 0);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

static void test_unavailable(void **state)
{
	const unsigned char *site;

	(void)state;
	if (!have_asm())
		skip();
	site = only_site(&key_fail.key);
	/* Both the parent's setup (done) and a fork()ed child's (redone). */
	assert_int_equal(child_enable(-1, 0, 0), 0);
	if (!have_seccomp()) {
		printf("# no seccomp filters here (qemu-user refuses them): "
		       "only the fork()ed child's set-up was tested\n");
		check_site(site, false, "parent after the child");
		return;
	}
	assert_int_equal(child_enable(__NR_membarrier, ENOSYS, -ENOSYS), 0);
	assert_int_equal(child_enable(__NR_membarrier, EPERM, -EPERM), 0);
	assert_int_equal(child_enable(__NR_openat, EACCES, -EPERM), 0);
	assert_int_equal(child_enable(__NR_pwrite64, EIO, -EPERM), 0);
	/* The children wrote their own copies of the text, never ours. */
	check_site(site, false, "parent after the children");
	assert_false(run_fail());
	assert_false(tc_static_key_enabled(&key_fail));
}

/* ---- the int3 path: a thread runs the site while it is patched ------------ */

/*
 * Seqlock-style epoch: odd while a flip is in progress. A value read between
 * two equal even epochs must be the state of that epoch: after enable or
 * disable returns, every thread runs the new instruction.
 */
static unsigned long spin_epoch;
static int spin_stop;
static unsigned long spin_runs, spin_bad, spin_checked;

static void *spinner(void *arg)
{
	unsigned long runs = 0, bad = 0, checked = 0;

	(void)arg;
	while (!__atomic_load_n(&spin_stop, __ATOMIC_ACQUIRE)) {
		unsigned long e1 = __atomic_load_n(&spin_epoch, __ATOMIC_ACQUIRE), e2;
		bool v = run_spin();

		e2 = __atomic_load_n(&spin_epoch, __ATOMIC_ACQUIRE);
		runs++;
		if (e1 == e2 && !(e1 & 1)) {
			checked++;
			if (v != (bool)((e1 / 2) & 1))
				bad++;
		}
		if (!(runs & 255))
			__atomic_store_n(&spin_runs, runs, __ATOMIC_RELEASE);
	}
	__atomic_store_n(&spin_runs, runs, __ATOMIC_RELEASE);
	__atomic_store_n(&spin_bad, bad, __ATOMIC_RELEASE);
	__atomic_store_n(&spin_checked, checked, __ATOMIC_RELEASE);
	return NULL;
}

static void flip(bool on)
{
	__atomic_add_fetch(&spin_epoch, 1, __ATOMIC_SEQ_CST);
	if (on)
		assert_int_equal(tc_static_branch_enable(&key_spin), 0);
	else
		assert_int_equal(tc_static_branch_disable(&key_spin), 0);
	__atomic_add_fetch(&spin_epoch, 1, __ATOMIC_SEQ_CST);
}

static void test_int3_path(void **state)
{
	unsigned long hits0 = tc_static_key_int3_hits(), hits;
	pthread_t th;
	int i;

	(void)state;
	assert_int_equal(pthread_create(&th, NULL, spinner, NULL), 0);
	while (__atomic_load_n(&spin_runs, __ATOMIC_ACQUIRE) < 1000)
		sched_yield();
	/* 1 ms in each int3 window; flip until the spinner trapped a few times. */
	tc_static_key_set_poke_delay(have_asm() ? 1000 : 0);
	for (i = 0; i < 400; i++) {
		flip(true);
		flip(false);	/* pairs: the epoch parity stays the key state */
		if (i >= 10 && tc_static_key_int3_hits() - hits0 >= 10)
			break;
	}
	tc_static_key_set_poke_delay(0);
	/* Stable periods without the delay, too. */
	for (i = 0; i < 100; i++) {
		flip(true);
		flip(false);
	}
	__atomic_store_n(&spin_stop, 1, __ATOMIC_RELEASE);
	assert_int_equal(pthread_join(th, NULL), 0);
	hits = tc_static_key_int3_hits() - hits0;
	printf("# spinner: %lu runs, %lu checked in stable epochs, %lu wrong; "
	       "int3 redirects: %lu\n",
	       spin_runs, spin_checked, spin_bad, hits);
	assert_int_equal(spin_bad, 0);
	assert_true(spin_checked > 0);
	assert_false(run_spin());
#if defined(__x86_64__)
	if (have_asm())
		assert_true(hits > 0);
#else
	assert_int_equal(hits, 0);	/* no breakpoint step on AArch64 */
#endif
}

/* ---- issue 13: si_code, fork during a flip ------------------------------- */

#if TC_STATIC_KEY_ASM_GOTO && defined(__x86_64__)
static TC_DEFINE_STATIC_KEY_FALSE(key_fake);
static tc_noinline bool run_fake(void) { return tc_static_branch_unlikely(&key_fake); }
#endif

/*
 * A kernel SIGTRAP that is not an int3 (si_code != SI_KERNEL) must reach the
 * previous handler even when RIP - 1 is a site start; treating it as an
 * int3 "resumed" in the middle of the syscall instruction.
 */
static void test_sigtrap_not_int3(void **state)
{
	(void)state;
#if TC_STATIC_KEY_ASM_GOTO && defined(__x86_64__)
	struct sigaction cur;
	ucontext_t uc;
	siginfo_t si;
	int before = my_traps;
	uintptr_t site = (uintptr_t)only_site(&key_fake.key);

	assert_false(run_fake());
	/*
	 * The library's handler is installed (test_sigtrap_chain), ours chained.
	 * It is called as the kernel would deliver a hardware-breakpoint trap
	 * (TRAP_BRKPT) whose RIP - 1 is the start of a real site: it must pass
	 * it on, and leave RIP alone.
	 */
	assert_int_equal(sigaction(SIGTRAP, NULL, &cur), 0);
	assert_true(cur.sa_flags & SA_SIGINFO);
	memset(&si, 0, sizeof(si));
	memset(&uc, 0, sizeof(uc));
	si.si_signo = SIGTRAP;
	si.si_code = TRAP_BRKPT;
	uc.uc_mcontext.gregs[REG_RIP] = (greg_t)(site + 1);
	cur.sa_sigaction(SIGTRAP, &si, &uc);
	assert_int_equal(my_traps, before + 1);
	assert_int_equal(my_trap_code, TRAP_BRKPT);
	assert_true(uc.uc_mcontext.gregs[REG_RIP] == (greg_t)(site + 1));
#else
	printf("# x86-64's int3 handler: nothing to test in this build\n");
	skip();
#endif
}

static int fork_stop;

static void *flipper(void *arg)
{
	(void)arg;
	while (!__atomic_load_n(&fork_stop, __ATOMIC_ACQUIRE)) {
		tc_static_branch_enable(&key_spin);
		tc_static_branch_disable(&key_spin);
	}
	return NULL;
}

/*
 * fork() while another thread flips a key, many times: every child finds
 * complete instructions at the sites (no int3 byte of a batch in flight)
 * that agree with the key's count, and can flip the key itself (a child
 * that inherited a locked mutex would hang: alarm() ends it after 2 s).
 */
static void test_fork_during_flips(void **state)
{
	void *sites[4];
	int i, n, bad = 0, status;
	pthread_t th;

	(void)state;
	n = tc_static_key_sites(&key_spin, sites, 4);
	tc_static_key_set_poke_delay(have_asm() ? 200 : 0);
	__atomic_store_n(&fork_stop, 0, __ATOMIC_RELEASE);
	assert_int_equal(pthread_create(&th, NULL, flipper, NULL), 0);
	for (i = 0; i < 30; i++) {
		pid_t pid;

		fflush(NULL);
		pid = fork();
		assert_true(pid >= 0);
		if (pid == 0) {
			int j, code = 0;

			bool on;

			alarm(2);
			/* complete instructions: the NOP or a jump, no int3 */
			for (j = 0; j < n && j < 4; j++) {
				bool forced;

				if (!tc_test_site_is_nop(sites[j]) && !tc_test_site_jump(sites[j], &forced))
					code |= 1;
			}
			/* the flipper's count came along: 0 or 1 */
			on = tc_static_key_enabled(&key_spin.key);
			if (run_spin() != on)
				code |= 2;
			if (on ? tc_static_branch_disable(&key_spin) :
				 tc_static_branch_enable(&key_spin))
				code |= 4;
			if (run_spin() == on)
				code |= 8;
			_exit(code);
		}
		assert_int_equal(waitpid(pid, &status, 0), pid);
		if (!WIFEXITED(status) || WEXITSTATUS(status)) {
			if (!bad)
				printf("# child: %s %d\n", WIFEXITED(status) ? "exit" : "signal",
				       WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
			bad++;
		}
	}
	__atomic_store_n(&fork_stop, 1, __ATOMIC_RELEASE);
	assert_int_equal(pthread_join(th, NULL), 0);
	tc_static_key_set_poke_delay(0);
	printf("# fork during flips: 30 children, %d failed\n", bad);
	assert_int_equal(bad, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sigtrap_chain),	/* first: see above */
		cmocka_unit_test(test_impl),
		cmocka_unit_test(test_false_unlikely_site),
		cmocka_unit_test(test_true_likely_site),
		cmocka_unit_test(test_initial_jmp_sites),
		cmocka_unit_test(test_four_kinds),
		cmocka_unit_test(test_refcount),
		cmocka_unit_test(test_sites),
		cmocka_unit_test(test_unavailable),
		cmocka_unit_test(test_int3_path),
		cmocka_unit_test(test_sigtrap_not_int3),
		cmocka_unit_test(test_fork_during_flips),
	};

	setvbuf(stdout, NULL, _IOLBF, 0);
	return cmocka_run_group_tests_name("static_key", tests, NULL, NULL);
}
