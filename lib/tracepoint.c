// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * lib/tracepoint.c - slow path of the tracepoints: probe registration and
 * RCU reader-thread management. Modelled on the kernel's kernel/tracepoint.c
 * (func_add/func_remove, tracepoint_add_func/tracepoint_remove_func).
 *
 * Locking and ordering rules (liburcu style):
 *  - tc_tp_mutex serialises every register/unregister: tp->funcs is only
 *    replaced under it, and plain loads of tp->funcs are allowed under it.
 *    Lock order: tc_tp_mutex, then the static-key mutex (taken inside
 *    tc_static_key_enable/disable), then liburcu's internal mutexes.
 *  - tp->funcs is published with a release store (tc_publish_funcs) and read by
 *    __tc_do_trace_<name>() with a consume load under the urcu-memb read
 *    lock; an array is never modified once published.
 *  - a replaced array is freed only after urcu_memb_synchronize_rcu()
 *    returned, outside tc_tp_mutex (each writer frees the array it replaced;
 *    no other writer can reach it any more).
 *  - first probe: publish the array, then enable the key (sites never jump
 *    to a NULL array in vain, though that would be harmless). Last probe:
 *    disable the key, then publish NULL.
 *  - a grace period is one of each flavour: urcu-memb (readers in lock/
 *    unlock sections) then urcu-qsbr (online QSBR threads, which read the
 *    arrays of QSBR tracepoints with no read side; tracepoint.h). A qsbr
 *    grace period with no QSBR thread registered is a mutex and a list
 *    test. Each flavour's grace period covers only its own readers, so
 *    both are needed for every tracepoint: which flavour a reader uses is
 *    decided per call, by the reading thread.
 */
#define _LGPL_SOURCE		/* inline urcu-memb API; this file is LGPL */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <tracecost/tracepoint.h>
#include <urcu/urcu-qsbr.h>

const char *tc_tracepoint_urcu_read_side(void)
{
	return urcu_memb_has_sys_membarrier ?
	       "liburcu-memb, compiler barriers (membarrier PRIVATE_EXPEDITED)" :
	       "liburcu-memb, smp_mb() on lock and unlock (no membarrier)";
}

#ifdef TC_TP_TSAN
char tc_tp_tsan_gp;
#endif

/* A grace period (see TC_TP_TSAN in tracepoint.h for the annotation). */
static void tc_synchronize_rcu(void)
{
	urcu_memb_synchronize_rcu();
	urcu_qsbr_synchronize_rcu();
#ifdef TC_TP_TSAN
	__tsan_acquire(&tc_tp_tsan_gp);
#endif
}

/*
 * Publish a probe array: a C11 release store, paired with the readers'
 * __atomic loads in tracepoint.h (liburcu's rcu_assign_pointer() is a
 * barrier and a volatile store: the same on x86, but a data race in C11
 * terms and one ThreadSanitizer reports).
 */
static void tc_publish_funcs(struct tc_tracepoint *tp, struct tc_probe *funcs)
{
	__atomic_store_n(&tp->funcs, funcs, __ATOMIC_RELEASE);
}

/* Serialises probe registration on every tracepoint (see above). */
static pthread_mutex_t tc_tp_mutex = PTHREAD_MUTEX_INITIALIZER;

/* Number of probes in @funcs (NULL counts as empty). Under tc_tp_mutex. */
static int tc_probe_count(const struct tc_probe *funcs)
{
	int n = 0;

	if (funcs)
		while (funcs[n].func)
			n++;
	return n;
}

int tc_tracepoint_probe_register(struct tc_tracepoint *tp, void *probe, void *data)
{
	struct tc_probe *old, *new;
	int i, n, ret;

	if (!tp || !probe)
		return -EINVAL;
	pthread_mutex_lock(&tc_tp_mutex);
	old = tp->funcs;
	n = tc_probe_count(old);
	for (i = 0; i < n; i++) {
		if (old[i].func == probe && old[i].data == data) {
			pthread_mutex_unlock(&tc_tp_mutex);
			return -EEXIST;
		}
	}
	new = malloc(((size_t)n + 2) * sizeof(*new));
	if (!new) {
		pthread_mutex_unlock(&tc_tp_mutex);
		return -ENOMEM;
	}
	if (n)
		memcpy(new, old, (size_t)n * sizeof(*new));
	new[n].func = probe;
	new[n].data = data;
	new[n + 1].func = NULL;
	new[n + 1].data = NULL;
	/* Release: the array's contents are visible before the pointer. */
	tc_publish_funcs(tp, new);
	if (n == 0) {
		ret = tc_static_key_enable(&tp->key);
		if (ret) {
			/* Undo: the out-of-line path may already hold @new. */
			tc_publish_funcs(tp, NULL);
			pthread_mutex_unlock(&tc_tp_mutex);
			tc_synchronize_rcu();
			free(new);
			return ret;
		}
	}
	pthread_mutex_unlock(&tc_tp_mutex);
	if (old) {
		/* Readers may still walk @old until a grace period ends. */
		tc_synchronize_rcu();
		free(old);
	}
	return 0;
}

int tc_tracepoint_probe_unregister(struct tc_tracepoint *tp, void *probe, void *data)
{
	struct tc_probe *old, *new = NULL;
	int i, j, n, idx = -1, ret;

	if (!tp || !probe)
		return -EINVAL;
	pthread_mutex_lock(&tc_tp_mutex);
	old = tp->funcs;
	n = tc_probe_count(old);
	for (i = 0; i < n; i++) {
		if (old[i].func == probe && old[i].data == data) {
			idx = i;
			break;
		}
	}
	if (idx < 0) {
		pthread_mutex_unlock(&tc_tp_mutex);
		return -ENOENT;
	}
	if (n == 1) {
		/* Last probe: sites back to NOP first; on failure nothing changed. */
		ret = tc_static_key_disable(&tp->key);
		if (ret) {
			pthread_mutex_unlock(&tc_tp_mutex);
			return ret;
		}
	} else {
		new = malloc((size_t)n * sizeof(*new));
		if (!new) {
			pthread_mutex_unlock(&tc_tp_mutex);
			return -ENOMEM;
		}
		for (i = 0, j = 0; i <= n; i++)		/* the terminator too */
			if (i != idx)
				new[j++] = old[i];
	}
	tc_publish_funcs(tp, new);
	pthread_mutex_unlock(&tc_tp_mutex);
	/* After this no reader still runs @probe from @old; then free it. */
	tc_synchronize_rcu();
	free(old);
	return 0;
}

void tc_tracepoint_synchronize_unregister(void)
{
	tc_synchronize_rcu();
}

/*
 * Thread registration. tc_tp_thread_key's value is non-NULL in a thread
 * that this library registered with liburcu-memb; its destructor unregisters
 * the thread at exit (liburcu keeps a pointer to the thread's TLS reader
 * state in its registry, which must not outlive the thread). The
 * "registered" test is liburcu's own per-thread flag, so a thread that
 * registered itself is never registered twice.
 */
static pthread_once_t tc_tp_thread_once = PTHREAD_ONCE_INIT;
static pthread_key_t tc_tp_thread_key;
static bool tc_tp_thread_key_ok;

static pthread_key_t tc_tp_qsbr_key;
static bool tc_tp_qsbr_key_ok;

static void tc_tp_thread_exit(void *arg)
{
	(void)arg;
	if (URCU_TLS(urcu_memb_reader).registered)
		urcu_memb_unregister_thread();
}

static void tc_tp_qsbr_exit(void *arg)
{
	(void)arg;
	if (URCU_TLS(urcu_qsbr_reader).registered) {
#ifdef TC_TP_TSAN
		__tsan_release(&tc_tp_tsan_gp);
#endif
		urcu_qsbr_unregister_thread();
	}
}

static void tc_tp_thread_key_init(void)
{
	tc_tp_thread_key_ok = !pthread_key_create(&tc_tp_thread_key, tc_tp_thread_exit);
	tc_tp_qsbr_key_ok = !pthread_key_create(&tc_tp_qsbr_key, tc_tp_qsbr_exit);
}

void tc_thread_register(void)
{
	if (URCU_TLS(urcu_memb_reader).registered)
		return;
	pthread_once(&tc_tp_thread_once, tc_tp_thread_key_init);
	urcu_memb_register_thread();
	if (tc_tp_thread_key_ok)
		pthread_setspecific(tc_tp_thread_key, (void *)1);
}

void tc_thread_unregister(void)
{
	pthread_once(&tc_tp_thread_once, tc_tp_thread_key_init);
	if (!tc_tp_thread_key_ok || !pthread_getspecific(tc_tp_thread_key))
		return;		/* not registered by us */
	pthread_setspecific(tc_tp_thread_key, NULL);
	if (URCU_TLS(urcu_memb_reader).registered)
		urcu_memb_unregister_thread();
}

/*
 * QSBR readers (tracepoint.h, TC_DEFINE_TRACEPOINT_QSBR). tc_tp_qsbr_key's
 * value is non-NULL in a thread this library registered with liburcu-qsbr;
 * its destructor unregisters the thread at exit. liburcu-qsbr's own
 * "registered" flag guards against a second registration (a thread that
 * registered itself with urcu_qsbr_register_thread() is left to its owner).
 * Under TSan every end of a QSBR read side (quiescent state, offline,
 * unregister) releases tc_tp_tsan_gp, as a memb unlock does.
 */
void tc_thread_qsbr_register(void)
{
	if (URCU_TLS(urcu_qsbr_reader).registered)
		return;
	pthread_once(&tc_tp_thread_once, tc_tp_thread_key_init);
	urcu_qsbr_register_thread();		/* online from here on */
	if (tc_tp_qsbr_key_ok)
		pthread_setspecific(tc_tp_qsbr_key, (void *)1);
}

void tc_thread_qsbr_unregister(void)
{
	pthread_once(&tc_tp_thread_once, tc_tp_thread_key_init);
	if (!tc_tp_qsbr_key_ok || !pthread_getspecific(tc_tp_qsbr_key))
		return;		/* not registered by us */
	pthread_setspecific(tc_tp_qsbr_key, NULL);
	tc_tp_qsbr_exit(NULL);
}

void tc_thread_quiescent(void)
{
	if (!__tc_tp_qsbr_online())
		return;
#ifdef TC_TP_TSAN
	__tsan_release(&tc_tp_tsan_gp);
#endif
	urcu_qsbr_quiescent_state();
}

void tc_thread_offline(void)
{
	if (!__tc_tp_qsbr_online())
		return;
#ifdef TC_TP_TSAN
	__tsan_release(&tc_tp_tsan_gp);
#endif
	urcu_qsbr_thread_offline();
}

void tc_thread_online(void)
{
	if (!URCU_TLS(urcu_qsbr_reader).registered || __tc_tp_qsbr_online())
		return;
	urcu_qsbr_thread_online();
}
