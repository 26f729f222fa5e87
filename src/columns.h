/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * src/columns.h - the column argument of compare and plot (src/columns.c):
 *
 *	FILE[,FILE...][:CONFIG]  or  @LIST[:CONFIG]
 *
 * A bare FILE gives one column per configuration of the file; a group
 * a1.json,a2.json,... pools the runs of its files (one run per session,
 * typically one per boot); @LIST is the group whose files LIST names, one a
 * line (for groups longer than an argument may be; the column is named
 * "@LIST"); :CONFIG picks one configuration. An argument that names an
 * existing file as a whole is that file, colons, commas and '@' included. Any problem: one line, exit 2 (exit 1 when out of memory).
 */
#ifndef TC_COLUMNS_H
#define TC_COLUMNS_H

#include <stdbool.h>

/**
 * struct tc_cli_colspec - one column argument, parsed
 * @path:     the files as written ("a.json", "a1.json,a2.json" or "@LIST"), no
 *	      :CONFIG
 * @config:   the CONFIG after ':' (inside @path's storage), or NULL for all
 * @files:    @nr_files file names (one unless a group)
 * @buf:      storage of @files
 */
struct tc_cli_colspec {
	char path[4096];
	char *config;
	char **files;
	int nr_files;
	char *buf;
};

/* Parse @spec into @cs (release with tc_cli_colspec_free()); exit 2 if malformed. */
void tc_cli_colspec_parse(const char *spec, struct tc_cli_colspec *cs);
void tc_cli_colspec_free(struct tc_cli_colspec *cs);

/*
 * tc_cli_columns_noise() - whether the column arguments are noise result
 * files (tracecost noise), which compare hands to cmd_compare_noise(); a
 * noise file in a group or with :CONFIG is refused (exit 2).
 */
bool tc_cli_columns_noise(int nr_specs, char *const *specs);

/*
 * struct tc_cli_column - one column: a loaded file (or pooled group) and one
 * of its configurations, with its display name
 */
struct tc_result_file;
struct tc_cli_column {
	struct tc_result_file *file;
	int config;
	int arg;		/* index of the FILE[:CONFIG] argument */
	char name[96];
};

/*
 * tc_cli_columns_load() - read the files of @specs (each argument once),
 * expand them into columns named by @labels (in order, distinct; fewer
 * labels than columns leave the rest to the default "<release>" or
 * "<release>:<config>").
 * Return: number of columns, *@cols malloc'ed.
 */
int tc_cli_columns_load(int nr_specs, char *const *specs, int nr_labels,
			char *const *labels, struct tc_cli_column **cols);
/*
 * tc_cli_columns_of_file() - the columns of every configuration of @f, a
 * file already loaded (run's own result), named as tc_cli_columns_load()
 * names them; @f is theirs (tc_cli_columns_free() frees it).
 * Return: number of columns (@f->nr_configs), *@cols malloc'ed.
 */
int tc_cli_columns_of_file(struct tc_result_file *f, struct tc_cli_column **cols);
void tc_cli_columns_free(struct tc_cli_column *cols, int nr);

#endif /* TC_COLUMNS_H */
