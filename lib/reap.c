/*
 * reap: no descendant of a tool outlives the child it ran (reap.h). The
 * tool is a subreaper, so orphans come to it and are killed here; a guard
 * process outside its group kills the running child's group when the tool
 * itself is killed without a chance to.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "reap.h"

/*
 * The pids of our children, from /proc/self/task/TID/children (every
 * thread's), into pids[0..cap); returns how many (0 when /proc cannot
 * tell).
 */
static size_t
list_children(pid_t *pids, size_t cap)
{
	char path[64], buf[4096];
	struct dirent *e;
	size_t n = 0;
	ssize_t got;
	char *p, *end;
	long v;
	DIR *d;
	int fd;

	if ((d = opendir("/proc/self/task")) == NULL)
		return 0;
	while (n < cap && (e = readdir(d)) != NULL) {
		if (e->d_name[0] < '0' || e->d_name[0] > '9')
			continue;
		snprintf(path, sizeof path, "/proc/self/task/%.20s/children", e->d_name);
		if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
			continue;
		got = read(fd, buf, sizeof buf - 1);
		close(fd);
		if (got <= 0)
			continue;
		buf[got] = '\0';
		for (p = buf; n < cap; p = end) {
			v = strtol(p, &end, 10);
			if (end == p)
				break;
			if (v > 0)
				pids[n++] = (pid_t)v;
		}
	}
	closedir(d);
	return n;
}

/*
 * The guard: a process of its own group, outside the tool's, holding the
 * read end of a pipe from the tool, told the group of each child as it
 * starts and 0 as it ends. A tool killed mid-run (kill -9 of its process
 * group: a CI cancel, timeout -s KILL) cannot end its child, whose group
 * is its own; the pipe's end tells the guard, which kills that group.
 */
static int guard_fd = -1;
static pid_t guard_pid;

void
reap_start_guard(void)
{
	int p[2], fd;
	int32_t v, g = 0;
	ssize_t n;
	pid_t pid;

	if (pipe2(p, O_CLOEXEC) < 0)
		return;
	if ((pid = fork()) < 0) {
		close(p[0]);
		close(p[1]);
		return;
	}
	if (pid == 0) {
		setpgid(0, 0);
		signal(SIGINT, SIG_IGN);
		signal(SIGHUP, SIG_IGN);
		signal(SIGTERM, SIG_DFL);
		/* Nothing of the tool's held open: its stdout ends with it. */
		for (fd = 0; fd < 1024; fd++)
			if (fd != p[0])
				close(fd);
		while ((n = read(p[0], &v, sizeof v)) == (ssize_t)sizeof v || (n < 0 && errno == EINTR))
			if (n == (ssize_t)sizeof v)
				g = v;
		if (g > 0)
			kill(-g, SIGKILL);
		_exit(0);
	}
	close(p[0]);
	guard_fd = p[1];
	guard_pid = pid;
}

void
reap_tell_guard(pid_t g)
{
	int32_t v = (int32_t)g;

	if (guard_fd >= 0 && write(guard_fd, &v, sizeof v) != (ssize_t)sizeof v) {
		close(guard_fd);
		guard_fd = -1;
	}
}

/*
 * No process the child started outlives it, wherever it went: the tool is
 * a subreaper (PR_SET_CHILD_SUBREAPER, from its first child on), so a
 * descendant whose parent has died (a daemon that forked twice and called
 * setsid, the setsid child of a benchmark killed past its TERM) is our
 * child: killed and reaped here, again until none is left, since each one
 * killed hands its own children to us.
 */
void
reap_descendants(void)
{
	pid_t pids[256];
	size_t n, i, rounds;

	for (rounds = 0; rounds < 1000; rounds++) {
		if ((n = list_children(pids, sizeof pids / sizeof pids[0])) == 0)
			return;
		for (i = 0; i < n; i++)
			if (pids[i] == guard_pid)
				pids[i--] = pids[--n];
		if (n == 0)
			return;
		for (i = 0; i < n; i++)
			kill(pids[i], SIGKILL);
		for (i = 0; i < n; i++)
			while (waitpid(pids[i], NULL, 0) < 0 && errno == EINTR)
				;
	}
}

