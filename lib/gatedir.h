/*
 * gatedir: the files of a stored gate (GATEDIR) that gaterun writes and
 * reads: each written whole through NAME.tmp and renamed, with the
 * signals that end a gate held off meanwhile, so that a gate killed at any
 * moment leaves either the old file or the new one, never half of one;
 * the error verdict of a gate that could not go on; and a stored verdict
 * said again, with its status.
 */
#ifndef PERFGATE_GATEDIR_H
#define PERFGATE_GATEDIR_H

#include <stddef.h>

/* Hold off (on) or let through (off) SIGINT, SIGTERM and SIGHUP. */
void gatedir_hold(int on);

/* Write p[0..n) to dir/name through dir/name.tmp; NULL, or an allocated message. */
char *gatedir_put(const char *dir, const char *name, const char *p, size_t n);

/* Date dir/name 1970, so that make never takes it for newer than what it depends on. */
void gatedir_age(const char *dir, const char *name);

/*
 * The error verdict of a gate that could not go on: "SIDE: STEP: [what
 * the side is: ]MSG" in one summary record, with the side's revision (or
 * file), commit and dirty digest as the gate's shell recorded them
 * (dir/SIDE.value, dir/SIDE.key), and extra (more members, as JSON, or
 * NULL) at its end; written to dir/verdict.jsonl (dated 1970: never
 * trusted) and to dir/verdict.txt. side is "base", "head" or "both".
 * Returns 2, or exits 2 when it cannot be written.
 */
int gatedir_error(const char *dir, const char *side, const char *step, const char *msg, const char *extra);

/*
 * The same, for a step before the side's key is written (gate.sh's
 * settings, identity and build): the side as named (value, or NULL) and
 * its source (NULL, sha256:DIGEST of a file, COMMIT, or
 * COMMIT+dirty:DIGEST of a work tree with changes) given.
 */
int gatedir_fail(const char *dir, const char *side, const char *step, const char *msg, const char *value,
    const char *source, const char *extra);

/*
 * Are dir/runs.jsonl's rounds whole and of this side: every line a record,
 * the last ended, and every record of side carrying each member of
 * dir/SIDE.key ("member NAME VALUE": the identity gaterun -a gave them)
 * with that value? 1 when they are, or when there are no rounds; else 0.
 */
int gatedir_match(const char *dir, const char *side);

/*
 * The same, and rounds that do not match moved to dir/runs.rejected.jsonl,
 * with a line that says so: 0 when they matched, else 1.
 */
int gatedir_reject(const char *dir, const char *side);

/* Make dir and its parents, as mkdir -p; or exit 2. */
void gatedir_make(const char *dir);

/*
 * -v: say the stored verdict: dir/verdict.txt on stderr (unless !text),
 * dir/verdict.jsonl on stdout; the status is its summary record's: 0 ok,
 * 1 regressed, 2 otherwise, or when the records cannot be read or
 * written. With status 2 and reasonfile, the one-line reason ("error" or
 * "reason" of the summary) goes to reasonfile.
 */
int gatedir_say(const char *dir, const char *reasonfile, int text);

#endif
