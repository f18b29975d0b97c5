/*
 * proc: run one child process the way DESIGN.md asks of every child: in its
 * own process group, stdin from /dev/null, under a timeout after which the
 * whole group is killed (TERM, then KILL), with no process of the group left
 * behind once the child has ended.
 */
#ifndef PERFGATE_PROC_H
#define PERFGATE_PROC_H

#include <stddef.h>
#include <sys/resource.h>

struct proc_opts {
	char *const *argv;	/* run with execvp, no shell */
	double timeout_s;	/* 0: none */
	double grace_s;		/* between TERM and KILL; 0: a default */
	int capture_stdout;	/* keep stdout in out/outlen, else inherit */
	size_t stderr_tail;	/* > 0: pass stderr through and keep its last bytes */
	double threads_s;	/* > 0: read the child's thread count this often */
};

struct proc_result {
	int status;		/* wait status, when started */
	int started;		/* 0: could not start; start_errno says why */
	int start_errno;
	int timed_out;
	long long wall_ns;	/* monotonic, start of spawn to reaped */
	struct rusage ru;	/* from wait4 */
	char *out;		/* captured stdout, NUL-terminated; free() it */
	size_t outlen;
	char *errtail;		/* last stderr_tail bytes of stderr; free() it */
	size_t errtaillen;
	int threads;		/* threads_s: the most threads the child was seen with */
};

/*
 * Run the child to its end. Returns NULL, or a message for a failure of
 * perfgate's own (pipe, fork) as opposed to the child's.
 */
const char *proc_run(const struct proc_opts *opts, struct proc_result *res);

/*
 * NULL when the child started and exited 0 within its time; else a phrase
 * for "side head, round 2: ...": "exited with status 3",
 * "killed by signal 11 (Segmentation fault)", "timed out after 5 s",
 * "cannot run ./x: No such file or directory". buf holds the phrase.
 */
const char *proc_failure(const struct proc_opts *opts, const struct proc_result *res,
    char *buf, size_t size);

/*
 * Make SIGINT, SIGTERM and SIGHUP kill the running child's group before the
 * tool itself dies of the signal, so that killing a tool (as alternate's
 * timeout kills a bestof side) leaves no grandchild behind.
 */
void proc_forward_signals(void);

void proc_result_free(struct proc_result *res);

#endif
