#!/usr/bin/env bash
# The one loader of a board's facts: what its boards/<name>/board.mk says,
# as the Makefile prints it (`make board-facts`, one VAR=value a line; the
# Makefile lists the facts and says what each means). Every tool that
# needs a fact gets it here, so no tool names a board.
#
# Sourced (bash):
#   . tools/lib/board.sh
#   board_load BOARD [VAR=VALUE]...   the facts into the associative array
#                                     `fact` (VAR=VALUE: board settings,
#                                     GIC=3, as make takes them); a board
#                                     or setting make refuses: its message
#                                     on stderr after "TOOL: ", status 2
#   board_names                       every board, one a line, sorted
# Run (for tools in other languages: tools/test-all):
#   tools/lib/board.sh BOARD [VAR=VALUE]...   the facts, VAR=value a line
#   tools/lib/board.sh --names                every board

# The repository's root, wherever this file is sourced from.
board_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)

board_names() {
	local f
	for f in "$board_root"/boards/*/board.mk; do
		f=${f%/board.mk}
		echo "${f##*/}"
	done | sort
}

board_load() {
	local board=$1 out line
	shift
	declare -gA fact=()
	# make's own refusal (no such board, a setting the board does not
	# take) is the message: it names the problem and the choices.
	if ! out=$(make -s --no-print-directory -C "$board_root" BOARD="$board" "$@" board-facts 2>&1); then
		out=$(sed -n 's/^.*\*\*\* \(.*\)\.  Stop\.$/\1/p' <<<"$out" | head -1)
		echo "${BOARD_TOOL:-$(basename "$0")}: ${out:-make board-facts failed for board $board}" >&2
		return 2
	fi
	while IFS= read -r line; do
		fact[${line%%=*}]=${line#*=}
	done <<<"$out"
	fact[BOARD]=$board
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
	set -uo pipefail
	if [ "${1:-}" = --names ]; then board_names; exit 0; fi
	[ $# -ge 1 ] || { echo "usage: tools/lib/board.sh BOARD [VAR=VALUE]... | --names" >&2; exit 2; }
	board_load "$@" || exit 2
	for k in "${!fact[@]}"; do printf '%s=%s\n' "$k" "${fact[$k]}"; done | sort
fi
