#!/usr/bin/env bash
# paired.sh: two programs run at once, each confined to one of two CPUs,
# then the other way round, and the ratio of each pair's evts/sec. Both
# programs live through the same seconds, so the machine's slow phases
# (which last seconds here) tilt neither: the same program against itself
# comes out within about 1% (FIRST=yardstick). For differences of a few
# percent that compare.sh's runs one after another cannot resolve. With
# -writer self each program is one measured thread on its CPU; with a
# writer thread or process, the reader and the writer share their
# program's CPU, as in compare.sh's taskset= rows. It measures the
# programs side by side, each with a CPU of its own and the other busy: not
# the figure of either alone (compare.sh gives that).
#
#   tools/yardstick/paired.sh "-b epoll -n 1000 -l 1 -writer self"       # pipebench against the yardstick
#   FIRST=minimal tools/yardstick/paired.sh "-b uring -n 10 -l 1 -writer self"
#   FIRST=inline tools/yardstick/paired.sh "-b epoll -n 10 -l 1 -writer self"
#   FIRST=go tools/yardstick/paired.sh "-b epoll -n 1000 -l 1 -writer self"     # Go's calls into assembly, in C
#   AGAINST=HEAD~1 tools/yardstick/paired.sh "-b uring -n 1000 -l 1 -writer self"  # pipebench against its own earlier build
#   tools/yardstick/paired.sh "-b epoll -n 1000 -l 1 -writer thread"     # both threads of each program on its CPU
#   tools/yardstick/paired.sh -list "-b epoll -n 10 -l 1 -writer self"   # what it would run; measures nothing
#
# The first program (FIRST) is pipebench (the default), the yardstick
# itself (yardstick: the calibration), the minimal loop (minimal), or the
# yardstick making its system calls inline (inline) or as Go calls an
# assembly function (go); the second is always the yardstick, making its
# calls as CALLS says (function, the default, inline or go), unless AGAINST names a commit: the second is then pipebench
# built from that commit (git archive), and the first pipebench from the
# checkout, to measure a change to pipebench. pipebench's -b uring is its
# uring-nofixed-notaskrunflag, as in compare.sh. PAIRS (default 3) pairs
# of runs, each pair once with the first program on CPU A and once on CPU
# B; DUR (default 3s, whole seconds, 2s or more) each run; CPUS (default
# 0,1) the two CPUs; TICK (default 10ms, 0 for none) the yardstick's
# -tick, as compare.sh gives it (the minimal loop has no ticker). It takes
# the measurement lock as compare.sh does.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/compare-lib.sh"
DUR=${DUR:-3s}
PAIRS=${PAIRS:-3}
FIRST=${FIRST:-pipebench}
CALLS=${CALLS:-function}
CPUS=${CPUS:-0,1}
AGAINST=${AGAINST:-}
TICK=${TICK:-10ms}

usage() {
	echo "usage: paired.sh [-list] CONFIG ...   (CONFIG: \"-b epoll -n 1000 -l 1 -writer self\"; env PAIRS DUR FIRST CALLS CPUS AGAINST TICK)" >&2
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
	*) echo "paired.sh: $a: want -list or a configuration in one argument, such as \"-b epoll -n 10 -l 1 -writer self\"" >&2; usage ;;
	esac
done
((${#configs[@]} > 0)) || usage
[[ $PAIRS =~ ^[1-9][0-9]*$ ]] || { echo "paired.sh: PAIRS=$PAIRS: want a positive integer" >&2; exit 2; }
dur=$(dur_secs "$DUR") && awk -v d="$dur" 'BEGIN {exit !(d >= 2 && d == int(d))}' ||
	{ echo "paired.sh: DUR=$DUR: want whole seconds, 2s or more (pipebench's 1 s intervals, the first a warm-up)" >&2; exit 2; }
case $FIRST in
pipebench | yardstick | minimal | inline | go) ;;
*) echo "paired.sh: FIRST=$FIRST: want pipebench, yardstick, minimal, inline or go" >&2; exit 2 ;;
esac
[[ $CALLS == function || $CALLS == inline || $CALLS == go ]] || { echo "paired.sh: CALLS=$CALLS: want function, inline or go" >&2; exit 2; }
check_tick paired.sh
second=yardstick
if [[ -n $AGAINST ]]; then
	[[ $FIRST == pipebench ]] || { echo "paired.sh: AGAINST=$AGAINST: the first program must be pipebench (FIRST=$FIRST)" >&2; exit 2; }
	against=$(git -C "$here/../.." rev-parse --verify --quiet "$AGAINST^{commit}") ||
		{ echo "paired.sh: AGAINST=$AGAINST: want a commit of this repository, such as HEAD~1" >&2; exit 2; }
	second="pipebench@$(git -C "$here/../.." rev-parse --short "$against")"
fi
w2=$((${#second} > 12 ? ${#second} : 12)) # the second program's column
[[ $CPUS =~ ^([0-9]+),([0-9]+)$ && ${BASH_REMATCH[1]} != "${BASH_REMATCH[2]}" ]] ||
	{ echo "paired.sh: CPUS=$CPUS: want two different CPUs, such as 0,1" >&2; exit 2; }
cpu_a=${BASH_REMATCH[1]} cpu_b=${BASH_REMATCH[2]}
for c in $cpu_a $cpu_b; do
	taskset -c "$c" true 2>/dev/null || { echo "paired.sh: CPUS=$CPUS: this process may not run on CPU $c (nproc $(nproc))" >&2; exit 2; }
done
for cfg in "${configs[@]}"; do
	[[ $cfg != taskset=* ]] ||
		{ echo "paired.sh: \"$cfg\": paired.sh confines each program to one CPU itself (CPUS); leave out taskset=" >&2; exit 2; }
	[[ " $cfg " =~ \ -writer\ (self|thread|process)\  ]] ||
		{ echo "paired.sh: \"$cfg\": want -writer self, thread or process" >&2; exit 2; }
	[[ ${BASH_REMATCH[1]} == self || $FIRST != minimal ]] ||
		{ echo "paired.sh: \"$cfg\": the minimal loop (FIRST=minimal) has -writer self only" >&2; exit 2; }
	[[ " $cfg " != *" -d "* ]] || { echo "paired.sh: \"$cfg\": the duration is DUR's" >&2; exit 2; }
done

# argv_of prints the command of program $1 (pipebench, yardstick, minimal,
# inline, or pipebench@COMMIT: AGAINST's build) for configuration $2, one
# word a line.
argv_of() {
	local a=$2
	case $1 in
	pipebench | pipebench@*)
		local bin=pipebench
		[[ $1 == pipebench ]] || bin=pipebench-against
		a=$(pipebench_args "$a")
		printf '%s\n' "\$tmp/$bin" $a -d "$DUR" ;;
	yardstick) printf '%s\n' "\$tmp/yardstick" $a -d "$DUR" -calls "$CALLS" ;;
	minimal) printf '%s\n' "\$tmp/yardstick-minimal" $a -d "$DUR" -calls "$CALLS" ;;
	inline | go) printf '%s\n' "\$tmp/yardstick" $a -d "$DUR" -calls "$1" ;;
	esac
	[[ $1 != yardstick && $1 != inline && $1 != go || $TICK == 0 ]] || printf '%s\n' -tick "$TICK"
}

if ((list)); then
	for cfg in "${configs[@]}"; do
		echo "$(argv_of "$FIRST" "$cfg" | paste -sd' ')  against  $(argv_of "$second" "$cfg" | paste -sd' ')"
	done
	n=$((${#configs[@]} * PAIRS * 2))
	echo "$n runs of each program, ${dur}s each, the two at once on CPUs $cpu_a and $cpu_b: about $(((n * (dur + 2) + 30) / 60)) min"
	exit 0
fi

take_lock "$here/paired.sh" "${orig[@]}"
cd "$here/../.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
build_all "$tmp"
extra=
if [[ -n $AGAINST ]]; then
	mkdir "$tmp/against"
	git archive "$against" | tar -x -C "$tmp/against"
	(cd "$tmp/against" && go build -o "$tmp/pipebench-against" ./cmd/pipebench)
	extra=" AGAINST=${second#pipebench@}"
fi
header "PAIRS=$PAIRS DUR=$DUR FIRST=$FIRST C calls $CALLS, tick $TICK CPUS=$CPUS$extra"

# one runs program $1 on configuration $2 confined to CPU $3 and prints its
# summary's median evts/sec, or "failed".
one() {
	local argv=()
	mapfile -t argv < <(argv_of "$1" "$2")
	argv[0]=${argv[0]/\$tmp/$tmp}
	local out
	if ! out=$(taskset -c "$3" "${argv[@]}" 2>"$tmp/err.$3"); then
		echo "paired.sh: $1 $2: $(tail -n 1 "$tmp/err.$3")" >&2
		echo failed
		return
	fi
	awk '$1 == "evts/sec" && $2 == "median" {print $3}' <<<"$out"
}

summary=()
failed=0
for cfg in "${configs[@]}"; do
	echo "# $cfg: $FIRST against ${second/#yardstick/the yardstick}"
	printf "%-5s %-9s %12s %${w2}s %7s\\n" pair "CPUs" "$FIRST" "$second" ratio
	ratios=()
	for ((p = 1; p <= PAIRS; p++)); do
		for way in 0 1; do
			ca=$cpu_a cb=$cpu_b
			((way == 0)) || { ca=$cpu_b cb=$cpu_a; }
			quiet || true
			one "$FIRST" "$cfg" "$ca" >"$tmp/a" &
			pa=$!
			one "$second" "$cfg" "$cb" >"$tmp/b" &
			pb=$!
			wait "$pa" "$pb"
			a=$(<"$tmp/a") b=$(<"$tmp/b")
			if [[ $a == failed || $b == failed || -z $a || -z $b ]]; then
				failed=$((failed + 1))
				printf "%-5s %-9s %12s %${w2}s %7s\\n" "$p" "$ca,$cb" "${a:--}" "${b:--}" failed
				continue
			fi
			r=$(awk -v a="$a" -v b="$b" 'BEGIN {printf "%.3f", a / b}')
			ratios+=("$r")
			printf "%-5s %-9s %12s %${w2}s %7s\\n" "$p" "$ca,$cb" "$a" "$b" "$r"
		done
	done
	if ((${#ratios[@]} > 0)); then
		summary+=("$(printf '%-52s %7s %7s %7s %5d' "$cfg" "$(median_of "${ratios[@]}")" \
			"$(printf '%s\n' "${ratios[@]}" | sort -g | head -n 1)" "$(printf '%s\n' "${ratios[@]}" | sort -g | tail -n 1)" ${#ratios[@]})")
	fi
done
echo "# $FIRST / $second, per configuration: the median ratio of the pairs, the least and the most"
printf '%-52s %7s %7s %7s %5s\n' configuration median least most pairs
printf '%s\n' "${summary[@]}"
((failed == 0)) || { echo "paired.sh: $failed pairs failed" >&2; exit 1; }
