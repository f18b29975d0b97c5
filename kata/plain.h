/*
 * plain: the obvious versions of the kata's kernels, under their own names.
 * They are the oracle kata_check compares a kata against, and the baseline
 * the kata's speed is quoted against.
 */
#ifndef KATA_PLAIN_H
#define KATA_PLAIN_H

void  plain_matmul(const float *A, const float *B, float *C, int n);  /* loop order i, j, k */
float plain_sum(const float *x, int n);                                 /* one accumulator */
void  plain_rmsnorm(const float *x, const float *w, float *y, int rows, int d, float eps);
int   plain_count_below(const float *sorted, int n, float t);           /* linear scan */

#endif
