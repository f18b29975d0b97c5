/*
 * kernels: the kata's contract. Four float32 kernels whose speed depends on
 * how they are written. kata/bench.c calls only these, so any kernels.c that
 * includes this header and defines them can be checked, benchmarked and gated;
 * nothing but -lm may be needed to link it.
 */
#ifndef KATA_KERNELS_H
#define KATA_KERNELS_H

void  kata_matmul(const float *A, const float *B, float *C, int n);  /* C = A @ B, n x n, row-major: loop order i, k, j, tiled over k and j */
float kata_sum(const float *x, int n);                                 /* eight partial sums */
void  kata_rmsnorm(const float *x, const float *w, float *y, int rows, int d, float eps); /* y[r][i] = x[r][i] / sqrt(mean_i x[r][i]^2 + eps) * w[i] */
int   kata_count_below(const float *sorted, int n, float t);           /* binary search: entries < t */

#endif
