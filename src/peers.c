// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * src/peers.c - "tracecost run --suite user --peers all|LIST": the real
 * peers of our static keys as columns of the same run (subjects/
 * peer_subject.c), their consumers set up and torn down here.
 *
 *  lttng:  columns lttng (events tracecost:*_0, never enabled) and lttng+
 *	    (tracecost:*_1 enabled). A private lttng-sessiond runs as our child
 *	    with LTTNG_HOME and its run directory in a temporary directory:
 *	    /run is bind-mounted from there in a mount namespace of its own
 *	    (sessiond and the lttng commands), the application socket is
 *	    $LTTNG_HOME/.lttng/lttng-ust-sock-8, where liblttng-ust looks too.
 *	    The daemon has a process group of its own (a Ctrl-C reaches this
 *	    run, not its consumer); after a signal the group is killed at once.
 *	    The session is in snapshot mode (overwrite, nothing written to
 *	    disk). The provider's probes (build/peers/libtracecost-lttng.so,
 *	    liblttng-ust) are dlopen()ed once the session exists.
 *  usdt:   columns usdt, usdt-s (semaphore), and as root usdt+ and usdt-s+:
 *	    uprobes on their probe points (read from our own .note.stapsdt),
 *	    with the semaphore's file offset as the reference counter, defined
 *	    in uprobe_events and enabled in our private tracefs instance; both
 *	    recorded in the state file first (tracecost restore).
 *  flag:   flag and flag+ (recording probe through the same dispatch as
 *	    static+).
 *  floor:  a counter read (rdtsc) + a 32-byte store into a per-thread ring at every toggle.
 *
 * A peer that was not built (headers missing at build time) is a column
 * saying "not built"; an enabled column that cannot be set up says why and
 * is not sampled; the other columns run.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <tracecost/tracefs.h>

#include "cli.h"
#include "peers.h"
#include "size_table.h"
#include "../subjects/peer_subject.h"

#ifndef TC_HAVE_USDT
#define TC_HAVE_USDT 0
#endif
#ifndef TC_HAVE_LTTNG
#define TC_HAVE_LTTNG 0
#endif
#ifndef TC_PEER_LIBDIR
#define TC_PEER_LIBDIR "/usr/local/lib/tracecost"
#endif

enum { P_LTTNG, P_USDT, P_FLAG, P_FLOOR, NR_PEERS };
static const char *const peer_names[NR_PEERS] = { "lttng", "usdt", "flag", "floor" };
static unsigned int selected;

/* How an enabled column's events are counted. */
enum { CNT_NONE, CNT_PROBE, CNT_FLOOR, CNT_UPROBE, CNT_LTTNG };

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
	{ .name = "flag", .id = "flag", .peer = P_FLAG, .off = NULL, .count = CNT_NONE },
	{ .name = "flag+", .id = "flagp", .peer = P_FLAG, .off = "flag", .count = CNT_PROBE },
	{ .name = "usdt", .id = "usdt", .peer = P_USDT, .off = NULL, .count = CNT_NONE },
	{ .name = "usdt+", .id = "usdtp", .peer = P_USDT, .off = "usdt", .count = CNT_UPROBE },
	{ .name = "usdt-s", .id = "usdts", .peer = P_USDT, .off = NULL, .count = CNT_NONE },
	{ .name = "usdt-s+", .id = "usdtsp", .peer = P_USDT, .off = "usdt-s", .count = CNT_UPROBE },
	{ .name = "lttng", .id = "lttng", .peer = P_LTTNG, .off = NULL, .count = CNT_NONE },
	{ .name = "lttng+", .id = "lttngp", .peer = P_LTTNG, .off = "lttng", .count = CNT_LTTNG },
	{ .name = "floor", .id = "floor", .peer = P_FLOOR, .off = "stock", .count = CNT_FLOOR },
};
#define NR_PCOLS ((int)(sizeof(cols) / sizeof(cols[0])))

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
			if (!strcmp(tok, peer_names[i]))
				break;
		if (i == NR_PEERS)
			tc_cli_usage("--peers: unknown peer '%s' (all, lttng, usdt, flag, floor)", tok);
		selected |= 1u << i;
	}
	free(dup);
	if (!selected)
		tc_cli_usage("--peers: empty list (all, lttng, usdt, flag, floor)");
}

int tc_peers_selected(void)
{
	return selected != 0;
}

static struct pcol *pcol_by_name(const char *name)
{
	int i;

	for (i = 0; i < NR_PCOLS; i++)
		if (!strcmp(cols[i].name, name))
			return &cols[i];
	return NULL;
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

/* ---- helpers ----------------------------------------------------------- */

static char peer_tmp[64];

static int run_quiet(char *const argv[], int ns, char *out, size_t outlen);

static void rm_tree(const char *dir)
{
	char *argv[] = { "rm", "-rf", "--one-file-system", (char *)dir, NULL };

	if (*dir)
		run_quiet(argv, 0, NULL, 0);
}

/*
 * Child side of the LTTng commands: a mount namespace of its own where /run
 * is our temporary run directory, so the root session daemon's sockets,
 * lock and consumer directories (/var/run/lttng) are private.
 */
static void child_private_run(void)
{
	char run[80];

	/* Not root: the daemon's run directory is $LTTNG_HOME/.lttng already. */
	if (geteuid())
		return;
	snprintf(run, sizeof(run), "%.63s/run", peer_tmp);
	if (unshare(CLONE_NEWNS) || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) ||
	    mount(run, "/run", NULL, MS_BIND, NULL)) {
		fprintf(stderr, "private /run: %s\n", strerror(errno));
		_exit(126);
	}
}

/*
 * Run @argv, output (stdout + stderr) into @out; a signal to this run kills
 * it. Return: exit status or -errno.
 */
static int run_quiet(char *const argv[], int ns, char *out, size_t outlen)
{
	int pfd[2], status, killed = 0;
	size_t used = 0;
	ssize_t n;
	pid_t pid;
	char junk[512];

	if (pipe2(pfd, O_CLOEXEC))
		return -errno;
	pid = fork();
	if (pid < 0) {
		close(pfd[0]);
		close(pfd[1]);
		return -errno;
	}
	if (!pid) {
		dup2(pfd[1], 1);
		dup2(pfd[1], 2);
		if (ns)
			child_private_run();
		execvp(argv[0], argv);
		fprintf(stderr, "%s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	close(pfd[1]);
	for (;;) {
		/* a signal to this run ends the command (it cuts the read short) */
		if (tc_cli_stop && !killed)
			killed = !kill(pid, SIGKILL);
		if (out && used + 1 < outlen)
			n = read(pfd[0], out + used, outlen - 1 - used);
		else
			n = read(pfd[0], junk, sizeof(junk));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		if (out && used + 1 < outlen && n > 0)
			used += (size_t)n;
	}
	close(pfd[0]);
	if (out && outlen)
		out[used] = '\0';
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* Directory of the running tracecost, for build/peers/. */
static void exe_dir(char *buf, size_t len)
{
	ssize_t n = readlink("/proc/self/exe", buf, len - 1);
	char *slash;

	if (n <= 0) {
		snprintf(buf, len, ".");
		return;
	}
	buf[n] = '\0';
	slash = strrchr(buf, '/');
	if (slash)
		*slash = '\0';
}

/* ---- floor ------------------------------------------------------------- */

static uint64_t floor_total(void)
{
	uint64_t n = 0;
	unsigned int i;

	for (i = 0; i < TC_FLOOR_THREADS; i++)
		n += __atomic_load_n(&tc_floor_rings[i].head, __ATOMIC_RELAXED);
	return n;
}

static uint64_t floor_before;

/* ---- USDT through uprobes ---------------------------------------------- */

#define USDT_GROUP	"tracecost_usdt"
#define USDT_MAX	1024

struct usdt_probe {
	char name[64];		/* e.g. usdtp_irq_disable_3: one event per probe point */
	unsigned long off;	/* file offset of the probe point */
	unsigned long sem;	/* file offset of the semaphore, 0 if none */
	uint64_t hits0, hits;
};

static struct usdt_probe usdt[USDT_MAX];
static int nr_usdt;
static struct tc_tracefs *usdt_fs;
static struct tc_profile usdt_profile;
static char exe_path[PATH_MAX];

/* vaddr -> file offset through the PT_LOAD segments. */
static int vaddr_to_off(Elf *elf, unsigned long vaddr, unsigned long *off)
{
	size_t i, n;
	GElf_Phdr ph;

	if (elf_getphdrnum(elf, &n))
		return -EINVAL;
	for (i = 0; i < n; i++) {
		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (vaddr >= ph.p_vaddr && vaddr < ph.p_vaddr + ph.p_filesz) {
			*off = vaddr - ph.p_vaddr + ph.p_offset;
			return 0;
		}
	}
	return -ENOENT;
}

/*
 * Our USDT probes of the enabled columns, from .note.stapsdt of the
 * running executable (the format of systemtap's sys/sdt.h: pc, base,
 * semaphore, then provider, name and arguments as strings).
 */
static int usdt_find(void)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	unsigned long base_addr = 0;
	size_t shstr;
	Elf *elf;
	int fd, ret = 0;

	if (readlink("/proc/self/exe", exe_path, sizeof(exe_path) - 1) <= 0)
		return -errno;
	elf_version(EV_CURRENT);
	fd = open(exe_path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf || elf_getshdrstrndx(elf, &shstr)) {
		ret = -EINVAL;
		goto out;
	}
	while ((scn = elf_nextscn(elf, scn))) {
		const char *name;

		if (!gelf_getshdr(scn, &sh))
			continue;
		name = elf_strptr(elf, shstr, sh.sh_name);
		if (name && !strcmp(name, ".stapsdt.base"))
			base_addr = sh.sh_addr;
	}
	while ((scn = elf_nextscn(elf, scn)) && nr_usdt < USDT_MAX) {
		Elf_Data *data;
		GElf_Nhdr nh;
		size_t off = 0, noff, doff;
		const char *name;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		name = elf_strptr(elf, shstr, sh.sh_name);
		if (!name || strcmp(name, ".note.stapsdt"))
			continue;
		data = elf_getdata(scn, NULL);
		while (data && (off = gelf_getnote(data, off, &nh, &noff, &doff)) > 0 &&
		       nr_usdt < USDT_MAX) {
			const char *desc = (const char *)data->d_buf + doff;
			const char *prov, *pname;
			uint64_t pc, base, sem;

			if (nh.n_type != 3 || nh.n_descsz < 24 ||
			    strcmp((const char *)data->d_buf + noff, "stapsdt"))
				continue;
			memcpy(&pc, desc, 8);
			memcpy(&base, desc + 8, 8);
			memcpy(&sem, desc + 16, 8);
			prov = desc + 24;
			pname = prov + strlen(prov) + 1;
			if (strcmp(prov, "tracecost") ||
			    (strncmp(pname, "usdtp_", 6) && strncmp(pname, "usdtsp_", 7)))
				continue;
			/* prelink adjustment, as systemtap does */
			if (base_addr && base != base_addr) {
				pc += base_addr - base;
				if (sem)
					sem += base_addr - base;
			}
			snprintf(usdt[nr_usdt].name, sizeof(usdt[nr_usdt].name), "%.40s_%d", pname,
				 nr_usdt);
			if (vaddr_to_off(elf, pc, &usdt[nr_usdt].off) ||
			    (sem && vaddr_to_off(elf, sem, &usdt[nr_usdt].sem))) {
				ret = -ENOENT;
				goto out;
			}
			nr_usdt++;
		}
	}
	if (!nr_usdt)
		ret = -ENOENT;
out:
	if (elf)
		elf_end(elf);
	close(fd);
	return ret;
}

/* Hits of our uprobes (uprobe_profile: path, event, hits, misses). */
static int usdt_read_hits(int after)
{
	char path[PATH_MAX + 32], line[PATH_MAX + 256], file[PATH_MAX], ev[256];
	unsigned long long hits, misses;
	FILE *f;
	int i;

	snprintf(path, sizeof(path), "%s/uprobe_profile", tc_tracefs_dir(usdt_fs));
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		/* "PATH EVENT HITS", older kernels add MISSES */
		if (sscanf(line, "%4095s %255s %llu %llu", file, ev, &hits, &misses) < 3)
			continue;
		for (i = 0; i < nr_usdt; i++) {
			/* "GROUP/EVENT" or, in recent kernels' uprobe_profile, "EVENT" */
			const char *slash = strchr(ev, '/');

			if (strcmp(slash ? slash + 1 : ev, usdt[i].name))
				continue;
			if (after)
				usdt[i].hits = hits;
			else
				usdt[i].hits0 = hits;
		}
	}
	fclose(f);
	return 0;
}

static void usdt_teardown(void)
{
	if (!usdt_fs)
		return;
	if (tc_tracefs_end(usdt_fs))
		fprintf(stderr, "tracecost: restoring tracefs after the usdt+ columns: %s; run "
			"'tracecost restore'\n", tc_tracefs_error(usdt_fs));
	tc_tracefs_close(usdt_fs);
	tc_profile_release(&usdt_profile);
	usdt_fs = NULL;
}

/* Enable every event of our group in the private instance. */
static int usdt_enable_group(void)
{
	char path[PATH_MAX + 128];
	int fd, err = 0;

	snprintf(path, sizeof(path), "%s/instances/%s/events/" USDT_GROUP "/enable",
		 tc_tracefs_dir(usdt_fs), tc_tracefs_instance_name(usdt_fs));
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (write(fd, "1", 1) != 1)
		err = -errno;
	close(fd);
	return err;
}

/* Define and enable the uprobes of usdt+ and usdt-s+. Return: 0 or -errno, @why set. */
static int usdt_setup(char *why, size_t len)
{
	char spec[PATH_MAX + 64];
	int i, err;

	if (geteuid()) {
		snprintf(why, len, "needs root (uprobe)");
		return -EPERM;
	}
	err = usdt_find();
	if (err) {
		snprintf(why, len, "probes not found in %.80s", exe_path);
		return err;
	}
	err = tc_tracefs_open(&usdt_fs, NULL);
	if (err) {
		snprintf(why, len, "tracefs: %s", strerror(-err));
		usdt_fs = NULL;
		return err;
	}
	err = tc_tracefs_begin(usdt_fs);
	if (err) {
		snprintf(why, len, "tracefs: %s", tc_tracefs_error(usdt_fs));
		tc_tracefs_close(usdt_fs);
		usdt_fs = NULL;
		return err;
	}
	memset(&usdt_profile, 0, sizeof(usdt_profile));
	snprintf(usdt_profile.name, sizeof(usdt_profile.name), "usdt");
	snprintf(usdt_profile.summary, sizeof(usdt_profile.summary), "uprobes on USDT probes");
	usdt_profile.buffer_kb = 64;
	for (i = 0; i < nr_usdt; i++) {
		if (usdt[i].sem)
			snprintf(spec, sizeof(spec), "%s:0x%lx(0x%lx)", exe_path, usdt[i].off,
				 usdt[i].sem);
		else
			snprintf(spec, sizeof(spec), "%s:0x%lx", exe_path, usdt[i].off);
		err = tc_tracefs_uprobe_add(usdt_fs, USDT_GROUP, usdt[i].name, spec);
		if (err)
			goto fail;
	}
	/* The instance with one of them; then the whole group (hundreds of points). */
	err = tc_profile_add_event(&usdt_profile, USDT_GROUP, usdt[0].name, NULL);
	if (err)
		goto fail;
	err = tc_profile_check(usdt_fs, &usdt_profile);
	if (!err && !usdt_profile.available)
		err = -ENOENT;
	if (!err)
		err = tc_tracefs_apply(usdt_fs, &usdt_profile);
	if (!err)
		err = usdt_enable_group();
	if (!err)
		err = usdt_read_hits(0);
	if (getenv("TC_PEERS_DEBUG"))
		fprintf(stderr, "usdt: %d probe points, first %s at 0x%lx(0x%lx), tracefs %s, "
			"instance %s, err %d\n", nr_usdt, usdt[0].name, usdt[0].off, usdt[0].sem,
			tc_tracefs_dir(usdt_fs), tc_tracefs_instance_name(usdt_fs), err);
	if (!err)
		return 0;
fail:
	snprintf(why, len, "uprobe: %s", *tc_tracefs_error(usdt_fs) ?
		 tc_tracefs_error(usdt_fs) : strerror(-err));
	usdt_teardown();
	return err;
}

/* ---- LTTng-UST: a private session daemon ------------------------------- */

#define LTTNG_SESSION	"tracecost"

static pid_t sessiond_pid;
static int shm_wait_existed;
static char shm_local[64];
static char lttng_out[4096];

static int lttng(const char *a1, const char *a2, const char *a3, const char *a4,
		 const char *a5)
{
	char *argv[] = { "lttng", "--no-sessiond", (char *)a1, (char *)a2, (char *)a3,
			 (char *)a4, (char *)a5, NULL };

	return run_quiet(argv, 1, lttng_out, sizeof(lttng_out));
}

static void lttng_teardown(void)
{
	int status, i;

	if (sessiond_pid > 0) {
		/*
		 * After a signal nothing is kept: the daemon and its consumer
		 * (its process group) are killed at once; a daemon still
		 * starting up takes seconds to honour a SIGTERM.
		 */
		if (!tc_cli_stop) {
			lttng("destroy", LTTNG_SESSION, NULL, NULL, NULL);
			kill(sessiond_pid, SIGTERM);
		}
		for (i = 0; i < 500 && !tc_cli_stop; i++) {
			if (waitpid(sessiond_pid, &status, WNOHANG) == sessiond_pid)
				break;
			usleep(10000);
		}
		if (i == 500 || tc_cli_stop) {
			kill(-sessiond_pid, SIGKILL);
			kill(sessiond_pid, SIGKILL);
			waitpid(sessiond_pid, &status, 0);
		}
		sessiond_pid = 0;
		if (!(shm_wait_existed & 1))
			unlink("/dev/shm/lttng-ust-wait-8");
		if (!(shm_wait_existed & 2))
			unlink(shm_local);
	}
	if (*peer_tmp) {
		rm_tree(peer_tmp);
		peer_tmp[0] = '\0';
	}
}

/* Whether @path exists. */
static int exists(const char *path)
{
	struct stat st;

	return !stat(path, &st);
}

static int lttng_setup(char *why, size_t len)
{
	char home[96], dir[PATH_MAX], sock[192], client[192], so[PATH_MAX + 64];
	int i, st;

	if (!TC_HAVE_LTTNG) {
		snprintf(why, len, "not built");
		return -ENOENT;
	}
	exe_dir(dir, sizeof(dir));
	snprintf(so, sizeof(so), "%.4000s/peers/libtracecost-lttng.so", dir);
	if (!exists(so))
		snprintf(so, sizeof(so), "%s/libtracecost-lttng.so", TC_PEER_LIBDIR);
	if (!exists(so)) {
		snprintf(why, len, "no libtracecost-lttng.so");
		return -ENOENT;
	}
	snprintf(peer_tmp, sizeof(peer_tmp), "/tmp/tracecost-lttng.XXXXXX");
	if (!mkdtemp(peer_tmp)) {
		peer_tmp[0] = '\0';
		snprintf(why, len, "temporary directory: %s", strerror(errno));
		return -errno;
	}
	snprintf(home, sizeof(home), "%.63s/home", peer_tmp);
	snprintf(dir, sizeof(dir), "%.95s/.lttng", home);
	snprintf(sock, sizeof(sock), "%.63s/run", peer_tmp);
	if (mkdir(home, 0700) || mkdir(dir, 0700) || mkdir(sock, 0755)) {
		snprintf(why, len, "temporary directory: %s", strerror(errno));
		lttng_teardown();
		return -errno;
	}
	setenv("LTTNG_HOME", home, 1);
	setenv("HOME", home, 1);
	setenv("LTTNG_UST_REGISTER_TIMEOUT", "5000", 1);
	snprintf(shm_local, sizeof(shm_local), "/dev/shm/lttng-ust-wait-8-%u", (unsigned)geteuid());
	shm_wait_existed = exists("/dev/shm/lttng-ust-wait-8") | exists(shm_local) << 1;
	snprintf(sock, sizeof(sock), "--apps-sock=%.110s/lttng-ust-sock-8", dir);
	if (geteuid())
		snprintf(client, sizeof(client), "%.95s/client-lttng-sessiond", dir);
	else
		snprintf(client, sizeof(client), "%.63s/run/lttng/client-lttng-sessiond", peer_tmp);

	sessiond_pid = fork();
	if (sessiond_pid < 0) {
		snprintf(why, len, "fork: %s", strerror(errno));
		sessiond_pid = 0;
		lttng_teardown();
		return -EAGAIN;
	}
	if (!sessiond_pid) {
		int null = open("/dev/null", O_RDWR);

		prctl(PR_SET_PDEATHSIG, SIGTERM);
		/*
		 * Its own process group: a Ctrl-C reaches this run, which stops
		 * the daemon in order, not the daemon's consumer behind its back
		 * (a destroy then waited on a dead consumer for ever).
		 */
		setpgid(0, 0);
		if (null >= 0) {
			dup2(null, 0);
			dup2(null, 1);
			dup2(null, 2);
		}
		child_private_run();
		execlp("lttng-sessiond", "lttng-sessiond", "--no-kernel", "--quiet", sock,
		       (char *)NULL);
		_exit(127);
	}
	/* Ready when its client socket is there (up to 10 s). */
	for (i = 0; i < 1000 && !exists(client) && !tc_cli_stop; i++) {
		if (waitpid(sessiond_pid, &st, WNOHANG) == sessiond_pid) {
			sessiond_pid = 0;
			snprintf(why, len, "lttng-sessiond could not start (exit %d)",
				 WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
			lttng_teardown();
			return -ECHILD;
		}
		usleep(10000);
	}
	if (!exists(client) || tc_cli_stop) {
		snprintf(why, len, tc_cli_stop ? "interrupted" :
			 "lttng-sessiond did not come up in 10 s");
		lttng_teardown();
		return -ETIMEDOUT;
	}
	if (lttng("create", LTTNG_SESSION, "--snapshot", NULL, NULL) || tc_cli_stop ||
	    lttng("enable-event", "--userspace", "tracecost:*_1", "--session=" LTTNG_SESSION,
		  NULL) || tc_cli_stop ||
	    lttng("start", LTTNG_SESSION, NULL, NULL, NULL) || tc_cli_stop) {
		char *nl = strchr(lttng_out, '\n');

		if (nl)
			*nl = '\0';
		if (tc_cli_stop)
			snprintf(why, len, "interrupted");
		else
			snprintf(why, len, "lttng: %.80s", lttng_out);
		lttng_teardown();
		return -EIO;
	}
	/* liblttng-ust registers with our daemon now and gets the enabled events. */
	if (!dlopen(so, RTLD_NOW | RTLD_GLOBAL)) {
		snprintf(why, len, "dlopen: %.80s", dlerror());
		lttng_teardown();
		return -ENOENT;
	}
	return 0;
}

/* "Discarded events: N" / "Lost packets: N" of the session's channel, summed. */
static void lttng_losses(uint64_t *discarded, uint64_t *lost)
{
	char *p;

	*discarded = *lost = 0;
	if (lttng("list", LTTNG_SESSION, NULL, NULL, NULL))
		return;
	for (p = lttng_out; (p = strstr(p, "Discarded events: ")); p++)
		*discarded += strtoull(p + 18, NULL, 10);
	for (p = lttng_out; (p = strstr(p, "Lost packets: ")); p++)
		*lost += strtoull(p + 14, NULL, 10);
}

/* ---- setup, counts, teardown ------------------------------------------- */

static const struct tc_subject *subject_of(const char *id)
{
	if (!strcmp(id, "flag"))
		return &tc_subject_flag;
	if (!strcmp(id, "flagp"))
		return &tc_subject_flagp;
	if (!strcmp(id, "floor"))
		return &tc_subject_floor;
#if TC_HAVE_USDT
	if (!strcmp(id, "usdt"))
		return &tc_subject_usdt;
	if (!strcmp(id, "usdtp"))
		return &tc_subject_usdtp;
	if (!strcmp(id, "usdts"))
		return &tc_subject_usdts;
	if (!strcmp(id, "usdtsp"))
		return &tc_subject_usdtsp;
#endif
#if TC_HAVE_LTTNG
	if (!strcmp(id, "lttng"))
		return &tc_subject_lttng;
	if (!strcmp(id, "lttngp"))
		return &tc_subject_lttngp;
#endif
	return NULL;
}

static int torn_down = 1;

void tc_peers_teardown(void)
{
	if (torn_down)
		return;
	torn_down = 1;
	if (tc_cli_stop && (usdt_fs || sessiond_pid > 0))
		fprintf(stderr, "tracecost: interrupted; stopping the peers (%s%s%s)\n",
			sessiond_pid > 0 ? "LTTng's session daemon" : "",
			sessiond_pid > 0 && usdt_fs ? ", " : "",
			usdt_fs ? "the usdt+ uprobes: the kernel waits for RCU grace periods, "
				  "this can take seconds" : "");
	lttng_teardown();
	usdt_teardown();
}

void tc_peers_setup(const struct tc_subject **subjects, int *nr)
{
	char why[128];
	int i;

	if (!selected)
		return;
	torn_down = 0;
	atexit(tc_peers_teardown);
	for (i = 0; i < NR_PCOLS; i++) {
		cols[i].sub = subject_of(cols[i].id);
		if (!cols[i].sub)
			say_why(&cols[i], "not built", "not built (%s missing at build time)",
				cols[i].peer == P_LTTNG ? "liblttng-ust-dev" : "sys/sdt.h");
	}
	/* uprobes first: tc_tracefs_open() wants no other thread yet */
	if (selected & (1u << P_USDT) && TC_HAVE_USDT && usdt_setup(why, sizeof(why))) {
		const char *tag = geteuid() ? "needs root" : "no uprobe";

		say_why(pcol_by_name("usdt+"), tag, "%s", why);
		say_why(pcol_by_name("usdt-s+"), tag, "%s", why);
	}
	if (selected & (1u << P_LTTNG) && TC_HAVE_LTTNG && lttng_setup(why, sizeof(why)))
		say_why(pcol_by_name("lttng+"), "no session", "%s", why);
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
	floor_before = floor_total();
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
	if (usdt_fs)
		usdt_read_hits(1);
	for (i = 0; i < NR_PCOLS; i++) {
		c = &cols[i];
		s = c->in_run ? col_index(subjects, nr, c->name) : -1;
		if (s < 0)
			continue;
		switch (c->count) {
		case CNT_PROBE:
			c->events = main->events[s];
			c->lost = main->overruns[s];
			c->have_events = 1;
			break;
		case CNT_FLOOR:
			c->events = floor_total() - floor_before;
			c->have_events = 1;
			break;
		case CNT_UPROBE: {
			const char *prefix = !strcmp(c->id, "usdtp") ? "usdtp_" : "usdtsp_";
			int k;

			for (k = 0; k < nr_usdt; k++)
				if (!strncmp(usdt[k].name, prefix, strlen(prefix)))
					c->events += usdt[k].hits - usdt[k].hits0;
			c->have_events = 1;
			break;
		}
		case CNT_LTTNG:
			lttng_losses(&c->events, &c->lost);
			c->have_events = 0;	/* LTTng does not count what it kept */
			break;
		}
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
		else if (tc[i].pc->count == CNT_LTTNG)
			snprintf(cells[i], 40, "%llu", (unsigned long long)tc[i].pc->events);
		else if (tc[i].pc->count == CNT_PROBE || tc[i].pc->count == CNT_FLOOR)
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
	fprintf(f, "Events: static+, call+, flag+ = our recording probe's ring (recorded +"
		" overwritten); usdt+ =\nthe uprobe's hits (uprobe_profile); floor = ring heads;"
		" lttng+ = tracepoint calls\n(LTTng does not count what its overwrite buffers"
		" kept; its discarded events shown).\n\n");

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
		if (cols[i].count == CNT_LTTNG && s >= 0)
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
