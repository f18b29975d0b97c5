#!/bin/sh
# A side whose metrics are the thread counts it was given; an unset one
# leaves an empty value and so a line that is not JSON.
printf '{"omp":%s,"openblas":%s,"mkl":%s,"veclib":%s}\n' "$OMP_NUM_THREADS" \
    "$OPENBLAS_NUM_THREADS" "$MKL_NUM_THREADS" "$VECLIB_MAXIMUM_THREADS"
