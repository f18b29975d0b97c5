#!/bin/sh
# A side whose metric is the CPU it may run on (as sed sees it, a process it
# started), or a line that is not JSON when it may run on several.
printf '{"cpu":%s}\n' "$(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' /proc/self/status)"
