/*
 * proc: run one child process in its own process group under a timeout,
 * with no process of its group left behind (proc.h).
 *
 * The child is started with posix_spawn because glibc's implementation uses
 * CLONE_VFORK, which costs far less than fork on a large parent and so keeps
 * bestof's overhead on a short command small. The parent waits with ppoll on
 * the child's pipes and a pidfd, so that a child which closes its pipes but
 * keeps running is still seen, and still timed out.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdint.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "proc.h"
#include "reap.h"
#include "util.h"

extern char **environ;

/* Between TERM and KILL, and the longest wait for pipes after the end. */
#define GRACE_DEFAULT_S 0.5
/* Without pidfds (Linux < 5.3) the child's end is polled this often. */
#define TICK_NS 1000000LL
#define OUT_CHUNK 16384

/* The running child's process group, for the signal handler; 0 when none. */
static volatile sig_atomic_t current_pgid;
static int forwarding;

static long long
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static int
open_pidfd(pid_t pid)
{
#ifdef SYS_pidfd_open
	return (int)syscall(SYS_pidfd_open, pid, 0);
#else
	(void)pid;
	errno = ENOSYS;
	return -1;
#endif
}

static void
closefd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/*
 * When the tool was started with 0, 1 or 2 closed, a pipe may land on one
 * of them and the child's dup2 actions would then overwrite each other:
 * move such a descriptor above 2.
 */
static int
above_stdio(int *fd)
{
	int nfd;

	if (*fd < 0 || *fd > 2)
		return 0;
	nfd = fcntl(*fd, F_DUPFD_CLOEXEC, 3);
	if (nfd < 0)
		return -1;
	*fd = nfd;
	return 0;
}

static const char *
syserr(const char *what)
{
	static char msg[160];

	snprintf(msg, sizeof msg, "%s: %s", what, strerror(errno));
	return msg;
}

/* Keep the last cap bytes of everything appended. */
static void
tail_add(char *tail, size_t cap, size_t *len, const char *p, size_t n)
{
	size_t keep;

	if (n >= cap) {
		memcpy(tail, p + n - cap, cap);
		*len = cap;
		return;
	}
	keep = *len < cap - n ? *len : cap - n;
	memmove(tail, tail + *len - keep, keep);
	memcpy(tail + keep, p, n);
	*len = keep + n;
}

static void
write_all(int fd, const char *p, size_t n)
{
	ssize_t w;

	while (n > 0) {
		w = write(fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		/* Our own stderr gone is no reason to stop timing the child. */
		if (w <= 0)
			return;
		p += w;
		n -= (size_t)w;
	}
}

/*
 * Read what one pipe has. Returns 0, or -1 (and closes *fd) at end of
 * file or on an error.
 */
static int
drain(int *fd, struct proc_result *r, const struct proc_opts *o, int isout,
    size_t *outcap)
{
	char chunk[4096];
	ssize_t n;

	if (isout) {
		if (*outcap - r->outlen < OUT_CHUNK) {
			*outcap = *outcap * 2 + OUT_CHUNK;
			r->out = xrealloc(r->out, *outcap);
		}
		/* One byte stays free for the terminating NUL. */
		n = read(*fd, r->out + r->outlen, *outcap - r->outlen - 1);
		if (n > 0)
			r->outlen += (size_t)n;
	} else {
		n = read(*fd, chunk, sizeof chunk);
		if (n > 0) {
			write_all(2, chunk, (size_t)n);
			tail_add(r->errtail, o->stderr_tail, &r->errtaillen, chunk, (size_t)n);
		}
	}
	if (n > 0 || (n < 0 && (errno == EINTR || errno == EAGAIN)))
		return 0;
	closefd(fd);
	return -1;
}

/*
 * Find a bare command name in PATH as execvp would, before the timed
 * window, so that the child does not pay for an exec that fails in every
 * directory ahead of the right one. Returns 0 with the path in buf, or -1
 * to leave the search to posix_spawnp, which then reports the right error.
 */
static int
search_path(const char *name, char *buf, size_t size)
{
	const char *dirs, *p, *colon;
	struct stat st;
	size_t dlen;

	if (strchr(name, '/') != NULL || *name == '\0')
		return -1;
	if ((dirs = getenv("PATH")) == NULL)
		dirs = "/bin:/usr/bin";
	for (p = dirs;; p = colon + 1) {
		colon = strchr(p, ':');
		dlen = colon ? (size_t)(colon - p) : strlen(p);
		/* An empty entry is the current directory. */
		if (snprintf(buf, size, "%.*s/%s", (int)(dlen ? dlen : 1), dlen ? p : ".", name) < (int)size
		    && stat(buf, &st) == 0 && S_ISREG(st.st_mode) && access(buf, X_OK) == 0)
			return 0;
		if (colon == NULL)
			return -1;
	}
}

static struct timespec
to_timespec(long long ns)
{
	struct timespec ts;

	if (ns < 0)
		ns = 0;
	ts.tv_sec = ns / 1000000000LL;
	ts.tv_nsec = ns % 1000000000LL;
	return ts;
}

/*
 * The number of threads of process pid, from the Threads line of
 * /proc/pid/status, or 0 when it cannot be read (no /proc, or gone).
 */
static int
count_threads(pid_t pid)
{
	char path[64], buf[4096], *p;
	ssize_t n;
	int fd;

	snprintf(path, sizeof path, "/proc/%ld/status", (long)pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return 0;
	n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	if ((p = strstr(buf, "\nThreads:")) == NULL)
		return 0;
	return (int)strtol(p + 9, NULL, 10);
}

/*
 * Wait for the child's end while reading its pipes; on timeout TERM its
 * group, then KILL it after the grace. Returns when the child has exited
 * (it is left a zombie, so that its pid cannot be reused yet).
 */
static void
wait_end(pid_t pid, int pidfd, int *outfd, int *errfd, long long t0,
    const struct proc_opts *o, struct proc_result *r, size_t *outcap)
{
	long long deadline = -1, killat = -1, grace, t, wake, every = 0, sample = -1;
	struct pollfd pfd[3];
	struct timespec ts;
	siginfo_t si;
	int n, i, exited = 0;

	grace = (long long)((o->grace_s > 0 ? o->grace_s : GRACE_DEFAULT_S) * 1e9);
	if (o->timeout_s > 0)
		deadline = t0 + (long long)(o->timeout_s * 1e9);
	/* The first look soon after the start, then one every threads_s. */
	if (o->threads_s > 0) {
		every = (long long)(o->threads_s * 1e9);
		sample = t0 + 1000000;
	}
	while (!exited) {
		if (sample >= 0 && (t = now_ns()) >= sample) {
			if ((n = count_threads(pid)) > r->threads)
				r->threads = n;
			sample = t + every;
		}
		n = 0;
		if (*outfd >= 0)
			pfd[n++] = (struct pollfd){ .fd = *outfd, .events = POLLIN };
		if (*errfd >= 0)
			pfd[n++] = (struct pollfd){ .fd = *errfd, .events = POLLIN };
		if (pidfd >= 0)
			pfd[n++] = (struct pollfd){ .fd = pidfd, .events = POLLIN };
		wake = killat >= 0 ? killat : deadline;
		if (sample >= 0 && (wake < 0 || sample < wake))
			wake = sample;
		t = -1;
		if (wake >= 0 || pidfd < 0)
			t = now_ns();
		if (pidfd < 0 && (wake < 0 || wake > t + TICK_NS))
			wake = t + TICK_NS;
		if (wake >= 0)
			ts = to_timespec(wake - t);
		if (ppoll(pfd, (nfds_t)n, wake >= 0 ? &ts : NULL, NULL) < 0 && errno != EINTR)
			/* Only EINVAL or ENOMEM: fall back to a plain tick. */
			nanosleep(&(struct timespec){ 0, TICK_NS }, NULL);
		for (i = 0; i < n; i++) {
			if (pfd[i].revents == 0)
				continue;
			if (pfd[i].fd == pidfd)
				exited = 1;
			else if (pfd[i].fd == *outfd)
				drain(outfd, r, o, 1, outcap);
			else
				drain(errfd, r, o, 0, outcap);
		}
		if (pidfd < 0) {
			si.si_pid = 0;
			if (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 && si.si_pid == pid)
				exited = 1;
		}
		if (exited || (deadline < 0 && killat < 0))
			continue;
		t = now_ns();
		if (killat >= 0 && t >= killat) {
			kill(-pid, SIGKILL);
			killat = -1;
			deadline = -1;
		} else if (killat < 0 && deadline >= 0 && t >= deadline) {
			r->timed_out = 1;
			kill(-pid, SIGTERM);
			killat = t + grace;
		}
	}
}

/*
 * After the end: read what the pipes still hold. Whatever else of the group
 * held them was killed, so they close at once, unless a process escaped to
 * a group of its own; that one is not waited for longer than the grace.
 */
static void
drain_rest(int *outfd, int *errfd, const struct proc_opts *o, struct proc_result *r,
    size_t *outcap)
{
	long long end, t;
	struct pollfd pfd[2];
	struct timespec ts;
	int n, i;

	end = now_ns() + (long long)((o->grace_s > 0 ? o->grace_s : GRACE_DEFAULT_S) * 1e9);
	while (*outfd >= 0 || *errfd >= 0) {
		t = now_ns();
		if (t >= end)
			break;
		n = 0;
		if (*outfd >= 0)
			pfd[n++] = (struct pollfd){ .fd = *outfd, .events = POLLIN };
		if (*errfd >= 0)
			pfd[n++] = (struct pollfd){ .fd = *errfd, .events = POLLIN };
		ts = to_timespec(end - t);
		if (ppoll(pfd, (nfds_t)n, &ts, NULL) < 0 && errno != EINTR)
			break;
		for (i = 0; i < n; i++) {
			if (pfd[i].revents == 0)
				continue;
			if (pfd[i].fd == *outfd)
				drain(outfd, r, o, 1, outcap);
			else
				drain(errfd, r, o, 0, outcap);
		}
	}
	closefd(outfd);
	closefd(errfd);
}

const char *
proc_run(const struct proc_opts *o, struct proc_result *r)
{
	int outp[2] = { -1, -1 }, errp[2] = { -1, -1 }, pidfd, rc, i, found;
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	sigset_t fwd, old;
	char path[PATH_MAX];
	const char *err = NULL;
	size_t outcap = 0;
	long long t0;
	pid_t pid;

	memset(r, 0, sizeof *r);
	{
		static int subreaper;

		if (!subreaper) {
			subreaper = prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0 ? 1 : -1;
			reap_start_guard();
		}
	}
	if (o->capture_stdout) {
		if (pipe2(outp, O_CLOEXEC) < 0)
			return syserr("pipe");
		outcap = OUT_CHUNK * 2;
		r->out = xmalloc(outcap);
	}
	if (o->stderr_tail > 0) {
		if (pipe2(errp, O_CLOEXEC) < 0) {
			err = syserr("pipe");
			goto out;
		}
		r->errtail = xmalloc(o->stderr_tail);
	}
	for (i = 0; i < 2; i++)
		if (above_stdio(&outp[i]) < 0 || above_stdio(&errp[i]) < 0) {
			err = syserr("fcntl");
			goto out;
		}

	if ((errno = posix_spawn_file_actions_init(&fa)) != 0) {
		err = syserr("posix_spawn");
		goto out;
	}
	if ((errno = posix_spawnattr_init(&at)) != 0) {
		posix_spawn_file_actions_destroy(&fa);
		err = syserr("posix_spawn");
		goto out;
	}
	rc = posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	if (rc == 0 && outp[1] >= 0)
		rc = posix_spawn_file_actions_adddup2(&fa, outp[1], 1);
	if (rc == 0 && errp[1] >= 0)
		rc = posix_spawn_file_actions_adddup2(&fa, errp[1], 2);
	if (rc == 0)
		rc = posix_spawnattr_setpgroup(&at, 0);
	sigemptyset(&fwd);
	if (forwarding) {
		/*
		 * A signal between the spawn and the note of the child's pid
		 * would leave the child behind: hold the forwarded signals
		 * until the pid is noted, and give the child our usual mask.
		 */
		sigaddset(&fwd, SIGINT);
		sigaddset(&fwd, SIGTERM);
		sigaddset(&fwd, SIGHUP);
		sigprocmask(SIG_BLOCK, &fwd, &old);
		if (rc == 0)
			rc = posix_spawnattr_setsigmask(&at, &old);
		if (rc == 0)
			rc = posix_spawnattr_setflags(&at, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK);
	} else if (rc == 0) {
		rc = posix_spawnattr_setflags(&at, POSIX_SPAWN_SETPGROUP);
	}
	if (rc != 0) {
		errno = rc;
		err = syserr("posix_spawn");
		goto spawned;
	}

	found = search_path(o->argv[0], path, sizeof path) == 0;

	/* The timed window: nothing but the spawn and the wait. */
	t0 = now_ns();
	if (found)
		rc = posix_spawn(&pid, path, &fa, &at, o->argv, environ);
	else
		rc = posix_spawnp(&pid, o->argv[0], &fa, &at, o->argv, environ);
	if (rc != 0) {
		/* glibc reports the exec's errno and reaps the failed child. */
		r->start_errno = rc;
		goto spawned;
	}
	r->started = 1;
	current_pgid = pid;
	reap_tell_guard(pid);
	if (forwarding)
		sigprocmask(SIG_SETMASK, &old, NULL);
	closefd(&outp[1]);
	closefd(&errp[1]);
	pidfd = open_pidfd(pid);
	wait_end(pid, pidfd, &outp[0], &errp[0], t0, o, r, &outcap);
	/*
	 * The leader has exited but is not reaped, so its pid, which is the
	 * group's id, cannot be reused: kill whatever is left of the group.
	 */
	kill(-pid, SIGKILL);
	current_pgid = 0;
	while (wait4(pid, &r->status, 0, &r->ru) < 0 && errno == EINTR)
		;
	r->wall_ns = now_ns() - t0;
	if (pidfd >= 0)
		close(pidfd);
	reap_tell_guard(0);
	reap_descendants();
	drain_rest(&outp[0], &errp[0], o, r, &outcap);

spawned:
	if (forwarding && !r->started)
		sigprocmask(SIG_SETMASK, &old, NULL);
	posix_spawnattr_destroy(&at);
	posix_spawn_file_actions_destroy(&fa);
out:
	for (i = 0; i < 2; i++) {
		closefd(&outp[i]);
		closefd(&errp[i]);
	}
	if (r->out != NULL)
		r->out[r->outlen] = '\0';
	if (err != NULL)
		proc_result_free(r);
	return err;
}

const char *
proc_failure(const struct proc_opts *o, const struct proc_result *r, char *buf,
    size_t size)
{
	char num[32];
	int sig;

	if (!r->started) {
		snprintf(buf, size, "cannot run %s: %s", o->argv[0], strerror(r->start_errno));
	} else if (r->timed_out) {
		fmt_double(num, o->timeout_s);
		snprintf(buf, size, "timed out after %s s", num);
	} else if (WIFSIGNALED(r->status)) {
		sig = WTERMSIG(r->status);
		snprintf(buf, size, "killed by signal %d (%s)", sig, strsignal(sig));
	} else if (WIFEXITED(r->status) && WEXITSTATUS(r->status) != 0) {
		snprintf(buf, size, "exited with status %d", WEXITSTATUS(r->status));
	} else {
		return NULL;
	}
	return buf;
}

static void
on_signal(int sig)
{
	struct sigaction sa;
	pid_t pg = current_pgid;

	if (pg > 0)
		kill(-pg, SIGKILL);
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = SIG_DFL;
	sigemptyset(&sa.sa_mask);
	sigaction(sig, &sa, NULL);
	/* Blocked while the handler runs, the signal kills us on return. */
	raise(sig);
}

void
proc_forward_signals(void)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };
	struct sigaction sa, old;
	size_t i;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
		sigaddset(&sa.sa_mask, sigs[i]);
	for (i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
		/* A signal ignored from the start (nohup) stays ignored. */
		if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN)
			continue;
		sigaction(sigs[i], &sa, NULL);
	}
	forwarding = 1;
}

void
proc_result_free(struct proc_result *res)
{
	free(res->out);
	free(res->errtail);
	res->out = NULL;
	res->errtail = NULL;
	res->outlen = 0;
	res->errtaillen = 0;
}
