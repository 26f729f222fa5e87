/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tracecost/tracepoint.h - userspace tracepoints with probes, modelled on the
 * kernel's include/linux/tracepoint.h and kernel/tracepoint.c.
 *
 *	TC_DECLARE_TRACEPOINT(foo, TC_TP_PROTO(int a, long b), TC_TP_ARGS(a, b));
 *	TC_DEFINE_TRACEPOINT(foo, TC_TP_PROTO(int a, long b), TC_TP_ARGS(a, b));
 *
 *	tc_trace_foo(1, 2);		// one 5-byte NOP while no probe is attached
 *	tc_register_trace_foo(my_probe, my_data);
 *
 * For each tracepoint @name the macros generate:
 *  struct tc_tracepoint __tc_tp_<name>;	the tracepoint (name, key, probes)
 *  void tc_trace_<name>(proto);		static inline: a static branch
 *	(tc_static_branch_unlikely on the tracepoint's false key) around a
 *	call to __tc_do_trace_<name>(); while the key is off that is exactly
 *	one NOP at the site;
 *  bool tc_trace_<name>_enabled(void);	the same static branch alone;
 *  void __tc_do_trace_<name>(proto);		out of line, noinline: returns at
 *	once if no probe is attached, else calls every probe, in registration
 *	order, as probe(data, args...) under the RCU read lock. Because it
 *	checks for itself it is also the "out-of-line call that checks inside"
 *	shape, callable without the static branch;
 *  int tc_register_trace_<name>(void (*probe)(void *data, proto), void *data);
 *  int tc_unregister_trace_<name>(void (*probe)(void *data, proto), void *data);
 *	typed wrappers of tc_tracepoint_probe_register/unregister.
 *
 * @name may be a macro (e.g. TC_CONCAT(prefix, irq_disable)): it is expanded
 * before it is pasted. @proto must have at least one parameter. DECLARE goes
 * in a header, DEFINE in one .c file after the DECLARE; DEFINE_STATIC does
 * both with internal linkage, for a file-local tracepoint.
 *
 * RCU: liburcu's urcu-memb flavour (link -lurcu-memb -lurcu-qsbr
 * -lurcu-common; pkg-config tracecost does).
 *  - memb: a reader costs a TLS counter update and a compiler barrier; the
 *    writer (synchronize_rcu) pays with sys_membarrier. That is the closest
 *    userspace match for the kernel's rcu_read_lock_sched_notrace().
 *  - not qsbr by default: cheaper still for readers, but every registered
 *    thread would have to report quiescent states, and the threads that
 *    run tracepoints are the benchmark's and the user's, not ours; one that
 *    stopped reporting would stall every unregister. Threads that agree to
 *    report get the QSBR read side (TC_DEFINE_TRACEPOINT_QSBR below).
 *  - not bp: readers register themselves on the fly but pay a full memory
 *    barrier (or more) per read-side section.
 *  - not signal: reserves a signal (SIGUSR1) in every program using us.
 * The read side in __tc_do_trace_<name>() uses the inline (LGPL static)
 * read lock of <urcu/static/urcu-memb.h>, included here explicitly so that
 * it does not depend on whether the includer defines _LGPL_SOURCE;
 * lib/tracepoint.c defines _LGPL_SOURCE for the rest. Both files are LGPL.
 *
 * Thread registration: a liburcu reader thread must be registered before its
 * first read lock. __tc_do_trace_<name>() registers the calling thread lazily
 * (tested with liburcu's per-thread "registered" flag, a TLS load); a thread
 * registered that way, or with tc_thread_register(), is unregistered by a
 * pthread key destructor when it exits. So an unregistered thread never
 * breaks; registering up front only moves the first-call cost (a mutex) out
 * of the first trace. Do not run a tracepoint from a signal handler in a
 * thread that may not be registered yet (the registration takes a mutex).
 *
 * The enabled path without per-call RCU tracking (issue 17, seed 003):
 *	TC_DEFINE_TRACEPOINT_QSBR(foo, ...);	// or _STATIC_QSBR
 * defines the same tracepoint (same site, same registration) whose
 * __tc_do_trace_<name>() has two read sides, chosen per call by one TLS
 * load: in a thread that is an online liburcu-qsbr reader
 * (tc_thread_qsbr_register()) it loads the probe array and calls the
 * probes with no read-side code at all; in any other thread it is the
 * urcu-memb dispatcher above. Grace periods (register, unregister,
 * tc_tracepoint_synchronize_unregister()) wait for both flavours, for every
 * tracepoint. Why QSBR and not a static call:
 *  - urcu-qsbr (liburcu README, "Usage of liburcu-qsbr"; urcu/static/
 *    urcu-qsbr.h): rcu_read_lock() and rcu_read_unlock() are empty (an
 *    assertion under DEBUG_RCU); a reader instead calls
 *    rcu_quiescent_state() "periodically", or rcu_thread_offline() before
 *    a long or blocking stretch, and synchronize_rcu() waits until every
 *    online registered thread has done one of these. The cost moves out of
 *    the event (two TLS stores and a barrier per call in memb) into the
 *    thread's main loop (an mfence per report), which is the seed's "the
 *    probe table almost never changes": the kernel makes the same trade
 *    with rcu_read_lock_sched_notrace(), a preempt-count increment whose
 *    grace period is a context switch, i.e. a quiescent state.
 *  - not a static call: the kernel's static_call (include/linux/
 *    static_call.h; tracepoints use it for a single probe since v5.10,
 *    tracepoint_update_call() in kernel/tracepoint.c) replaces the
 *    indirect call through it_func_ptr->func by a patched direct call,
 *    which pays off against retpolines. It does not remove the read side:
 *    __DO_TRACE() still runs it inside preempt_disable_notrace(), because
 *    unregistering must still wait until no CPU is inside the old probe.
 *    In userspace a thread can be preempted inside the probe as well, so a
 *    patched call would still need a grace period and hence read-side
 *    tracking; and without retpolines (our default, and glibc's) a
 *    predicted indirect call costs about one cycle. What was left to
 *    remove was the read side itself: QSBR.
 *  - a thread that never registers (or is offline) keeps today's memb
 *    path: nothing breaks for code that does not know about QSBR, and a
 *    thread that reports nothing is never a reader QSBR waits for. The
 *    price: an online QSBR thread that stops reporting (blocks in a read
 *    of a pipe, waits at a barrier the writer would release) stalls every
 *    register/unregister until it reports: go offline first.
 * What the enabled site executes (x86-64, gcc 12.2 -O2, objdump -dr of
 * build/subjects/toggle_staticq.o; loop_irq and __tc_do_trace_irq_disable):
 * at the site, the patched jmp to the out-of-line block, the toggle's own
 * state test, the ip/parent_ip set-up and the call:
 *	jmp 1f; 1: movzbl %fs:irq,%eax; movb $1,%fs:irq; test %al,%al; jne back
 *	mov 0x8(%rbp),%rsi; lea site(%rip),%rdi; call __tc_do_trace_irq_disable
 * then the dispatcher, 12 instructions, no frame, no store, no barrier:
 *	mov urcu_qsbr_reader@gottpoff(%rip),%rax; mov %rsi,%rdx
 *	cmpq $0,%fs:(%rax); je __tc_do_trace_memb_irq_disable	(offline)
 *	mov funcs(%rip),%rax; test %rax,%rax; je ret		(no probe)
 *	cmpq $0,0x10(%rax); jne __tc_do_trace_many_irq_disable	(2+ probes)
 *	mov 0x8(%rax),%rcx; mov %rdi,%rsi; mov (%rax),%rax; mov %rcx,%rdi
 *	jmp *%rax						(the probe)
 * and the probe, which returns straight to the site. static+'s dispatcher
 * (toggle_staticp.o) runs about 50 instructions for one probe: a frame of
 * five saved registers, the lazy-registration test, the nesting counter's
 * TLS load and store on lock and on unlock, three tests of the membarrier
 * mode, the grace-period futex test, and a real call of the probe. See
 * BENCHMARKS.md (bench/floor.sh) for the cost.
 *
 * Rules (callers):
 *  - probes run inside an RCU read-side critical section: they must not call
 *    tc_tracepoint_probe_register/unregister, tc_tracepoint_synchronize_
 *    unregister or anything else that waits for a grace period (deadlock);
 *  - register/unregister may sleep and wait for a grace period; not from
 *    signal handlers;
 *  - after tc_tracepoint_probe_unregister() (or, equivalently, after the
 *    following tc_tracepoint_synchronize_unregister()) returns 0, no thread
 *    is running or will run the probe for that registration, and its data
 *    may be freed.
 */
#ifndef TRACECOST_TRACEPOINT_H
#define TRACECOST_TRACEPOINT_H

#include <stdbool.h>
#include <stddef.h>
#include <urcu/urcu-memb.h>
#include <urcu/static/urcu-memb.h>
#include <urcu/static/urcu-qsbr.h>
#include <tracecost/compiler.h>
#include <tracecost/static_key.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * struct tc_probe - one attached probe
 * @func: void (*)(void *data, proto...), NULL in the terminator
 * @data: first argument passed to @func
 */
struct tc_probe {
	void *func;
	void *data;
};

/**
 * struct tc_tracepoint - a tracepoint
 * @name:  its name (the stringified @name of the DEFINE macro)
 * @key:   false static key, enabled iff at least one probe is attached
 *	   (the first registration enables it, the last unregistration
 *	   disables it; both under the tracepoint mutex)
 * @funcs: RCU-protected array of probes terminated by a NULL @func, or NULL
 *	   without probes. Replaced (copy, rcu_assign_pointer) under the
 *	   tracepoint mutex, never modified in place; read with a consume load
 *	   under the urcu-memb read lock; the old array is freed after a grace
 *	   period (synchronize_rcu).
 */
struct tc_tracepoint {
	const char *name;
	struct tc_static_key_false key;
	struct tc_probe *funcs;
};

#define TC_TRACEPOINT_INIT(str)	\
	{ .name = (str), .key = TC_STATIC_KEY_FALSE_INIT, .funcs = NULL }

/**
 * tc_tracepoint_probe_register() - attach a probe
 * @tp:    the tracepoint
 * @probe: function void (*)(void *data, proto...) of the tracepoint's proto
 * @data:  its first argument (any value, NULL included)
 *
 * The probe is called after those already attached. When it is the first,
 * the tracepoint's key is enabled (its sites patched) before this returns.
 * Takes the tracepoint mutex; may wait for a grace period (to free the
 * replaced array). Source: kernel/tracepoint.c tracepoint_probe_register().
 *
 * Return: 0; -EINVAL if @tp or @probe is NULL; -EEXIST if the same
 * @probe/@data pair is attached; -ENOMEM; or the error of
 * tc_static_key_enable() (then nothing is attached).
 */
int tc_tracepoint_probe_register(struct tc_tracepoint *tp, void *probe, void *data);

/**
 * tc_tracepoint_probe_unregister() - detach a probe
 * @tp:    the tracepoint
 * @probe: as registered
 * @data:  as registered
 *
 * When it was the last probe, the key is disabled first. Waits for a grace
 * period before returning 0, so the probe no longer runs for this
 * registration when it returns.
 *
 * Return: 0; -EINVAL if @tp or @probe is NULL; -ENOENT if the pair is not
 * attached; -ENOMEM (a smaller array could not be allocated); or the error
 * of tc_static_key_disable(). On error the probe stays attached.
 */
int tc_tracepoint_probe_unregister(struct tc_tracepoint *tp, void *probe, void *data);

/**
 * tc_tracepoint_synchronize_unregister() - wait for a grace period
 *
 * After it returns, no reader is still in a read-side critical section that
 * began before the call: no probe unregistered before the call is still
 * running. Costs one urcu-memb grace period (sys_membarrier). Must not be
 * called from a probe. Source: kernel tracepoint_synchronize_unregister().
 */
void tc_tracepoint_synchronize_unregister(void);

/**
 * tc_tracepoint_urcu_read_side() - the liburcu-memb read side in effect
 *
 * liburcu-memb decides at start-up (its constructor): with
 * MEMBARRIER_CMD_PRIVATE_EXPEDITED the read-side lock and unlock are
 * compiler barriers and synchronize_rcu() pays the membarrier; without it
 * (old kernel, seccomp) both lock and unlock run smp_mb(), silently.
 * Return: a static string saying which.
 */
const char *tc_tracepoint_urcu_read_side(void);

/**
 * tc_thread_register() - register the calling thread as an RCU reader
 *
 * Idempotent; does nothing if the thread is already registered with
 * liburcu-memb (by us or by its own rcu_register_thread()). A registration
 * made here (or lazily by a tracepoint) is undone automatically at thread
 * exit. Optional: tracepoints register lazily. Takes liburcu's registry
 * mutex (may wait for a grace period in progress).
 */
void tc_thread_register(void);

/**
 * tc_thread_unregister() - undo tc_thread_register() (or a lazy registration)
 *
 * Does nothing if the thread was not registered by this library. Must not be
 * called inside a probe or while a tracepoint runs on this thread. A later
 * tracepoint in this thread registers it again.
 */
void tc_thread_unregister(void);

/**
 * tc_thread_qsbr_register() - make the calling thread an online QSBR reader
 *
 * From now on the QSBR tracepoints (TC_DEFINE_TRACEPOINT_QSBR) run their
 * probes in this thread with no read-side code, and every grace period
 * waits until this thread calls tc_thread_quiescent() or
 * tc_thread_offline() (or unregisters). Call one of them regularly, and
 * go offline before anything that may block for long: an online thread
 * that reports nothing stalls every probe (un)registration. Idempotent;
 * undone at thread exit. Takes liburcu's registry mutex. Source: liburcu
 * README, "Usage of liburcu-qsbr".
 */
void tc_thread_qsbr_register(void);

/**
 * tc_thread_qsbr_unregister() - undo tc_thread_qsbr_register()
 *
 * Does nothing if the thread is not registered by this library. Not from a
 * probe. The QSBR tracepoints take the memb path in this thread afterwards.
 */
void tc_thread_qsbr_unregister(void);

/**
 * tc_thread_quiescent() - report a quiescent state (QSBR)
 *
 * The calling thread holds no reference to a probe array or a probe's
 * data from before this call. Costs about two full barriers when a grace
 * period is waiting for this thread, one load otherwise. Does nothing in a
 * thread that is not an online QSBR reader. Not from a probe.
 */
void tc_thread_quiescent(void);

/**
 * tc_thread_offline() - leave the QSBR read side until tc_thread_online()
 *
 * While offline, grace periods do not wait for this thread and its QSBR
 * tracepoints take the memb path (still correct). Does nothing in a thread
 * that is not a registered QSBR reader. Not from a probe.
 */
void tc_thread_offline(void);

/** tc_thread_online() - back on the QSBR read side after tc_thread_offline() */
void tc_thread_online(void);

/*
 * ThreadSanitizer cannot see a grace period made of membarrier(): every
 * read-side critical section ends with a release on tc_tp_tsan_gp and every
 * grace period with an acquire on it (lib/tracepoint.c), which is what RCU
 * guarantees (all that a reader did before its unlock happens before the
 * end of the grace period that waited for it). A QSBR reader releases when
 * it reports a quiescent state or goes offline (its read-side sections end
 * there). Compiled in with -fsanitize=thread only: the fast path is
 * unchanged otherwise.
 */
#if defined(__SANITIZE_THREAD__)
#define TC_TP_TSAN	1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define TC_TP_TSAN	1
#endif
#endif
#ifdef TC_TP_TSAN
void __tsan_release(void *addr);
void __tsan_acquire(void *addr);
extern char tc_tp_tsan_gp;
#endif

/* Internal: the read side of __tc_do_trace_<name>(). */
static tc_always_inline void __tc_tp_read_lock(void)
{
	if (tc_unlikely(!URCU_TLS(urcu_memb_reader).registered))
		tc_thread_register();
	_urcu_memb_read_lock();
}

static tc_always_inline void __tc_tp_read_unlock(void)
{
#ifdef TC_TP_TSAN
	__tsan_release(&tc_tp_tsan_gp);
#endif
	_urcu_memb_read_unlock();
}

/*
 * Internal: whether the calling thread is an online liburcu-qsbr reader
 * (its reader counter is 0 while offline or unregistered; only the thread
 * itself changes it).
 */
static tc_always_inline bool __tc_tp_qsbr_online(void)
{
	return URCU_TLS(urcu_qsbr_reader).ctr != 0;
}

#define TC_TP_PROTO(...)	(__VA_ARGS__)
#define TC_TP_ARGS(...)		(__VA_ARGS__)
#define __TC_TP_UNPAREN(...)	__VA_ARGS__

/*
 * The pieces; @name is already expanded when these run (the public macros
 * pass it through one more level). Each ends without a ';' so that the
 * user's own ';' completes it.
 */
#define __TC_TRACEPOINT_DECL(sc, name, proto, args)				\
	sc struct tc_tracepoint __tc_tp_##name;					\
	sc void __tc_do_trace_##name(__TC_TP_UNPAREN proto);			\
	static tc_always_inline tc_unused void tc_trace_##name(__TC_TP_UNPAREN proto)	\
	{									\
		if (tc_static_branch_unlikely(&__tc_tp_##name.key))		\
			__tc_do_trace_##name args;				\
	}									\
	static tc_always_inline tc_unused bool tc_trace_##name##_enabled(void)		\
	{									\
		return tc_static_branch_unlikely(&__tc_tp_##name.key);		\
	}									\
	static inline tc_unused int tc_register_trace_##name(				\
		void (*probe)(void *data, __TC_TP_UNPAREN proto), void *data)	\
	{									\
		return tc_tracepoint_probe_register(&__tc_tp_##name,		\
						    (void *)probe, data);	\
	}									\
	static inline tc_unused int tc_unregister_trace_##name(				\
		void (*probe)(void *data, __TC_TP_UNPAREN proto), void *data)	\
	{									\
		return tc_tracepoint_probe_unregister(&__tc_tp_##name,		\
						      (void *)probe, data);	\
	}									\
	sc struct tc_tracepoint __tc_tp_##name

/* Every probe of the array (rcu_dereference(): pairs with rcu_assign_pointer()). */
#define __TC_TP_CALL_PROBES(name, proto, args)					\
	do {									\
		const struct tc_probe *__tc_p;					\
										\
		__tc_p = __atomic_load_n(&__tc_tp_##name.funcs, __ATOMIC_CONSUME); \
		if (__tc_p) {							\
			do {							\
				((void (*)(void *, __TC_TP_UNPAREN proto))	\
				 __tc_p->func)(__tc_p->data, __TC_TP_UNPAREN args); \
			} while ((++__tc_p)->func);				\
		}								\
	} while (0)

/* The urcu-memb dispatch: probes inside a memb read-side critical section. */
#define __TC_TP_MEMB_DISPATCH(name, proto, args)				\
	do {									\
		/* No probes: return without touching the RCU read side. */	\
		if (!__atomic_load_n(&__tc_tp_##name.funcs, __ATOMIC_RELAXED))	\
			return;							\
		__tc_tp_read_lock();						\
		__TC_TP_CALL_PROBES(name, proto, args);				\
		__tc_tp_read_unlock();						\
	} while (0)

#define __TC_TRACEPOINT_DEF(sc, name, proto, args)				\
	sc tc_noinline void __tc_do_trace_##name(__TC_TP_UNPAREN proto)		\
	{									\
		__TC_TP_MEMB_DISPATCH(name, proto, args);			\
	}									\
	sc struct tc_tracepoint __tc_tp_##name = TC_TRACEPOINT_INIT(#name)

/*
 * QSBR flavour: an online QSBR thread calls the probes with no read-side
 * code (its next quiescent state ends the section); any other thread takes
 * the memb dispatch, out of line (__tc_do_trace_memb_<name>, cold). With
 * one probe attached (the common case) the probe is a tail call: the
 * dispatcher needs no frame and no saved register (the kernel's static
 * call for a single probe, without the patching); several probes are
 * walked out of line (__tc_do_trace_many_<name>, cold), re-reading the
 * array (any array published since is as valid: no grace period can end
 * before this thread's next quiescent state).
 */
#define __TC_TRACEPOINT_DEF_QSBR(sc, name, proto, args)			\
	static tc_noinline __attribute__((cold)) void				\
	__tc_do_trace_memb_##name(__TC_TP_UNPAREN proto)			\
	{									\
		__TC_TP_MEMB_DISPATCH(name, proto, args);			\
	}									\
	static tc_noinline __attribute__((cold)) void				\
	__tc_do_trace_many_##name(__TC_TP_UNPAREN proto)			\
	{									\
		__TC_TP_CALL_PROBES(name, proto, args);				\
	}									\
	sc tc_noinline void __tc_do_trace_##name(__TC_TP_UNPAREN proto)		\
	{									\
		const struct tc_probe *__tc_q;					\
										\
		if (tc_unlikely(!__tc_tp_qsbr_online())) {			\
			__tc_do_trace_memb_##name args;				\
			return;							\
		}								\
		__tc_q = __atomic_load_n(&__tc_tp_##name.funcs, __ATOMIC_CONSUME); \
		if (tc_unlikely(!__tc_q))					\
			return;							\
		if (tc_unlikely(__tc_q[1].func)) {				\
			__tc_do_trace_many_##name args;				\
			return;							\
		}								\
		((void (*)(void *, __TC_TP_UNPAREN proto))			\
		 __tc_q->func)(__tc_q->data, __TC_TP_UNPAREN args);		\
	}									\
	sc struct tc_tracepoint __tc_tp_##name = TC_TRACEPOINT_INIT(#name)

/**
 * TC_DECLARE_TRACEPOINT() - declare a tracepoint (in a header)
 * @name:  identifier, or a macro expanding to one
 * @proto: TC_TP_PROTO(type arg, ...), at least one parameter
 * @args:  TC_TP_ARGS(arg, ...), the parameter names
 */
#define TC_DECLARE_TRACEPOINT(name, proto, args) \
	__TC_TRACEPOINT_DECL(extern, name, proto, args)

/**
 * TC_DEFINE_TRACEPOINT() - define a declared tracepoint (in one .c file)
 * @name:  as declared
 * @proto: as declared
 * @args:  as declared
 */
#define TC_DEFINE_TRACEPOINT(name, proto, args) \
	__TC_TRACEPOINT_DEF(, name, proto, args)

/**
 * TC_DEFINE_TRACEPOINT_STATIC() - declare and define a file-local tracepoint
 * @name:  identifier, or a macro expanding to one
 * @proto: TC_TP_PROTO(...)
 * @args:  TC_TP_ARGS(...)
 */
#define TC_DEFINE_TRACEPOINT_STATIC(name, proto, args)				\
	__TC_TRACEPOINT_DECL(static tc_unused, name, proto, args);		\
	__TC_TRACEPOINT_DEF(static tc_unused, name, proto, args)

/**
 * TC_DEFINE_TRACEPOINT_QSBR() - define a declared tracepoint, QSBR dispatch
 * @name:  as declared (TC_DECLARE_TRACEPOINT: the site is the same)
 * @proto: as declared
 * @args:  as declared
 *
 * As TC_DEFINE_TRACEPOINT(), but in threads that are online QSBR readers
 * (tc_thread_qsbr_register()) the probes run with no read-side code.
 */
#define TC_DEFINE_TRACEPOINT_QSBR(name, proto, args) \
	__TC_TRACEPOINT_DEF_QSBR(, name, proto, args)

/**
 * TC_DEFINE_TRACEPOINT_STATIC_QSBR() - a file-local tracepoint, QSBR dispatch
 * @name:  identifier, or a macro expanding to one
 * @proto: TC_TP_PROTO(...)
 * @args:  TC_TP_ARGS(...)
 */
#define TC_DEFINE_TRACEPOINT_STATIC_QSBR(name, proto, args)			\
	__TC_TRACEPOINT_DECL(static tc_unused, name, proto, args);		\
	__TC_TRACEPOINT_DEF_QSBR(static tc_unused, name, proto, args)

/* Spellings that expand a macro @name: tc_trace(TC_CONCAT(p, foo), a, b). */
#define tc_trace(name, ...)		TC_CONCAT(tc_trace_, name)(__VA_ARGS__)
#define tc_trace_enabled(name)		TC_CONCAT(tc_trace_, TC_CONCAT(name, _enabled))()
#define tc_tracepoint_ptr(name)		(&TC_CONCAT(__tc_tp_, name))

#ifdef __cplusplus
}
#endif

#endif /* TRACECOST_TRACEPOINT_H */
