#!/bin/sh
# minjson against its peers on one million alternate-style records: mawk
# with the fields hard-coded, and jq 1.6 (on a slice, scaled up, since the
# whole file takes it about a minute; MINJSON_JQ=full runs it in full).
# The contenders run interleaved, several rounds; the minima are compared,
# so a busy machine slows all of them alike.
#
# Two shapes of records. "issue": as in issue 2 (two sides, five numeric
# fields, about 118 bytes a line), metrics printed at full precision the
# way bench.h prints a quotient of nanoseconds by calls, so many need 17
# digits. "wide": seven numeric fields with short values.
#
# Environment: MINJSON_RECORDS (default 1000000), MINJSON_ROUNDS (5),
# MINJSON_JQ (slice: 20000 records of the issue shape, default; full; off),
# MINJSON (the minjson measured, default bin/minjson), MINJSON_OLD (another
# build, say main's, timed in the same rounds: a change's ratio before and
# after, side by side).
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
out=$top/build/bench-minjson
records=${MINJSON_RECORDS:-1000000}
rounds=${MINJSON_ROUNDS:-5}
jqmode=${MINJSON_JQ:-slice}
minjson=${MINJSON:-$top/bin/minjson}
old=${MINJSON_OLD:-}
mkdir -p "$out"

[ -x "$minjson" ] || { echo "minjson-peers: $minjson not built (make bin/minjson)" >&2; exit 2; }
command -v mawk >/dev/null || { echo "minjson-peers: mawk not found" >&2; exit 2; }
[ -z "$old" ] || [ -x "$old" ] || { echo "minjson-peers: MINJSON_OLD=$old is not executable" >&2; exit 2; }

# The data: deterministic, written once, kept out of git under build/.
cat >"$out/gen.py" <<'EOF'
import random, sys
n = int(sys.argv[1])
shape = sys.argv[2]
rng = random.Random(20240601)
out = []
for i in range(n):
    rnd = i // 2
    slot = i % 2
    side = ("base", "head")[(rnd + slot) % 2]
    if shape == "issue":
        calls = rng.randint(1000, 4000)
        out.append('{"side":"%s","round":%d,"slot":%d,"load":%.2f,"matmul_ns":%r,'
            '"count_below_ns":%r}\n' % (side, rnd + 1, slot, rng.uniform(0, 2),
            rng.randint(1200000000, 1900000000) / calls,
            rng.randint(60000000, 90000000) / (calls * 1000)))
    else:
        out.append('{"side":"%s","round":%d,"slot":%d,"load":%.2f,"matmul_ns":%d,'
            '"sum_ns":%.1f,"rmsnorm_ns":%d,"count_below_ns":%.2f}\n' % (
            side, rnd, slot, rng.uniform(0, 2), rng.randint(1200000, 1900000),
            rng.randint(6000, 9000) / 2, rng.randint(12000, 19000),
            rng.randint(500, 900) / 4))
    if len(out) == 10000:
        sys.stdout.write("".join(out))
        out = []
sys.stdout.write("".join(out))
EOF
gen() {	# gen SHAPE FILE
	[ -s "$2" ] && return
	python3 "$out/gen.py" "$records" "$1" >"$2.tmp" || exit 2
	mv -f "$2.tmp" "$2"
}
issue=$out/issue-$records.jsonl
wide=$out/runs-$records.jsonl
gen issue "$issue"
gen wide "$wide"
slice=$out/slice-20000.jsonl
head -n 20000 "$issue" >"$slice"

# mawk with the layout hard-coded: split on the JSON punctuation, the
# values sit in the even fields, one array per field, unrolled. It keeps the
# text of each minimum so that its output can be checked against minjson's,
# byte for byte. round, slot and load (fields 4, 6 and 8) are bookkeeping,
# which minjson leaves out (recordkeys.c).
mkawk() {	# mkawk FIRST LAST: the program for values in fields FIRST, FIRST + 2, ..., LAST
	echo 'BEGIN { FS = "[:,}]" }'
	echo '{'
	echo '	s = $2'
	echo '	if (!(s in cnt)) order[++ng] = s'
	echo '	cnt[s]++'
	i=$1
	while [ $i -le "$2" ]; do
		echo "	v = \$$i + 0; if (!(s in m$i) || v < m$i[s]) { m$i[s] = v; t$i[s] = \$$i }"
		i=$((i + 2))
	done
	echo '}'
	echo 'END {'
	echo '	for (g = 1; g <= ng; g++) {'
	echo '		s = order[g]'
	printf '		print "{\\"side\\":" s ",\\"stat\\":\\"min\\",\\"n\\":" cnt[s]'
	i=$1
	while [ $i -le "$2" ]; do
		printf ' "," $%d ":" t%d[s]' $((i - 1)) $i
		i=$((i + 2))
	done
	echo ' "}"'
	echo '	}'
	echo '}'
}
mkawk 10 12 >"$out/min-issue.awk"
mkawk 10 16 >"$out/min-wide.awk"

# One timed run: prints "seconds maxrss_kb" for a shell command. The peak
# memory comes from /usr/bin/time, a small process, because a child of
# python would inherit python's own peak through fork and exec.
cat >"$out/timeit.py" <<'EOF'
import os, sys, time
rss = sys.argv[2]
start = time.perf_counter()
pid = os.spawnv(os.P_NOWAIT, "/usr/bin/time",
    ["/usr/bin/time", "-f", "%M", "-o", rss, "/bin/sh", "-c", sys.argv[1]])
_, status = os.waitpid(pid, 0)
wall = time.perf_counter() - start
if status != 0:
    sys.exit("minjson-peers: failed: " + sys.argv[1])
print("%.4f %s" % (wall, open(rss).read().split()[-1]))
EOF

run() {
	python3 "$out/timeit.py" "$1" "$out/rss" || exit 2
}

# The answers first: minjson's minima must equal mawk's, byte for byte.
for shape in issue wide; do
	eval data=\$$shape
	mawk -f "$out/min-$shape.awk" "$data" >"$out/mawk-$shape.out"
	"$minjson" "$data" >"$out/minjson-$shape.out"
	if ! cmp -s "$out/minjson-$shape.out" "$out/mawk-$shape.out"; then
		echo "minjson-peers: minjson's minima differ from mawk's ($shape):" >&2
		diff "$out/minjson-$shape.out" "$out/mawk-$shape.out" >&2
		exit 2
	fi
	[ -n "$old" ] || continue
	"$minjson" -s min,q1,median,q3 "$data" >"$out/minjson-quart-$shape.out"
	"$old" -s min,q1,median,q3 "$data" >"$out/old-quart-$shape.out"
	if ! cmp -s "$out/minjson-quart-$shape.out" "$out/old-quart-$shape.out"; then
		echo "minjson-peers: minjson's quartiles differ from MINJSON_OLD's ($shape)" >&2
		exit 2
	fi
done

# jq's minima per side, every field but the key, as minjson prints them.
jqprog='group_by(.side)[] | . as $g | {side: $g[0].side, stat: "min", n: length} + ([$g[0] | keys_unsorted[] | select(. != "side")] | map({(.): ([$g[][.]] | min)}) | add)'

better() {	# better BEST NEW: the smaller of two times
	awk -v a="$1" -v b="$2" 'BEGIN { print (a == "" || b + 0 < a + 0) ? b : a }'
}

# The rounds: every contender of both shapes once a round, in turn.
best_jq= rss_jq=
for shape in issue wide; do
	eval "best_mawk_$shape= best_min_$shape= best_quart_$shape= rss_min_$shape= rss_quart_$shape="
	eval "best_oldmin_$shape= best_oldquart_$shape="
done
r=1
while [ $r -le "$rounds" ]; do
	for shape in issue wide; do
		eval data=\$$shape
		set -- $(run "mawk -f '$out/min-$shape.awk' '$data' >/dev/null")
		eval "best_mawk_$shape=\$(better \"\$best_mawk_$shape\" $1)"
		set -- $(run "'$minjson' '$data' >/dev/null")
		eval "best_min_$shape=\$(better \"\$best_min_$shape\" $1); rss_min_$shape=$2"
		set -- $(run "'$minjson' -s min,q1,median,q3 '$data' >/dev/null")
		eval "best_quart_$shape=\$(better \"\$best_quart_$shape\" $1); rss_quart_$shape=$2"
		[ -n "$old" ] || continue
		set -- $(run "'$old' '$data' >/dev/null")
		eval "best_oldmin_$shape=\$(better \"\$best_oldmin_$shape\" $1)"
		set -- $(run "'$old' -s min,q1,median,q3 '$data' >/dev/null")
		eval "best_oldquart_$shape=\$(better \"\$best_oldquart_$shape\" $1)"
	done
	if [ "$jqmode" = slice ]; then
		set -- $(run "jq -c -s '$jqprog' '$slice' >/dev/null")
		best_jq=$(better "$best_jq" "$1"); rss_jq=$2
	fi
	r=$((r + 1))
done
if [ "$jqmode" = full ]; then
	set -- $(run "jq -c -s '$jqprog' '$issue' >/dev/null")
	best_jq=$1 rss_jq=$2
fi

status=0
echo "minjson-peers: $records records a shape, best of $rounds interleaved rounds"
for shape in issue wide; do
	eval data=\$$shape
	size=$(wc -c <"$data")
	eval "mawk=\$best_mawk_$shape mn=\$best_min_$shape q=\$best_quart_$shape rmin=\$rss_min_$shape rq=\$rss_quart_$shape"
	eval "omn=\$best_oldmin_$shape oq=\$best_oldquart_$shape"
	awk -v shape="$shape" -v size="$size" -v mawk="$mawk" -v mn="$mn" -v q="$q" \
	    -v rmin="$rmin" -v rq="$rq" -v jq="$best_jq" -v rjq="$rss_jq" -v mode="$jqmode" \
	    -v omn="$omn" -v oq="$oq" -v n="$records" 'BEGIN {
		printf "%s (%d bytes, %.0f a line):\n", shape, size, size / n
		printf "  %-40s %8.3f s\n", "mawk, fields hard-coded, minima", mawk
		printf "  %-40s %8.3f s  %6d KB  %.2fx mawk\n", "minjson (minima)", mn, rmin, mn / mawk
		printf "  %-40s %8.3f s  %6d KB  %.2fx mawk\n", "minjson -s min,q1,median,q3", q, rq, q / mawk
		if (omn != "") {
			printf "  %-40s %8.3f s            %.2fx mawk  now/old %.3f\n", "MINJSON_OLD (minima)", omn, omn / mawk, mn / omn
			printf "  %-40s %8.3f s            %.2fx mawk  now/old %.3f\n", "MINJSON_OLD -s min,q1,median,q3", oq, oq / mawk, q / oq
		}
		if (shape == "issue" && mode == "slice")
			printf "  %-40s %8.3f s  (%.3f s on 20000 records, x%d)\n", "jq 1.6, group_by, scaled", jq * n / 20000, jq, n / 20000
		else if (shape == "issue" && mode == "full")
			printf "  %-40s %8.3f s  %6d KB\n", "jq 1.6, minima", jq, rjq
		status = 0
		if (mn * 3 > mawk) { print "minjson-peers: " shape ": minima slower than a third of mawk" > "/dev/stderr"; status = 1 }
		if (q >= 1) { print "minjson-peers: " shape ": quartiles take a second or more" > "/dev/stderr"; status = 1 }
		if (rq >= 160 * 1024) { print "minjson-peers: " shape ": quartiles use 160 MB or more" > "/dev/stderr"; status = 1 }
		exit status
	}' || status=1
done
exit $status
