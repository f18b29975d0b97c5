/*
 * perflock: the pinned reference environment, docs/refs.lock: for every
 * reference its package, its version and the SHA-256 of every library
 * file it loads, written on purpose (make compare-lock) and held to
 * before a run (make compare). perfdoc(1) describes the file.
 */
#ifndef PERFGATE_PERFLOCK_H
#define PERFGATE_PERFLOCK_H

/*
 * What reference side[i] says of itself, the JSON object in file[i] (its
 * COMPARE_LOCK_<side> command's output: "package", "version", "files", the
 * paths of the libraries it loaded), its files digested here, written to
 * path: one line a reference, {"reference","package","version","files":
 * {path: sha256}}, the paths sorted. Exit 2 on a file that cannot be read.
 */
void lock_write(const char *path, char **side, char **file, int n);

/*
 * 0 when path's lock is what the references say now (the same references,
 * packages, versions, files and digests); else 1, a line for each that
 * differs, naming the lock's line, the file, both versions and both
 * digests. Exit 2 on a lock that does not read.
 */
int lock_check(const char *path, char **side, char **file, int n);

#endif
