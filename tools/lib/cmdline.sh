#!/usr/bin/env bash
# Kernel options that a tool adds to a command line (make replay's seed=,
# run-qemu --deterministic's fingerprint= and switchyield=, make trace's
# trace=on and traceout=hex) go among gmk's options: before the "--" that
# starts a program's arguments, never after it, where they would be the
# program's (docs/cmdline.md). tools/test-all has the same rule in Python
# (with_options).
#
#   cmdline_has LINE KEY       status 0 if gmk's options in LINE set KEY=
#   cmdline_with LINE WORD...  prints LINE with the WORDs after its options
#   tools/lib/cmdline.sh with LINE WORD...   the same, for make
#   tools/lib/cmdline.sh has LINE KEY
#
# The words are the kernel's (kernel/cmdline.c): split at blanks, quotes
# meaning nothing before "--"; what follows the "--" is kept byte for
# byte. A line that starts with "--" (a loader's form, "-- run=x -- 7")
# has gmk's options after that one, up to the next.

# cl_split LINE: cl_opts, LINE up to the "--" of the program's arguments
# (blanks before it dropped), and cl_args, that "--" and all after it
# (empty when there is none).
cl_split() {
	local rest=$1 opts= word first=1 re=$'^([ \t\n]*)([^ \t\n]+)(.*)$'
	cl_args=
	while [[ $rest =~ $re ]]; do
		word=${BASH_REMATCH[2]}
		if [ "$word" = -- ] && [ $first = 0 ]; then
			cl_args=--${BASH_REMATCH[3]}
			rest=
			break
		fi
		opts+=${BASH_REMATCH[1]}$word
		rest=${BASH_REMATCH[3]}
		first=0
	done
	[ -n "$cl_args" ] || opts+=$rest
	while [[ $opts == *[$' \t\n'] ]]; do opts=${opts%?}; done
	cl_opts=$opts
}

cmdline_has() {
	local w words=()
	cl_split "$1"
	read -d '' -ra words <<<"$cl_opts"
	for w in "${words[@]}"; do
		[[ $w == "$2="* ]] && return 0
	done
	return 1
}

cmdline_with() {
	local line=$1 out w
	shift
	cl_split "$line"
	out=$cl_opts
	for w in "$@"; do out+=${out:+ }$w; done
	printf '%s\n' "$out${cl_args:+ $cl_args}"
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
	set -uo pipefail
	case "${1:-}" in
	with) [ $# -ge 2 ] && { cmdline_with "${@:2}"; exit 0; } ;;
	has) [ $# = 3 ] && { cmdline_has "$2" "$3"; exit; } ;;
	esac
	echo "usage: tools/lib/cmdline.sh with LINE WORD... | has LINE KEY" >&2
	exit 2
fi
