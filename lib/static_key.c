// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * lib/static_key.c - slow path of the userspace static keys: reference
 * counts, and on x86-64 with asm goto the patching of the sites in
 * tc_jump_table. The design and its safety argument are in
 * include/tracecost/static_key.h; the sources are the kernel's
 * kernel/jump_label.c (counting), arch/x86/kernel/jump_label.c (which
 * instruction to write) and arch/x86/kernel/alternative.c (text_poke_bp,
 * the order of the writes).
 *
 * Locking: tc_key_mutex serialises every update of a key count and every
 * write to a site; a site's bytes and a key's count change only under it.
 * Lock-free readers: the sites themselves (instruction fetch, ordered by
 * membarrier SYNC_CORE), tc_static_key_enabled() (one __atomic load of the
 * count), and the SIGTRAP handler (which reads tc_poke_state and the site's
 * byte 0 with acquire loads, see tc_sigtrap()).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <ucontext.h>
#include <unistd.h>

#include <tracecost/static_key.h>

/* Serialises tc_static_key_enable/disable: counts and site writes. */
static pthread_mutex_t tc_key_mutex = PTHREAD_MUTEX_INITIALIZER;

/* Events counted by the SIGTRAP handler (atomic increments). */
static unsigned long tc_int3_hits;

/* Test hook: sleep after each patch step, microseconds. Written by tests. */
static unsigned int tc_poke_delay_us;

/*
 * The jump tables of the loaded objects (the kernel's jump_label_add_module
 * list): a singly linked list, changed only under tc_key_mutex. The SIGTRAP
 * handler walks it without the mutex (tc_find_site()): a table is taken off
 * the list with a seq_cst store and its node freed only once no handler is
 * inside the walk (tc_trap_walkers).
 */
struct tc_jump_module {
	struct tc_jump_module *next;
	const struct tc_jump_entry *start, *stop;
	unsigned int users;		/* registrations (one per translation unit) */
};

static struct tc_jump_module *tc_jump_modules;

/* SIGTRAP handlers inside tc_find_site()'s walk of tc_jump_modules. */
static unsigned long tc_trap_walkers;

/* Every entry of every registered table. Under tc_key_mutex. */
#define for_each_jump_entry(m, e) \
	for ((m) = tc_jump_modules; (m); (m) = (m)->next) \
		for ((e) = (m)->start; (e) < (m)->stop; (e)++)

/*
 * fork() while another thread flips a key: the child would inherit a locked
 * tc_key_mutex (and, mid-batch, int3 bytes in its copy of the text). The
 * prepare handler takes the mutex, so fork() waits for any batch to end:
 * the child's text then holds complete instructions only, and both sides
 * unlock. (The child sets up its own /proc/self/mem and membarrier
 * registration at its first patch: tc_patch_ready() compares pids.)
 */
static void tc_atfork_prepare(void)
{
	pthread_mutex_lock(&tc_key_mutex);
}

static void tc_atfork_unlock(void)
{
	pthread_mutex_unlock(&tc_key_mutex);
}

__attribute__((constructor)) static void tc_static_key_atfork_init(void)
{
	pthread_atfork(tc_atfork_prepare, tc_atfork_unlock, tc_atfork_unlock);
}

unsigned long tc_static_key_int3_hits(void)
{
	return __atomic_load_n(&tc_int3_hits, __ATOMIC_RELAXED);
}

void tc_static_key_set_poke_delay(unsigned int usec)
{
	__atomic_store_n(&tc_poke_delay_us, usec, __ATOMIC_RELAXED);
}

/* Number of sites of @key, the first @max stored in @addrs. Under tc_key_mutex. */
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
	pthread_mutex_lock(&tc_key_mutex);
	n = tc_key_sites_locked(key, addrs, max);
	pthread_mutex_unlock(&tc_key_mutex);
	return n;
}

bool (tc_static_key_enabled)(const struct tc_static_key *key)
{
	/* Pairs with the release store in tc_static_key_enable/disable. */
	return key && __atomic_load_n(&key->enabled, __ATOMIC_ACQUIRE) > 0;
}

#if TC_STATIC_KEY_ASM_GOTO

#include <linux/membarrier.h>

#define INT3_INSN	0xcc
#define JMP8_INSN	0xeb
#define JMP32_INSN	0xe9

static const unsigned char tc_nop5[TC_JUMP_SITE_SIZE] = { TC_JUMP_NOP5 };

const char *tc_static_key_impl(void)
{
	return "x86-64 asm goto, 5-byte NOP <-> jmp, text_poke_bp order via "
	       "/proc/self/mem + membarrier";
}

/*
 * Patch environment, set up under tc_key_mutex by tc_patch_ready() once per
 * process (a fork()ed child has another pid: its inherited /proc/self/mem
 * descriptor still names the parent's memory, so it reopens and registers
 * again).
 */
static int tc_mem_fd = -1;
static pid_t tc_ready_pid;
static bool tc_trap_installed;

/*
 * The SIGTRAP handler that was installed before ours. Written once, under
 * tc_key_mutex, before our handler is installed; read by tc_sigtrap().
 */
static struct sigaction tc_prev_trap;

/*
 * The batch in flight: (uintptr_t)key | 1 if its sites are being patched
 * to the enabled state, | 0 to the disabled state; 0 when idle. Written
 * under tc_key_mutex (seq_cst stores, before step 1 and after step 3),
 * read by tc_sigtrap() (acquire).
 */
static uintptr_t tc_poke_state;

/* What the SIGTRAP handler needs of a site, copied out of its table. */
struct tc_site_ref {
	uintptr_t target;
	struct tc_static_key *key;
	bool likely;
};

/*
 * Looks up the site that starts at @ip in every registered table, without
 * the mutex (called by the SIGTRAP handler). Counted in tc_trap_walkers so
 * that tc_jump_table_unregister() frees no table we are reading.
 * Return: true and *@ref filled if @ip is a site.
 */
static bool tc_find_site(uintptr_t ip, struct tc_site_ref *ref)
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

/* Passes a SIGTRAP that is not ours to the previous disposition. */
static void tc_chain_trap(int sig, siginfo_t *si, void *uc)
{
	const struct sigaction *p = &tc_prev_trap;
	struct sigaction dfl;

	if (p->sa_flags & SA_SIGINFO) {
		if (p->sa_sigaction)
			p->sa_sigaction(sig, si, uc);
		return;
	}
	if (p->sa_handler == SIG_IGN)
		return;
	if (p->sa_handler == SIG_DFL) {
		/* Default action (core dump): reset and re-raise; delivered on return. */
		memset(&dfl, 0, sizeof(dfl));
		dfl.sa_handler = SIG_DFL;
		sigemptyset(&dfl.sa_mask);
		sigaction(sig, &dfl, NULL);
		raise(sig);
		return;
	}
	p->sa_handler(sig);
}

/*
 * The int3 handler (the userspace poke_int3_handler). Async-signal-safe:
 * only loads, one atomic increment, and the chained handler. Why re-reading
 * byte 0 is enough, and why a late handler (the batch long finished) is
 * harmless, is explained in static_key.h.
 */
static void tc_sigtrap(int sig, siginfo_t *si, void *ctx)
{
	ucontext_t *uc = ctx;
	struct tc_site_ref site;
	uintptr_t ip, state;
	unsigned int spins;

	/*
	 * The kernel's int3 path (do_int3_user) sends SI_KERNEL; raise()/kill()/
	 * sigqueue() give <= 0, a single step TRAP_TRACE, a hardware breakpoint
	 * TRAP_HWBKPT, perf TRAP_PERF: none of those is a site's int3, even when
	 * RIP - 1 happens to be a site's first byte.
	 */
	if (si->si_code != SI_KERNEL)
		goto chain;
	ip = (uintptr_t)uc->uc_mcontext.gregs[REG_RIP] - 1;
	if (!tc_find_site(ip, &site))
		goto chain;
	for (spins = 0; spins < (1u << 20); spins++) {
		/* Acquire: the batch state was stored before the int3 was written. */
		if (__atomic_load_n((const unsigned char *)ip, __ATOMIC_ACQUIRE) != INT3_INSN) {
			/* Complete instruction again: run it. */
			uc->uc_mcontext.gregs[REG_RIP] = (greg_t)ip;
			goto ours;
		}
		state = __atomic_load_n(&tc_poke_state, __ATOMIC_ACQUIRE);
		if (state && (struct tc_static_key *)(state & ~(uintptr_t)1) == site.key) {
			/* Emulate the new instruction. */
			if ((state & 1) ^ site.likely)
				uc->uc_mcontext.gregs[REG_RIP] = (greg_t)site.target;
			else
				uc->uc_mcontext.gregs[REG_RIP] = (greg_t)(ip + TC_JUMP_SITE_SIZE);
			goto ours;
		}
		/* The batch ended between the two loads: byte 0 is restored now. */
		__builtin_ia32_pause();
	}
	/* An int3 on a site that no batch of ours wrote: not ours. */
chain:
	tc_chain_trap(sig, si, ctx);
	return;
ours:
	__atomic_fetch_add(&tc_int3_hits, 1, __ATOMIC_RELAXED);
}

static int tc_membarrier(int cmd)
{
	return syscall(__NR_membarrier, cmd, 0, 0) < 0 ? -errno : 0;
}

/* Installs tc_sigtrap once, remembering the previous disposition. Under tc_key_mutex. */
static int tc_install_trap(void)
{
	struct sigaction sa, old;

	if (tc_trap_installed)
		return 0;
	if (sigaction(SIGTRAP, NULL, &tc_prev_trap))
		return -errno;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = tc_sigtrap;
	/*
	 * SA_NODEFER: SIGTRAP stays unblocked in our handler and in a handler
	 * we chain to, so a site run there can trap again (a synchronous trap
	 * on a blocked signal would kill the process).
	 */
	sa.sa_flags = SA_SIGINFO | SA_RESTART | SA_ONSTACK | SA_NODEFER;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGTRAP, &sa, &old))
		return -errno;
	/* Changed between the two calls (another thread): keep the newer one. */
	if (memcmp(&old, &tc_prev_trap, sizeof(old)))
		tc_prev_trap = old;
	tc_trap_installed = true;
	return 0;
}

/*
 * Makes sure membarrier SYNC_CORE is registered, /proc/self/mem is open and
 * the SIGTRAP handler installed, for this process. Under tc_key_mutex.
 * Return: 0 or a negative errno (nothing was patched).
 */
static int tc_patch_ready(void)
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
	ret = tc_install_trap();
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

static int tc_poke(uintptr_t addr, const unsigned char *buf, size_t len);

int tc_static_key_patch_check(char *why, size_t len)
{
	const struct tc_jump_entry *e = __start_tc_jump_table;
	int ret;

	pthread_mutex_lock(&tc_key_mutex);
	ret = tc_patch_ready();
	/* proc_mem.force_override=never: the open works, the write fails */
	if (!ret && e < __stop_tc_jump_table) {
		unsigned char b = *(const unsigned char *)tc_jump_entry_code(e);

		ret = tc_poke(tc_jump_entry_code(e), &b, 1);
		if (ret)
			ret = -EPERM;
	}
	pthread_mutex_unlock(&tc_key_mutex);
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

/* Writes @len bytes at code address @addr through /proc/self/mem. */
static int tc_poke(uintptr_t addr, const unsigned char *buf, size_t len)
{
	ssize_t n;

	do
		n = pwrite(tc_mem_fd, buf, len, (off_t)addr);
	while (n < 0 && errno == EINTR);
	if (n == (ssize_t)len)
		return 0;
	return n < 0 ? -errno : -EIO;
}

/* membarrier SYNC_CORE, then the test delay. */
static int tc_sync_core(void)
{
	unsigned int delay = __atomic_load_n(&tc_poke_delay_us, __ATOMIC_RELAXED);
	int ret = tc_membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED_SYNC_CORE);

	if (delay)
		usleep(delay);
	return ret;
}

/* Does @insn (the site's bytes) hold the NOP, or a jmp (either form) to the target of @e? */
static bool tc_site_is(const unsigned char *insn, const struct tc_jump_entry *e, bool jump)
{
	uintptr_t ip = tc_jump_entry_code(e), target = tc_jump_entry_target(e);
	int32_t rel32;

	if (!jump)
		return !memcmp(insn, tc_nop5, TC_JUMP_SITE_SIZE);
	if (insn[0] == JMP8_INSN)
		return ip + 2 + (intptr_t)(int8_t)insn[1] == target;
	if (insn[0] == JMP32_INSN) {
		memcpy(&rel32, insn + 1, sizeof(rel32));
		return ip + TC_JUMP_SITE_SIZE + (intptr_t)rel32 == target;
	}
	return false;
}

/*
 * The instruction for state @jump at the site of @e, whose bytes are now
 * @cur: the NOP, or the shortest jmp (the kernel's arch/x86 jump_label.c
 * writes the 2-byte form when the displacement fits, too).
 */
static void tc_site_insn(const struct tc_jump_entry *e, bool jump, const unsigned char *cur,
			 unsigned char *out)
{
	uintptr_t ip = tc_jump_entry_code(e), target = tc_jump_entry_target(e);
	intptr_t rel = (intptr_t)(target - (ip + 2));
	int32_t rel32;

	if (!jump) {
		memcpy(out, tc_nop5, TC_JUMP_SITE_SIZE);
		return;
	}
	memcpy(out, cur, TC_JUMP_SITE_SIZE);
	if (rel >= -128 && rel <= 127) {
		out[0] = JMP8_INSN;
		out[1] = (unsigned char)(int8_t)rel;
		return;
	}
	rel32 = (int32_t)(intptr_t)(target - (ip + TC_JUMP_SITE_SIZE));
	out[0] = JMP32_INSN;
	memcpy(out + 1, &rel32, sizeof(rel32));
}

struct tc_poke_site {
	uintptr_t ip;
	unsigned char old[TC_JUMP_SITE_SIZE];
	unsigned char new[TC_JUMP_SITE_SIZE];
};

/*
 * Best-effort return of every site of a failed batch to its old bytes, with
 * the same int3 protocol; the handler emulates the old instruction meanwhile.
 */
static void tc_poke_revert(struct tc_static_key *key, bool enable,
			   const struct tc_poke_site *p, int n)
{
	const unsigned char int3 = INT3_INSN;
	int i;

	__atomic_store_n(&tc_poke_state, (uintptr_t)key | !enable, __ATOMIC_SEQ_CST);
	for (i = 0; i < n; i++)
		tc_poke(p[i].ip, &int3, 1);
	tc_sync_core();
	for (i = 0; i < n; i++)
		tc_poke(p[i].ip + 1, p[i].old + 1, TC_JUMP_SITE_SIZE - 1);
	tc_sync_core();
	for (i = 0; i < n; i++)
		tc_poke(p[i].ip, p[i].old, 1);
	tc_sync_core();
	__atomic_store_n(&tc_poke_state, 0, __ATOMIC_SEQ_CST);
}

/*
 * Patches every site of @key to its state for "enabled == @enable" (the
 * kernel's jump_label_update()). Under tc_key_mutex.
 * Return: 0 or a negative errno, with every site unchanged.
 */
static int tc_key_update(struct tc_static_key *key, bool enable)
{
	const unsigned char int3 = INT3_INSN;
	const struct tc_jump_module *m;
	const struct tc_jump_entry *e;
	struct tc_poke_site *p = NULL;
	int i, n = 0, nr, ret;
	bool tails = false;

	nr = tc_key_sites_locked(key, NULL, 0);
	if (nr <= 0)
		return nr;
	ret = tc_patch_ready();
	if (ret)
		return ret;
	p = calloc((size_t)nr, sizeof(*p));
	if (!p)
		return -ENOMEM;

	/* Step 0: every site must hold the old instruction (the kernel BUG()s). */
	for_each_jump_entry(m, e) {
		const unsigned char *cur;
		bool likely = tc_jump_entry_is_likely(e);

		if (tc_jump_entry_key(e) != key)
			continue;
		cur = (const unsigned char *)tc_jump_entry_code(e);
		if (tc_site_is(cur, e, enable ^ likely))
			continue;	/* already there */
		if (!tc_site_is(cur, e, !enable ^ likely)) {
			ret = -EINVAL;
			goto out;
		}
		p[n].ip = tc_jump_entry_code(e);
		memcpy(p[n].old, cur, TC_JUMP_SITE_SIZE);
		tc_site_insn(e, enable ^ likely, cur, p[n].new);
		if (memcmp(p[n].old + 1, p[n].new + 1, TC_JUMP_SITE_SIZE - 1))
			tails = true;
		n++;
	}
	if (!n)
		goto out;
	/* Can we write our text at all? Rewrite one byte with its own value. */
	ret = tc_poke(p[0].ip, p[0].old, 1);
	if (ret) {
		if (ret == -EIO || ret == -EFAULT || ret == -EACCES)
			ret = -EPERM;
		goto out;
	}

	/* Publish the batch for tc_sigtrap() before the first int3. */
	__atomic_store_n(&tc_poke_state, (uintptr_t)key | enable, __ATOMIC_SEQ_CST);

	/* Step 1: int3 over byte 0, then every thread serialises. */
	for (i = 0; i < n; i++) {
		ret = tc_poke(p[i].ip, &int3, 1);
		if (ret)
			goto revert;
	}
	ret = tc_sync_core();
	if (ret)
		goto revert;

	/* Step 2: the tail of the new instruction (nobody executes it). */
	if (tails) {
		for (i = 0; i < n; i++) {
			if (!memcmp(p[i].old + 1, p[i].new + 1, TC_JUMP_SITE_SIZE - 1))
				continue;
			ret = tc_poke(p[i].ip + 1, p[i].new + 1, TC_JUMP_SITE_SIZE - 1);
			if (ret)
				goto revert;
		}
		ret = tc_sync_core();
		if (ret)
			goto revert;
	}

	/* Step 3: byte 0 of the new instruction; after the sync everyone runs it. */
	for (i = 0; i < n; i++) {
		ret = tc_poke(p[i].ip, p[i].new, 1);
		if (ret)
			goto revert;
	}
	ret = tc_sync_core();
	if (ret)
		goto revert;
	__atomic_store_n(&tc_poke_state, 0, __ATOMIC_SEQ_CST);
	goto out;

revert:
	tc_poke_revert(key, enable, p, n);
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
#elif !defined(__x86_64__)
	return "flag test (no asm goto): not x86-64";
#else
	return "flag test (no asm goto): compiler without asm goto";
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
	pthread_mutex_lock(&tc_key_mutex);
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
	pthread_mutex_unlock(&tc_key_mutex);
	return ret;
}

int (tc_static_key_disable)(struct tc_static_key *key)
{
	int cnt, ret = 0;

	if (!key)
		return -EINVAL;
	pthread_mutex_lock(&tc_key_mutex);
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
	pthread_mutex_unlock(&tc_key_mutex);
	return ret;
}

/* Does the site of @e hold the instruction for its key's current count? Under tc_key_mutex. */
static bool tc_site_current(const struct tc_jump_entry *e)
{
	bool jump = (tc_jump_entry_key(e)->enabled > 0) ^ tc_jump_entry_is_likely(e);
	const unsigned char *insn = (const unsigned char *)tc_jump_entry_code(e);

#if TC_STATIC_KEY_ASM_GOTO
	return tc_site_is(insn, e, jump);
#else
	/* The compiled-in instruction: a NOP or "e9 rel32" (never rewritten here). */
	return (insn[0] == 0xe9) == jump;
#endif
}

void tc_jump_table_register(const struct tc_jump_entry *start, const struct tc_jump_entry *stop)
{
	struct tc_jump_module *m;
	const struct tc_jump_entry *e;
	int ret = 0;

	if (!start || stop <= start)
		return;
	pthread_mutex_lock(&tc_key_mutex);
	for (m = tc_jump_modules; m; m = m->next) {
		if (m->start == start) {
			m->users++;
			pthread_mutex_unlock(&tc_key_mutex);
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
	pthread_mutex_unlock(&tc_key_mutex);
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
	pthread_mutex_lock(&tc_key_mutex);
	for (pp = &tc_jump_modules; (m = *pp); pp = &m->next) {
		if (m->start != start)
			continue;
		if (--m->users)
			break;
		__atomic_store_n(pp, m->next, __ATOMIC_SEQ_CST);
		/* No handler may still walk into @m (see tc_find_site()). */
		while (__atomic_load_n(&tc_trap_walkers, __ATOMIC_SEQ_CST))
			sched_yield();
		free(m);
		break;
	}
	pthread_mutex_unlock(&tc_key_mutex);
}
