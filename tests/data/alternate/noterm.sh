#!/bin/sh
# A side that ignores SIGTERM, and so does the "sleep $1" it runs (an
# ignored signal stays ignored across exec).
trap '' TERM
sleep "$1"
