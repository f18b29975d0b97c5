#!/bin/sh
# A side whose metric is the load average it started under, read from the
# faked load file.
read -r load rest <"$PERFGATE_LOADAVG"
printf '{"seen":%s}\n' "$load"
