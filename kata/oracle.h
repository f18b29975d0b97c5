/*
 * oracle: the kata's kernels in higher precision, for scoring accuracy:
 * the same arithmetic as kernels.h says, in long double, each result
 * rounded once to double; count_below exact. kata/bench.c built with
 * -DBENCH_ORACLE writes these under BENCH_EVAL.
 */
#ifndef KATA_ORACLE_H
#define KATA_ORACLE_H

void   oracle_matmul(const float *A, const float *B, double *C, int n);
double oracle_sum(const float *x, int n);
void   oracle_rmsnorm(const float *x, const float *w, double *y, int rows, int d, float eps);
int    oracle_count_below(const float *sorted, int n, float t);

#endif
