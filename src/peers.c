// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * src/peers.c - "tracecost run --suite user --peers all|LIST": the real
 * peers of our static keys as columns of the same run, from the one table
 * subjects/peers.def (the --peers names, the columns, what each needs),
 * their consumers set up, counted and torn down through each peer's
 * struct tc_peer_ops (src/peer_<peer>.c: lttng, usdt, floor), and the
 * peer tables and result-file object.
 *
 *  lttng:  lttng and lttng+ (a private session daemon, src/peer_lttng.c)
 *  usdt:   usdt, usdt-s (semaphore), and as root usdt+ and usdt-s+
 *	    (uprobes, src/peer_usdt.c)
 *  flag:   flag and flag+ (recording probe through the same dispatch as
 *	    static+)
 *  floor:  a counter read (rdtsc) + a 32-byte store into a per-thread ring
 *	    at every toggle (src/peer_floor.c counts the rings)
 *
 * A peer that was not built (its needs missing at build time) is a column
 * saying "not built"; an enabled column that cannot be set up says why and
 * is not sampled; the other columns run.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "peer_ops.h"
#include "peers.h"
#include "size_table.h"
#include "../subjects/peer_subject.h"

/* The peers (--peers names) of subjects/peers.def, with their ops if any. */
#define TC_PEER(name, needs, missing, debs) PEER_##name,
#define TC_PEER_COLUMN(peer, kind, var, id, name, on, twin, count)
enum {
#include "../subjects/peers.def"
	NR_PEERS
};
#undef TC_PEER

#define TC_PEER(name, needs, missing, debs) \
	extern const struct tc_peer_ops tc_peer_ops_##name __attribute__((weak));
#include "../subjects/peers.def"
#undef TC_PEER

static const struct peer {
	const char *name;
	const char *missing;		/* named in "not built (... missing at build time)" */
	const struct tc_peer_ops *ops;	/* NULL: nothing to set up or count */
} peers[NR_PEERS] = {
#define TC_PEER(name, needs, missing, debs) \
	[PEER_##name] = { #name, missing, &tc_peer_ops_##name },
#include "../subjects/peers.def"
#undef TC_PEER
};
#undef TC_PEER_COLUMN

/* "lttng,usdt,flag,floor" of the usage text, "lttng, usdt, flag, floor" of its errors */
#define TC_PEER(name, needs, missing, debs) "," #name
#define TC_PEER_COLUMN(peer, kind, var, id, name, on, twin, count)
static const char peer_list[] = ""
#include "../subjects/peers.def"
	;
#undef TC_PEER
#define TC_PEER(name, needs, missing, debs) ", " #name
static const char peer_list_spaced[] = ""
#include "../subjects/peers.def"
	;
#undef TC_PEER
#undef TC_PEER_COLUMN

static unsigned int selected;

/* How an enabled column's events are counted (subjects/peers.def). */
enum { TC_PEER_CNT_NONE, TC_PEER_CNT_PROBE, TC_PEER_CNT_FLOOR, TC_PEER_CNT_UPROBE,
       TC_PEER_CNT_LTTNG };

/*
 * One peer column. @off names the disabled column an enabled one is
 * compared with (NULL for a disabled column; "stock" for the floor).
 */
struct pcol {
	const char *name;
	const char *id;
	int peer;
	const char *off;
	int count;
	const struct tc_subject *sub;	/* NULL: not built */
	char why[160];			/* not measured: why */
	const char *tag;		/* the same in a table cell */
	int in_run;			/* appended to the run's columns */
	uint64_t events, lost;		/* main run */
	int have_events;
};

static struct pcol cols[] = {
#define TC_PEER(name, needs, missing, debs)
#define TC_PEER_COLUMN(peer_, kind_, var_, id_, name_, on_, twin_, count_) \
	{ .name = name_, .id = #id_, .peer = PEER_##peer_, .off = twin_, \
	  .count = TC_PEER_CNT_##count_, .sub = &tc_subject_##id_ },
#include "../subjects/peers.def"
#undef TC_PEER
#undef TC_PEER_COLUMN
};
#define NR_PCOLS ((int)(sizeof(cols) / sizeof(cols[0])))
_Static_assert(NR_PEERS <= 32, "--peers keeps the selection in a 32-bit mask");
/* the suite's five columns and every peer's (--peers all) */
_Static_assert(5 + NR_PCOLS <= TC_PEERS_MAX_COLUMNS, "raise TC_PEERS_MAX_COLUMNS (src/peers.h)");

const char *tc_peers_list(void)
{
	return peer_list + 1;
}

void tc_peers_parse(const char *arg)
{
	char *dup = strdup(arg), *tok, *save = NULL;
	int i;

	if (!dup)
		tc_cli_fail("out of memory");
	selected = 0;
	for (tok = strtok_r(dup, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (!strcmp(tok, "all")) {
			selected = (1u << NR_PEERS) - 1;
			continue;
		}
		for (i = 0; i < NR_PEERS; i++)
			if (!strcmp(tok, peers[i].name))
				break;
		if (i == NR_PEERS)
			tc_cli_usage("--peers: unknown peer '%s' (all%s)", tok, peer_list_spaced);
		selected |= 1u << i;
	}
	free(dup);
	if (!selected)
		tc_cli_usage("--peers: empty list (all%s)", peer_list_spaced);
}

int tc_peers_selected(void)
{
	return selected != 0;
}

static void say_why(struct pcol *c, const char *tag, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void say_why(struct pcol *c, const char *tag, const char *fmt, ...)
{
	va_list ap;

	c->tag = tag;
	va_start(ap, fmt);
	vsnprintf(c->why, sizeof(c->why), fmt, ap);
	va_end(ap);
}

/* ---- setup, counts, teardown ------------------------------------------- */

static int torn_down = 1;

void tc_peers_teardown(void)
{
	char busy[256] = "";
	const char *b;
	int i;

	if (torn_down)
		return;
	torn_down = 1;
	for (i = 0; i < NR_PEERS; i++) {
		if (!peers[i].ops || !peers[i].ops->busy || !(b = peers[i].ops->busy()))
			continue;
		snprintf(busy + strlen(busy), sizeof(busy) - strlen(busy), "%s%s",
			 *busy ? ", " : "", b);
	}
	if (tc_cli_stop && *busy)
		fprintf(stderr, "tracecost: interrupted; stopping the peers (%s)\n", busy);
	for (i = 0; i < NR_PEERS; i++)
		if (peers[i].ops && peers[i].ops->teardown)
			peers[i].ops->teardown();
}

void tc_peers_clean(FILE *f)
{
	int i;

	for (i = 0; i < NR_PEERS; i++)
		if (peers[i].ops && peers[i].ops->clean)
			peers[i].ops->clean(f);
}

/* Whether peer @p was selected and built (its columns' objects linked). */
static int peer_runs(int p)
{
	int i;

	if (!(selected & (1u << p)))
		return 0;
	for (i = 0; i < NR_PCOLS; i++)
		if (cols[i].peer == p)
			return cols[i].sub != NULL;
	return 0;
}

/* Start the consumer of peer @p; on failure, its enabled columns say why. */
static void peer_setup(int p)
{
	const char *tag = "not set up";
	char why[128];
	int i;

	if (!peer_runs(p) || !peers[p].ops || !peers[p].ops->setup)
		return;
	if (!peers[p].ops->setup(why, sizeof(why), &tag))
		return;
	for (i = 0; i < NR_PCOLS; i++)
		if (cols[i].peer == p && cols[i].off)
			say_why(&cols[i], tag, "%s", why);
}

void tc_peers_setup(const struct tc_subject **subjects, int *nr)
{
	int i;

	if (!selected)
		return;
	torn_down = 0;
	atexit(tc_peers_teardown);
	for (i = 0; i < NR_PCOLS; i++)
		if (!cols[i].sub)
			say_why(&cols[i], "not built", "not built (%s missing at build time)",
				peers[cols[i].peer].missing);
	/* those that must come first (usdt: tc_tracefs_open() wants no other thread yet) */
	for (i = 0; i < NR_PEERS; i++)
		if (peers[i].ops && peers[i].ops->first)
			peer_setup(i);
	for (i = 0; i < NR_PEERS && !tc_cli_stop; i++)
		if (!peers[i].ops || !peers[i].ops->first)
			peer_setup(i);
	/* a signal during the set-up: the caller stops (set-ups take seconds) */
	if (tc_cli_stop)
		return;
	for (i = 0; i < NR_PCOLS; i++) {
		if (!(selected & (1u << cols[i].peer)) || !cols[i].sub || cols[i].why[0])
			continue;
		if (*nr >= TC_PEERS_MAX_COLUMNS)
			tc_cli_fail("internal: too many columns");
		subjects[(*nr)++] = cols[i].sub;
		cols[i].in_run = 1;
	}
	for (i = 0; i < NR_PCOLS; i++)
		if ((selected & (1u << cols[i].peer)) && cols[i].why[0])
			fprintf(stderr, "tracecost: --peers: column %s: %s\n", cols[i].name,
				cols[i].why);
}
/* Column index of subject @id in the run, or -1. */
static int col_index(const struct tc_subject *const *subjects, int nr, const char *name)
{
	int s;

	for (s = 0; s < nr; s++)
		if (!strcmp(subjects[s]->name, name))
			return s;
	return -1;
}

/* Events of static+ and call+ (the sampler's recording probe), main run. */
static uint64_t ours_events[2], ours_lost[2];
static int ours_have[2];

void tc_peers_main_done(const struct tc_subject *const *subjects, int nr,
			const struct tc_sampler_result *main)
{
	static const char *const ours[2] = { "static+", "call+" };
	struct pcol *c;
	int i, s;

	if (!selected)
		return;
	for (i = 0; i < 2; i++) {
		s = col_index(subjects, nr, ours[i]);
		if (s >= 0) {
			ours_events[i] = main->events[s];
			ours_lost[i] = main->overruns[s];
			ours_have[i] = 1;
		}
	}
	for (i = 0; i < NR_PEERS; i++)
		if (peer_runs(i) && peers[i].ops && peers[i].ops->done)
			peers[i].ops->done();
	for (i = 0; i < NR_PCOLS; i++) {
		const struct tc_peer_ops *ops = peers[cols[i].peer].ops;

		c = &cols[i];
		s = c->in_run ? col_index(subjects, nr, c->name) : -1;
		if (s < 0 || c->count == TC_PEER_CNT_NONE)
			continue;
		if (c->count == TC_PEER_CNT_PROBE) {
			c->events = main->events[s];
			c->lost = main->overruns[s];
		} else if (ops && ops->count) {
			ops->count(c->id, &c->events, &c->lost);
		}
		/* LTTng does not count what it kept: its count is what it discarded */
		c->have_events = c->count != TC_PEER_CNT_LTTNG;
	}
}

/* ---- tables ------------------------------------------------------------ */

/* Pairs the main run executed in column @s (all pair kinds). */
static double pairs_run(const struct tc_peers_view *v, int s)
{
	double n = 0;
	int p;

	for (p = 0; p < v->npairs; p++)
		n += (double)v->cells[s * v->npairs + p].hist->n * v->batch;
	return n;
}

/* Mean ns per pair of column @s, pair @p. */
static double mean_ns(const struct tc_peers_view *v, int s, int p)
{
	return tc_clock_ticks_to_ns(v->ci, v->st[s * v->npairs + p].average / v->batch);
}

/*
 * Set when a cell used a median that is not exact (the lower end of its
 * histogram bucket, tc_stats_value_range()): the cell gets '*' and the
 * table a note (emit_figures(), approx_note()).
 */
static bool median_approx, table_approx;

/* Median ns per pair of column @s, pair @p (robust against preemption on a busy machine). */
static double median_ns(const struct tc_peers_view *v, int s, int p)
{
	if (!v->st[s * v->npairs + p].median_exact)
		median_approx = true;
	return tc_clock_ticks_to_ns(v->ci, (double)v->st[s * v->npairs + p].median / v->batch);
}

/* Under a table with a '*' cell: what the mark means. */
static void approx_note(FILE *f)
{
	if (table_approx)
		fprintf(f, "* from a median that is not exact: samples above %u counter ticks are "
			"kept in histogram buckets (the lower end, within 1/256)\n",
			TC_HIST_EXACT - 1);
	table_approx = false;
}

static const struct tc_site_size *site_size(const char *id, int site)
{
	int i;

	for (i = 0; i < tc_nr_subject_sizes; i++)
		if (!strcmp(tc_subject_sizes[i].id, id))
			return &tc_subject_sizes[i].sites[site];
	return NULL;
}

/* Columns of a table: our own, then the selected peers'. */
struct tcol {
	const char *name;
	const char *id;
	const struct pcol *pc;		/* NULL for ours */
};

static int table_cols(const struct tc_peers_view *v, int enabled, struct tcol *tc)
{
	static const struct { const char *off, *on, *id_off, *id_on; } ours[] = {
		{ "static", "static+", "static", "staticp" },
		{ "call", "call+", "call", "callp" },
	};
	int i, n = 0;

	for (i = 0; i < 2; i++) {
		tc[n].name = enabled ? ours[i].on : ours[i].off;
		tc[n].id = enabled ? ours[i].id_on : ours[i].id_off;
		tc[n++].pc = NULL;
	}
	for (i = 0; i < NR_PCOLS; i++) {
		if (!(selected & (1u << cols[i].peer)))
			continue;
		if (enabled != (cols[i].off != NULL))
			continue;
		tc[n].name = cols[i].name;
		tc[n].id = cols[i].id;
		tc[n++].pc = &cols[i];
	}
	(void)v;
	return n;
}

static void emit(struct tc_table *t, const char *label, char (*cells)[40], int n)
{
	const char *cp[TC_PEERS_MAX_COLUMNS];
	int i;

	for (i = 0; i < n; i++)
		cp[i] = cells[i];
	tc_table_add_row(t, label, cp);
}

/* Events the consumer of column @c counted in the main run. Return: whether known. */
static int ev_of(const struct tcol *c, uint64_t *ev, uint64_t *lost)
{
	int k = c->pc ? -1 : strcmp(c->name, "static+") ? 1 : 0;

	if (k >= 0) {
		*ev = ours_events[k];
		if (lost)
			*lost = ours_lost[k];
		return ours_have[k];
	}
	*ev = c->pc->events;
	if (lost)
		*lost = c->pc->lost;
	return c->pc->have_events;
}

/* The reason a column has no figure, or NULL. */
static const char *no_figure(const struct tc_peers_view *v, const struct tcol *c)
{
	if (!c->pc)
		return col_index(v->subjects, v->nr, c->name) < 0 ? "-" : NULL;
	if (c->pc->why[0])
		return c->pc->tag;
	return col_index(v->subjects, v->nr, c->name) < 0 ? "-" : NULL;
}

static void short_why(char *dst, const char *why)
{
	snprintf(dst, 40, "%.39s", why);
}

/* A table's columns (table_cols()) and the table, titled @title, @label over its rows. */
static struct tc_table *new_table(const struct tc_peers_view *v, int enabled, struct tcol *tc,
				  int *n, const char *title, const char *label)
{
	const char *names[TC_PEERS_MAX_COLUMNS];
	struct tc_table *t;
	int i;

	*n = table_cols(v, enabled, tc);
	for (i = 0; i < *n; i++)
		names[i] = tc[i].name;
	t = tc_table_new(title, label, *n, names);
	if (!t)
		tc_cli_fail("out of memory");
	return t;
}

/* A figure of column @s, pair @p: mean_ns() or median_ns(). */
typedef double (*fig_fn)(const struct tc_peers_view *v, int s, int p);

/*
 * The figure rows of a table: every pair's mean, then every pair's median.
 * A column without a figure says why (no_figure()); @cell writes the
 * others' cell from figure @fig of pair @q.
 */
static void emit_figures(struct tc_table *t, const struct tc_peers_view *v,
			 const struct tcol *tc, int n,
			 void (*cell)(const struct tc_peers_view *v, const struct tcol *c,
				      fig_fn fig, int q, char *dst))
{
	char cells[TC_PEERS_MAX_COLUMNS][40], label[96];
	int p, i;

	for (p = 0; p < 2 * v->npairs; p++) {
		fig_fn fig = p < v->npairs ? mean_ns : median_ns;
		int q = p % v->npairs;

		for (i = 0; i < n; i++) {
			const char *why = no_figure(v, &tc[i]);

			median_approx = false;
			if (why) {
				short_why(cells[i], why);
			} else {
				cell(v, &tc[i], fig, q, cells[i]);
				if (median_approx && strlen(cells[i]) + 1 < sizeof(cells[i])) {
					strcat(cells[i], "*");
					table_approx = true;
				}
			}
		}
		snprintf(label, sizeof(label), "%s %s", v->pair_names[q],
			 p < v->npairs ? "mean" : "median");
		emit(t, label, cells, n);
	}
}

/* Tracing off: ns per pair over stock. */
static void over_stock(const struct tc_peers_view *v, const struct tcol *c, fig_fn fig, int q,
		       char *dst)
{
	int s = col_index(v->subjects, v->nr, c->name);
	int stock = col_index(v->subjects, v->nr, "stock");

	snprintf(dst, 40, "%+.2f", fig(v, s, q) - fig(v, stock, q));
}

/* Tracing on: ns per event over the column's disabled twin. */
static void per_event(const struct tc_peers_view *v, const struct tcol *c, fig_fn fig, int q,
		      char *dst)
{
	const char *offname = c->pc ? c->pc->off :
			      (!strcmp(c->name, "static+") ? "static" : "call");
	int s = col_index(v->subjects, v->nr, c->name);
	int off = col_index(v->subjects, v->nr, offname);
	double per_pair = 2.0;	/* one event per toggle, two toggles */
	uint64_t ev;

	if (off < 0) {
		short_why(dst, "-");
		return;
	}
	if (ev_of(c, &ev, NULL) && pairs_run(v, s) > 0)
		per_pair = (double)ev / pairs_run(v, s);
	if (per_pair <= 0) {
		snprintf(dst, 40, "no events");
		return;
	}
	snprintf(dst, 40, "%.2f", (fig(v, s, q) - fig(v, off, q)) / per_pair);
}

void tc_peers_print(const struct tc_peers_view *v, FILE *f)
{
	struct tcol tc[TC_PEERS_MAX_COLUMNS];
	char cells[TC_PEERS_MAX_COLUMNS][40], label[96];
	int stock = col_index(v->subjects, v->nr, "stock");
	struct tc_table *t;
	uint64_t ev;
	int n, i, p, s;

	if (!selected || stock < 0)
		return;

	/* 1. Disabled: mean over stock, ns per pair. */
	t = new_table(v, 0, tc, &n, "Peers, tracing off: cost over stock", "ns per pair");
	emit_figures(t, v, tc, n, over_stock);
	for (i = 0; i < n; i++) {
		const struct tc_site_size *z = site_size(tc[i].id, TC_SITE_IRQ_DISABLE);
		const char *why = tc[i].pc && !tc[i].pc->sub ? "not built" : NULL;

		if (why || !z)
			short_why(cells[i], why ? why : "-");
		else
			snprintf(cells[i], 40, "%u/%u", z->insns, z->bytes);
	}
	emit(t, "irq_disable site insns/bytes", cells, n);
	tc_table_print(t, f, v->format);
	approx_note(f);
	tc_table_free(t);

	/* 2. Enabled: ns per event over the column's disabled twin. */
	t = new_table(v, 1, tc, &n, "Peers, tracing on: cost per event", "ns per event");
	emit_figures(t, v, tc, n, per_event);
	/* events and events per pair, counted by each consumer */
	for (i = 0; i < n; i++) {
		const char *why = no_figure(v, &tc[i]);

		s = col_index(v->subjects, v->nr, tc[i].name);
		if (why)
			short_why(cells[i], why);
		else if (ev_of(&tc[i], &ev, NULL))
			snprintf(cells[i], 40, "%llu", (unsigned long long)ev);
		else
			snprintf(cells[i], 40, "not counted");
	}
	emit(t, "events recorded", cells, n);
	for (i = 0; i < n; i++) {
		const char *why = no_figure(v, &tc[i]);

		s = col_index(v->subjects, v->nr, tc[i].name);
		if (why)
			short_why(cells[i], why);
		else if (ev_of(&tc[i], &ev, NULL) && pairs_run(v, s) > 0)
			snprintf(cells[i], 40, "%.3f", (double)ev / pairs_run(v, s));
		else
			snprintf(cells[i], 40, "2 (calls)");
	}
	emit(t, "events per pair", cells, n);
	for (i = 0; i < n; i++) {
		const char *why = no_figure(v, &tc[i]);

		if (why)
			short_why(cells[i], why);
		else if (!tc[i].pc)
			snprintf(cells[i], 40, "%llu", (unsigned long long)
				 ours_lost[strcmp(tc[i].name, "static+") ? 1 : 0]);
		else if (tc[i].pc->count == TC_PEER_CNT_LTTNG)
			snprintf(cells[i], 40, "%llu", (unsigned long long)tc[i].pc->events);
		else if (tc[i].pc->count == TC_PEER_CNT_PROBE || tc[i].pc->count == TC_PEER_CNT_FLOOR)
			snprintf(cells[i], 40, "%llu", (unsigned long long)tc[i].pc->lost);
		else
			snprintf(cells[i], 40, "0 (uprobe)");
	}
	emit(t, "overwritten/discarded", cells, n);
	tc_table_print(t, f, v->format);
	approx_note(f);
	tc_table_free(t);
	for (i = 0; i < NR_PCOLS; i++)
		if ((selected & (1u << cols[i].peer)) && cols[i].why[0])
			fprintf(f, "%s: %s\n", cols[i].name, cols[i].why);
	fprintf(f, "Events: static+, call+, static+q, flag+ = our recording probe's ring"
		" (recorded +\noverwritten); usdt+ = the uprobe's hits (uprobe_profile); floor ="
		" ring heads;\nlttng+ = tracepoint calls (LTTng does not count what its overwrite"
		" buffers kept;\nits discarded events shown).\n\n");

	/* 3. Instructions/bytes per site with tracing off, from the objects. */
	t = new_table(v, 0, tc, &n, "Peers, tracing off: instructions/bytes per site", "site");
	for (p = 0; p < TC_NR_SITES; p++) {
		const struct tc_site_size *z0 = site_size("stock", p);

		for (i = 0; i < n; i++) {
			const struct tc_site_size *z = site_size(tc[i].id, p);

			if (!z || !z0)
				short_why(cells[i], "not built");
			else if (z->ool_insns)
				snprintf(cells[i], 40, "%u+%u/%u", z->insns, z->ool_insns, z->bytes);
			else
				snprintf(cells[i], 40, "%u/%u", z->insns, z->bytes);
		}
		snprintf(label, sizeof(label), "%s", z0 ? z0->site : "?");
		emit(t, label, cells, n);
	}
	tc_table_print(t, f, v->format);
	approx_note(f);
	tc_table_free(t);
	if (v->format == TC_TABLE_TEXT)
		fprintf(f, "Peers: flag = __builtin_expect test of a global (LTTng-UST/libside scheme);"
			" usdt = sys/sdt.h\nprobe (usdt-s: behind its semaphore); enabled usdt through a"
			" uprobe in our tracefs\ninstance; lttng = LTTng-UST tracepoint, lttng+ in a private"
			" snapshot session; floor =\nrdtsc + 32-byte store per toggle. ns per event ="
			" (enabled - disabled twin) / events\nper pair (floor: over stock), from means and"
			" from medians (the medians resist\npreemption on a busy machine). Sites:"
			" instructions[+called]/bytes on the tracing-off\npath, frame excluded, from the"
			" built objects (scripts/subject-size.sh).\n\n");
}

json_t *tc_peers_json(const struct tc_peers_view *v)
{
	json_t *o, *arr;
	int i, s, p;

	if (!selected)
		return NULL;
	o = json_object();
	arr = json_array();
	for (i = 0; i < NR_PCOLS; i++) {
		json_t *c, *m;

		if (!(selected & (1u << cols[i].peer)))
			continue;
		s = col_index(v->subjects, v->nr, cols[i].name);
		c = json_pack("{s:s, s:s, s:b}", "name", cols[i].name, "id", cols[i].id,
			      "measured", s >= 0);
		if (cols[i].why[0])
			json_object_set_new(c, "why", json_string(cols[i].why));
		if (cols[i].have_events)
			json_object_set_new(c, "events", json_integer((json_int_t)cols[i].events));
		if (cols[i].count == TC_PEER_CNT_LTTNG && s >= 0)
			json_object_set_new(c, "lttng_discarded",
					    json_integer((json_int_t)cols[i].events));
		if (s >= 0) {
			m = json_object();
			for (p = 0; p < v->npairs; p++)
				json_object_set_new(m, v->pair_names[p], json_real(mean_ns(v, s, p)));
			json_object_set_new(c, "mean_ns", m);
			json_object_set_new(c, "pairs", json_real(pairs_run(v, s)));
		}
		json_array_append_new(arr, c);
	}
	json_object_set_new(o, "columns", arr);
	return o;
}
