/*
 * runround: one round of benchmark sides, as alternate(1) and gaterun(1)
 * run it: every side once, in the order of the round's row of a Williams
 * design, each run's record (its side, round, slot, load, what disturbed
 * it, then its own metrics byte for byte) written to the output when the
 * round is whole. A round run on a loaded machine is discarded and run
 * again (the load gate), one that something else disturbed too (-W). A
 * side that fails, or a load gate that stays closed, ends the round with
 * one record that says what happened, written in its place.
 */
#ifndef PERFGATE_RUNROUND_H
#define PERFGATE_RUNROUND_H

#include <setjmp.h>
#include <stdio.h>

#include "buf.h"
#include "json.h"
#include "proc.h"
#include "gauge.h"
#include "pin.h"
#include "progress.h"
#include "sides.h"

/* The keys of a run's record and of a failure's record, which neither -a nor a metric may take. */
extern const char *const runround_ownkeys[];
extern const size_t runround_nownkeys;

struct runround {
	/* Settings, set before runround_open. */
	struct runside *sides;
	size_t nsides;
	FILE *out;
	const char *outname;
	double maxload;		/* 0: no load gate */
	double maxwait;		/* seconds a closed gate is waited for */
	double timeout;		/* seconds a run may take */
	long maxthreads;	/* 0: threads not watched */
	long retries;		/* rounds discarded by the load gate, at most, in all */
	long maxreruns;		/* disturbed rounds run again, at most, in all (needs watch) */
	int strings;		/* string members pass through */
	int notediscards;	/* records say how often their round was discarded */
	int watch;		/* records say what disturbed each run */
	int pressure;		/* the load gate reads CPU pressure */
	const char *failpath;	/* a failure's side and message, as two plain lines, or NULL */
	int pinned;		/* pin holds the CPU every run is on: records say it, and how many shared it */
	struct pin pin;
	/* After a failed round: the side that failed ("" for none) and the message. */
	char failside[128];
	char failmsg[1024];
	/* State. */
	struct gauge gauges;
	struct progress prog;
	struct buf held;	/* the round's records, held until it is whole */
	long discards, used, retried, reruns, rerunsused;
	double before;
	int disturbed;
	jmp_buf fail;
	struct proc_result *live;	/* the run being read, freed if the round fails */
	struct jrecord *livem;
};

/* Read the gauges once and set the sides' thread variables; NULL, or what is wrong. */
const char *runround_open(struct runround *r);

/*
 * Run round (numbered from 1; its number chooses the design's row), shown
 * as shown of total in the progress line. 0 when the round's records are
 * written, -1 when it failed: the failure's record is written in their
 * place, and failside and failmsg say what failed.
 */
int runround_run(struct runround *r, long round, long shown, long total);

void runround_close(struct runround *r);

#endif
