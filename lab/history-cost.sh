#!/bin/sh
# history-cost.sh [N] [M]: the cost of perfgate history's own work, no
# gate: a repository of N commits (default 500), each with a note of M
# metrics (default 20), made up (ratios near 1, no creep); then the
# seconds of `histnote check` over the last 50 commits and of `histnote
# report` over all N. Needs python3 to make up the notes.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
n=${1:-500} m=${2:-20}
dir=$top/build/lab/history-cost
rm -rf "$dir" && mkdir -p "$dir/repo"
(cd "$top" && make -s all)
cd "$dir/repo"
export GIT_AUTHOR_NAME=lab GIT_AUTHOR_EMAIL=lab@example.org GIT_COMMITTER_NAME=lab GIT_COMMITTER_EMAIL=lab@example.org
git init -q -b main
printf 'runs = 3\n[budget]\n' > budget.toml
i=0
while [ $i -lt "$m" ]; do echo "m${i}_ns = 0.2" >> budget.toml; i=$((i + 1)); done
git add budget.toml && git commit -qm 'the budget'
i=1
while [ $i -lt "$n" ]; do git commit -q --allow-empty -m "commit $i"; i=$((i + 1)); done
# The notes, one a commit: each commit against its first parent.
git log --reverse --format='%H %P' | python3 -c '
import json, random, sys
m = int(sys.argv[1])
random.seed(1)
for line in sys.stdin:
    f = line.split()
    if len(f) < 2:
        continue
    ms = []
    for k in range(m):
        r = random.gauss(1, 0.01)
        ms.append({"metric": "m%d_ns" % k, "ratio": r, "ratio_lo": r - 0.02, "ratio_hi": r + 0.02, "rounds": 6,
                   "verdict": "ok", "budget": 0.2, "better": "lower", "base": 1000, "head": 1000 * r})
    print(f[0], json.dumps({"perfgate_history": 1, "commit": f[0], "parent": f[1], "machine": "lab",
        "recorded": "2026-01-01T00:00:00Z", "verdict": "ok", "metrics": ms, "budget": "budget.toml"},
        separators=(",", ":")))' "$m" > "$dir/notes"
while read -r c note; do printf '%s\n' "$note" | git notes --ref=perfgate add -F - "$c"; done < "$dir/notes"
s=$(date +%s.%N)
PERFGATE_MACHINE=lab "$top/bin/histnote" check > "$dir/check.jsonl" 2> "$dir/check.err" || true
e=$(date +%s.%N)
"$top/bin/histnote" report -o "$dir/report" 2> "$dir/report.err"
f=$(date +%s.%N)
echo "history-cost: $n commits x $m metrics: check of the last 50 $(echo "$s $e" | awk '{ printf "%.2f", $2 - $1 }') s (no gate), report of all $(echo "$e $f" | awk '{ printf "%.2f", $2 - $1 }') s"
