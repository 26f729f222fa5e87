// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * lib/noise.c - interference aimed at target CPUs: the events of
 * tracecost/noise.h enabled, filtered to the targets in the kernel, in the
 * private instance of a tracefs session (tc_tracefs_apply(), so the state
 * file and the supervisor's restore cover them), read back with
 * libtraceevent and grouped by cause.
 *
 * The filters follow the IPI-deferral series' own recording
 * (trace-cmd -e ipi_send_cpumask -f "cpumask & CPUS{$ISOL}" -e ipi_send_cpu
 * -f "cpu & CPUS{$ISOL}"); cpumask filters are in the kernel since v6.6
 * (Documentation/trace/events.rst, "Event filtering").
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <tracefs.h>

#include <tracecost/compiler.h>
#include <tracecost/noise.h>
#include <tracecost/profile.h>
#include <tracecost/tracefs.h>

#include "noise_local.h"

static int set_err(struct tc_noise *n, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int set_err(struct tc_noise *n, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(n->err, sizeof(n->err), fmt, ap);
	va_end(ap);
	return err;
}

/* The default events, in report order. */
static const struct {
	const char *system, *name;
	enum tc_noise_kind kind;
	bool ipi;
} defaults[] = {
	{ "ipi", "ipi_send_cpu", TC_NOISE_IPI_CPU, true },
	{ "ipi", "ipi_send_cpumask", TC_NOISE_IPI_MASK, true },
	{ "csd", "csd_queue_cpu", TC_NOISE_CSD_QUEUE, false },
	{ "csd", "csd_function_entry", TC_NOISE_CSD_FUNC, false },
	{ "tlb", "tlb_flush", TC_NOISE_TLB, false },
	{ "irq", "irq_handler_entry", TC_NOISE_IRQ, false },
	{ "sched", "sched_switch", TC_NOISE_SWITCH, false },
};

static bool have_event(struct tc_noise *n, const char *system, const char *name)
{
	return tracefs_event_file_exists(NULL, system, name, "enable");
}

int noise_add_event(struct tc_noise *n, const char *system, const char *name,
		    enum tc_noise_kind kind)
{
	struct tc_noise_event *e;
	int i;

	for (i = 0; i < n->nr_ev; i++)
		if (!strcmp(n->ev[i].system, system) && !strcmp(n->ev[i].name, name))
			return 0;
	if (n->nr_ev == TC_NOISE_MAX_EVENTS)
		return set_err(n, -ENOSPC, "more than %d events", TC_NOISE_MAX_EVENTS);
	if (strlen(system) >= sizeof(e->system) || strlen(name) >= sizeof(e->name))
		return set_err(n, -EINVAL, "event name '%s:%s' is too long", system, name);
	e = &n->ev[n->nr_ev++];
	memset(e, 0, sizeof(*e));
	strcpy(e->system, system);
	strcpy(e->name, name);
	e->kind = kind;
	e->is_ipi = kind == TC_NOISE_IPI_CPU || kind == TC_NOISE_IPI_MASK ||
		    kind == TC_NOISE_IPI_RAISE;
	return 0;
}

int noise_new_bare(struct tc_noise **np, const int *cpus, int nr)
{
	struct tc_noise *n;
	int i;

	*np = NULL;
	if (nr < 1 || nr > NOISE_MAX_CPUS)
		return -EINVAL;
	n = calloc(1, sizeof(*n));
	if (!n)
		return -ENOMEM;
	memset(n->idx, 0xff, sizeof(n->idx));
	for (i = 0; i < nr; i++) {
		if (cpus[i] < 0 || cpus[i] >= NOISE_MAX_CPUS || (i && cpus[i] <= cpus[i - 1])) {
			free(n);
			return -EINVAL;
		}
		n->cpus[i] = cpus[i];
		n->idx[cpus[i]] = (short)i;
	}
	n->nr_cpus = nr;
	n->pend = calloc((size_t)nr, sizeof(*n->pend));
	n->last_csd = calloc(NOISE_MAX_CPUS, sizeof(*n->last_csd));
	if (!n->pend || !n->last_csd) {
		free(n->pend);
		free(n->last_csd);
		free(n);
		return -ENOMEM;
	}
	*np = n;
	return 0;
}

/* Entries whose exit is also recorded: what runs in between is their cause. */
void noise_bracket(struct tc_noise *n)
{
	int i, j;

	for (i = 0; i < n->nr_ev; i++) {
		size_t l = strlen(n->ev[i].name);

		n->bracketed[i] = false;
		if (n->ev[i].kind != TC_NOISE_VECTOR || l < 6)
			continue;
		for (j = 0; j < n->nr_ev; j++)
			if (n->ev[j].kind == TC_NOISE_VECTOR_EXIT &&
			    !strncmp(n->ev[j].name, n->ev[i].name, l - 6) &&
			    !strcmp(n->ev[j].name + l - 6, "_exit"))
				n->bracketed[i] = true;
	}
}

/* Every irq_vectors:*_entry, and the exits that bracket call_function IPIs. */
static int add_vectors(struct tc_noise *n)
{
	char **list = tracefs_system_events(NULL, "irq_vectors");
	int i, err = 0;

	for (i = 0; list && list[i] && !err; i++) {
		size_t l = strlen(list[i]);

		if (l > 6 && !strcmp(list[i] + l - 6, "_entry"))
			err = noise_add_event(n, "irq_vectors", list[i], TC_NOISE_VECTOR);
	}
	for (i = 0; list && list[i] && !err; i++) {
		if (!strcmp(list[i], "call_function_exit") ||
		    !strcmp(list[i], "call_function_single_exit"))
			err = noise_add_event(n, "irq_vectors", list[i], TC_NOISE_VECTOR_EXIT);
	}
	tracefs_list_free(list);
	noise_bracket(n);
	return err;
}

static int add_extra(struct tc_noise *n, const char *extra)
{
	char *copy, *tok, *save;
	int err = 0;

	if (!extra)
		return 0;
	if (!*extra || extra[strlen(extra) - 1] == ',')
		return set_err(n, -EINVAL, "--events: empty name in '%s'", extra);
	copy = strdup(extra);
	if (!copy)
		return set_err(n, -ENOMEM, "out of memory");
	for (tok = strtok_r(copy, ",", &save); tok && !err; tok = strtok_r(NULL, ",", &save)) {
		char *colon = strchr(tok, ':');
		const char *p;

		for (p = tok; *p; p++)
			if (!(*p == '_' || *p == ':' || (*p >= 'a' && *p <= 'z') ||
			      (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9')))
				break;
		if (!colon || colon == tok || !colon[1] || strchr(colon + 1, ':') || *p) {
			err = set_err(n, -EINVAL, "--events: '%s' is not SYSTEM:EVENT", tok);
			break;
		}
		*colon = 0;
		if (!have_event(n, tok, colon + 1)) {
			err = set_err(n, -EINVAL, "--events: no event %s:%s in this kernel",
				      tok, colon + 1);
			break;
		}
		err = noise_add_event(n, tok, colon + 1, TC_NOISE_OTHER);
		if (err == -EINVAL || err == -ENOSPC)
			err = set_err(n, -EINVAL, "--events: %s", n->err);
	}
	free(copy);
	return err;
}

/*
 * Before v6.6 no event names the target of an x86 IPI on the sending side
 * (ipi_raise is arm's): the IPI vectors taken on the target count instead.
 */
static void mark_received_ipis(struct tc_noise *n)
{
	int i;

	n->ipis_received = true;
	for (i = 0; i < n->nr_ev; i++)
		if (!strcmp(n->ev[i].system, "irq_vectors") &&
		    (!strcmp(n->ev[i].name, "call_function_entry") ||
		     !strcmp(n->ev[i].name, "call_function_single_entry") ||
		     !strcmp(n->ev[i].name, "reschedule_entry")))
			n->ev[i].is_ipi = true;
}

bool tc_noise_ipis_received(const struct tc_noise *n)
{
	return n->ipis_received;
}

int tc_noise_new(struct tc_noise **np, struct tc_tracefs *t, const int *cpus, int nr,
		 const char *extra)
{
	struct tc_noise *n;
	size_t i;
	int err;

	err = noise_new_bare(np, cpus, nr);
	if (err)
		return err;
	n = *np;
	n->t = t;
	for (i = 0; i < TC_ARRAY_SIZE(defaults) && !err; i++) {
		/* sender-side IPI events first; the csd/irq ones follow */
		if (i == 2 && !n->nr_ev && have_event(n, "ipi", "ipi_raise"))
			err = noise_add_event(n, "ipi", "ipi_raise", TC_NOISE_IPI_RAISE);
		if (!err && have_event(n, defaults[i].system, defaults[i].name))
			err = noise_add_event(n, defaults[i].system, defaults[i].name,
					      defaults[i].kind);
		if (!err && i == 5)
			err = add_vectors(n);
	}
	if (!err && !have_event(n, "ipi", "ipi_send_cpu") && !have_event(n, "ipi", "ipi_send_cpumask"))
		mark_received_ipis(n);
	if (!err)
		err = add_extra(n, extra);
	if (!err && !n->nr_ev)
		err = set_err(n, -ENOENT, "none of the ipi, csd, irq, irq_vectors, tlb and sched "
			      "events is in this kernel (needs CONFIG_TRACEPOINTS)");
	return err;
}

void tc_noise_free(struct tc_noise *n)
{
	if (!n)
		return;
	if (n->tep)
		tep_free(n->tep);
	if (n->inst)
		tracefs_instance_free(n->inst);
	free(n->pend);
	free(n->last_csd);
	free(n->acc);
	free(n->rows);
	free(n);
}

const char *tc_noise_error(const struct tc_noise *n)
{
	return n ? n->err : "out of memory";
}

const struct tc_noise_event *tc_noise_events(const struct tc_noise *n, int *nr)
{
	*nr = n->nr_ev;
	return n->ev;
}

bool tc_noise_cpumask_filters(const struct tc_noise *n)
{
	return n->cpumask_ok;
}

/* ---- filters ---------------------------------------------------------- */

static void cpulist(const struct tc_noise *n, char *buf, size_t len)
{
	size_t off = 0;
	int i = 0;

	buf[0] = 0;
	while (i < n->nr_cpus && off < len) {
		int j = i;

		while (j + 1 < n->nr_cpus && n->cpus[j + 1] == n->cpus[j] + 1)
			j++;
		if (j > i)
			off += (size_t)snprintf(buf + off, len - off, "%s%d-%d", off ? "," : "",
						n->cpus[i], n->cpus[j]);
		else
			off += (size_t)snprintf(buf + off, len - off, "%s%d", off ? "," : "",
						n->cpus[i]);
		i = j + 1;
	}
}

/* "F == a || F == b" */
static void equality(const struct tc_noise *n, const char *field, char *buf, size_t len)
{
	size_t off = 0;
	int i;

	buf[0] = 0;
	for (i = 0; i < n->nr_cpus && off < len; i++)
		off += (size_t)snprintf(buf + off, len - off, "%s%s == %d", i ? " || " : "",
					field, n->cpus[i]);
}

static void make_filters(struct tc_noise *n, bool cpumask)
{
	char list[256], on_cpu[400], tmp[400];
	int i, j;

	cpulist(n, list, sizeof(list));
	if (cpumask)
		snprintf(on_cpu, sizeof(on_cpu), "CPU & CPUS{%s}", list);
	else
		equality(n, "CPU", on_cpu, sizeof(on_cpu));
	for (i = 0; i < n->nr_ev; i++) {
		struct tc_noise_event *e = &n->ev[i];
		size_t off;

		switch (e->kind) {
		case TC_NOISE_IPI_CPU:
		case TC_NOISE_CSD_QUEUE:
			if (cpumask)
				snprintf(e->filter, sizeof(e->filter), "cpu & CPUS{%s}", list);
			else
				equality(n, "cpu", e->filter, sizeof(e->filter));
			break;
		case TC_NOISE_IPI_MASK:
			if (cpumask)
				snprintf(e->filter, sizeof(e->filter), "cpumask & CPUS{%s}", list);
			else
				e->filter[0] = 0;	/* matched here */
			break;
		case TC_NOISE_IPI_RAISE:
			if (cpumask)
				snprintf(e->filter, sizeof(e->filter), "target_cpus & CPUS{%s}",
					 list);
			else
				e->filter[0] = 0;
			break;
		case TC_NOISE_SWITCH:
			off = (size_t)snprintf(e->filter, sizeof(e->filter), "(%s)", on_cpu);
			for (j = 0; j < n->nr_own && off < sizeof(e->filter); j++)
				off += (size_t)snprintf(e->filter + off, sizeof(e->filter) - off,
							" && next_pid != %d", (int)n->own[j]);
			break;
		default:
			snprintf(tmp, sizeof(tmp), "%s", on_cpu);
			snprintf(e->filter, sizeof(e->filter), "%s", tmp);
			break;
		}
	}
}

static int apply(struct tc_noise *n)
{
	struct tc_profile p;
	int i, err = 0;

	memset(&p, 0, sizeof(p));
	snprintf(p.name, sizeof(p.name), "noise");
	snprintf(p.summary, sizeof(p.summary), "interference aimed at the target CPUs");
	/*
	 * No buffer_size_kb: an instance gets the default size when it is
	 * created, and on v6.1 resizing any instance sets the kernel's global
	 * ring_buffer_expanded without expanding the top-level buffer, which
	 * then stays at its boot-time 7 KB per CPU for every later user
	 * (kernel/trace/trace.c, __tracing_resize_ring_buffer()).
	 */
	p.available = true;
	for (i = 0; i < n->nr_ev && !err; i++)
		err = tc_profile_add_event(&p, n->ev[i].system, n->ev[i].name,
					   n->ev[i].filter[0] ? n->ev[i].filter : NULL);
	if (err) {
		tc_profile_release(&p);
		return set_err(n, err, "noise events: %s", strerror(-err));
	}
	err = tc_tracefs_apply(n->t, &p);
	tc_profile_release(&p);
	if (err)
		return set_err(n, err, "%s", tc_tracefs_error(n->t));
	return 0;
}

static int open_reader(struct tc_noise *n)
{
	const char *systems[TC_NOISE_MAX_EVENTS + 1];
	int i, j, nr = 0;

	for (i = 0; i < n->nr_ev; i++) {
		for (j = 0; j < nr && strcmp(systems[j], n->ev[i].system); j++)
			;
		if (j == nr)
			systems[nr++] = n->ev[i].system;
	}
	systems[nr] = NULL;
	n->tep = tracefs_local_events_system(tc_tracefs_dir(n->t), systems);
	if (!n->tep)
		return set_err(n, -EIO, "cannot read the event formats in %s",
			       tc_tracefs_dir(n->t));
	for (i = 0; i < n->nr_ev; i++) {
		struct tep_event *ev = tep_find_event_by_name(n->tep, n->ev[i].system,
							      n->ev[i].name);

		n->ev_id[i] = ev ? ev->id : -1;
	}
	n->inst = tracefs_instance_alloc(tc_tracefs_dir(n->t),
					 tc_tracefs_instance_name(n->t));
	if (!n->inst)
		return set_err(n, -ENOMEM, "out of memory");
	return 0;
}

/*
 * Cpumask filters (v6.6+: "cpumask & CPUS{1}", "CPU & CPUS{1}") in place of
 * the CPU equalities, where the kernel takes them; ipi_send_cpumask is only
 * filtered in the kernel this way. The first refusal puts the equalities
 * back. Tracing is off meanwhile; changing trace_clock next clears the buffer.
 */
static void upgrade_filters(struct tc_noise *n)
{
	struct tc_noise_event legacy[TC_NOISE_MAX_EVENTS];
	int i;

	memcpy(legacy, n->ev, sizeof(legacy));
	make_filters(n, true);
	tracefs_trace_off(n->inst);
	n->cpumask_ok = true;
	for (i = 0; i < n->nr_ev && n->cpumask_ok; i++) {
		if (!strcmp(legacy[i].filter, n->ev[i].filter))
			continue;
		if (tracefs_event_file_write(n->inst, n->ev[i].system, n->ev[i].name, "filter",
					     n->ev[i].filter) < 0)
			n->cpumask_ok = false;
	}
	if (!n->cpumask_ok) {
		for (i = 0; i < n->nr_ev; i++) {
			tracefs_event_file_write(n->inst, n->ev[i].system, n->ev[i].name, "filter",
						 legacy[i].filter[0] ? legacy[i].filter : "0");
			snprintf(n->ev[i].filter, sizeof(n->ev[i].filter), "%s", legacy[i].filter);
		}
	}
	tracefs_trace_on(n->inst);
}

int tc_noise_start(struct tc_noise *n, const pid_t *own, int nr_own)
{
	int err;

	n->err[0] = 0;
	if (nr_own > NOISE_MAX_OWN)
		return set_err(n, -EINVAL, "more than %d loop threads", NOISE_MAX_OWN);
	n->nr_own = nr_own;
	if (nr_own)
		memcpy(n->own, own, sizeof(*own) * (size_t)nr_own);
	/*
	 * First the filters every kernel takes, so that a refused filter never
	 * aborts an apply: on v6.1 removing an instance before any event was
	 * enabled in it (current_tracer nop) marks the ring buffers expanded
	 * and leaves the top-level one at its boot-time 7 KB per CPU.
	 */
	n->cpumask_ok = false;
	make_filters(n, false);
	err = apply(n);
	if (err)
		return err;
	err = open_reader(n);
	if (!err)
		upgrade_filters(n);
	if (!err && tracefs_instance_file_write(n->inst, "trace_clock", "mono") < 0)
		err = set_err(n, -EIO, "trace_clock mono: %s", strerror(errno));
	if (err) {
		tc_tracefs_unapply(n->t);
		return err;
	}
	n->started = true;
	return 0;
}

/* ---- grouping ---------------------------------------------------------- */

static struct noise_acc *acc_find(struct tc_noise *n, int cpu, int event, uint64_t addr,
				  uint64_t site, const char *str)
{
	struct noise_acc *a;
	int i;

	for (i = n->nr_acc - 1; i >= 0; i--) {
		a = &n->acc[i];
		if (a->cpu == cpu && a->event == event && a->addr == addr && a->site == site &&
		    (addr || !strcmp(a->str, str)))
			return a;
	}
	if (n->nr_acc == NOISE_MAX_ACC)
		return NULL;
	if (n->nr_acc == n->cap_acc) {
		int cap = n->cap_acc ? n->cap_acc * 2 : 64;
		struct noise_acc *na = realloc(n->acc, sizeof(*na) * (size_t)cap);

		if (!na)
			return NULL;
		n->acc = na;
		n->cap_acc = cap;
	}
	a = &n->acc[n->nr_acc++];
	memset(a, 0, sizeof(*a));
	a->cpu = cpu;
	a->event = event;
	a->addr = addr;
	a->site = site;
	if (!addr)
		snprintf(a->str, sizeof(a->str), "%s", str ? str : "");
	return a;
}

static int count(struct tc_noise *n, int cpu, int event, uint64_t ts, uint64_t addr,
		 uint64_t site, const char *str)
{
	struct noise_acc *a = acc_find(n, cpu, event, addr, site, str);

	if (!a)
		return set_err(n, -ENOMEM, "too many distinct causes (more than %d)",
			       NOISE_MAX_ACC);
	if (!a->count++)
		a->first = ts;
	a->last = ts;
	return 0;
}

static int commit(struct tc_noise *n, int cpu)
{
	struct noise_pending *p = &n->pend[n->idx[cpu]];
	int err;

	if (!p->open)
		return 0;
	p->open = false;
	err = count(n, cpu, p->event, p->ts, p->addr, 0, p->str);
	return err;
}

int noise_flush_pending(struct tc_noise *n)
{
	int i, err = 0;

	for (i = 0; i < n->nr_cpus && !err; i++)
		err = commit(n, n->cpus[i]);
	return err;
}

/* A cause seen inside an open vector entry names that entry's cause. */
static void refine(struct tc_noise *n, int cpu, int prio, uint64_t addr, const char *what,
		   const char *str)
{
	struct noise_pending *p = &n->pend[n->idx[cpu]];

	if (!p->open || prio <= p->prio)
		return;
	p->prio = prio;
	p->addr = addr;
	if (addr)
		p->str[0] = 0;
	else
		snprintf(p->str, sizeof(p->str), "%s: %s", what, str);
}

static bool in_targets(const struct tc_noise *n, int cpu)
{
	return cpu >= 0 && cpu < NOISE_MAX_CPUS && n->idx[cpu] >= 0;
}

int noise_account(struct tc_noise *n, const struct noise_rec *r)
{
	const struct tc_noise_event *e;
	int i, err = 0;

	if (r->event < 0 || r->event >= n->nr_ev)
		return 0;
	e = &n->ev[r->event];
	switch (e->kind) {
	case TC_NOISE_IPI_CPU:
	case TC_NOISE_CSD_QUEUE: {
		struct noise_csd *q = r->cpu >= 0 && r->cpu < NOISE_MAX_CPUS ?
				      &n->last_csd[r->cpu] : NULL;
		uint64_t addr = r->addr, site = r->site;

		if (q && e->kind == TC_NOISE_CSD_QUEUE) {
			/* the IPI this queueing sends, if any, comes next on this CPU */
			q->target = r->target;
			q->func = r->addr;
		} else if (q) {
			/*
			 * ipi_send_cpu of a queued callback names the generic
			 * handler; the csd_queue_cpu just before names the callback
			 */
			if (q->func && q->target == r->target)
				addr = q->func;
			q->func = 0;
		}
		if (!in_targets(n, r->target)) {
			n->unmatched++;
			return 0;
		}
		return count(n, r->target, r->event, r->ts, addr ? addr : site, addr ? site : 0,
			     r->str);
	}
	case TC_NOISE_IPI_MASK:
	case TC_NOISE_IPI_RAISE: {
		bool any = false;

		for (i = 0; i < n->nr_cpus && !err; i++) {
			int c = n->cpus[i];
			size_t w = (size_t)c / (8 * sizeof(long));

			if ((int)((w + 1) * sizeof(long)) > r->mask_bytes)
				break;
			if (!(r->mask[w] & (1UL << (c % (8 * sizeof(long))))))
				continue;
			any = true;
			err = count(n, c, r->event, r->ts, r->addr ? r->addr : r->site,
				    r->addr ? r->site : 0, r->str);
		}
		if (!any)
			n->unmatched++;
		return err;
	}
	default:
		break;
	}
	/* recorded on the target */
	if (!in_targets(n, r->cpu)) {
		n->unmatched++;
		return 0;
	}
	switch (e->kind) {
	case TC_NOISE_VECTOR: {
		struct noise_pending *p = &n->pend[n->idx[r->cpu]];

		err = commit(n, r->cpu);
		if (err || !n->bracketed[r->event])
			return err ? err : count(n, r->cpu, r->event, r->ts, 0, 0, r->str);
		p->open = true;
		p->event = r->event;
		p->ts = r->ts;
		p->addr = 0;
		p->prio = 0;
		snprintf(p->str, sizeof(p->str), "%s", r->str ? r->str : "");
		return err;
	}
	case TC_NOISE_VECTOR_EXIT:
		return commit(n, r->cpu);
	case TC_NOISE_TLB:
		refine(n, r->cpu, 1, 0, "tlb_flush", r->str ? r->str : "");
		break;
	case TC_NOISE_CSD_FUNC:
		if (r->addr)
			refine(n, r->cpu, 2, r->addr, "", "");
		break;
	default:
		break;
	}
	return count(n, r->cpu, r->event, r->ts, r->addr, 0, r->str);
}

/* ---- reading ----------------------------------------------------------- */

static uint64_t field_u64(struct tep_event *ev, struct tep_record *rec, const char *name,
			  bool *ok)
{
	unsigned long long v = 0;

	*ok = !tep_get_field_val(NULL, ev, name, rec, &v, 0);
	return v;
}

static const char *field_str(struct tep_event *ev, struct tep_record *rec, const char *name,
			     char *buf, size_t len)
{
	int l = 0;
	const char *s = tep_get_field_raw(NULL, ev, name, rec, &l, 0);

	if (!s || l <= 0)
		return NULL;
	snprintf(buf, len, "%.*s", l, s);
	return buf;
}

/* The text after "KEY:" in the event's printed line, up to " (" or the end. */
static const char *printed(struct tc_noise *n, struct tep_record *rec, const char *key,
			   char *buf, size_t len)
{
	struct trace_seq s;
	const char *p, *q;

	trace_seq_init(&s);
	tep_print_event(n->tep, &s, rec, "%s", TEP_PRINT_INFO);
	trace_seq_terminate(&s);
	buf[0] = 0;
	p = s.buffer ? strstr(s.buffer, key) : NULL;
	if (p) {
		p += strlen(key);
		q = strstr(p, " (");
		snprintf(buf, len, "%.*s", q ? (int)(q - p) : (int)strlen(p), p);
	}
	trace_seq_destroy(&s);
	return buf;
}

static int on_record(struct tep_event *ev, struct tep_record *rec, int cpu, void *arg)
{
	struct tc_noise *n = arg;
	struct noise_rec r = { .event = -1, .cpu = cpu, .ts = rec->ts, .target = -1 };
	char buf[TC_NOISE_CAUSE_MAX], buf2[TC_NOISE_CAUSE_MAX];
	static const char *const other_fields[] = {
		"callback", "func", "function", "name", "reason", "vector", "next_comm", "comm",
	};
	struct tep_format_field *f;
	bool ok;
	int i;

	for (i = 0; i < n->nr_ev; i++)
		if (n->ev_id[i] == ev->id)
			break;
	if (i == n->nr_ev)
		return 0;
	r.event = i;
	switch (n->ev[i].kind) {
	case TC_NOISE_IPI_CPU:
		r.target = (int)field_u64(ev, rec, "cpu", &ok);
		r.addr = field_u64(ev, rec, "callback", &ok);
		r.site = field_u64(ev, rec, "callsite", &ok);
		break;
	case TC_NOISE_IPI_MASK:
		r.mask = tep_get_field_raw(NULL, ev, "cpumask", rec, &r.mask_bytes, 0);
		r.addr = field_u64(ev, rec, "callback", &ok);
		r.site = field_u64(ev, rec, "callsite", &ok);
		break;
	case TC_NOISE_IPI_RAISE:
		r.mask = tep_get_field_raw(NULL, ev, "target_cpus", rec, &r.mask_bytes, 0);
		r.str = field_str(ev, rec, "reason", buf, sizeof(buf));
		break;
	case TC_NOISE_CSD_QUEUE:
		r.target = (int)field_u64(ev, rec, "cpu", &ok);
		r.addr = field_u64(ev, rec, "func", &ok);
		r.site = field_u64(ev, rec, "callsite", &ok);
		break;
	case TC_NOISE_CSD_FUNC:
		r.addr = field_u64(ev, rec, "func", &ok);
		break;
	case TC_NOISE_IRQ:
		field_str(ev, rec, "name", buf2, sizeof(buf2));
		snprintf(buf, sizeof(buf), "%.100s (irq %llu)", buf2,
			 (unsigned long long)field_u64(ev, rec, "irq", &ok));
		r.str = buf;
		break;
	case TC_NOISE_VECTOR:
		snprintf(buf, sizeof(buf), "vector %llu",
			 (unsigned long long)field_u64(ev, rec, "vector", &ok));
		r.str = buf;
		break;
	case TC_NOISE_TLB:
		r.str = printed(n, rec, "reason:", buf, sizeof(buf));
		break;
	case TC_NOISE_SWITCH: {
		unsigned long long next = field_u64(ev, rec, "next_pid", &ok);
		int j;

		for (j = 0; j < n->nr_own; j++)
			if ((pid_t)next == n->own[j])
				return 0;
		r.str = field_str(ev, rec, "next_comm", buf, sizeof(buf));
		break;
	}
	case TC_NOISE_OTHER:
		r.str = "-";
		for (i = 0; i < (int)TC_ARRAY_SIZE(other_fields); i++) {
			f = tep_find_field(ev, other_fields[i]);
			if (!f)
				continue;
			if ((f->flags & TEP_FIELD_IS_POINTER) || ((f->flags & TEP_FIELD_IS_LONG) &&
			    strstr(other_fields[i], "func"))) {
				r.addr = field_u64(ev, rec, other_fields[i], &ok);
				r.str = NULL;
			} else if (f->flags & (TEP_FIELD_IS_STRING | TEP_FIELD_IS_ARRAY |
					       TEP_FIELD_IS_DYNAMIC)) {
				r.str = field_str(ev, rec, other_fields[i], buf, sizeof(buf));
			} else {
				snprintf(buf, sizeof(buf), "%s %llu", other_fields[i],
					 (unsigned long long)field_u64(ev, rec, other_fields[i],
								       &ok));
				r.str = buf;
			}
			break;
		}
		break;
	default:
		break;
	}
	return noise_account(n, &r) ? -1 : 0;
}

int tc_noise_drain(struct tc_noise *n)
{
	if (!n->started)
		return set_err(n, -ENOENT, "not started");
	n->err[0] = 0;
	errno = 0;
	if (tracefs_iterate_raw_events(n->tep, n->inst, NULL, 0, on_record, n)) {
		int e = errno;

		if (n->err[0])
			return -ENOMEM;
		return set_err(n, e == EINTR ? -EINTR : -EIO,
			       "reading the buffer of instance %s failed: %s",
			       tc_tracefs_instance_name(n->t), e ? strerror(e) : "no detail");
	}
	return 0;
}

/* ---- symbols ----------------------------------------------------------- */

struct sym_want {
	uint64_t addr;
	uint64_t best;
	char name[TC_NOISE_CAUSE_MAX];
};

struct syms {
	struct sym_want *v;
	int nr;
};

static void want(struct syms *s, uint64_t addr)
{
	int i;

	if (!addr)
		return;
	for (i = 0; i < s->nr; i++)
		if (s->v[i].addr == addr)
			return;
	if (s->nr % 64 == 0) {
		struct sym_want *v = realloc(s->v, sizeof(*v) * (size_t)(s->nr + 64));

		if (!v)
			return;
		s->v = v;
	}
	memset(&s->v[s->nr], 0, sizeof(s->v[0]));
	s->v[s->nr++].addr = addr;
}

/* One pass over /proc/kallsyms: the nearest text symbol at or below each address. */
static void load_syms(struct syms *s)
{
	FILE *f = fopen("/proc/kallsyms", "r");
	char line[512], name[256], type;
	unsigned long long a;
	int i;

	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx %c %255s", &a, &type, name) != 3 || !a)
			continue;
		if (type != 't' && type != 'T')
			continue;
		for (i = 0; i < s->nr; i++) {
			if (a <= s->v[i].addr && a >= s->v[i].best) {
				s->v[i].best = a;
				snprintf(s->v[i].name, sizeof(s->v[i].name), "%.120s", name);
			}
		}
	}
	fclose(f);
}

static void resolve_kallsyms(void *ctx, uint64_t addr, char *buf, size_t len)
{
	const struct syms *s = ctx;
	int i;

	for (i = 0; i < s->nr; i++) {
		if (s->v[i].addr == addr && s->v[i].name[0]) {
			snprintf(buf, len, "%s", s->v[i].name);
			return;
		}
	}
	snprintf(buf, len, "0x%llx", (unsigned long long)addr);
}

static int cmp_row(const void *a, const void *b)
{
	const struct tc_noise_row *x = a, *y = b;

	if (x->cpu != y->cpu)
		return x->cpu < y->cpu ? -1 : 1;
	if (x->event != y->event)
		return x->event < y->event ? -1 : 1;
	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return strcmp(x->cause, y->cause);
}

int noise_build_rows(struct tc_noise *n,
		     void (*resolve)(void *ctx, uint64_t addr, char *buf, size_t len), void *ctx)
{
	int i, j;

	free(n->rows);
	n->nr_rows = 0;
	n->rows = calloc((size_t)(n->nr_acc ? n->nr_acc : 1), sizeof(*n->rows));
	if (!n->rows)
		return set_err(n, -ENOMEM, "out of memory");
	for (i = 0; i < n->nr_acc; i++) {
		const struct noise_acc *a = &n->acc[i];
		struct tc_noise_row r = { .cpu = a->cpu, .event = a->event, .count = a->count,
					  .first_ns = a->first, .last_ns = a->last };

		if (a->addr)
			resolve(ctx, a->addr, r.cause, sizeof(r.cause));
		else
			snprintf(r.cause, sizeof(r.cause), "%s", a->str[0] ? a->str : "-");
		if (a->site)
			resolve(ctx, a->site, r.callsite, sizeof(r.callsite));
		/* addresses inside one function are one cause */
		for (j = 0; j < n->nr_rows; j++) {
			struct tc_noise_row *o = &n->rows[j];

			if (o->cpu == r.cpu && o->event == r.event && !strcmp(o->cause, r.cause) &&
			    !strcmp(o->callsite, r.callsite)) {
				o->count += r.count;
				if (r.first_ns < o->first_ns)
					o->first_ns = r.first_ns;
				if (r.last_ns > o->last_ns)
					o->last_ns = r.last_ns;
				break;
			}
		}
		if (j == n->nr_rows)
			n->rows[n->nr_rows++] = r;
	}
	qsort(n->rows, (size_t)n->nr_rows, sizeof(*n->rows), cmp_row);
	return 0;
}

static uint64_t stat_field(const char *s, const char *key)
{
	const char *p = strstr(s, key);

	return p ? strtoull(p + strlen(key), NULL, 10) : 0;
}

int tc_noise_stop(struct tc_noise *n)
{
	struct syms syms = { NULL, 0 };
	long cpus = sysconf(_SC_NPROCESSORS_CONF), cpu;
	int err = 0, i;

	if (!n->started)
		return set_err(n, -ENOENT, "not started");
	tracefs_trace_off(n->inst);
	err = tc_noise_drain(n);
	for (cpu = 0; cpu < cpus; cpu++) {
		char file[64], *s;

		snprintf(file, sizeof(file), "per_cpu/cpu%ld/stats", cpu);
		s = tracefs_instance_file_read(n->inst, file, NULL);
		if (!s)
			continue;
		n->lost += stat_field(s, "\noverrun:") + stat_field(s, "dropped events:");
		free(s);
	}
	if (!err)
		err = noise_flush_pending(n);
	n->started = false;
	if (tc_tracefs_unapply(n->t) && !err)
		err = set_err(n, -EIO, "%s", tc_tracefs_error(n->t));
	for (i = 0; i < n->nr_acc; i++) {
		want(&syms, n->acc[i].addr);
		want(&syms, n->acc[i].site);
	}
	if (syms.nr)
		load_syms(&syms);
	if (noise_build_rows(n, resolve_kallsyms, &syms) && !err)
		err = -ENOMEM;
	free(syms.v);
	return err;
}

const struct tc_noise_row *tc_noise_rows(const struct tc_noise *n, int *nr)
{
	*nr = n->nr_rows;
	return n->rows;
}

uint64_t tc_noise_lost(const struct tc_noise *n)
{
	return n->lost;
}

/* ---- isolation ---------------------------------------------------------- */

static bool in_cpulist_file(const char *path, int cpu)
{
	char buf[1024], *p, *save;
	FILE *f = fopen(path, "r");
	bool in = false;

	if (!f)
		return false;
	if (fgets(buf, sizeof(buf), f)) {
		for (p = strtok_r(buf, ",\n", &save); p; p = strtok_r(NULL, ",\n", &save)) {
			int a, b;

			if (sscanf(p, "%d-%d", &a, &b) == 2) {
				if (cpu >= a && cpu <= b)
					in = true;
			} else if (sscanf(p, "%d", &a) == 1 && a == cpu) {
				in = true;
			}
		}
	}
	fclose(f);
	return in;
}

bool tc_noise_cpu_isolation(int cpu, char *buf, size_t len)
{
	bool nohz = in_cpulist_file("/sys/devices/system/cpu/nohz_full", cpu);
	bool iso = in_cpulist_file("/sys/devices/system/cpu/isolated", cpu);
	char cmd[4096] = "", flags[128] = "";
	FILE *f = fopen("/proc/cmdline", "r");
	const char *p;

	if (f) {
		if (!fgets(cmd, sizeof(cmd), f))
			cmd[0] = 0;
		fclose(f);
	}
	p = strstr(cmd, "isolcpus=");
	if (p) {
		const char *q = p + strlen("isolcpus="), *s = q;
		const char *end = q + strcspn(q, " \n");
		const char *last = NULL;

		/* flags are the words before the CPU list: "nohz,domain,1" */
		while (s < end) {
			if (*s >= '0' && *s <= '9') {
				last = s;
				break;
			}
			s += strcspn(s, ",") + 1;
		}
		if (last && last > q + 1)
			snprintf(flags, sizeof(flags), " (%.*s)", (int)(last - q - 1), q);
	}
	buf[0] = 0;
	if (nohz && iso)
		snprintf(buf, len, "nohz_full, isolcpus%s", flags);
	else if (nohz)
		snprintf(buf, len, "nohz_full");
	else if (iso)
		snprintf(buf, len, "isolcpus%s", flags);
	return nohz || iso;
}
