#!/usr/bin/env bats
# outfile: every output a user names (lib/outfile.c, and mk/perfgate-pc.sh
# in shell) is renamed into place only over a regular file or nothing; a
# device, a FIFO or a symlink is written in place. As root, a rename onto
# /dev/null replaces the device for every process of the machine: the
# stand-ins here behave as /dev/null does for a rename (a character device
# 1,3 made in the test's own directory when mknod may, a FIFO, a symlink),
# and no test points a tool at the real one.

load common

setup() {
	T=$BATS_TEST_TMPDIR
	cd "$T"
}

teardown() {
	[ -z "${reader-}" ] || kill "$reader" 2>/dev/null || true
	[ ! -f run/pid ] || wside -q run || true
}

# in_place STATUS FN: FN PATH writes an output to PATH, exit STATUS. For a
# character device like /dev/null (where mknod may), a FIFO and a symlink,
# PATH is still what it was, no PATH.tmp is left, and what FN wrote went
# through the FIFO and the symlink; a regular file gets the same bytes.
in_place() {
	local want=$1 fn=$2
	if mknod null c 1 3 2>/dev/null; then
		run "-$want" "$fn" "$T/null"
		[ -c null ] || { echo "$fn replaced the device"; return 1; }
		[ "$(stat -c '%t %T' null)" = "1 3" ] && [ ! -e null.tmp ]
	fi

	mkfifo fifo
	timeout 60 cat fifo > fromfifo 3>&- &
	reader=$!
	run "-$want" "$fn" "$T/fifo"
	[ -p fifo ] || { echo "$fn replaced the FIFO"; return 1; }
	wait "$reader"
	reader=
	[ -s fromfifo ] && [ ! -e fifo.tmp ]

	: > target
	ln -s "$T/target" link
	run "-$want" "$fn" "$T/link"
	[ -L link ] || { echo "$fn replaced the symlink"; return 1; }
	[ -s target ] && [ ! -e link.tmp ]
	cmp fromfifo target
	# A regular file, whole: by a rename, the .tmp gone.
	run "-$want" "$fn" "$T/file"
	[ -f file ] && [ ! -L file ] && [ ! -e file.tmp ]
	cmp file target
}

@test "outfile: cmpbudget -m (lib/report.c) writes a symlink, a FIFO, a device in place" {
	md() { cmpbudget -b "$DATA/cmpbudget/budget.toml" -m "$1" "$DATA/cmpbudget/worked.jsonl" >/dev/null 2>&1; }
	in_place 1 md
	[ "$(head -n 1 target)" = '**cmpbudget: regressed**: `b_ns`, `d_ns`' ]
}

@test "outfile: mergeshards -m writes a symlink, a FIFO, a device in place" {
	cmpbudget -b "$DATA/cmpbudget/budget.toml" "$DATA/cmpbudget/worked.jsonl" 2>/dev/null |
	    sed '$s|}$|,"base":{"commit":"c1"},"head":{"commit":"c2"},"shard":"1/1"}|' > shard.jsonl || true
	md() { mergeshards -m "$1" "$T/shard.jsonl" >/dev/null 2>&1; }
	in_place 1 md
	[[ $(head -n 1 target) == '**cmpbudget: regressed**'* ]]
}

@test "outfile: plotrounds -o writes a symlink, a FIFO, a device in place" {
	svg() { plotrounds -v "$DATA/plotrounds/verdict.jsonl" -o "$1" "$DATA/plotrounds/runs.jsonl"; }
	in_place 0 svg
	need_pkg xmllint libxml2-utils
	xmllint --noout target
}

@test "outfile: perfdoc -o writes a symlink, a FIFO, a device in place" {
	echo '{"numpy":"1.24.2"}' > numpy.json
	doc() {
		perfdoc -o "$1" -s kata,plain,numpy -C sum -A kata:version=cc -A plain:version=cc \
		    -J numpy=numpy.json -m commit=abc123 "$DATA/perfdoc/sum.row"
	}
	in_place 0 doc
	jq -e '.rows_valid == 1' target
}

@test "outfile: wside's BENCH_EVAL writes a symlink, a FIFO, a device in place" {
	mkdir b run
	cc -std=c11 -O2 -I"$TOP/kata" -I"$TOP/bench" -o b/worker "$TOP/kata/worker.c" "$TOP/kata/kernels.c" -lm
	cc -std=c11 -O2 -I"$TOP/kata" -I"$TOP/bench" -o b/bench "$TOP/kata/bench.c" "$TOP/kata/kernels.c" -lm
	BENCH_CASES=sum BENCH_INPUT=run/sum.arg b/bench
	wside -s run -a sum=1x8192:sum.arg -- "$T/b/worker"
	ev() { BENCH_CASES=sum BENCH_EVAL=$1 wside run; }
	in_place 0 ev
	wside -q run
	[ "$(wc -c < target)" -eq 4 ]
}

@test "outfile: mk/perfgate-pc.sh -o writes a symlink, a FIFO, a device in place" {
	pc() { sh "$TOP/mk/perfgate-pc.sh" -o "$1" "$TOP/mk/perfgate.pc.in" /usr/local /usr/local/share/perfgate 1.0; }
	in_place 0 pc
	grep -qx 'prefix=/usr/local' target
}
