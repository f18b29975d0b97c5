#!/usr/bin/env bats
# perfdoc: the reference benchmarks' document, its table, the check, the
# drafts.

load common

P=$DATA/perfdoc

setup() {
	cd "$BATS_TEST_TMPDIR"
}

# A document from the two fixture rows and a third case never measured.
write() {
	perfdoc -o perf.json -s kata,plain,numpy -C sum,matmul,rmsnorm -A kata:version="cc 12" \
	    -A plain:version="cc 12" -J numpy=numpy.json -m commit=abc123 -n rounds=3 "$@"
}

@test "perfdoc: -o writes the document: schema, status, machine, run, sides, rows in order" {
	echo '{"numpy":"1.24.2","openblas_coretype":null}' >numpy.json
	run -0 --separate-stderr write "$P/matmul.row" "$P/sum.row"
	[ -z "$output$stderr" ]
	[ ! -e perf.json.tmp ]
	jq -e '.schema == 1 and .status == "partial" and .rows_valid == 1 and .rows_total == 3
		and .implementation == "kata" and (.machine | keys) == ["cores","cpu","kernel"]
		and .run == {"commit":"abc123","rounds":3}
		and .sides == {"kata":{"version":"cc 12"},"plain":{"version":"cc 12"},
			"numpy":{"numpy":"1.24.2","openblas_coretype":null}}
		and ([.rows[] | [.case, .valid, .deferred]] ==
			[["sum",true,null],["matmul",false,"retries"],["rmsnorm",false,"missing"]])' perf.json
	# A case never asked for is not said to have met a closed gate.
	[ "$(jq -r '.rows[2].error' perf.json)" = "not measured: no row was given for this case" ]
	# One member a line, one row a line.
	[ "$(wc -l <perf.json)" -eq 13 ]
	[ "$(sed -n 10p perf.json)" = "$(cat "$P/sum.row")," ]
}

@test "perfdoc: -S says why the cases without a row were not measured" {
	echo '{}' >numpy.json
	run -0 --separate-stderr write -S "the load gate stayed closed before this row" "$P/sum.row"
	[ "$(jq -c '.rows[2] | [.deferred, .error]' perf.json)" = \
	    '["stopped","not measured: the load gate stayed closed before this row"]' ]
}

@test "perfdoc: no valid row writes nothing" {
	echo '{}' >numpy.json
	run -2 --separate-stderr write "$P/matmul.row"
	[ "$stderr" = "perfdoc: no row was measured: perf.json not written" ]
	[ ! -e perf.json ]
	[ ! -e perf.json.tmp ]
}

@test "perfdoc: -r merges the new rows over the old, and refuses another commit or version" {
	echo '{}' >numpy.json
	write "$P/sum.row" "$P/matmul.row"
	sed 's/"case":"sum"/"case":"rmsnorm"/' "$P/sum.row" >rmsnorm.row
	perfdoc -o new.json -r perf.json -s kata,plain,numpy -C rmsnorm -A kata:version="cc 12" \
	    -A plain:version="cc 12" -J numpy=numpy.json -m commit=abc123 -n rounds=3 rmsnorm.row
	[ "$(jq -c '[.status, [.rows[] | [.case, .valid]]]' new.json)" = \
	    '["partial",[["sum",true],["matmul",false],["rmsnorm",true]]]' ]
	run -2 --separate-stderr perfdoc -o new.json -r perf.json -s kata,plain,numpy -C rmsnorm \
	    -A kata:version="cc 12" -A plain:version="cc 12" -J numpy=numpy.json -m commit=def456 -n rounds=3 rmsnorm.row
	[ "$stderr" = 'perfdoc: resume refused: run.commit differs: was "abc123", now "def456"' ]
	run -2 --separate-stderr perfdoc -o new.json -r perf.json -s kata,plain,numpy -C rmsnorm \
	    -A kata:version="tcc 0.9.27" -A plain:version="cc 12" -J numpy=numpy.json -m commit=abc123 -n rounds=3 rmsnorm.row
	[ "$stderr" = 'perfdoc: resume refused: sides.kata.version differs: was "cc 12", now "tcc 0.9.27"' ]
	run -2 --separate-stderr perfdoc -o new.json -r perf.json -s kata,plain,numpy -C rmsnorm \
	    -A kata:version="cc 12" -A plain:version="cc 12" -J numpy=numpy.json -m commit=abc123 rmsnorm.row
	[ "$stderr" = 'perfdoc: resume refused: run.rounds differs: was 3, now absent' ]
}

@test "perfdoc: -t renders the table, deferred rows and the partial line included" {
	run -0 --separate-stderr perfdoc -t "$P/perf.json"
	[ "$output" = "$(cat "$P/table.md")" ]
	echo "$output" | grep -qx "partial: 1 of 3 rows valid"
}

@test "perfdoc: -c passes the table it renders and names the first line of another" {
	run -0 --separate-stderr perfdoc -c "$P/table.md" "$P/perf.json"
	[ -z "$output$stderr" ]
	sed 's/1.11 slower/1.01 slower/' "$P/table.md" >table.md
	run -1 --separate-stderr perfdoc -c table.md "$P/perf.json"
	[ "${stderr_lines[0]}" = "perfdoc: table.md:16: not what $P/perf.json generates (make compare-table writes it)" ]
	[[ ${stderr_lines[1]} == "  expected: | sum |"*"| 1.11 slower |"* ]]
	[[ ${stderr_lines[2]} == "  found:    | sum |"*"| 1.01 slower |"* ]]
	# A line too many, or too few.
	cp "$P/table.md" table.md
	echo extra >>table.md
	run -1 --separate-stderr perfdoc -c table.md "$P/perf.json"
	[ "${stderr_lines[0]}" = "perfdoc: table.md:19: not what $P/perf.json generates (make compare-table writes it)" ]
	head -n 5 "$P/table.md" >table.md
	run -1 --separate-stderr perfdoc -c table.md "$P/perf.json"
	[ "${stderr_lines[0]}" = "perfdoc: table.md:6: not what $P/perf.json generates (make compare-table writes it)" ]
}

@test "perfdoc: -t heads a row by the verdicts: a tie is never called slower" {
	sed 's/"ratio":1.105263157894737,"verdict":"slower"/"ratio":1.105263157894737,"verdict":"tie"/' "$P/perf.json" >perf.json
	run -0 --separate-stderr perfdoc -t perf.json
	[[ $output == *"| 0.206 faster | 1.11 tie | tie with numpy (1.11x) |"* ]]
	# Slower than one reference and tied with a faster one: slower than the first.
	sed 's/"ratio":0.20588235294117646,"verdict":"faster"/"ratio":1.05,"verdict":"slower"/; s/"verdict":"slower"}\]/"verdict":"tie"}]/' \
	    "$P/perf.json" >perf.json
	run -0 --separate-stderr perfdoc -t perf.json
	[[ $output == *"| 1.05 slower | 1.11 tie | 1.05x slower than plain |"* ]]
}

@test "perfdoc: -c says what differs at the end of a table: a line too many, a missing newline" {
	cp "$P/table.md" table.md
	echo >>table.md
	run -1 --separate-stderr perfdoc -c table.md "$P/perf.json"
	[ "${stderr_lines[0]}" = "perfdoc: table.md:19: not what $P/perf.json generates (make compare-table writes it)" ]
	[ "${stderr_lines[1]}" = "  expected: (end of file)" ]
	[ "${stderr_lines[2]}" = "  found:    (an empty line)" ]
	head -c -1 "$P/table.md" >table.md
	run -1 --separate-stderr perfdoc -c table.md "$P/perf.json"
	[ "${stderr_lines[0]}" = "perfdoc: table.md:18: not what $P/perf.json generates (make compare-table writes it)" ]
	[ "${stderr_lines[1]}" != "${stderr_lines[2]/found:   /expected:}" ]
	[[ ${stderr_lines[2]} == *" (no newline at the end of the file)" ]]
	head -n 17 "$P/table.md" >table.md
	run -1 --separate-stderr perfdoc -c table.md "$P/perf.json"
	[ "${stderr_lines[2]}" = "  found:    (end of file)" ]
}

@test "perfdoc: -d drafts the valid rows slower than a reference, titled against it" {
	run -0 --separate-stderr perfdoc -d drafts "$P/perf.json"
	[ "$(ls drafts | paste -sd ' ')" = "sum.labels.txt sum.md sum.title.txt" ]
	[ "$(cat drafts/sum.title.txt)" = "perf: sum is 1.11x slower than numpy on one core" ]
	# The label line, and every reference's licence and version.
	[ "$(cat drafts/sum.labels.txt)" = perf ]
	[ "$(head -n 1 drafts/sum.md)" = "Labels: perf" ]
	grep -qxF -- '- numpy: ratio 1.105263157894737 (slower); licence NOASSERTION (not stated), version 1.24.2; numpy 1.24.2, openblas_coretype null' drafts/sum.md
	grep -qxF -- '- plain: ratio 0.20588235294117646 (faster); licence NOASSERTION (not stated), version cc 12; version cc 12' drafts/sum.md
	# A licence stated is the licence drafted.
	sed 's/"numpy":{"numpy":"1.24.2"/"numpy":{"license":"BSD-3-Clause","numpy":"1.24.2"/' "$P/perf.json" >perf.json
	run -0 --separate-stderr perfdoc -d drafts2 perf.json
	grep -qF -- '- numpy: ratio 1.105263157894737 (slower); licence BSD-3-Clause, version 1.24.2; license BSD-3-Clause,' drafts2/sum.md
	grep -qxF 'The pressure after each round: [2.5,3,0.75]' drafts/sum.md
	grep -qF '| sum | 105 (102.5–107.5) |' drafts/sum.md
	grep -q '^Run: commit abc123' drafts/sum.md
	grep -q '^Machine: cpu Test CPU' drafts/sum.md
}

@test "perfdoc: -q lists the deferred rows" {
	run -0 --separate-stderr perfdoc -q "$P/perf.json"
	[ "$output" = "matmul
rmsnorm" ]
}

@test "perfdoc: a document of another schema, or not one, is refused" {
	sed 's/"schema":1/"schema":3/' "$P/perf.json" >perf.json
	run -2 --separate-stderr perfdoc -t perf.json
	[ "$stderr" = "perfdoc: perf.json: schema 3, this perfdoc reads 1 and 2" ]
	echo '{"schema":1}' >perf.json
	run -2 --separate-stderr perfdoc -t perf.json
	[ "$stderr" = 'perfdoc: perf.json: no array "rows"' ]
	echo '{"schema":1,' >perf.json
	run -2 --separate-stderr perfdoc -q perf.json
	[[ $stderr == "perfdoc: perf.json: "* ]]
}

@test "perfdoc: -k checks the implementation's allocations a call against the document's" {
	sed 's/"headline_ratio":1.105263157894737}/"headline_ratio":1.105263157894737,"allocs":2,"alloc_bytes":64}/' "$P/perf.json" >perf.json
	echo '{"sum_allocs":2,"sum_alloc_bytes":64}' >counts.out
	run -0 --separate-stderr perfdoc -k counts.out -C sum perf.json
	printf 'some output\n{"sum_allocs":2.5,"sum_alloc_bytes":64}\n\n' >counts.out
	run -1 --separate-stderr perfdoc -k counts.out -C sum perf.json
	[ "$stderr" = "perfdoc: row sum: 2.5 allocations a call, 2 in perf.json: more than recorded, a regression" ]
	echo '{"sum_allocs":2,"sum_alloc_bytes":32}' >counts.out
	run -1 --separate-stderr perfdoc -k counts.out -C sum perf.json
	[ "$stderr" = "perfdoc: row sum: 32 bytes allocated a call, 64 in perf.json: fewer than recorded; record them: make compare-allocs" ]
	# A row without a count, a case without a row, a line without a count.
	echo '{"sum_allocs":2,"matmul_allocs":0,"nope_allocs":0}' >counts.out
	run -1 --separate-stderr perfdoc -k counts.out -C sum,matmul,nope perf.json
	[ "${stderr_lines[0]}" = "perfdoc: row matmul: perf.json records no allocations a call: make compare-allocs records them" ]
	[ "${stderr_lines[1]}" = "perfdoc: row nope: not in perf.json: make compare-allocs adds it" ]
	run -2 --separate-stderr perfdoc -k counts.out -C rmsnorm perf.json
	[ "$stderr" = "perfdoc: counts.out: no rmsnorm_allocs: the implementation counted no allocations (bench.h's counts mode, on glibc)" ]
}

@test "perfdoc: -p: every public function has a case or an exemption; bad lines are exit 2 with file:line" {
	mkdir "my \"api\"; \$x"
	h="my \"api\"; \$x/-api.h"
	cat >"$h" <<-'EOF'
	#ifndef API_H
	#define API_H \
		1
	#ifdef __cplusplus
	extern "C" {
	#endif
	/* kata_sum(x) in a comment is no declaration; "kata_x(" in a string neither */
	typedef int (*kata_cb)(int);
	struct kata_s { int (*kata_member)(void); const char *name; };
	static inline int kata_helper(int x) { return x; }
	extern int kata_count;
	float kata_sum(const float *x, int n), kata_matmul(void);
	__attribute__((cold)) void kata_rmsnorm(void);
	int kata_exempted(const char *s);
	#ifdef __cplusplus
	}
	#endif
	#endif
	EOF
	printf '# Exempt\n\nProse, and a `name` in it.\n\n- `kata_exempted`: only a wrapper\n' >ex.md
	run -0 --separate-stderr perfdoc -p "$h" -e ex.md "$P/perf.json"
	[ -z "$stderr" ]
	# No exemptions file: nothing is exempt.
	run -1 --separate-stderr perfdoc -p "$h" -e none.md "$P/perf.json"
	[ "$stderr" = "perfdoc: $h:14: kata_exempted has no case in $P/perf.json and no line in none.md" ]
	for bad in '- kata_exempted: no backquotes' '- `kata_exempted`:' '- `kata exempted`: a space' '  - `kata_exempted`: indented' '* `kata_exempted`: a star'; do
		printf '# Exempt\n%s\n' "$bad" >ex.md
		run -2 --separate-stderr perfdoc -p "$h" -e ex.md "$P/perf.json"
		[ "$stderr" = 'perfdoc: ex.md:2: not an exemption: expected - `name`: reason' ]
	done
	printf 'int kata_sum(int x;\n' >bad.h
	run -2 --separate-stderr perfdoc -p bad.h "$P/perf.json"
	[ "$stderr" = "perfdoc: bad.h:1: '(' that is never closed" ]
	printf 'int kata_sum(void);\nthis is not C\n' >bad.h
	run -2 --separate-stderr perfdoc -p bad.h "$P/perf.json"
	[ "$stderr" = "perfdoc: bad.h:2: a declaration without its ';'" ]
	printf 'int kata_sum(void);\n}\n' >bad.h
	run -2 --separate-stderr perfdoc -p bad.h "$P/perf.json"
	[ "$stderr" = "perfdoc: bad.h:2: '}' closes nothing" ]
	printf '/* never closed\n' >bad.h
	run -2 --separate-stderr perfdoc -p bad.h "$P/perf.json"
	[ "$stderr" = "perfdoc: bad.h:1: a comment that does not end" ]
}

@test "perfdoc: usage errors are exit 2" {
	bad_options perfdoc o
	run -2 --separate-stderr perfdoc -t
	[[ ${stderr_lines[0]} == "usage: perfdoc -o perf.json"* ]]
	run -2 --separate-stderr perfdoc -o x.json -s a,b -C a -n n=1x
	[ "$stderr" = "perfdoc: -n n=1x: not a JSON number" ]
	run -2 --separate-stderr perfdoc -o x.json -s a,b -C a -A c:k=v
	[ "$stderr" = "perfdoc: no side c in -s" ]
	run -2 --separate-stderr perfdoc -d '' "$P/perf.json"
	[ "$stderr" = "perfdoc: -d: an empty directory name" ]
	run -2 --separate-stderr perfdoc -o x.json -s a,b -C a -m novalue
	[ "$stderr" = "perfdoc: -m novalue: expected key=value" ]
	[ -z "$output" ]
}

@test "perfdoc: every EXAMPLES line of the man page runs" {
	mkdir docs
	cp "$P/perf.json" docs/perf.json
	sed 's/"case":"sum"/"case":"matmul"/' "$P/sum.row" >matmul.row
	cp "$P/sum.row" sum.row
	mapfile -t ex < <(sed -n '/^\.Sh EXAMPLES/,/^\.Sh /s/^\.Dl //p' "$TOP/man/perfdoc.1")
	[ "${#ex[@]}" -eq 4 ]
	run -0 --separate-stderr sh -c "${ex[0]} && ${ex[1]}"
	[ "$(cat docs/perf-table.md)" = "$(cat "$P/table.md")" ]
	run -0 --separate-stderr sh -c "${ex[2]}"
	[ -s build/compare/drafts/sum.title.txt ]
	run -0 --separate-stderr sh -c "${ex[3]}"
	[ "$(jq -c '[.status, .sides.kata.version, .run.commit, [.rows[].case]]' perf.json)" = \
	    '["complete","gcc","abc",["sum","matmul"]]' ]
}

@test "perfdoc: -t -o writes the table whole into the file, in place over a device, nothing on stdout" {
	run -0 --separate-stderr perfdoc -t -o "$BATS_TEST_TMPDIR/t -1;\$x.md" "$P/perf.json"
	[ -z "$output" ]
	perfdoc -t "$P/perf.json" | cmp - "$BATS_TEST_TMPDIR/t -1;\$x.md"
	run -0 perfdoc -t -o /dev/null "$P/perf.json"
	[ -c /dev/null ]
	run -2 --separate-stderr perfdoc -t -o "$BATS_TEST_TMPDIR/no/such/t.md" "$P/perf.json"
	[[ $stderr == "perfdoc: $BATS_TEST_TMPDIR/no/such/t.md"* ]]
	[ ! -e "$BATS_TEST_TMPDIR/no/such/t.md.tmp" ]
}
