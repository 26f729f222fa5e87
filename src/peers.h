/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * src/peers.h - the user suite's peer columns (--peers): LTTng-UST, USDT,
 * flag and the physical floor next to our static keys, in the same run
 * (one table: subjects/peers.def; src/peers.c; each peer's own code in
 * src/peer_<peer>.c through src/peer_ops.h).
 */
#ifndef TC_PEERS_H
#define TC_PEERS_H

#include <stdio.h>
#include <jansson.h>
#include <tracecost/clock.h>
#include <tracecost/report.h>
#include <tracecost/sampler.h>
#include <tracecost/stats.h>

/* Columns a run can have at most: the five of the suite and every peer's. */
#define TC_PEERS_MAX_COLUMNS	16

/* Parse --peers all|LIST (subjects/peers.def: lttng,usdt,flag,floor); bad input exits 2. */
void tc_peers_parse(const char *arg);

/* The --peers names, comma-separated ("lttng,usdt,flag,floor"), for the usage text. */
const char *tc_peers_list(void);

/* Whether --peers was given. */
int tc_peers_selected(void);

/**
 * tc_peers_setup() - set the selected peers up and append their columns
 * @subjects: the suite's columns, @nr of them; appended to, up to
 *	      TC_PEERS_MAX_COLUMNS
 *
 * Starts LTTng's private session daemon and session, defines and enables
 * the USDT uprobes in our tracefs instance (root only), each for its
 * enabled column only: a failure drops that column and says why (printed
 * with the tables). Teardown is registered with atexit() and also runs
 * from tc_peers_teardown(). Exits 1 on a failure that leaves nothing to
 * measure (out of memory). A signal (tc_cli_stop) stops the set-up between
 * its steps: the caller then checks tc_cli_stop and tears down.
 */
void tc_peers_setup(const struct tc_subject **subjects, int *nr);

/* After the main run: read every consumer's event count (before the 1-CPU run). */
void tc_peers_main_done(const struct tc_subject *const *subjects, int nr,
			const struct tc_sampler_result *main);

/* Stop sessions, remove uprobes, restore tracefs; idempotent. */
void tc_peers_teardown(void);

/*
 * Remove what the peers of killed runs left (LTTng's temporary homes) that
 * no live run holds, saying so on @f (NULL: silently); tracecost restore,
 * and a --runs parent whose child was killed.
 */
void tc_peers_clean(FILE *f);

/**
 * struct tc_peers_view - what the peer tables are computed from
 * @subjects, @nr:	columns of the run
 * @npairs, @pair_names: pairs
 * @cells, @st:		main-run cells and statistics [col * npairs + pair]
 * @batch:		pairs per sample
 * @ci:			counter (ticks to ns)
 * @format:		table format
 */
struct tc_peers_view {
	const struct tc_subject *const *subjects;
	int nr;
	int npairs;
	const char *const *pair_names;
	const struct tc_cell *cells;
	const struct tc_stats *st;
	unsigned int batch;
	const struct tc_clock_info *ci;
	enum tc_table_format format;
};

/* The peer tables: disabled cost, enabled cost per event with counts, sites. */
void tc_peers_print(const struct tc_peers_view *v, FILE *f);

/* The same as a JSON object for the result file ("peers"), or NULL without --peers. */
json_t *tc_peers_json(const struct tc_peers_view *v);

#endif /* TC_PEERS_H */
