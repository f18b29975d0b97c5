#!/usr/bin/env bats
# loadgate: the load gate read now, as make compare and alternate read it.

load common

setup() {
	cd "$BATS_TEST_TMPDIR"
	export PERFGATE_PRESSURE=$BATS_TEST_TMPDIR/pressure
	export PERFGATE_LOADAVG=$BATS_TEST_TMPDIR/loadavg
	echo '0.50 0.40 0.30 1/100 1' >"$PERFGATE_LOADAVG"
}

@test "loadgate: the pressure the gate reads, open below its bound and closed at it" {
	setpressure 12.50
	run -0 --separate-stderr loadgate
	[ "$output" = '{"load":0.5,"pressure":12.5,"gauge":"pressure","max":30,"open":true}' ]
	[ "$stderr" = "loadgate: CPU pressure 12.5 below 30: the gate is open" ]
	run -1 --separate-stderr loadgate -l 12.5
	[ "$output" = '{"load":0.5,"pressure":12.5,"gauge":"pressure","max":12.5,"open":false}' ]
	[ "$stderr" = "loadgate: CPU pressure 12.5 at or above 12.5: the gate is closed" ]
}

@test "loadgate: perfgate load runs it" {
	# perfgate beside the loadgate under test (test-san has no script of its own).
	mkdir bin
	cp "$TOP/bin/perfgate" bin/
	ln -s "$(command -v loadgate)" bin/loadgate
	setpressure 50.00
	run -1 --separate-stderr bin/perfgate load
	[ "$(echo "$output" | jq -c '[.gauge, .open]')" = '["pressure",false]' ]
	run -0 --separate-stderr bin/perfgate load -l 60
	# The contract's spelling: prints the load, fails at or above the gate.
	run -1 --separate-stderr bin/perfgate load --max 50
	[ "$stderr" = "loadgate: CPU pressure 50 at or above 50: the gate is closed" ]
	run -0 --separate-stderr bin/perfgate load --max 51
	[ "$(echo "$output" | jq -c '[.pressure, .max, .open]')" = '[50,51,true]' ]
}

@test "loadgate: without the pressure, the load average against cores + 1" {
	unset PERFGATE_PRESSURE
	run -0 --separate-stderr loadgate
	[ "$output" = "{\"load\":0.5,\"pressure\":null,\"gauge\":\"load\",\"max\":$(($(nproc) + 1)),\"open\":true}" ]
	echo '9.00 0.40 0.30 1/100 1' >"$PERFGATE_LOADAVG"
	run -1 --separate-stderr loadgate -l 3
	[ "$stderr" = "loadgate: load average 9 at or above 3: the gate is closed" ]
}

@test "loadgate: a gauge that cannot be read, and usage errors, are exit 2" {
	echo 'nonsense' >"$PERFGATE_LOADAVG"
	unset PERFGATE_PRESSURE
	run -2 --separate-stderr loadgate
	[ "$stderr" = "loadgate: $PERFGATE_LOADAVG:1: expected a load average" ]
	[ -z "$output" ]
	bad_options loadgate l
	run -2 --separate-stderr loadgate -l 0
	[ "$stderr" = "loadgate: -l 0: out of range" ]
	# -m, the old letter of -l, stops a caller that still gives it.
	run -2 --separate-stderr loadgate -m 20
	[ "$stderr" = "loadgate: -m is now -l (the most load, as alternate -l)" ]
	run -2 --separate-stderr loadgate extra
	[ "$stderr" = "usage: loadgate [-l max | --max max]
       loadgate -V" ]
	run -2 --separate-stderr loadgate --maximum 3
	[ "${stderr_lines[0]}" = "loadgate: unknown option --maximum" ]
}

@test "loadgate: --max N is -l N under the contract's long name, --max=N too" {
	setpressure 12.50
	run -1 --separate-stderr loadgate --max 12.5
	[ "$output" = '{"load":0.5,"pressure":12.5,"gauge":"pressure","max":12.5,"open":false}' ]
	[ "$stderr" = "loadgate: CPU pressure 12.5 at or above 12.5: the gate is closed" ]
	run -0 --separate-stderr loadgate --max=13
	[ "$(echo "$output" | jq -c '[.max, .open]')" = '[13,true]' ]
	run -2 --separate-stderr loadgate --max 0
	[ "$stderr" = "loadgate: -l 0: out of range" ]
}

@test "loadgate: every EXAMPLES line of the man page runs" {
	setpressure 1.00
	mapfile -t ex < <(man_examples loadgate)
	[ "${#ex[@]}" -eq 2 ]
	run -0 --separate-stderr sh -c "${ex[0]}"
	run -0 --separate-stderr timeout 5 sh -c "${ex[1]}"
}
