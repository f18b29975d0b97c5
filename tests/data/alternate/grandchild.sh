#!/bin/sh
# A side that forks a grandchild which hangs ("sleep $1", a unique marker
# for pgrep), then waits for it.
sleep "$1" &
wait
