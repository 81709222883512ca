#!/usr/bin/env bash
# instructions.sh: the user-space instructions each program executes per
# token in its reader's loop, pipebench against the yardstick, counted by
# valgrind's callgrind: the instructions (Ir) executed inside pipebench's
# (*reader).hot and the yardstick's reader(), the functions they call
# included, over the whole run (the loop's setup too), divided by the
# tokens received. A count, not a time: it is the same on a busy machine
# and an idle one, and tells apart differences of a few instructions a
# token that no timing here resolves; it says nothing of the kernel's
# work, which is most of an event. The yardstick is counted making its
# calls each way (-calls function, go and inline); pb/go is pipebench's
# count over the yardstick's with -calls go, the C program making its
# system calls as Go code does.
#
#   tools/yardstick/instructions.sh "-b poll -n 1000 -l 1 -writer self"
#   DUR=2s tools/yardstick/instructions.sh "-b epoll -n 10 -l 1 -writer self" "-b select -n 1000 -l 10 -writer self"
#   tools/yardstick/instructions.sh -list "-b poll -n 1000 -l 1 -writer self"   # what it would run; counts nothing
#
# Needs valgrind (Debian package valgrind; .ci/run installs it). Under
# valgrind a program runs some fifty times slower, on one CPU at a time;
# DUR (default 3s) is each run's -d; TICK (default 10ms, 0 for none) the
# yardstick's -tick, as compare.sh gives it. pipebench runs with
# GODEBUG=asyncpreemptoff=1 (callgrind 3.19 stops on the Go runtime's
# preemption signal) and cpu.rdtscp=off (valgrind 3.19 cannot decode
# rdtscp, which the runtime's spinning locks read the clock with, and
# kills the program; the runtime uses rdtsc instead); a run that fails
# anyway is made once more. io_uring is refused (valgrind 3.19 does not
# know its system calls), and writers other than self (pipebench refuses a
# writer thread with asyncpreemptoff, and watches a writer process with
# pidfd_open, which valgrind 3.19 does not know either). It takes the measurement lock as
# compare.sh does.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/compare-lib.sh"
DUR=${DUR:-3s}
TICK=${TICK:-10ms}

usage() {
	echo "usage: instructions.sh [-list] CONFIG ...   (CONFIG: \"-b poll -n 1000 -l 1 -writer self\"; env DUR TICK)" >&2
	exit 2
}

orig=("$@")
list=0
configs=()
for a in "$@"; do
	case $a in
	-list) list=1 ;;
	-h | -help | --help) usage ;;
	*" "*) configs+=("$a") ;;
	*) echo "instructions.sh: $a: want -list or a configuration in one argument, such as \"-b poll -n 1000 -l 1 -writer self\"" >&2; usage ;;
	esac
done
((${#configs[@]} > 0)) || usage
dur=$(dur_secs "$DUR") && awk -v d="$dur" 'BEGIN {exit !(d >= 2)}' ||
	{ echo "instructions.sh: DUR=$DUR: want 2s or more (pipebench's 1 s intervals, the first a warm-up)" >&2; exit 2; }
check_tick instructions.sh
for cfg in "${configs[@]}"; do
	[[ " $cfg " =~ \ -b\ (epoll|epoll-et|poll|select)\  ]] ||
		{ echo "instructions.sh: \"$cfg\": want -b epoll, epoll-et, poll or select: the yardstick's backends but uring, whose system calls valgrind 3.19 does not know" >&2; exit 2; }
	[[ " $cfg " =~ \ -writer\ self\  ]] ||
		{ echo "instructions.sh: \"$cfg\": want -writer self (pipebench refuses a writer thread with GODEBUG=asyncpreemptoff=1, and watches a writer process with pidfd_open, which valgrind 3.19 does not know)" >&2; exit 2; }
	[[ $cfg != taskset=* && " $cfg " != *" -d "* ]] ||
		{ echo "instructions.sh: \"$cfg\": leave out taskset= and -d (the duration is DUR's)" >&2; exit 2; }
done

# argv_of prints program $1's command under callgrind (pipebench, or the
# yardstick making its calls as $1 says: function, go, inline) for
# configuration $2, one word a line, its binary under $tmp.
argv_of() {
	case $1 in
	pipebench)
		printf '%s\n' env GODEBUG=asyncpreemptoff=1,cpu.rdtscp=off valgrind --tool=callgrind --callgrind-out-file=/dev/null \
			'--toggle-collect=*reader).hot' "\$tmp/pipebench" $2 -d "$DUR" ;;
	*)
		printf '%s\n' valgrind --tool=callgrind --callgrind-out-file=/dev/null --toggle-collect=reader \
			"\$tmp/yardstick" $2 -d "$DUR" -calls "$1"
		[[ $TICK == 0 ]] || printf '%s\n' -tick "$TICK" ;;
	esac
}
programs=(pipebench function go inline)

if ((list)); then
	for cfg in "${configs[@]}"; do
		for p in "${programs[@]}"; do
			argv_of "$p" "$cfg" | paste -sd' ' | sed "s/--toggle-collect=\*reader).hot/'&'/"
		done
	done
	exit 0
fi

command -v valgrind >/dev/null || { echo "instructions.sh: valgrind not found (Debian package valgrind)" >&2; exit 1; }
# A count is the same on a busy machine, but the runs would slow a
# measurement that compare.sh or paired.sh is making: take its lock.
take_lock "$here/instructions.sh" "${orig[@]}"
cd "$here/../.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/pipebench" ./cmd/pipebench
# -g: callgrind finds reader() by its symbol, which -O2 alone keeps too;
# the code is the same.
gcc -O2 -g -std=c11 -Wall -Wextra -Werror -pthread -o "$tmp/yardstick" tools/yardstick/c/yardstick.c
header "DUR=$DUR tick $TICK, user instructions per token in the reader's loop (callgrind $(valgrind --version | sed 's/^valgrind-//'))"

# count runs program $1 on configuration $2 under callgrind and prints its
# instructions per token, or "failed" once two tries have failed.
count() {
	local argv=() try out ir tokens
	mapfile -t argv < <(argv_of "$1" "$2")
	argv=("${argv[@]/\$tmp/$tmp}")
	for try in 1 2; do
		out=$("${argv[@]}" 2>&1) || true
		ir=$(awk '$2 == "Collected" {gsub(",", "", $4); print $4; exit}' <<<"$out")
		tokens=$(awk '$1 == "tokens" && $2 == "sent" {print $5; exit}' <<<"$out")
		if [[ -n $tokens && $tokens -gt 0 && ${ir:-0} -gt 0 ]]; then
			awk -v i="$ir" -v t="$tokens" 'BEGIN {printf "%.1f", i / t}'
			return
		fi
	done
	local why
	why=$(grep -m1 -E '^(pipebench|yardstick):|^(SIG[A-Z]+|panic|fatal error):|valgrind: ' <<<"$out" || grep -v '^==' <<<"$out" | grep . | tail -n 1)
	echo "instructions.sh: $1 \"$2\": two runs under valgrind failed; the last said: $why" >&2
	echo failed
}

failed=0
printf '%-44s %10s %10s %10s %10s %7s\n' configuration pipebench function go inline pb/go
for cfg in "${configs[@]}"; do
	c=()
	for p in "${programs[@]}"; do
		c+=("$(count "$p" "$cfg")")
		[[ ${c[-1]} != failed ]] || failed=$((failed + 1))
	done
	ratio=-
	[[ ${c[0]} == failed || ${c[2]} == failed ]] || ratio=$(awk -v a="${c[0]}" -v b="${c[2]}" 'BEGIN {printf "%.2f", a / b}')
	printf '%-44s %10s %10s %10s %10s %7s\n' "$cfg" "${c[@]}" "$ratio"
done
((failed == 0)) || { echo "instructions.sh: $failed counts failed" >&2; exit 1; }
