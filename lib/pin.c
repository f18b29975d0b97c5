/*
 * pin: the CPU a gate's runs share, held against other gates (pin.h).
 *
 * The locks' directory holds "lock", taken while a gate chooses or counts
 * (so that one gate's count never sees another's probe), and "cpuN.K",
 * slot K of CPU N: a gate holds CPU N by an flock on the lowest free slot.
 * The holders of N are the locked slots; slots are never removed, so they
 * run from .0 without a gap.
 */
#include <sys/file.h>
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "msg.h"
#include "pin.h"
#include "util.h"

/* The default directories: the machine's, and this user's own when that one cannot be used. */
#define PIN_RUNDIR "/run/lock/perfgate-cpu"
#define PIN_TMPDIR "/tmp/perfgate-cpu-%lu"

/* More slots than gates a machine runs at once: a bound on a damaged directory. */
#define PIN_SLOTS 4096

const char *
pin_parse(const char *arg, long *cpu)
{
	if (strcmp(arg, "auto") == 0) {
		*cpu = PIN_AUTO;
		return NULL;
	}
	if (parse_long(arg, 0, CPU_SETSIZE - 1, cpu) != NULL)
		return "not auto or a CPU number from 0";
	return NULL;
}

/*
 * Open dir's file name for a lock, made when missing (readable by all, so
 * that other users' gates can lock it too). It is opened before it is
 * made: in a sticky directory (fs.protected_regular) an O_CREAT open of
 * another user's file is refused where a plain open is not. A symbolic
 * link or anything but a regular file is refused. -1 with errno set.
 */
static int
lockfile(int dirfd, const char *name, int create)
{
	int fd = -1, i, flags = O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC;
	struct stat st;

	for (i = 0; i < 3 && fd < 0; i++) {
		if ((fd = openat(dirfd, name, flags)) >= 0 || errno != ENOENT || !create)
			break;
		if ((fd = openat(dirfd, name, flags | O_CREAT | O_EXCL, 0644)) >= 0)
			(void)fchmod(fd, 0644);
		else if (errno != EEXIST)
			return -1;
	}
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		errno = EINVAL;
		return -1;
	}
	return fd;
}

/* Take the directory's "lock", waiting for it; -1 with errno set. */
static int
lockdir(int dirfd)
{
	int fd = lockfile(dirfd, "lock", 1);

	if (fd < 0)
		return -1;
	while (flock(fd, LOCK_EX) != 0)
		if (errno != EINTR) {
			close(fd);
			return -1;
		}
	return fd;
}

/* How a directory of the locks is trusted (usedir). */
enum trust {
	NAMED,		/* PERFGATE_CPU_LOCKS: as the user named it */
	MACHINE,	/* the machine's: no symbolic link */
	OWN		/* this user's: no symbolic link, this user's, written by no one else */
};

/*
 * Open path as the locks' directory, made with mode when missing, trusted
 * as t says; it must let this user make a lock in it. NULL, or what is
 * wrong.
 */
static const char *
usedir(const char *path, mode_t mode, enum trust t, int *dirfd)
{
	struct stat st;
	int fd, lk, made;

	made = mkdir(path, mode & 0777) == 0;
	if (!made && errno != EEXIST)
		return strerror(errno);
	if ((fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC | (t != NAMED ? O_NOFOLLOW : 0))) < 0)
		return errno == ELOOP ? "a symbolic link" : strerror(errno);
	if (fstat(fd, &st) != 0) {
		close(fd);
		return strerror(errno);
	}
	/* mkdir's mode passed through the umask: a directory for every user is made so again. */
	if (made && (mode & ~(mode_t)0777) != 0)
		(void)fchmod(fd, mode);
	if (t == OWN && (st.st_uid != getuid() || (st.st_mode & 022) != 0)) {
		close(fd);
		return "not this user's own directory";
	}
	if (faccessat(fd, ".", W_OK | X_OK, 0) != 0 || (lk = lockdir(fd)) < 0) {
		close(fd);
		return strerror(errno);
	}
	close(lk);
	*dirfd = fd;
	return NULL;
}

/* The locks' directory, as pin.h says; NULL, or an allocated message. */
static char *
pindir(int *dirfd)
{
	const char *env = getenv("PERFGATE_CPU_LOCKS"), *why;
	char tmp[64];

	if (env != NULL && *env != '\0') {
		if ((why = usedir(env, 0755, NAMED, dirfd)) != NULL)
			return msgf("PERFGATE_CPU_LOCKS=%s: cannot hold CPU locks there: %s", env, why);
		return NULL;
	}
	/* Sticky and open to all, as /run/lock is: every user's gates meet there. */
	if (usedir(PIN_RUNDIR, 01777, MACHINE, dirfd) == NULL)
		return NULL;
	snprintf(tmp, sizeof tmp, PIN_TMPDIR, (unsigned long)getuid());
	if ((why = usedir(tmp, 0700, OWN, dirfd)) != NULL)
		return msgf("%s (" PIN_RUNDIR " being unusable): cannot hold CPU locks there: %s;"
		    " PERFGATE_CPU_LOCKS names another directory", tmp, why);
	return NULL;
}

/* How many gates hold cpu: its locked slots. The caller holds the directory's lock. */
static long
holders(int dirfd, long cpu)
{
	char name[64];
	long k, n = 0;
	int fd;

	for (k = 0; k < PIN_SLOTS; k++) {
		snprintf(name, sizeof name, "cpu%ld.%ld", cpu, k);
		if ((fd = lockfile(dirfd, name, 0)) < 0)
			break;
		if (flock(fd, LOCK_EX | LOCK_NB) != 0)
			n++;
		close(fd);
	}
	return n;
}

/* Hold cpu: lock its lowest free slot, made when all are held. The fd, or -1 with errno set. */
static int
holdslot(int dirfd, long cpu)
{
	char name[64];
	long k;
	int fd;

	for (k = 0; k < PIN_SLOTS; k++) {
		snprintf(name, sizeof name, "cpu%ld.%ld", cpu, k);
		if ((fd = lockfile(dirfd, name, 1)) < 0)
			return -1;
		if (flock(fd, LOCK_EX | LOCK_NB) == 0)
			return fd;
		close(fd);
	}
	errno = EMFILE;
	return -1;
}

char *
pin_take(long cpu, struct pin *p)
{
	cpu_set_t set;
	long i, n, least = -1;
	char *err;
	int lk;

	p->cpu = -1;
	p->dirfd = p->fd = -1;
	if (sched_getaffinity(0, sizeof set, &set) != 0)
		return msgf("cannot read the CPUs this process may use: %s", strerror(errno));
	if (cpu != PIN_AUTO && !CPU_ISSET((int)cpu, &set))
		return msgf("CPU %ld is not one this process may use", cpu);
	if ((err = pindir(&p->dirfd)) != NULL)
		return err;
	if ((lk = lockdir(p->dirfd)) < 0) {
		err = msgf("cannot take the CPU locks' lock: %s", strerror(errno));
		pin_release(p);
		return err;
	}
	if (cpu == PIN_AUTO) {
		/* From the highest down: the first CPU no gate holds ends the search. */
		for (i = CPU_SETSIZE - 1; i >= 0 && least != 0; i--)
			if (CPU_ISSET((int)i, &set) && ((n = holders(p->dirfd, i)) < least || least < 0)) {
				least = n;
				cpu = i;
			}
		if (cpu == PIN_AUTO) {
			close(lk);
			pin_release(p);
			return msgf("no CPU in this process's affinity mask");
		}
	}
	if ((p->fd = holdslot(p->dirfd, cpu)) < 0)
		err = msgf("cannot hold CPU %ld's lock: %s", cpu, strerror(errno));
	close(lk);
	if (err != NULL) {
		pin_release(p);
		return err;
	}
	CPU_ZERO(&set);
	CPU_SET((int)cpu, &set);
	if (sched_setaffinity(0, sizeof set, &set) != 0) {
		err = msgf("cannot pin to CPU %ld: %s", cpu, strerror(errno));
		pin_release(p);
		return err;
	}
	p->cpu = cpu;
	return NULL;
}

long
pin_sharers(const struct pin *p)
{
	long n;
	int lk;

	if (p->fd < 0 || (lk = lockdir(p->dirfd)) < 0)
		return 0;
	n = holders(p->dirfd, p->cpu);
	close(lk);
	/* One of the holders is this gate. */
	return n > 0 ? n - 1 : 0;
}

void
pin_release(struct pin *p)
{
	if (p->fd >= 0)
		close(p->fd);
	if (p->dirfd >= 0)
		close(p->dirfd);
	p->fd = p->dirfd = -1;
}

char *
pin_follow(char *pidfile)
{
	cpu_set_t set;
	long pid = 0;
	char *err;
	FILE *fp;

	if ((fp = fopen(pidfile, "r")) == NULL || fscanf(fp, "%ld", &pid) != 1 || pid <= 1) {
		if (fp != NULL)
			fclose(fp);
		err = msgf("%s: no worker's pid", pidfile);
		free(pidfile);
		return err;
	}
	fclose(fp);
	free(pidfile);
	if (sched_getaffinity(0, sizeof set, &set) != 0 || sched_setaffinity((pid_t)pid, sizeof set, &set) != 0)
		return msgf("cannot move the worker (pid %ld) onto this process's CPUs: %s", pid, strerror(errno));
	return NULL;
}
