# shellcheck shell=sh
# store.sh: what gate.sh builds and digests, keyed by content; sourced by
# gate.sh. A gate spends most of its time outside its measurements here,
# so each step runs as few processes as it can: one sha256sum for many
# files, the shell's own expansions instead of sed, cut and dirname.
#
# Objects, programs and library lists are also kept in GATE_OBJECTS
# (default build/gate-objects), as ccache keeps objects, so that a fresh
# GATEDIR, or the other side, makes only what no gate made before. An
# entry is found by the digest of what is known before it is made (the
# command, the source), among the entries of that prefix; each is named by
# the digest of its whole key, which names what it was made from (every
# header, every file the linker read) and the digests of its own files, and
# is checked against them whenever it is read. An entry's files are never
# rewritten with other content (a name is its content), so that a gate
# killed between two renames, or a gate beside this one, can leave a file
# without its key, never an object under another object's key.

nl='
'

# The bench command's one parser (benchcmd(1), lib/benchargv.c): gate.mk
# names it in GATE_BENCHCMD; in a checkout it is beside mk/, in bin/.
case $0 in
*/*) benchcmd=${0%/*}/../bin/benchcmd ;;
*) benchcmd=../bin/benchcmd ;;
esac
benchcmd=${GATE_BENCHCMD:-$benchcmd}

# bench_line BENCH: the bench command as one line of sh words that run
# exactly the words the gate keys (benchcmd -S), for bench.cmd; status 2
# and the reason, one line, when it is a form the gate does not run.
bench_line() {
	bl_out=$("$benchcmd" -S "$1" 2>&1) && { printf '%s\n' "$bl_out"; return 0; }
	bl_out=${bl_out##*"$nl"}
	printf '%s\n' "${bl_out#benchcmd: }"
	return 2
}

# sha FILE: the SHA-256 of FILE, in hex.
sha() {
	sha_d=$(sha256sum < "$1") || return 1
	printf '%s' "${sha_d%% *}"
}

# sha_str STRING: the SHA-256 of STRING and a newline.
sha_str() {
	sha_d=$(printf '%s\n' "$1" | sha256sum) || return 1
	printf '%s' "${sha_d%% *}"
}

# shas FILE...: the SHA-256 of each file, one a line, in order, from one
# sha256sum. Status 1 when a file cannot be read.
shas() {
	[ $# -gt 0 ] || return 0
	shas_out=$(sha256sum -- "$@") || return 1
	while [ -n "$shas_out" ]; do
		shas_line=${shas_out%%"$nl"*}
		case $shas_out in
		*"$nl"*) shas_out=${shas_out#*"$nl"} ;;
		*) shas_out= ;;
		esac
		# A name with a backslash or a newline is escaped, the line
		# marked with a leading backslash.
		shas_line=${shas_line#\\}
		printf '%s\n' "${shas_line%% *}"
	done
}

# cc_version CC: sets ccv_line to the first line CC prints of its version
# (--version, else -v), asked once a process: a new compiler behind the
# same name compiles and links again. Each question is under the build's
# timeout (GATE_BUILD_TIMEOUT, timeout(1): the process group killed), so
# that a compiler that never answers costs a gate that much, once; then
# ccv_line is empty and ccv_why says why.
cc_version() {
	if [ "${ccv_of-}" != "$1" ]; then
		ccv_t=${GATE_BUILD_TIMEOUT:-300} ccv_why=
		# shellcheck disable=SC2086
		ccv_line=$(cd / && timeout -k 2 "$ccv_t" $1 --version 2>/dev/null)
		case $? in
		124|137) ccv_line=''
		   # shellcheck disable=SC2034 # gate.sh's identify says it.
		   ccv_why="did not answer --version within $ccv_t s (GATE_BUILD_TIMEOUT)" ;;
		*) # shellcheck disable=SC2086
		   [ -n "$ccv_line" ] || ccv_line=$(cd / && timeout -k 2 "$ccv_t" $1 -v 2>&1) ;;
		esac
		ccv_line=${ccv_line%%"$nl"*}
		ccv_of=$1
	fi
}

# dirty_digest DIR GATEDIR: a digest of the uncommitted changes of the
# work tree holding directory DIR (staged, unstaged and untracked files,
# not ignored ones, not the gate's own directory GATEDIR, absolute, nor
# GATE_OBJECTS); empty when it is clean. Status 1 when git cannot tell.
# The work tree as it is is written as a tree object through a copy of the
# index (git add -A): content, modes and symlinks (dangling or to a
# directory) as git stores them, the real index untouched; the digest is
# that tree's, dirty when it is not HEAD's. git keeps a nested repository
# or a submodule as the commit it has checked out (a gitlink), not its
# files: each one's own uncommitted changes, by its own dirty_digest, are
# in the digest too.
dirty_digest() {
	(
	gd=$2
	go=$(cd "${GATE_OBJECTS:-build/gate-objects}" 2>/dev/null && pwd -P)
	cd "$1" || exit 1
	top=$(git rev-parse --show-toplevel) || exit 1
	set -- ':/'
	# An ignored directory is left out already (and git add refuses to be
	# told of it).
	for dd_out in "$gd" "$go"; do
		case $dd_out/ in
		"$top"/*) git check-ignore -q -- "$dd_out" || set -- "$@" ":(top,exclude)${dd_out#"$top"/}" ;;
		esac
	done
	real=$(git rev-parse --git-path index) || exit 1
	idx=$(mktemp) || exit 1
	trap 'rm -f "$idx" "$idx.lock"' EXIT
	if [ -f "$real" ]; then cp "$real" "$idx" || exit 1; else rm -f "$idx"; fi
	GIT_INDEX_FILE=$idx git add -A -- "$@" > /dev/null 2>&1 || exit 1
	tree=$(GIT_INDEX_FILE=$idx git write-tree) || exit 1
	nested=
	links=$(GIT_INDEX_FILE=$idx git ls-files -s | sed -n 's/^160000 [0-9a-f]* [0-3]	//p') || exit 1
	while [ -n "$links" ]; do
		link=${links%%"$nl"*}
		case $links in
		*"$nl"*) links=${links#*"$nl"} ;;
		*) links= ;;
		esac
		[ -e "$top/$link/.git" ] || continue
		sub=$(dirty_digest "$top/$link" "$gd") || exit 1
		[ -z "$sub" ] || nested="$nested$link $sub$nl"
	done
	if [ -n "$nested" ]; then
		sha_str "$tree$nl$nested" | cut -c1-16
	elif [ "$tree" != "$(git rev-parse --verify --quiet 'HEAD^{tree}')" ]; then
		printf '%s' "$tree" | cut -c1-16
	fi
	)
}

# export_gitlinks TOP INDEX ROOT: the files of each submodule of the tree
# in INDEX (read from repository TOP), exported under ROOT at the commit
# the tree names, from a repository here that has it (the submodule's
# checkout in TOP, or its copy in TOP's git directory), its own submodules
# too; else status 2 and one line naming the submodule.
export_gitlinks() {
	eg_links=$(GIT_INDEX_FILE=$2 git -C "$1" ls-files -s | sed -n 's/^160000 \([0-9a-f]*\) [0-3]	/\1 /p') || {
		echo "git cannot list the submodules"
		return 2
	}
	while [ -n "$eg_links" ]; do
		eg_line=${eg_links%%"$nl"*}
		case $eg_links in
		*"$nl"*) eg_links=${eg_links#*"$nl"} ;;
		*) eg_links= ;;
		esac
		# Each in a subshell of its own: the function calls itself.
		(
		c=${eg_line%% *} p=${eg_line#* }
		for cand in "$1/$p" "$(cd "$1" && git rev-parse --path-format=absolute --git-common-dir 2>/dev/null)/modules/$p"; do
			# A checkout of its own, or a git directory: never the
			# repository around an empty directory.
			[ -e "$cand/.git" ] || [ -f "$cand/HEAD" ] || continue
			gdir=$(git -C "$cand" rev-parse --absolute-git-dir 2>/dev/null) &&
			    git --git-dir="$gdir" cat-file -e "$c^{commit}" 2>/dev/null || continue
			mkdir -p "$3/$p" &&
			    GIT_INDEX_FILE=$2.sub git --git-dir="$gdir" --work-tree="$3/$p" read-tree "$c" &&
			    GIT_INDEX_FILE=$2.sub git --git-dir="$gdir" --work-tree="$3/$p" checkout-index -a || {
				rm -f "$2.sub"
				echo "git cannot export submodule $p (commit $c)"
				exit 2
			}
			[ -d "$1/$p/.git" ] || [ -f "$1/$p/.git" ] || { rm -f "$2.sub"; exit 0; }
			export_gitlinks "$1/$p" "$2.sub" "$3/$p"
			st=$?
			rm -f "$2.sub"
			exit "$st"
		done
		echo "the revision holds submodule $p at commit $c, which no repository here has: run git submodule update --init, or gate the work tree"
		exit 2
		) || return 2
	done
}

# gatedir_claim DIR: DIR is a gate's directory, made now or earlier by a
# gate, and marked so (DIR/.perfgate-gatedir): make gate-clean removes only
# a directory that carries the mark. A directory that exists without it is
# taken when it is empty or holds a gate's files from before the mark;
# else status 2 and one line: a gate writes in no directory of the user's.
gatedir_claim() {
	[ -f "$1/.perfgate-gatedir" ] && return 0
	if [ -e "$1" ] && [ -n "$(ls -A -- "$1" 2>/dev/null)" ] && [ ! -f "$1/lock" ] && [ ! -f "$1/runs.id" ]; then
		printf 'GATEDIR %s holds files no gate wrote (it has no %s): name another directory\n' "$1" .perfgate-gatedir
		return 2
	fi
	if ! mkdir -p -- "$1" 2>/dev/null || ! printf 'A gate'"'"'s directory: make gate-clean removes it.\n' > "$1/.perfgate-gatedir"; then
		printf 'cannot make GATEDIR %s\n' "$1"
		return 2
	fi
}

# tree_file KIND VALUE ROOT SIDEDIR: on the kata's gate (gate.mk's
# GATE_TREE_FILE, kata/kernels.c), a revision or a work tree means that
# tree's file: it and the header beside it (kernels.h) are copied to
# SIDEDIR, each only when it changed, to be built as a file side is. VALUE
# is the work tree's directory; ROOT a revision's export, the file taken
# from the Makefile's directory within it. Prints the file's name, or why
# not and status 2.
tree_file() {
	case $1 in
	tree) tf_src=$2/$GATE_TREE_FILE ;;
	*) tf_src=$3/$(git rev-parse --show-prefix 2>/dev/null)$GATE_TREE_FILE ;;
	esac
	if [ ! -f "$tf_src" ]; then
		printf 'it has no %s\n' "$GATE_TREE_FILE"
		return 2
	fi
	for tf_f in "$tf_src" "${tf_src%.c}.h"; do
		[ -f "$tf_f" ] || continue
		cmp -s -- "$tf_f" "$4/${tf_f##*/}" || cp -f -- "$tf_f" "$4/${tf_f##*/}" || {
			printf 'cannot copy %s\n' "$tf_f"
			return 2
		}
	done
	printf '%s\n' "${tf_src##*/}"
}

# tmpdir_check: status 0 when TMPDIR, if set, is a directory the gate can
# write in (mktemp, the compiler's temporary files); else the reason, one
# line naming TMPDIR, and status 2.
tmpdir_check() {
	[ -n "${TMPDIR:-}" ] || return 0
	if [ ! -d "$TMPDIR" ]; then
		printf 'TMPDIR=%s: no such directory (the compiler and mktemp write there)\n' "$TMPDIR"
		return 2
	fi
	if [ ! -w "$TMPDIR" ] || [ ! -x "$TMPDIR" ]; then
		printf 'TMPDIR=%s: a directory the gate cannot write in\n' "$TMPDIR"
		return 2
	fi
}

# machine_id: the machine rounds are measured on, one "machine_* value"
# line each, for the rounds' key (runs.id), never a build's: the CPU's
# model and the digest of its flags, the kernel, the online cores, the
# frequency governor where it is readable. Rounds restored from another
# machine (a CI cache) are measured again, not replayed as this one's.
machine_id() {
	mi_gov=
	{ IFS= read -r mi_gov < /sys/devices/system/cpu/cpu0/cpufreq/scaling_governor; } 2>/dev/null
	mi_model=$(sed -n 's/^model name[	 ]*: *//p; s/^Processor[	 ]*: *//p; s/^cpu model[	 ]*: *//p' /proc/cpuinfo 2>/dev/null | head -n 1)
	mi_flags=$(sed -n 's/^\(flags\|Features\)[	 ]*: *//p' /proc/cpuinfo 2>/dev/null | head -n 1)
	printf 'machine_cpu %s\nmachine_cpu_flags %s\nmachine_kernel %s\nmachine_cores %s\nmachine_governor %s\n' \
	    "$mi_model" "$(sha_str "$mi_flags")" "$(uname -srvm)" "$(getconf _NPROCESSORS_ONLN 2>/dev/null)" \
	    "$mi_gov"
}

# object_key CMD SRC DFILE: what an object was compiled from: the command,
# then the digests of the source and of the headers of its -MD list (after
# the source, its first prerequisite), from one sha256sum. The list may
# have been made for the same source in another directory (the store's): a
# header beside that source is taken beside this one, and is written
# ./name, so that the key names no directory of a side and the same file
# in another directory has the same key.
object_key() {
	printf '%s\n' "$1"
	key_src=$2 key_dfile=$3
	case $key_src in
	*/*) key_dir=${key_src%/*} ;;
	*) key_dir=. ;;
	esac
	set --
	if [ -f "$key_dfile" ]; then
		key_deps=
		while IFS= read -r key_line || [ -n "$key_line" ]; do
			case $key_line in
			*:*) key_line=${key_line#*:} ;;
			esac
			key_deps="$key_deps ${key_line%\\}"
		done < "$key_dfile"
		set -f
		# shellcheck disable=SC2086
		set -- $key_deps
		set +f
	fi
	if [ $# -gt 0 ]; then
		case $1 in
		*/*) key_from=${1%/*} ;;
		*) key_from=. ;;
		esac
		shift
		for key_dep; do
			shift
			case $key_dep in
			"$key_from"/*) key_dep=$key_dir/${key_dep#"$key_from"/} ;;
			esac
			set -- "$@" "$key_dep"
		done
	fi
	key_out=$(sha256sum -- "$key_src" "$@" 2>&1)
	key_line=${key_out%%"$nl"*}
	printf 'source %s\n' "${key_line%% *}"
	case $key_out in
	*"$nl"*) key_out=${key_out#*"$nl"} ;;
	*) key_out= ;;
	esac
	while [ -n "$key_out" ]; do
		key_line=${key_out%%"$nl"*}
		case $key_out in
		*"$nl"*) key_out=${key_out#*"$nl"} ;;
		*) key_out= ;;
		esac
		case $key_line in
		*"  $key_dir/"*) key_line="${key_line%%"  $key_dir/"*}  ./${key_line#*"  $key_dir/"}" ;;
		esac
		printf '%s\n' "$key_line"
	done
}

# content FILE...: a "content SHA256" line for each file, so that a key
# names the bytes of the files it goes with and a file replaced under it
# (a kill between two renames, a full disk) is seen when the key is read.
content() {
	content_d=$(shas "$@") || return 1
	# shellcheck disable=SC2086 # one line per digest
	printf 'content %s\n' $content_d
}

# object_full CMD SRC OBJ: OBJ's key: object_key, then the content of OBJ
# and of its -MD list.
object_full() {
	object_key "$1" "$2" "$3.d" && content "$3" "$3.d"
}

# store_put FROM PREFIX EXT FILE...: FROM's files (FROM, FROM.key, and
# FROM.X for each X of FILE...) into the store as PREFIX-DIGEST.EXT, named
# by the digest of FROM.key; each written whole and renamed, the key last.
# The store is a cache: a failure to fill it is not the build's.
store_put() {
	put_from=$1 put_ext=$3
	put_c=$2-$(sha "$put_from.key")$put_ext || return 0
	[ -f "$put_c.key" ] && return 0
	shift 3
	mkdir -p "${put_c%/*}" || return 0
	for put_x in '' "$@" .key; do
		# shellcheck disable=SC2015 # a failed copy or rename: stop
		cp -f "$put_from$put_x" "$put_c$put_x.$$" && mv -f "$put_c$put_x.$$" "$put_c$put_x" || break
	done
	rm -f "$put_c".*"$$"
	return 0
}

# compile OBJ CC CFLAGS INCLUDES SRC: status 0 when OBJ is up to date or
# made now; the compiler's complaints on stderr. OBJ is up to date when it
# was compiled by the same command and compiler from the same content of
# SRC and of every file it included (the compiler's -MD list, system
# headers too): an incremental build keyed by content, not timestamps.
compile() {
	obj=$1 cc=$2 cflags=$3 includes=$4 src=$5
	mkdir -p "${obj%/*}"
	cc_version "$cc"
	cmd="$cc $cflags $includes -c$nl$ccv_line"
	if [ -f "$obj" ] && [ -f "$obj.key" ] && object_full "$cmd" "$src" "$obj" 2>/dev/null | cmp -s - "$obj.key"; then
		return 0
	fi
	rm -f "$obj.key"
	store=${GATE_OBJECTS:-build/gate-objects}
	# The source's name is in the object (its STT_FILE symbol), so it is
	# in the prefix too: an object from a file of another name would give
	# another executable.
	c=$store/$(sha_str "$cmd$nl${src##*/}$nl$(sha "$src")")
	for k in "$c"-*.o.key; do
		k=${k%.key}
		# shellcheck disable=SC2015 # any test failing: the next object
		[ -f "$k.key" ] && object_full "$cmd" "$src" "$k" 2>/dev/null | cmp -s - "$k.key" || continue
		cp -f "$k" "$obj.tmp" && cp -f "$k.d" "$obj.d" && mv -f "$obj.tmp" "$obj" && cp -f "$k.key" "$obj.key"
		return
	done
	# shellcheck disable=SC2086
	$cc $cflags $includes -MD -MF "$obj.d.tmp" -c -o "$obj.tmp" "$src" || return 1
	mv -f "$obj.d.tmp" "$obj.d" && mv -f "$obj.tmp" "$obj" || return 1
	object_full "$cmd" "$src" "$obj" > "$obj.key.tmp" && mv -f "$obj.key.tmp" "$obj.key" || return 1
	store_put "$obj" "$c" .o .d
	return 0
}

# link_key CMD OBJECTS INPUTS: what a program was linked from: the command
# and compiler, the digests of its own objects, then those of every other
# file the linker read, listed in INPUTS one a line. Those are the C
# runtime's and the libraries, megabytes on every gate: BLAKE2 (b2sum)
# digests them in a third of SHA-256's time, and no digest of them is
# shown to anyone.
link_key() {
	printf '%s\n%s\n' "$1" "$2"
	lk_inputs=$3
	set --
	while IFS= read -r lk_line || [ -n "$lk_line" ]; do
		[ -n "$lk_line" ] && set -- "$@" "$lk_line"
	done < "$lk_inputs"
	[ $# -eq 0 ] || b2sum -- "$@" 2>&1
}

# program OUT CC CFLAGS INCLUDES SRC DRIVER LDLIBS: the default build of a
# side: SRC compiled (compile) beside itself, then linked with the driver's
# object into OUT, unless OUT was linked by the same command and compiler
# from the same content of every file the linker read: the two objects,
# the C runtime's, every library and archive, as the linker lists them
# (--trace, in OUT.inputs). A link gives the same bytes from the same
# inputs, so a program is kept in the store by that key too. A linker that
# cannot list what it reads (tcc's) links every time.
cmd_program() {
	prog=$1 prog_cc=$2 prog_cflags=$3 prog_includes=$4 prog_src=$5 prog_driver=$6 prog_ldlibs=$7
	case ${prog_src##*/} in
	*.*) prog_obj=${prog_src%.*}.o ;;
	*) prog_obj=$prog_src.o ;;
	esac
	compile "$prog_obj" "$prog_cc" "$prog_cflags" "$prog_includes" "$prog_src" || return 1
	cc_version "$prog_cc"
	prog_cmd="link $prog_cc $prog_cflags $prog_ldlibs$nl$ccv_line"
	prog_objects=$(shas "$prog_driver" "$prog_obj") || return 1
	if [ -f "$prog" ] && [ -f "$prog.inputs" ] && [ -f "$prog.key" ] &&
	    program_full "$prog" 2>/dev/null | cmp -s - "$prog.key"; then
		return 0
	fi
	rm -f "$prog.key"
	prog_store=${GATE_OBJECTS:-build/gate-objects}
	prog_c=$prog_store/$(sha_str "$prog_cmd$nl$prog_objects")
	for prog_k in "$prog_c"-*.exe.key; do
		prog_k=${prog_k%.key}
		# shellcheck disable=SC2015 # any test failing: the next program
		[ -f "$prog_k.key" ] && [ -f "$prog_k.inputs" ] &&
		    program_full "$prog_k" 2>/dev/null | cmp -s - "$prog_k.key" || continue
		cp -f "$prog_k" "$prog.tmp" && cp -f "$prog_k.inputs" "$prog.inputs" && mv -f "$prog.tmp" "$prog" &&
		    cp -f "$prog_k.key" "$prog.key"
		return
	done
	rm -f "$prog.inputs"
	# shellcheck disable=SC2086
	if ! prog_list=$($prog_cc $prog_cflags -Wl,--trace -o "$prog.tmp" "$prog_driver" "$prog_obj" $prog_ldlibs 2>/dev/null); then
		# shellcheck disable=SC2086
		$prog_cc $prog_cflags -o "$prog.tmp" "$prog_driver" "$prog_obj" $prog_ldlibs || return 1
		mv -f "$prog.tmp" "$prog"
		return
	fi
	# Each file once (the linker reads an archive again for each pass);
	# the two objects are in the key by their digests already.
	prog_seen=$nl$prog_driver$nl$prog_obj$nl
	while [ -n "$prog_list" ]; do
		prog_line=${prog_list%%"$nl"*}
		case $prog_list in
		*"$nl"*) prog_list=${prog_list#*"$nl"} ;;
		*) prog_list= ;;
		esac
		case $prog_seen in
		*"$nl$prog_line$nl"*) continue ;;
		esac
		prog_seen=$prog_seen$prog_line$nl
		printf '%s\n' "$prog_line"
	done > "$prog.inputs" || return 1
	mv -f "$prog.tmp" "$prog" || return 1
	program_full "$prog" > "$prog.key.tmp" && mv -f "$prog.key.tmp" "$prog.key" || return 1
	store_put "$prog" "$prog_c" .exe .inputs
	return 0
}

# program_full PROG: PROG's key: link_key (of cmd_program's command and
# objects), then the content of PROG and of its list of inputs.
program_full() {
	link_key "$prog_cmd" "$prog_objects" "$1.inputs" && content "$1" "$1.inputs"
}

# libs_of FILE DIGEST LOADER: the shared libraries the dynamic loader would
# load for FILE, one path a line, as ldd lists them. Kept in the store by
# FILE's DIGEST, LOADER (the digests of what decides where a library is
# found: /etc/ld.so.cache and /etc/ld.so.preload), the directory the
# benchmark runs in (a relative run path is taken from it) and, when FILE
# names $ORIGIN, FILE's path (its run path then finds libraries beside
# it); not kept when LD_LIBRARY_PATH or LD_PRELOAD is set, nor when ldd
# fails or misses a library.
libs_of() {
	libs_c=
	if [ -z "${LD_LIBRARY_PATH:-}${LD_PRELOAD:-}" ]; then
		libs_store=${GATE_OBJECTS:-build/gate-objects}
		libs_where=$PWD
		grep -q ORIGIN "$1" 2>/dev/null && libs_where=$libs_where$nl$1
		libs_c=$libs_store/libs-$(sha_str "$libs_where")-$2-$3
		if [ -f "$libs_c" ]; then
			cat "$libs_c" && return 0
		fi
	fi
	libs_out=$(ldd "$1" 2>/dev/null) || libs_c=
	case $libs_out in
	*"not found"*) libs_c= ;;
	esac
	libs_list=$(printf '%s\n' "$libs_out" | sed -n 's/^.*=> \(\/[^ ]*\) (0x.*$/\1/p; s/^[ 	]*\(\/[^ ]*\) (0x.*$/\1/p')
	[ -n "$libs_list" ] && printf '%s\n' "$libs_list"
	if [ -n "$libs_c" ]; then
		mkdir -p "$libs_store" && printf '%s\n' "$libs_list" > "$libs_c.$$" && mv -f "$libs_c.$$" "$libs_c"
		rm -f "$libs_c.$$"
	fi
	return 0
}

# runs_of BENCH: what the bench command runs, one "run SHA256 PATH" line for
# each file it names as benchcmd -K lists them (the program, looked up in
# PATH, then any file a word names, after = too: an input, a script, a
# variable's value), then one
# "lib SHA256 PATH" line for each shared library the dynamic loader would
# load for those files, so that a library upgraded under a side counts.
# Status 1 when a file cannot be read, 2 when benchcmd refuses the command.
runs_of() {
	files=
	ld_path=- ld_pre=-
	# benchcmd is the one parser of the command: what it names is what
	# alternate and countof run.
	ro_keyed=$("$benchcmd" -K "$1") || return 2
	while [ -n "$ro_keyed" ]; do
		ro_line=${ro_keyed%%"$nl"*}
		case $ro_keyed in
		*"$nl"*) ro_keyed=${ro_keyed#*"$nl"} ;;
		*) ro_keyed= ;;
		esac
		case $ro_line in
		'file '*) files="$files${ro_line#file }$nl" ;;
		'env LD_LIBRARY_PATH '*) ld_path=${ro_line#env LD_LIBRARY_PATH } ;;
		'env LD_PRELOAD '*) ld_pre=${ro_line#env LD_PRELOAD } ;;
		esac
	done
	[ -n "$files" ] || return 0
	# One word a line, neither split on blanks nor globbed.
	saved=$IFS
	IFS=$nl
	set -f
	# shellcheck disable=SC2086
	set -- $files
	set +f
	IFS=$saved
	loader=
	for f in /etc/ld.so.cache /etc/ld.so.preload; do
		[ -f "$f" ] && set -- "$@" "$f"
	done
	digests=$(shas "$@") || return 1
	digests=$digests$nl
	libs=
	while [ $# -gt 0 ]; do
		d=${digests%%"$nl"*}
		digests=${digests#*"$nl"}
		case $1 in
		/etc/ld.so.cache|/etc/ld.so.preload) loader=$loader${loader:+-}$d ;;
		*) echo "run $d $1"
		   libs="$libs$1 $d$nl" ;;
		esac
		shift
	done
	list=$(printf '%s' "$libs" | {
		[ "$ld_path" = - ] || { LD_LIBRARY_PATH=$ld_path; export LD_LIBRARY_PATH; }
		[ "$ld_pre" = - ] || { LD_PRELOAD=$ld_pre; export LD_PRELOAD; }
		while IFS= read -r l; do
			libs_of "${l% *}" "${l##* }" "${loader:-none}"
		done; } | sort -u)
	# One word a line, neither split on blanks nor globbed.
	saved=$IFS
	IFS=$nl
	set -f
	# shellcheck disable=SC2086
	set -- $list
	set +f
	IFS=$saved
	for lib; do
		shift
		[ -f "$lib" ] && set -- "$@" "$lib"
	done
	digests=$(shas "$@") || return 1
	digests=$digests$nl
	for lib; do
		echo "lib ${digests%%"$nl"*} $lib"
		digests=${digests#*"$nl"}
	done
}
