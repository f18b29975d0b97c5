#!/bin/sh
# perfgate-pc.sh TEMPLATE PREFIX DATADIR VERSION: perfgate.pc on stdout,
# TEMPLATE's @PREFIX@, @BENCHDIR@, @DATADIR@ and @VERSION@ filled in.
# A directory under PREFIX is written ${prefix}/..., so that
# pkg-config --define-prefix can move the tree. Each value is escaped for
# pkg-config, which reads a .pc line as a shell would a word: a backslash,
# a double quote and a '#' (a comment otherwise) take a backslash, so that
# `pkg-config --cflags` gives a PREFIX with blanks, quotes, '#' or ';'
# back as one word, escaped for the shell. A '$' it cannot pass: "${" is
# its own variable, and a lone '$' it leaves for the shell to expand
# (pkgconf 1.8); such a PREFIX is refused, exit 2.
#
# With -o FILE the .pc goes to FILE whole or not at all: written beside it
# as FILE.tmp and renamed, the .tmp removed when anything fails. A FILE
# that is there and not a regular file (a device such as /dev/null, a
# FIFO, a symlink) is written in place: a rename would replace it.
if [ "${1-}" = -o ]; then
	[ $# -eq 6 ] || { echo "usage: perfgate-pc.sh [-o file] template prefix datadir version" >&2; exit 2; }
	outfile=$2
	shift 2
	if [ -L "$outfile" ] || { [ -e "$outfile" ] && [ ! -f "$outfile" ]; }; then
		sh "$0" "$@" > "$outfile" && exit 0
		exit 2
	fi
	sh "$0" "$@" > "$outfile.tmp" && mv -f -- "$outfile.tmp" "$outfile" && exit 0
	rm -f -- "$outfile.tmp"
	exit 2
fi
[ $# -eq 4 ] || { echo "usage: perfgate-pc.sh [-o file] template prefix datadir version" >&2; exit 2; }
template=$1 prefix=${2%/} datadir=${3%/} version=$4

for v in "$prefix" "$datadir" "$version"; do
	case $v in
	*'$'*|*'
'*) echo "perfgate-pc.sh: $v: pkg-config cannot pass a '\$' or a newline to the shell" >&2; exit 2 ;;
	esac
done

# esc STRING: STRING escaped for a .pc file, in $esc_out.
esc() {
	esc_in=$1 esc_out=
	while [ -n "$esc_in" ]; do
		esc_c=${esc_in%"${esc_in#?}"}
		esc_in=${esc_in#?}
		case $esc_c in
		\\|\"|\#) esc_out=$esc_out\\$esc_c ;;
		*) esc_out=$esc_out$esc_c ;;
		esac
	done
}

# under DIR: DIR escaped, as ${prefix}/... when it lies under PREFIX.
# ${prefix} is pkg-config's variable, written as it is.
# shellcheck disable=SC2016
under() {
	case $1 in
	"$prefix") under_out='${prefix}' ;;
	"$prefix"/*) esc "${1#"$prefix"/}"; under_out='${prefix}/'$esc_out ;;
	*) esc "$1"; under_out=$esc_out ;;
	esac
}

esc "$prefix"; p=$esc_out
under "$datadir/bench"; b=$under_out
under "$datadir"; d=$under_out
esc "$version"; ver=$esc_out

while IFS= read -r line || [ -n "$line" ]; do
	out=
	# From the first '@' on: a known @NAME@ is filled in, any other '@'
	# kept.
	while :; do
		case $line in
		*@*@*) ;;
		*) break ;;
		esac
		out=$out${line%%@*} rest=${line#*@}
		case ${rest%%@*} in
		PREFIX) out=$out$p line=${rest#*@} ;;
		BENCHDIR) out=$out$b line=${rest#*@} ;;
		DATADIR) out=$out$d line=${rest#*@} ;;
		VERSION) out=$out$ver line=${rest#*@} ;;
		*) out=$out@ line=$rest ;;
		esac
	done
	printf '%s\n' "$out$line"
done < "$template"
