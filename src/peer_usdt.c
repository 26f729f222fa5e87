// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * src/peer_usdt.c - the usdt peer's consumer (subjects/peers.def): as
 * root, the enabled columns usdt+ and usdt-s+ get uprobes on their probe
 * points (read from our own .note.stapsdt: tracecost:usdtp_* and
 * tracecost:usdtsp_*), with the semaphore's file offset as the reference
 * counter, defined in uprobe_events and enabled in our private tracefs
 * instance; both recorded in the state file first (tracecost restore).
 * Their events are the uprobes' hits (uprobe_profile).
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <tracecost/profile.h>
#include <tracecost/tracefs.h>

#include "cli.h"
#include "peer_ops.h"

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
		/*
		 * a signal: stop here; what is set up stays recorded, and the
		 * teardown (after the run's "interrupted" line) removes it
		 */
		if (tc_cli_stop)
			goto stopped;
		err = tc_tracefs_uprobe_add(usdt_fs, USDT_GROUP, usdt[i].name, spec);
		if (err)
			goto fail;
	}
	if (tc_cli_stop)
		goto stopped;
	/* The instance with one of them; then the whole group (hundreds of points). */
	err = tc_profile_add_event(&usdt_profile, USDT_GROUP, usdt[0].name, NULL);
	if (err)
		goto fail;
	err = tc_profile_check(usdt_fs, &usdt_profile);
	if (!err && !usdt_profile.available)
		err = -ENOENT;
	if (!err && tc_cli_stop)
		goto stopped;
	if (!err)
		err = tc_tracefs_apply(usdt_fs, &usdt_profile);
	if (!err && tc_cli_stop)
		goto stopped;
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
stopped:
	snprintf(why, len, "interrupted");
	return -EINTR;
}
static int usdt_setup_op(char *why, size_t len, const char **tag)
{
	int err = usdt_setup(why, len);

	if (err)
		*tag = geteuid() ? "needs root" : "no uprobe";
	return err;
}

static const char *usdt_busy(void)
{
	return usdt_fs ? "the usdt+ uprobes: the kernel waits for RCU grace periods, "
			 "this can take seconds" : NULL;
}

static void usdt_done(void)
{
	if (usdt_fs)
		usdt_read_hits(1);
}

/* Hits of the uprobes of column @id: its probes are named <id>_<event>_<n>. */
static void usdt_count(const char *id, uint64_t *events, uint64_t *lost)
{
	char prefix[32];
	int k;

	snprintf(prefix, sizeof(prefix), "%s_", id);
	for (k = 0; k < nr_usdt; k++)
		if (!strncmp(usdt[k].name, prefix, strlen(prefix)))
			*events += usdt[k].hits - usdt[k].hits0;
}

const struct tc_peer_ops tc_peer_ops_usdt = {
	.first = true,
	.setup = usdt_setup_op,
	.teardown = usdt_teardown,
	.busy = usdt_busy,
	.done = usdt_done,
	.count = usdt_count,
};
