/*
 * countjudge: countof's judgments (countof(1)). counts_judge compares two
 * sides' counts records against the [counts] section of a budget file;
 * counts_layout joins a time verdict and a counts verdict and names the
 * time regressions whose instruction counts did not move.
 */
#ifndef PERFGATE_COUNTJUDGE_H
#define PERFGATE_COUNTJUDGE_H

/*
 * Judge the records of sides "base" and "head" in the files (standard
 * input when nfiles is 0; "-" too) against budget. Writes a record per
 * metric and a summary last on stdout, a table on stderr. Returns the
 * exit status: 0 ok, 1 regressed, 2 cannot decide.
 */
int counts_judge(const char *budget, char **files, int nfiles);

/*
 * Join the verdict files of a time gate and a counts gate into one
 * verdict: their metric records as they are, then one summary naming in
 * "layout_suspect" each time metric m_ns that regressed while m_instr moved
 * by at most eps (a fraction), and so did m_l1_misses and m_ll_misses where
 * the counts have them. Returns the exit status.
 */
int counts_layout(const char *timefile, const char *countsfile, double eps);

#endif
