#!/usr/bin/env bats
# recordkeys: the one table of a run record's bookkeeping keys
# (lib/recordkeys.c), left out by default by every tool that reduces or
# judges records, so that a key alternate adds never reaches a verdict as
# a metric.

load common

setup() {
	unset MAKEFLAGS MFLAGS MAKELEVEL GATEDIR BASE HEAD BUDGET RUNS
	T=$BATS_TEST_TMPDIR
	keys=$(sed -n '/record_bookkeeping\[\] = {/,/}/p' "$TOP/lib/recordkeys.c" | grep -o '"[a-z_]*"' | tr -d '"')
}

@test "recordkeys: minjson, cmpbudget and plotrounds leave every bookkeeping key out by default" {
	[ "$(echo "$keys" | wc -l)" -ge 6 ]
	rec='"m_ns":5'
	for k in $keys; do rec="$rec,\"$k\":1"; done
	printf '{"side":"base",%s}\n{"side":"head",%s}\n' "$rec" "$rec" > "$T/runs.jsonl"
	run -0 --separate-stderr "$BIN/minjson" -s min "$T/runs.jsonl"
	[ "$(printf '%s\n' "$output" | jq -r '.stat' | sort -u)" = min ]
	[ "$(printf '%s\n' "$output" | jq -c 'del(.side,.stat,.n) | keys')" = "$(printf '["m_ns"]\n["m_ns"]')" ]
	# -x replaces the table: with -x '' every number is reduced.
	run -0 --separate-stderr "$BIN/minjson" -x '' -s min "$T/runs.jsonl"
	for k in $keys; do printf '%s\n' "$output" | jq -e "has(\"$k\")" > /dev/null; done
	# A stats record that carries them is judged on m_ns alone.
	printf '{"side":"base","stat":"min","n":1,%s}\n{"side":"head","stat":"min","n":1,%s}\n' "$rec" "$rec" > "$T/stats.jsonl"
	printf 'runs = 2\n[budget]\nm_ns = 0.1\n' > "$T/b.toml"
	run -0 --separate-stderr "$BIN/cmpbudget" -u -b "$T/b.toml" "$T/stats.jsonl"
	[ "$(printf '%s\n' "$output" | tail -n 1 | jq -c '[.verdict,.metrics,.unbudgeted]')" = '["ok",1,[]]' ]
	run -0 --separate-stderr "$BIN/plotrounds" "$T/runs.jsonl"
	[ "$(printf '%s\n' "$output" | grep -o '<text[^>]*font-weight="bold">[^<]*</text>' | sed 's/<[^>]*>//g')" = m_ns ]
}

@test "recordkeys: a gate with alternate -T (threads in every record) and GATE_UNBUDGETED=error is ok" {
	cat > "$T/fixed.c" <<'C'
#include <stdio.h>
int main(void) { puts("{\"x_ns\":8.0}"); return 0; }
C
	printf 'int side_unused;\n' > "$T/side.c"
	printf 'runs = 2\n\n[budget]\nx_ns = 0.25\n' > "$T/b.toml"
	run --separate-stderr "$BIN/perfgate" GATE_BENCH_SRC="$T/fixed.c" BUDGET="$T/b.toml" \
	    BASE="$T/side.c" HEAD="$T/side.c" GATEDIR="$T/gate" GATE_ALTERNATE_FLAGS=-T2 GATE_UNBUDGETED=error
	[ "$(printf '%s\n' "$output" | tail -n 1 | jq -r .verdict)" = ok ]
	[ "$status" -eq 0 ]
	grep -q '"threads"' "$T/gate/runs.jsonl"
}

@test "recordkeys: every bookkeeping key is in each list of them the docs give, and no other" {
	want=$(echo "$keys" | sort)
	# minjson -x and plotrounds -x: the default as comma lists of .Ql.
	for page in minjson plotrounds; do
		got=$(sed -n '/^\.It Fl x/,/^\.It\|^\.El/p' "$TOP/man/$page.1" | grep -o '^\.Ql [a-z_]*,[a-z_,]*' |
		    sed 's/^\.Ql //' | tr ',' '\n' | sort)
		[ "$got" = "$want" ] || { echo "$page.1: $(diff <(echo "$want") <(echo "$got") | grep '^[<>]' | tr '\n' ' ')"; return 1; }
	done
	# cmpbudget(1): the parenthesis that says which members are not metrics.
	got=$(sed -n '/alternate.s bookkeeping/,/are not metrics/p' "$TOP/man/cmpbudget.1" | sed -n 's/^\.Qq \([a-z_]*\).*/\1/p' | sort)
	[ "$got" = "$want" ] || { echo "cmpbudget.1: $(diff <(echo "$want") <(echo "$got") | grep '^[<>]' | tr '\n' ' ')"; return 1; }
	# docs/DESIGN.md: the list of bookkeeping keys.
	got=$(sed -n '/\*\*Bookkeeping keys\*\*/,/are listed once/p' "$TOP/docs/DESIGN.md" | grep -o '`[a-z_]*`' | tr -d '`' | sort)
	[ "$got" = "$want" ] || { echo "DESIGN.md: $(diff <(echo "$want") <(echo "$got") | grep '^[<>]' | tr '\n' ' ')"; return 1; }
	# alternate(1) says what each one is.
	for k in $keys; do
		[ "$k" = busy ] && continue
		grep -q "\(^\.Ql\|Ql\) $k\( \|$\)" "$TOP/man/alternate.1" || { echo "alternate.1 has no .Ql $k"; return 1; }
	done
}
