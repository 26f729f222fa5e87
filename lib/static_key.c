// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * lib/static_key.c - slow path of the userspace static keys, the part every
 * architecture shares: reference counts, the jump tables of the loaded
 * objects, which sites a flip changes and to what, and the patch
 * environment (/proc/self/mem, membarrier SYNC_CORE, fork()). How the bytes
 * are written is the architecture's: static_key_x86.c, static_key_arm64.c.
 * The design and its safety arguments are in include/tracecost/static_key.h;
 * the sources are the kernel's kernel/jump_label.c (counting, the module
 * tables) and arch/{x86,arm64}/kernel/jump_label.c.
 *
 * Locking: tcsk_mutex serialises every update of a key count and every
 * write to a site; a site's bytes and a key's count change only under it.
 * Lock-free readers: the sites themselves (instruction fetch, ordered by
 * membarrier SYNC_CORE), tc_static_key_enabled() (one __atomic load of the
 * count), and the x86-64 SIGTRAP handler (tcsk_find_site() and the site's
 * byte 0, see static_key_x86.c).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

#include <tracecost/static_key.h>
#include "static_key_local.h"

/* Serialises tc_static_key_enable/disable: counts and site writes. */
pthread_mutex_t tcsk_mutex = PTHREAD_MUTEX_INITIALIZER;

unsigned long tcsk_int3_hits;

/* Test hook: sleep after each patch step, microseconds. Written by tests. */
static unsigned int tc_poke_delay_us;

/*
 * The jump tables of the loaded objects (the kernel's jump_label_add_module
 * list): a singly linked list, changed only under tcsk_mutex. The SIGTRAP
 * handler walks it without the mutex (tcsk_find_site()): a table is taken off
 * the list with a seq_cst store and its node freed only once no handler is
 * inside the walk (tc_trap_walkers).
 */
struct tc_jump_module {
	struct tc_jump_module *next;
	const struct tc_jump_entry *start, *stop;
	unsigned int users;		/* registrations (one per translation unit) */
};

static struct tc_jump_module *tc_jump_modules;

/* SIGTRAP handlers inside tcsk_find_site()'s walk of tc_jump_modules. */
static unsigned long tc_trap_walkers;

/* Every entry of every registered table. Under tcsk_mutex. */
#define for_each_jump_entry(m, e) \
	for ((m) = tc_jump_modules; (m); (m) = (m)->next) \
		for ((e) = (m)->start; (e) < (m)->stop; (e)++)

/*
 * fork() while another thread flips a key: the child would inherit a locked
 * tcsk_mutex (and, mid-batch, int3 bytes in its copy of the text). The
 * prepare handler takes the mutex, so fork() waits for any batch to end:
 * the child's text then holds complete instructions only, and both sides
 * unlock. (The child sets up its own /proc/self/mem and membarrier
 * registration at its first patch: tcsk_patch_ready() compares pids.)
 */
static void tc_atfork_prepare(void)
{
	pthread_mutex_lock(&tcsk_mutex);
}

static void tc_atfork_unlock(void)
{
	pthread_mutex_unlock(&tcsk_mutex);
}

__attribute__((constructor)) static void tc_static_key_atfork_init(void)
{
	pthread_atfork(tc_atfork_prepare, tc_atfork_unlock, tc_atfork_unlock);
}

unsigned long tc_static_key_int3_hits(void)
{
	return __atomic_load_n(&tcsk_int3_hits, __ATOMIC_RELAXED);
}

void tc_static_key_set_poke_delay(unsigned int usec)
{
	__atomic_store_n(&tc_poke_delay_us, usec, __ATOMIC_RELAXED);
}

/* Number of sites of @key, the first @max stored in @addrs. Under tcsk_mutex. */
static int tc_key_sites_locked(const struct tc_static_key *key, void **addrs, int max)
{
	const struct tc_jump_module *m;
	const struct tc_jump_entry *e;
	int n = 0;

	for_each_jump_entry(m, e) {
		if (tc_jump_entry_key(e) != key)
			continue;
		if (n < max)
			addrs[n] = (void *)tc_jump_entry_code(e);
		if (n < INT_MAX)
			n++;
	}
	return n;
}

int (tc_static_key_sites)(const struct tc_static_key *key, void **addrs, int max)
{
	int n;

	if (!key || max < 0 || (max > 0 && !addrs))
		return -EINVAL;
	pthread_mutex_lock(&tcsk_mutex);
	n = tc_key_sites_locked(key, addrs, max);
	pthread_mutex_unlock(&tcsk_mutex);
	return n;
}

bool (tc_static_key_enabled)(const struct tc_static_key *key)
{
	/* Pairs with the release store in tc_static_key_enable/disable. */
	return key && __atomic_load_n(&key->enabled, __ATOMIC_ACQUIRE) > 0;
}

/*
 * Without the mutex (the SIGTRAP handler): counted in tc_trap_walkers so
 * that tc_jump_table_unregister() frees no table we are reading.
 */
bool tcsk_find_site(uintptr_t ip, struct tcsk_site_ref *ref)
{
	const struct tc_jump_module *m;
	const struct tc_jump_entry *e;
	bool found = false;

	/* Pairs with the unlink + load of the count in tc_jump_table_unregister(). */
	__atomic_fetch_add(&tc_trap_walkers, 1, __ATOMIC_SEQ_CST);
	for (m = __atomic_load_n(&tc_jump_modules, __ATOMIC_SEQ_CST); m && !found;
	     m = __atomic_load_n(&m->next, __ATOMIC_ACQUIRE)) {
		for (e = m->start; e < m->stop; e++) {
			if (tc_jump_entry_code(e) != ip)
				continue;
			ref->target = tc_jump_entry_target(e);
			ref->key = tc_jump_entry_key(e);
			ref->likely = tc_jump_entry_is_likely(e);
			found = true;
			break;
		}
	}
	__atomic_fetch_sub(&tc_trap_walkers, 1, __ATOMIC_RELEASE);
	return found;
}

#if TC_STATIC_KEY_ASM_GOTO

#include <linux/membarrier.h>

/*
 * Patch environment, set up under tcsk_mutex by tcsk_patch_ready() once per
 * process (a fork()ed child has another pid: its inherited /proc/self/mem
 * descriptor still names the parent's memory, so it reopens and registers
 * again).
 */
static int tc_mem_fd = -1;
static pid_t tc_ready_pid;

static int tc_membarrier(int cmd)
{
	return syscall(__NR_membarrier, cmd, 0, 0) < 0 ? -errno : 0;
}

/*
 * Makes sure membarrier SYNC_CORE is registered, /proc/self/mem is open and
 * the architecture's set-up done, for this process. Under tcsk_mutex.
 * Return: 0 or a negative errno (nothing was patched).
 */
static int tcsk_patch_ready(void)
{
	pid_t pid = getpid();
	long mask;
	int fd, ret;

	if (pid == tc_ready_pid && tc_mem_fd >= 0)
		return 0;
	mask = syscall(__NR_membarrier, MEMBARRIER_CMD_QUERY, 0, 0);
	if (mask < 0)
		return errno == ENOSYS ? -ENOSYS : -errno;
	if (!(mask & MEMBARRIER_CMD_PRIVATE_EXPEDITED_SYNC_CORE))
		return -ENOSYS;
	ret = tc_membarrier(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED_SYNC_CORE);
	if (ret)
		return ret;
	fd = open("/proc/self/mem", O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return errno == EACCES ? -EPERM : -errno;
	ret = tcsk_arch_ready();
	if (ret) {
		close(fd);
		return ret;
	}
	if (tc_mem_fd >= 0)
		close(tc_mem_fd);	/* the parent's, after fork() */
	tc_mem_fd = fd;
	tc_ready_pid = pid;
	return 0;
}

int tcsk_poke(uintptr_t addr, const void *buf, size_t len)
{
	ssize_t n;

	do
		n = pwrite(tc_mem_fd, buf, len, (off_t)addr);
	while (n < 0 && errno == EINTR);
	if (n == (ssize_t)len)
		return 0;
	return n < 0 ? -errno : -EIO;
}

int tcsk_sync_core(void)
{
	unsigned int delay = __atomic_load_n(&tc_poke_delay_us, __ATOMIC_RELAXED);
	int ret = tc_membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED_SYNC_CORE);

	if (delay)
		usleep(delay);
	return ret;
}

const char *tc_static_key_impl(void)
{
	return tcsk_arch_impl();
}

int tc_static_key_patch_check(char *why, size_t len)
{
	const struct tc_jump_entry *e = __start_tc_jump_table;
	int ret;

	pthread_mutex_lock(&tcsk_mutex);
	ret = tcsk_patch_ready();
	/* proc_mem.force_override=never: the open works, the write fails */
	if (!ret && e < __stop_tc_jump_table) {
		unsigned char b = *(const unsigned char *)tc_jump_entry_code(e);

		ret = tcsk_poke(tc_jump_entry_code(e), &b, 1);
		if (ret)
			ret = -EPERM;
	}
	pthread_mutex_unlock(&tcsk_mutex);
	if (ret == -ENOSYS)
		snprintf(why, len, "membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED_SYNC_CORE) "
			 "is unavailable (ENOSYS: a kernel before 4.16, or a seccomp filter)");
	else if (ret == -EPERM)
		snprintf(why, len, "/proc/self/mem does not write our text (EPERM: "
			 "proc_mem.force_override=never, CONFIG_PROC_MEM_NO_FORCE, or a "
			 "seccomp filter)");
	else if (ret)
		snprintf(why, len, "setting up patching failed: %s", strerror(-ret));
	return ret;
}

/*
 * Patches every site of @key to its state for "enabled == @enable" (the
 * kernel's jump_label_update()). Under tcsk_mutex.
 * Return: 0 or a negative errno, with every site unchanged.
 */
static int tc_key_update(struct tc_static_key *key, bool enable)
{
	const struct tc_jump_module *m;
	const struct tc_jump_entry *e;
	struct tcsk_site *p = NULL;
	int n = 0, nr, ret;

	nr = tc_key_sites_locked(key, NULL, 0);
	if (nr <= 0)
		return nr;
	ret = tcsk_patch_ready();
	if (ret)
		return ret;
	p = calloc((size_t)nr, sizeof(*p));
	if (!p)
		return -ENOMEM;

	/* Every site must hold the old instruction (the kernel BUG()s). */
	for_each_jump_entry(m, e) {
		const unsigned char *cur;
		bool likely = tc_jump_entry_is_likely(e);

		if (tc_jump_entry_key(e) != key)
			continue;
		cur = (const unsigned char *)tc_jump_entry_code(e);
		if (tcsk_arch_site_is(cur, e, enable ^ likely))
			continue;	/* already there */
		if (!tcsk_arch_site_is(cur, e, !enable ^ likely)) {
			ret = -EINVAL;
			goto out;
		}
		p[n].ip = tc_jump_entry_code(e);
		memcpy(p[n].old, cur, TC_JUMP_SITE_SIZE);
		ret = tcsk_arch_site_insn(e, enable ^ likely, cur, p[n].new);
		if (ret)
			goto out;
		n++;
	}
	if (!n)
		goto out;
	/* Can we write our text at all? Rewrite one byte with its own value. */
	ret = tcsk_poke(p[0].ip, p[0].old, 1);
	if (ret) {
		if (ret == -EIO || ret == -EFAULT || ret == -EACCES)
			ret = -EPERM;
		goto out;
	}
	ret = tcsk_arch_patch(key, enable, p, n);
out:
	free(p);
	return ret;
}

#else /* !TC_STATIC_KEY_ASM_GOTO */

int tc_static_key_patch_check(char *why, size_t len)
{
	(void)why;
	(void)len;
	return 0;	/* nothing to patch: the flag test always works */
}

const char *tc_static_key_impl(void)
{
#if defined(TC_STATIC_KEY_FORCE_FLAG)
	return "flag test (no asm goto): forced by TC_STATIC_KEY_FORCE_FLAG";
#elif !defined(__x86_64__) && !defined(__aarch64__)
	return "flag test (no asm goto): neither x86-64 nor AArch64";
#else
	return "flag test (no asm goto): compiler without asm goto";
#endif
}

/*
 * The compiled-in instruction of an asm-goto site (objects built without
 * the flag fallback): a jump or the NOP, never rewritten by this build.
 */
bool tcsk_arch_site_is(const unsigned char *insn, const struct tc_jump_entry *e, bool jump)
{
#if defined(__aarch64__)
	uint32_t v;

	(void)e;
	memcpy(&v, insn, sizeof(v));
	return ((v & 0xfc000000u) == 0x14000000u) == jump;
#else
	(void)e;
	return (insn[0] == 0xe9) == jump;
#endif
}

/*
 * Flag build: the sites read the count, nothing to patch. Asm-goto sites of
 * @key compiled into other objects could not be patched by this build:
 * refuse rather than leave them stale.
 */
static int tc_key_update(struct tc_static_key *key, bool enable)
{
	(void)enable;
	return tc_key_sites_locked(key, NULL, 0) > 0 ? -ENOSYS : 0;
}

#endif /* TC_STATIC_KEY_ASM_GOTO */

int (tc_static_key_enable)(struct tc_static_key *key)
{
	int cnt, ret = 0;

	if (!key)
		return -EINVAL;
	pthread_mutex_lock(&tcsk_mutex);
	cnt = key->enabled;
	if (cnt == INT_MAX) {
		ret = -EOVERFLOW;
	} else if (cnt == 0) {
		/* 0 -> 1: patch first, then publish the count (like the kernel). */
		ret = tc_key_update(key, true);
		if (!ret)
			__atomic_store_n(&key->enabled, 1, __ATOMIC_RELEASE);
	} else {
		__atomic_store_n(&key->enabled, cnt + 1, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&tcsk_mutex);
	return ret;
}

int (tc_static_key_disable)(struct tc_static_key *key)
{
	int cnt, ret = 0;

	if (!key)
		return -EINVAL;
	pthread_mutex_lock(&tcsk_mutex);
	cnt = key->enabled;
	if (cnt <= 0) {
		ret = -EINVAL;
	} else if (cnt == 1) {
		/* 1 -> 0: patch back, then publish. */
		ret = tc_key_update(key, false);
		if (!ret)
			__atomic_store_n(&key->enabled, 0, __ATOMIC_RELEASE);
	} else {
		__atomic_store_n(&key->enabled, cnt - 1, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&tcsk_mutex);
	return ret;
}

/* Does the site of @e hold the instruction for its key's current count? Under tcsk_mutex. */
static bool tc_site_current(const struct tc_jump_entry *e)
{
	bool jump = (tc_jump_entry_key(e)->enabled > 0) ^ tc_jump_entry_is_likely(e);
	const unsigned char *insn = (const unsigned char *)tc_jump_entry_code(e);

	return tcsk_arch_site_is(insn, e, jump);
}

void tc_jump_table_register(const struct tc_jump_entry *start, const struct tc_jump_entry *stop)
{
	struct tc_jump_module *m;
	const struct tc_jump_entry *e;
	int ret = 0;

	if (!start || stop <= start)
		return;
	pthread_mutex_lock(&tcsk_mutex);
	for (m = tc_jump_modules; m; m = m->next) {
		if (m->start == start) {
			m->users++;
			pthread_mutex_unlock(&tcsk_mutex);
			return;
		}
	}
	m = calloc(1, sizeof(*m));
	if (!m) {
		ret = -ENOMEM;
		goto fatal;
	}
	m->start = start;
	m->stop = stop;
	m->users = 1;
	m->next = tc_jump_modules;
	/* Published before any patch, so the int3 handler finds these sites. */
	__atomic_store_n(&tc_jump_modules, m, __ATOMIC_SEQ_CST);

	/* Sites of keys whose count is not their default: patch them now. */
	for (e = start; e < stop; e++) {
		if (tc_site_current(e))
			continue;
		ret = tc_key_update(tc_jump_entry_key(e), tc_jump_entry_key(e)->enabled > 0);
		if (!ret && !tc_site_current(e))
			ret = -EINVAL;
		if (ret)
			goto fatal;
	}
	pthread_mutex_unlock(&tcsk_mutex);
	return;
fatal:
	/* A constructor cannot fail dlopen(); a stale site must not run. */
	fprintf(stderr, "tracecost: cannot patch the static-key sites of a newly loaded object "
		"(table %p) to the state of enabled keys: %s\n", (const void *)start,
		strerror(-ret));
	abort();
}

void tc_jump_table_unregister(const struct tc_jump_entry *start)
{
	struct tc_jump_module *m, **pp;

	if (!start)
		return;
	pthread_mutex_lock(&tcsk_mutex);
	for (pp = &tc_jump_modules; (m = *pp); pp = &m->next) {
		if (m->start != start)
			continue;
		if (--m->users)
			break;
		__atomic_store_n(pp, m->next, __ATOMIC_SEQ_CST);
		/* No handler may still walk into @m (see tcsk_find_site()). */
		while (__atomic_load_n(&tc_trap_walkers, __ATOMIC_SEQ_CST))
			sched_yield();
		free(m);
		break;
	}
	pthread_mutex_unlock(&tcsk_mutex);
}
