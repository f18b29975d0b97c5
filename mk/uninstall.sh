#!/bin/sh
# uninstall.sh BINDIR DATADIR MAN1DIR MAN7DIR PCDIR TOOL ...: make
# uninstall. Removes only what make install wrote: each TOOL and perfgate
# from BINDIR with its page from MAN1DIR, perfgate.7, DATADIR whole, and
# perfgate.pc. Every directory is an argument, used quoted: a PREFIX with
# blanks, quotes or a '$' names that tree and no other.
[ $# -ge 5 ] || { echo "usage: uninstall.sh bindir datadir man1dir man7dir pcdir tool ..." >&2; exit 2; }
bindir=$1 datadir=$2 man1=$3 man7=$4 pcdir=$5
shift 5
for t in "$@" perfgate; do
	rm -f -- "$bindir/$t" "$man1/$t.1" || exit 1
done
rm -rf -- "$datadir" || exit 1
rm -f -- "$man7/perfgate.7" "$pcdir/perfgate.pc" "$pcdir/perfgate.pc.tmp"
