/*
 * recordkeys: the one table of the bookkeeping keys a run's record
 * carries beside a side's metrics. alternate writes them (round, slot, the
 * load and pressure it read, threads, discarded runs); every tool that
 * reduces or judges records (minjson, cmpbudget, plotrounds) leaves them
 * out by default, so that adding a key here is the only change a new
 * bookkeeping number needs.
 */
#ifndef PERFGATE_RECORDKEYS_H
#define PERFGATE_RECORDKEYS_H

#include <stddef.h>

/* The keys, NULL-terminated, in the order alternate writes them. */
extern const char *const record_bookkeeping[];

/* Is key[0..len) one of them? */
int is_bookkeeping(const char *key, size_t len);

#endif
