#!/usr/bin/env bats
# store: what the gate builds and digests, keyed by content (mk/store.sh,
# sourced by gate.sh): objects, programs and library lists are reused only
# for the same input, in GATEDIR and in GATE_OBJECTS.
load common

setup() {
	unset MAKEFLAGS MFLAGS MAKELEVEL GATEDIR BASE HEAD BUDGET RUNS LD_LIBRARY_PATH LD_PRELOAD
	T=$BATS_TEST_TMPDIR
	cd "$T"
	export GATE_OBJECTS=$T/objects
}

# store FUNCTION ARG...: one of store.sh's functions, run as gate.sh runs it.
store() {
	sh -c '. "$0"; "$@"' "$TOP/mk/store.sh" "$@"
}

@test "store: one source in two directories takes the header beside it, not the one beside the first" {
	mkdir A B
	printf '#include "h.h"\nint v(void) { return V; }\n' > A/x.c
	cp A/x.c B/x.c
	echo '#define V 1' > A/h.h
	echo '#define V 2' > B/h.h
	printf 'int v(void);\n#include <stdio.h>\nint main(void) { printf("%%d\\n", v()); return 0; }\n' > main.c
	cc -c -o main.o main.c
	run -0 store compile A/x.o cc -O2 '' A/x.c
	run -0 store compile B/x.o cc -O2 '' B/x.c
	cc -o a main.o A/x.o && cc -o b main.o B/x.o
	[ "$(./a)" = 1 ]
	[ "$(./b)" = 2 ]
	# The same content and neighbours elsewhere is taken from the store.
	mkdir C && cp A/x.c A/h.h C/
	run -0 store compile C/x.o cc -O2 '' C/x.c
	cmp A/x.o C/x.o
	# A header changed beside the second: compiled again.
	echo '#define V 3' > B/h.h
	run -0 store compile B/x.o cc -O2 '' B/x.c
	cc -o b main.o B/x.o
	[ "$(./b)" = 3 ]
}

@test "store: a program is linked again when a static library it links changes, beside it and from the store" {
	mkdir lib s t
	echo 'int lv(void) { return 1; }' > lv.c
	cc -c -o lv.o lv.c && ar rcs lib/liblv.a lv.o
	printf 'int lv(void);\n#include <stdio.h>\nint main(void) { printf("%%d\\n", lv()); return 0; }\n' > drv.c
	cc -c -o drv.o drv.c
	echo 'int side_unused;' > s/k.c
	run -0 store cmd_program s/bench cc -O2 '' s/k.c drv.o "-L$T/lib -llv"
	[ "$(s/bench)" = 1 ]
	# The linker's list of what it read names the archive.
	grep -qx "$T/lib/liblv.a" s/bench.inputs
	echo 'int lv(void) { return 2; }' > lv.c
	cc -c -o lv.o lv.c && rm lib/liblv.a && ar rcs lib/liblv.a lv.o
	run -0 store cmd_program s/bench cc -O2 '' s/k.c drv.o "-L$T/lib -llv"
	[ "$(s/bench)" = 2 ]
	# Another directory, the same objects: from the store, with the new
	# library, not the old.
	cp s/k.c t/k.c
	run -0 store cmd_program t/bench cc -O2 '' t/k.c drv.o "-L$T/lib -llv"
	[ "$(t/bench)" = 2 ]
	# Nothing changed: not linked again.
	before=$(stat -c %Y.%i s/bench)
	run -0 store cmd_program s/bench cc -O2 '' s/k.c drv.o "-L$T/lib -llv"
	[ "$(stat -c %Y.%i s/bench)" = "$before" ]
}

@test "store: a linker that cannot list what it reads links every time (tcc)" {
	command -v tcc >/dev/null || skip "tcc is not installed"
	printf '#include <stdio.h>\nint k(void);\nint main(void) { printf("%%d\\n", k()); return 0; }\n' > drv.c
	tcc -c -o drv.o drv.c
	mkdir s
	echo 'int k(void) { return 7; }' > s/k.c
	run -0 store cmd_program s/bench tcc '' '' s/k.c drv.o ''
	[ "$(s/bench)" = 7 ]
	[ ! -e s/bench.key ] && [ ! -e s/bench.inputs ]
	[ -z "$(ls "$GATE_OBJECTS" | grep '\.exe')" ]
}

@test "store: the libraries of a program whose run path is \$ORIGIN are its own, wherever a copy of it is" {
	for d in s1 s2; do
		mkdir "$d"
		echo "int lk(void) { return 1; }" > "$d/lk.c"
		cc -shared -fPIC -o "$d/libk.so" "$d/lk.c"
	done
	printf 'int lk(void);\nint main(void) { return lk(); }\n' > m.c
	cc -o s1/bench m.c -Ls1 -lk '-Wl,-rpath,$ORIGIN'
	cp s1/bench s2/bench
	run -0 store runs_of "$T/s1/bench"
	[[ "$output" == *" $T/s1/libk.so"* ]]
	run -0 store runs_of "$T/s2/bench"
	[[ "$output" == *" $T/s2/libk.so"* ]]
	[[ "$output" != *"/s1/"* ]]
}

@test "store: a library ldd cannot find is not remembered: found the next time" {
	mkdir s lib
	echo "int lk(void) { return 1; }" > lk.c
	cc -shared -fPIC -o lib/libk.so lk.c
	printf 'int lk(void);\nint main(void) { return lk(); }\n' > m.c
	cc -o s/bench m.c -Llib -lk "-Wl,-rpath,$T/lib2"
	run -0 store runs_of "$T/s/bench"
	[[ "$output" != *libk.so* ]]
	mkdir lib2 && cp lib/libk.so lib2/
	run -0 store runs_of "$T/s/bench"
	[[ "$output" == *" $T/lib2/libk.so"* ]]
}

@test "store: a bench command's file whose name holds glob characters is digested as named" {
	mkdir g
	echo one > 'g/in[1].txt'
	echo other > g/in1.txt
	run -0 store runs_of "cat '$T/g/in[1].txt'"
	[[ "$output" == *"run $(sha256sum < 'g/in[1].txt' | cut -c1-64) $T/g/in[1].txt"* ]]
	[[ "$output" != *"$T/g/in1.txt"* ]]
}

@test "store: an unquoted glob, a pipe, a redirection, a \$ in the bench command are refused in one line, never guessed" {
	for c in "cat $T/*.txt" 'cat a | wc' './bench > out' './bench $HOME' './bench `date`' 'a; b' './bench &'; do
		run -2 store runs_of "$c"
		[ "${#lines[@]}" = 1 ]
		[[ "$output" == "benchcmd: "* ]]
	done
}
