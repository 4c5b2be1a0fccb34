# shellcheck shell=bash
# The one runner interface: tools/run-qemu, tools/run-pc and tools/run-hosted
# (a board's RUNNER in its board.mk names its tools/run-<RUNNER>) source this
# file, so that they take the same arguments, check them the same way and
# answer the same mistakes with the same messages.
#
#   tools/run-<RUNNER> --board B [--smp N] [--timeout SECS] [--set VAR=VALUE]...
#                      [--accel A] [--stdin] [--gdb] [--quiet-accel]
#                      [--deterministic] [--gdb-port N] [--kernel FILE]
#                      [--mem SIZE] [--workdir DIR] [--qemu-arg ARG]...
#                      [-- "kernel command line"]
#   tools/run-<RUNNER> --board B --print-accel    what --accel auto picks here, and why
#   tools/run-<RUNNER> --board B --print-accels   every accelerator it can use here,
#                                                 the reference (TCG, or native) first
#   tools/run-<RUNNER> --supports OPTION          status 0 if this runner takes OPTION
#
# Every runner takes the first line's options; the second line's are each
# runner's to take (--supports says which), and a runner given one it does
# not take refuses it by name, never ignores it.
#   --smp N        cores (the runner's default: 4, or the host's CPUs on the
#                  hosted board); above the board's MAX_SMP, or a count its
#                  machine does not take (QEMU_SMPS), is refused
#   --timeout S    seconds, 0 (the default) for none; past it the runner says
#                  "TIMEOUT" and exits 124
#   --set VAR=VALUE  a board setting (GIC=3, FIRMWARE=uefi, SAN=tsan), passed
#                  to make as make takes it; one the board does not take is
#                  refused with make's message
#   --accel A      auto (the default), or one of --print-accels
#   --stdin        the guest's console input is this script's stdin (a pipe
#                  or file feeds it; a terminal makes an interactive session,
#                  with no timeout). Without it a timed run reads /dev/null,
#                  so that a test boot never takes input.
#   --gdb          start halted for a debugger (printing how to attach)
#   --quiet-accel  do not print the accelerator chosen
# Exit status: the kernel's own (0: everything passed), 124 on timeout, 2
# for bad input, with a message naming it.
#
# A runner script: sets rn_name (run-qemu), rn_what (what the board runs
# as, for refusals), rn_takes (the options of the second line it takes) and
# rn_smp (its default; empty: the board's own), defines runner_accels
# (sets rn_accels to the accelerators it can use here, the reference
# first, and rn_accel_why to why a faster one is missing) and then calls
# runner_parse "$@". After it: rn_board, rn_smp, rn_timeout, rn_accel
# (resolved: never auto), rn_sets (VAR=VALUE words), rn_stdin, rn_gdb,
# rn_gdb_port, rn_deterministic, rn_kernel, rn_mem, rn_workdir,
# rn_qemu_args, rn_quiet_accel, rn_cmdline, and the board's facts in
# `fact` (tools/lib/board.sh).

. "$(dirname "${BASH_SOURCE[0]}")/board.sh"

rn_common="--board --smp --timeout --set --accel --stdin --gdb --quiet-accel --print-accel --print-accels --supports"
rn_with_value="--board --smp --timeout --set --accel --gdb-port --kernel --mem --workdir --qemu-arg --supports"

runner_fail() { echo "$rn_name: $*" >&2; exit 2; }

runner_takes() {	# runner_takes OPTION: this runner takes OPTION
	[[ " $rn_common $rn_takes " == *" $1 "* ]]
}

runner_parse() {
	rn_board= rn_timeout=0 rn_accel=auto rn_sets=() rn_stdin=0 rn_gdb=0 rn_gdb_port=1234
	rn_deterministic=0 rn_kernel= rn_mem= rn_workdir= rn_qemu_args=() rn_quiet_accel=0
	rn_cmdline= rn_print= rn_smp_given=0
	local opt
	BOARD_TOOL=$rn_name
	while [ $# -gt 0 ]; do
		opt=$1
		case $opt in
		--) shift; break ;;
		--*) ;;
		*) runner_fail "unexpected '$opt' (the kernel command line goes after --, as one argument)" ;;
		esac
		case " --board --smp --timeout --set --accel --stdin --gdb --quiet-accel --print-accel --print-accels --supports --deterministic --gdb-port --kernel --mem --workdir --qemu-arg " in
		*" $opt "*) ;;
		*) runner_fail "unknown option '$opt'" ;;
		esac
		runner_takes "$opt" || runner_fail "$opt is not supported by this runner (board${rn_board:+ $rn_board}: $rn_what)"
		if [[ " $rn_with_value " == *" $opt "* ]]; then
			[ $# -ge 2 ] || runner_fail "$opt needs a value"
		fi
		case $opt in
		--board) rn_board=$2 ;;
		--smp) rn_smp=$2 rn_smp_given=1 ;;
		--timeout) rn_timeout=$2 ;;
		--set)
			[[ $2 =~ ^[A-Z_][A-Z0-9_]*=.*$ ]] || runner_fail "--set '$2': want VAR=VALUE (GIC=3)"
			rn_sets+=("$2") ;;
		--accel) rn_accel=$2 ;;
		--stdin) rn_stdin=1 ;;
		--gdb) rn_gdb=1 ;;
		--gdb-port) rn_gdb=1 rn_gdb_port=$2 ;;
		--quiet-accel) rn_quiet_accel=1 ;;
		--print-accel|--print-accels) rn_print=${opt#--print-} ;;
		--supports)
			# A question about this runner, not a run.
			runner_takes "$2" && exit 0
			echo "$rn_name: $2 is not supported by this runner ($rn_what)"; exit 1 ;;
		--deterministic) rn_deterministic=1 ;;
		--kernel) rn_kernel=$2 ;;
		--mem) rn_mem=$2 ;;
		--workdir) rn_workdir=$2 ;;
		--qemu-arg) rn_qemu_args+=("$2") ;;
		esac
		if [[ " $rn_with_value " == *" $opt "* ]]; then shift 2; else shift; fi
	done
	[ $# -le 1 ] || runner_fail "the kernel command line is one argument after --, not $# (quote it)"
	rn_cmdline=${1:-}
	[ -n "$rn_board" ] || runner_fail "which board? (--board B; the boards are $(board_names | tr '\n' ' '| sed 's/ $//'))"

	# make passes SMP and TIMEOUT quoted: an empty one arrives empty.
	if [ "$rn_smp_given" = 1 ] || [ -n "$rn_smp" ]; then
		[ -n "$rn_smp" ] || runner_fail "SMP is empty: the number of cores must be a whole number, at least 1"
		[[ $rn_smp =~ ^[0-9]+$ ]] && [ "$((10#$rn_smp))" -ge 1 ] ||
			runner_fail "SMP=$rn_smp: the number of cores must be a whole number, at least 1"
		rn_smp=$((10#$rn_smp))
	fi
	[ -n "$rn_timeout" ] || runner_fail "TIMEOUT is empty: a whole number of seconds (0: none)"
	[[ $rn_timeout =~ ^[0-9]+$ ]] || runner_fail "TIMEOUT=$rn_timeout: a whole number of seconds (0: none)"
	[[ $rn_gdb_port =~ ^[0-9]+$ ]] && [ "$rn_gdb_port" -ge 1 ] && [ "$rn_gdb_port" -le 65535 ] ||
		runner_fail "--gdb-port $rn_gdb_port: a TCP port number, 1-65535"

	board_load "$rn_board" "${rn_sets[@]}" || exit 2
	local runner=${fact[RUNNER]:-}
	if [ -z "$runner" ]; then
		runner_fail "board $rn_board does not run here (RUNNER is empty: it is an image for real hardware; make image BOARD=$rn_board)"
	elif [ "run-$runner" != "$rn_name" ]; then
		runner_fail "board $rn_board runs with tools/run-$runner (RUNNER=$runner), not $rn_name"
	fi
	if [ -n "$rn_smp" ] && [ -n "${fact[MAX_SMP]:-}" ] && [ "$rn_smp" -gt "${fact[MAX_SMP]}" ]; then
		runner_fail "SMP=$rn_smp: board $rn_board has at most ${fact[MAX_SMP]} cores${fact[MAX_SMP_WHY]:+ (${fact[MAX_SMP_WHY]})}"
	fi
	if [ -n "$rn_smp" ] && [ -n "${fact[QEMU_SMPS]:-}" ] && [[ " ${fact[QEMU_SMPS]} " != *" $rn_smp "* ]]; then
		runner_fail "board $rn_board: its machine takes ${fact[QEMU_SMPS]// / or } cores, not $rn_smp"
	fi

	# The accelerators it can use here, the reference first (runner_accels
	# sets rn_accels, and rn_accel_why to why a faster one is missing).
	rn_accels= rn_accel_why=
	runner_accels || exit 2
	if [ "$rn_print" = accels ]; then echo "$rn_accels"; exit 0; fi
	if [ "$rn_accel" = auto ]; then
		# The fastest it has here; the reference for an exact replay.
		rn_accel=${rn_accels##* }
		[ "$rn_deterministic" = 1 ] && rn_accel=${rn_accels%% *}
		if [ "$rn_print" = accel ]; then echo "$rn_accel$rn_accel_why"; exit 0; fi
	elif [[ " $rn_accels " != *" $rn_accel "* ]]; then
		runner_fail "--accel $rn_accel: board $rn_board runs under ${rn_accels// / or } here$rn_accel_why (or --accel auto)"
	fi
	if [ -n "$rn_print" ]; then echo "$rn_accel (forced with --accel)"; exit 0; fi
	return 0
}

# runner_exec CMD...: run the board's command with the interface's input and
# timeout: stdin with --stdin (a terminal: interactive, no timeout), else
# /dev/null when timed. Exits with the command's status (runner_status
# maps it first, if the runner defines it), or 124 on timeout.
runner_exec() {
	local in=/dev/null rc timeout=$rn_timeout
	if [ "$rn_stdin" = 1 ] && [ -t 0 ]; then
		timeout=0	# interactive: the user ends it (the guest's exit, or Ctrl-C)
		echo "$rn_name: the console is this terminal; end with the guest's exit or Ctrl-C" >&2
	fi
	[ "$rn_stdin" = 1 ] && in=/dev/stdin
	if [ "$timeout" != 0 ]; then
		timeout --foreground -k 5 "$timeout" "$@" <"$in"
		rc=$?
		if [ $rc = 124 ] || [ $rc = 137 ]; then
			echo "$rn_name: TIMEOUT: $rn_board did not finish within ${timeout}s" >&2
			exit 124
		fi
	else
		# Untimed without --stdin: the caller's stdin as it is (make
		# debug's session keeps its terminal).
		"$@"
		rc=$?
	fi
	if declare -F runner_status >/dev/null; then rc=$(runner_status "$rc"); fi
	exit "$rc"
}
