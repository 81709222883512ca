#!/usr/bin/env bash
# compare.sh: pipebench against the C yardstick, same arguments, run
# alternately, and the ratio pipebench/C of their median evts/sec.
#
#   tools/yardstick/compare.sh                       # the default table (-list shows it)
#   tools/yardstick/compare.sh -b epoll -n 10,1000   # the rows of the default table that match
#   tools/yardstick/compare.sh "-b epoll -n 10 -l 1 -writer self" "taskset=0 -b poll -n 1000 -l 0 -writer thread"
#   tools/yardstick/compare.sh -list [filters]       # the rows and the expected duration; measures nothing
#   tools/yardstick/compare.sh herd|timeout [...]    # the experiments: see compare-experiments.sh
#   tools/yardstick/compare.sh -summary TABLE ...    # judge tables it printed again, by kind of row
#   tools/yardstick/compare.sh -history TABLE ...    # the same, one line a table, and the whole-table test
#
# Filters, each a comma-separated list matched exactly against a row's
# flags: -b, -writer, -n, -l; -taskset yes|no keeps the rows confined to one
# CPU, or the others. A configuration is one argument: the flags both
# programs get; a leading word taskset=CPUS runs both under taskset -c CPUS.
# Give -writer explicitly: pipebench's default is auto, the yardstick's is
# thread.
#
# The default table: epoll and poll x writer self, thread, process x -n 10,
# 1000, 9996 x -l 1, 10, 0 (0, unbounded, with a thread or process writer
# only); select, epoll-et and uring the same at -n 10 and 1000; then the
# epoll and poll thread and process rows at -n 10 and 1000 again with both
# programs confined to CPU 0 (taskset=0). Before measuring, each distinct
# configuration is tried once for 100 ms by both programs: a row that one of
# them refuses (it does not fit the descriptor limit, or the kernel lacks
# io_uring) is left out, with that program's one line.
#
# Each configuration runs REPS times (default 3) per program for DUR
# (default 3s; whole seconds, 2s or more) each, the two programs taking
# turns (which goes first alternates too). Each run's figure is its own summary median over the
# intervals after the 1 s warm-up; the table shows the median of those,
# their ratio, and "slower": the share of the pairs (a pipebench run, a C
# run) in which pipebench's was slower (1.00: every pipebench run was slower
# than every C run; about 0.5: neither tends to be). The last line counts
# the rows below 0.95 and, of those, the ones clearly slower: a share that
# two equally fast programs reach in fewer than 5% of rows (Mann-Whitney's U
# in its normal approximation: 1.00 with three runs each, 0.73 with nine).
# With a hundred rows, about five of those can still be chance. A last
# line judges the whole table: the median of the rows' ratios, and the rows
# clearly slower and clearly faster against what chance gives two equally
# fast programs (about 5% of rows each way; more than the binomial's 99th
# percentile in under 1% of tables): noise puts rows below 0.95, a program
# slower across the table has clearly slower rows far beyond that.
# Below it, the same judgement for each kind of row (row_kind in
# compare-lib.sh: -writer self; a writer thread or process at -l 1 or more,
# and at -l 0; the rows confined to one CPU), whose speeds different
# things set. -summary reads tables compare.sh printed (kept files) and
# prints each one's first line and those judgements again, from its rows;
# -history prints them one line a table, with the whole-table test: a
# median ratio within 0.99..1.01 and neither count above chance's bound.
# TASKSET=CPUS confines every row that does not name its own CPUs.
# The C programs make each system call through a function that returns to
# the loop, as a Go program must (CALLS=function, the default: the C
# programs' -calls); CALLS=inline puts the syscall instruction in their
# loops' own code, which no Go program can do; CALLS=go makes each as Go
# code calls an assembly function, arguments and result on the stack
# (README.md, "-calls"). The header says which.
# AA=1 runs the C yardstick against itself: the first column is the same C
# program taking pipebench's turns. AA=inline has the first column make its
# system calls inline, against the yardstick making them through a
# function: what the inline form saves.
# The yardstick runs with a thread in each of its processes that wakes
# every TICK (default 10ms, 0 for none: its -tick), as the Go runtime's
# sysmon does in pipebench's: on a machine whose idle CPUs halt, that
# thread changes where the scheduler puts a writer thread or process and
# the reader, and pipebench's runs have it (README.md, "Output"). MIN runs
# no ticker (the minimal loop has none). The header says how the C programs
# ran. AA=1's table is how far apart two equally fast programs come out on
# this machine, row by row: the calibration of the 0.95 line and of the
# slower column (README.md, "compare.sh").
# MIN=1 runs the minimal loop (c/minimal.c) against the yardstick, on the
# -writer self rows only: the first column is the plainest C program making
# the same calls, with one idle thread so that its kernel path is the
# yardstick's and any Go program's; the yardstick's own cost is what it
# loses there (README.md, "The minimal loop"). MIN=alone runs the minimal
# loop with no other thread: what a process of one thread saves in the
# kernel, which no Go program can.
# It takes /tmp/pipebench-measure.lock itself, so that no other measurement
# overlaps: do not wrap it in flock too. (flock -o keeps the lock's
# descriptor out of the programs: at -n 9996 their descriptor budget is
# exact.) Before each run it waits up to QUIET (default 30) seconds for a
# second in which the machine is 90% idle, since builds and tests do not
# take the lock; runs that found no such second are marked with a * and
# counted at the end.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# The herd and timeout experiments have their own comparison.
case ${1:-} in
herd | timeout) exec "$here/compare-experiments.sh" "$@" ;;
esac
source "$here/compare-lib.sh"

# summarize prints the first line of table $1, which compare.sh printed,
# and judges its rows again: the whole table, then each kind of row. A
# row's ratio and slower share are the columns as printed (three and two
# decimals), so a median of an even count of rows can differ in its third
# decimal from the line the run printed; the runs after the "|" say how
# many each program made.
summarize() {
	local rows reps cfg ratio clear label verb=${verb:--summary}
	[[ -f $1 && -r $1 ]] || { echo "compare.sh: $verb $1: no such readable file" >&2; exit 2; }
	rows=$(awk '
		/^#/ || $1 == "configuration" || !/\|/ { next }
		{
			split($0, half, "|"); n = split(half[1], l, " "); r = split(half[2], c, " ")
			if (r < 1 || n < r + 5 || l[n - r - 1] == "failed") next
			cfg = l[1]; for (i = 2; i <= n - r - 4; i++) cfg = cfg " " l[i]
			printf "%d\t%s\t%s %s\n", r, cfg, l[n - r - 1], l[n - r]
		}' "$1")
	[[ -n $rows ]] || { echo "compare.sh: $verb $1: no rows of compare.sh's table in it" >&2; exit 2; }
	reps=$(cut -f1 <<<"$rows" | sort -u)
	[[ $reps =~ ^[0-9]+$ ]] || { echo "compare.sh: $verb $1: rows with different numbers of runs ($(tr '\n' ' ' <<<"$reps")): want one table's rows" >&2; exit 2; }
	head -n 1 "$1"
	clear=$(clear_share "$reps") label=$(summary_label "$1")
	cut -f3 <<<"$rows" | table_summary "$clear" "$label"
	while IFS=$'\t' read -r _ cfg ratio; do
		printf '%s\t%s\n' "$(row_kind $cfg)" "$ratio"
	done <<<"$rows" | kind_summaries "$clear" "$label" "${2:-}"
}

# history prints one line for each table in $@, from summarize's
# judgements (every kind, even when a table holds one): when it began, the
# CPU, the commit, the first column and how the C programs ran; the whole
# table's median ratio, its rows clearly slower and clearly faster and, in
# brackets, the most that two equally fast programs give in 99% of tables;
# whether it passes the whole-table test (a median within 0.99..1.01, and
# neither count above the bound) or what fails it; then each kind of row
# the same way ("-" where the table has none of that kind); the tables in
# the order they began, whatever the order of $@. A table whose
# first line names no C calls is from before CALLS, when the C programs
# made their calls inline.
history() {
	local f out lines=()
	for f in "$@"; do
		out=$(verb=-history summary_fields=1 summarize "$f" all) || exit
		if [[ $(sed -n 2p <<<"$out" | cut -f4) == - ]]; then
			echo "compare.sh: -history $f: fewer than 3 runs a row: no row can be clearly slower or faster (REPS=3 or more)" >&2
			exit 2
		fi
		lines+=("$(history_line "$(summary_label "$f")" <<<"$out")")
	done
	# shellcheck disable=SC2059 # the format is history_fmt, the columns' one definition
	printf "$history_fmt" "table (UTC)" "CPU" "commit" "first column" "C calls, tick" "whole table" "test" \
		"self" "thr/proc -l 1+" "thr/proc -l 0" "one CPU"
	printf '%s\n' "${lines[@]}" | sort -s -k1,2
}

# history_fmt is the format of history's header and lines: their columns.
history_fmt='%-17s %-16s %-18s %-13s %-15s %-17s %-27s %-16s %-16s %-16s %s\n'

# history_line prints summarize's judgements of one table (on stdin: its
# first line, then table_summary's fields, summary_fields) as a line of
# history's; $1 names its first column (summary_label).
history_line() {
	awk -F'\t' -v fmt="$history_fmt" -v label="$1" '
		function cell(k) { return (k in med) ? sprintf("%s %d/%d [%d]", med[k], slow[k], fast[k], bound[k]) : "-" }
		NR == 1 {
			split($0, h, " "); when = h[2] " " h[3]
			cpu = $0; sub(/^.*  Linux [^ ]+  /, "", cpu); sub(/  nproc .*/, "", cpu)
			gsub(/\(R\)| Processor/, "", cpu)
			# "AMD EPYC (family 26 model 2)" (header) as "AMD EPYC 26/2"
			if (match(cpu, / \(family [0-9]+ model [0-9]+\)$/)) {
				sig = substr(cpu, RSTART + 9, RLENGTH - 10); sub(/ model /, "/", sig)
				cpu = substr(cpu, 1, RSTART - 1) " " sig
			}
			commit = $0; sub(/^.*  commit /, "", commit)
			calls = match($0, /C calls [a-z]+/) ? substr($0, RSTART + 8, RLENGTH - 8) : "inline"
			tick = match($0, /, tick [^ ]+/) ? substr($0, RSTART + 7, RLENGTH - 7) : "-"
			next
		}
		{ med[$1] = $3; slow[$1] = $4; fast[$1] = $5; bound[$1] = $6 }
		END {
			w = "whole table"; why = ""
			if (med[w] + 0 < 0.99 || med[w] + 0 > 1.01) why = "median"
			if (slow[w] > bound[w]) why = why (why == "" ? "" : ",") "slower"
			if (fast[w] > bound[w]) why = why (why == "" ? "" : ",") "faster"
			printf fmt, when, cpu, commit, label,
				calls ", " tick, cell(w), (why == "" ? "passes" : "fails: " why), cell("-writer self"),
				cell("-writer thread or process, -l 1 or more"), cell("-writer thread or process, -l 0"), cell("one CPU (taskset)")
		}'
}

# summary_label names the first column of table $1 as its header line
# does: pipebench, C again, C inline or minimal.
summary_label() {
	awk '$1 == "configuration" { print ($2 == "C" && ($3 == "again" || $3 == "inline")) ? $2 " " $3 : $2; exit }' "$1"
}

if [[ ${1:-} == -summary ]]; then
	shift
	(($# > 0)) || { echo "usage: compare.sh -summary TABLE ...   (TABLE: a file compare.sh printed)" >&2; exit 2; }
	for f in "$@"; do summarize "$f"; done
	exit 0
fi
if [[ ${1:-} == -history ]]; then
	shift
	(($# > 0)) || { echo "usage: compare.sh -history TABLE ...   (TABLE: a file compare.sh printed)" >&2; exit 2; }
	history "$@"
	exit 0
fi

DUR=${DUR:-3s}
REPS=${REPS:-3}
TASKSET=${TASKSET:-}
AA=${AA:-0}
MIN=${MIN:-0}
CALLS=${CALLS:-function}
TICK=${TICK:-10ms}

usage() {
	echo "usage: compare.sh [-list] [-b LIST] [-writer LIST] [-n LIST] [-l LIST] [-taskset yes|no] [CONFIG ...]" >&2
	echo "       CONFIG: \"[taskset=CPUS] -b epoll -n 1000 -l 1 -writer thread\"; env REPS DUR QUIET TASKSET AA MIN CALLS TICK" >&2
	exit 2
}

orig=("$@")
list=0
configs=()
declare -A want=()
while (($# > 0)); do
	case $1 in
	-list) list=1 ;;
	-b | -writer | -n | -l | -taskset)
		(($# >= 2)) || usage
		want[$1]=$2
		shift
		;;
	-h | -help | --help) usage ;;
	-*)
		[[ $1 == *" "* ]] || { echo "compare.sh: unknown filter $1" >&2; usage; }
		configs+=("$1")
		;;
	*) configs+=("$1") ;;
	esac
	shift
done
if [[ -n ${want[-taskset]:-} && ${want[-taskset]} != yes && ${want[-taskset]} != no ]]; then
	echo "compare.sh: -taskset ${want[-taskset]}: want yes or no" >&2
	exit 2
fi
[[ $AA == 0 || $AA == 1 || $AA == inline ]] || { echo "compare.sh: AA=$AA: want 0, 1 or inline" >&2; exit 2; }
[[ $MIN == 0 || $MIN == 1 || $MIN == alone ]] || { echo "compare.sh: MIN=$MIN: want 0, 1 or alone" >&2; exit 2; }
[[ $AA == 0 || $MIN == 0 ]] || { echo "compare.sh: AA=$AA and MIN=$MIN: want one of them" >&2; exit 2; }
[[ $CALLS == function || $CALLS == inline || $CALLS == go ]] || { echo "compare.sh: CALLS=$CALLS: want function, inline or go" >&2; exit 2; }
check_tick compare.sh
[[ $MIN == 0 ]] || TICK=0
[[ $REPS =~ ^[1-9][0-9]*$ ]] || { echo "compare.sh: REPS=$REPS: want a positive integer" >&2; exit 2; }

# pipebench measures whole 1 s intervals and leaves the first out of its
# summary: a run needs two at least.
dur=$(dur_secs "$DUR") && awk -v d="$dur" 'BEGIN {exit !(d >= 2 && d == int(d))}' ||
	{ echo "compare.sh: DUR=$DUR: want whole seconds, 2s or more (pipebench's 1 s intervals, the first a warm-up)" >&2; exit 2; }

if ((${#configs[@]} == 0)); then
	for b in epoll poll select epoll-et uring; do
		case $b in epoll | poll) ns="10 1000 9996" ;; *) ns="10 1000" ;; esac
		for w in self thread process; do
			for n in $ns; do
				for l in 1 10 0; do
					[[ $w == self && $l == 0 ]] || configs+=("-b $b -n $n -l $l -writer $w")
				done
			done
		done
	done
	for b in epoll poll; do
		for w in thread process; do
			for n in 10 1000; do
				for l in 1 10 0; do
					configs+=("taskset=0 -b $b -n $n -l $l -writer $w")
				done
			done
		done
	done
fi

# split sets cpus and args from a configuration.
split() {
	cpus=$TASKSET args=$1
	if [[ $1 =~ ^taskset=([^ ]+)( +(.*))?$ ]]; then
		cpus=${BASH_REMATCH[1]} args=${BASH_REMATCH[3]}
	fi
}

# flag prints the value of flag $2 in args $1, or nothing.
flag() {
	local a=($1) i
	for ((i = 0; i < ${#a[@]}; i++)); do
		[[ ${a[i]} == "$2" ]] && { echo "${a[i + 1]:-}"; return; }
		[[ ${a[i]} == "$2="* ]] && { echo "${a[i]#*=}"; return; }
	done
}

# matches says whether a configuration passes the filters.
matches() {
	split "$1"
	local f v
	for f in -b -writer -n -l; do
		[[ -n ${want[$f]:-} ]] || continue
		v=$(flag "$args" "$f")
		[[ ,${want[$f]}, == *",$v,"* ]] || return 1
	done
	case ${want[-taskset]:-} in
	yes) [[ -n $cpus ]] ;;
	no) [[ -z $cpus ]] ;;
	esac
}

rows=()
for cfg in "${configs[@]}"; do
	if matches "$cfg"; then rows+=("$cfg"); fi
done
if ((${#rows[@]} == 0)); then
	echo "compare.sh: no configuration matches the filters" >&2
	exit 2
fi
# The minimal loop writes its own tokens: MIN keeps the -writer self rows.
if [[ $MIN != 0 ]]; then
	self=()
	for cfg in "${rows[@]}"; do
		split "$cfg"
		[[ $(flag "$args" -writer) != self ]] || self+=("$cfg")
	done
	((${#self[@]} > 0)) || { echo "compare.sh: MIN=$MIN: want -writer self rows (the minimal loop writes its own tokens), no row has it" >&2; exit 2; }
	rows=("${self[@]}")
fi

# estimate prints the expected duration of n rows: per run DUR, about a
# second for the idle check and a third for start-up and setup.
estimate() {
	awk -v n="$1" -v r="$REPS" -v d="$dur" -v q="$QUIET" 'BEGIN {
		s = n * r * 2 * (d + 1.3); m = int(s / 60 + 0.5)
		printf "%d rows x %d runs x 2 programs x %gs: expected about %s on an idle machine (up to %ds more a run on a busy one)\n", n, r, d, (s < 90) ? int(s + 0.5) "s" : m " min", q
	}'
}

if ((list)); then
	printf '%s\n' "${rows[@]}"
	estimate ${#rows[@]}
	exit 0
fi

take_lock "$here/compare.sh" "${orig[@]}"
cd "$here/../.."

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
build_all "$tmp"

# first is the program in pipebench's column: the yardstick itself with AA=1,
# the minimal loop with MIN (first_flags: its thread, or none).
first=pipebench label=pipebench first_flags=() what=""
if [[ $AA == 1 ]]; then
	first=yardstick label="C again" what=" AA=1 (the yardstick against itself)"
elif [[ $AA == inline ]]; then
	first=yardstick label="C inline" first_flags=(-calls inline) what=" AA=inline (the yardstick making its system calls inline, against itself)"
elif [[ $MIN == 1 ]]; then
	first=yardstick-minimal label=minimal what=" MIN=1 (the minimal loop, one idle thread, against the yardstick)"
elif [[ $MIN == alone ]]; then
	first=yardstick-minimal label=minimal first_flags=(-idle-threads 0) what=" MIN=alone (the minimal loop, its only thread, against the yardstick)"
fi
# The header says where the table was measured.
header "REPS=$REPS DUR=$DUR C calls $CALLS, tick $TICK$what"
echo "# $(estimate ${#rows[@]})"

# Each distinct configuration once, briefly, by both programs: leave out
# what either refuses.
declare -A tried=()
kept=()
for cfg in "${rows[@]}"; do
	split "$cfg"
	if [[ -z ${tried[k$args]+x} ]]; then
		tried[k$args]=""
		for prog in $first yardstick; do
			if ! "$tmp/$prog" $args -d 100ms -i 100ms -warmup 0 >/dev/null 2>"$tmp/err"; then
				tried[k$args]=$(tail -n 1 "$tmp/err")
				[[ -n ${tried[k$args]} ]] || tried[k$args]="$prog failed"
				break
			fi
		done
	fi
	if [[ -n ${tried[k$args]} ]]; then
		echo "# left out: $cfg: ${tried[k$args]}"
	else
		kept+=("$cfg")
	fi
done
((${#kept[@]} > 0)) || { echo "compare.sh: every row was left out" >&2; exit 1; }
((${#kept[@]} == ${#rows[@]})) || echo "# $(estimate ${#kept[@]})"

# one runs a program on the configuration split into cpus and args and
# prints the median evts/sec of its summary, with a * when the machine was
# busy before it started, or "failed" (its last line goes to stderr). A
# second argument "first" says it runs in the first column (first_flags).
one() {
	local out mark="" pre=() extra=()
	[[ -z $cpus ]] || pre=(taskset -c "$cpus")
	# The C programs make their calls as CALLS says; a first column's
	# own flags come after, and win.
	[[ $1 == pipebench ]] || extra=(-calls "$CALLS")
	[[ $1 != yardstick || $TICK == 0 ]] || extra+=(-tick "$TICK")
	[[ ${2:-} != first ]] || extra+=("${first_flags[@]}")
	quiet || mark="*"
	local a=$args
	# pipebench's uring backends that make the yardstick's calls.
	[[ $1 != pipebench ]] || a=$(pipebench_args "$args")
	if ! out=$("${pre[@]}" "$tmp/$1" $a "${extra[@]}" -d "$DUR" 2>"$tmp/err"); then
		echo "compare.sh: $1 $args: $(tail -n 1 "$tmp/err")" >&2
		echo failed
		return
	fi
	awk -v m="$mark" '$1 == "evts/sec" && $2 == "median" {print $3 m}' <<<"$out"
}

noisy=0 failed=0 below=0 clearly=0 judged=()
# clear is the share of slower pairs two equally fast programs reach in 5%
# of rows (clear_share).
clear=$(clear_share "$REPS")
t_start=$SECONDS
printf '%-52s %10s %10s %7s %7s   %s\n' configuration "$label" C ratio slower "runs ($label | C)"
for cfg in "${kept[@]}"; do
	split "$cfg"
	pb=() c=()
	for ((r = 0; r < REPS; r++)); do
		if ((r % 2 == 0)); then
			pb+=("$(one $first first)") c+=("$(one yardstick)")
		else
			c+=("$(one yardstick)") pb+=("$(one $first first)")
		fi
	done
	if [[ " ${pb[*]} ${c[*]} " == *" failed "* ]]; then
		failed=$((failed + 1))
		printf '%-52s %10s %10s %7s %7s   %s | %s\n' "$cfg" - - failed - "${pb[*]}" "${c[*]}"
		continue
	fi
	for v in "${pb[@]}" "${c[@]}"; do [[ $v != *\* ]] || noisy=$((noisy + 1)); done
	mp=$(median_of "${pb[@]%\*}") mc=$(median_of "${c[@]%\*}")
	ratio=$(awk -v a="$mp" -v b="$mc" 'BEGIN {print (b > 0) ? a / b : 0}')
	slower=$(slower_share "${pb[@]%\*}" -- "${c[@]%\*}")
	if awk -v x="$ratio" 'BEGIN {exit !(x < 0.95)}'; then
		below=$((below + 1))
		awk -v x="$slower" -v t="$clear" 'BEGIN {exit !(x >= t)}' && clearly=$((clearly + 1))
	fi
	judged+=("$(row_kind "$cfg")	$ratio $slower")
	printf '%-52s %10.0f %10.0f %7.3f %7.2f   %s | %s\n' "$cfg" "$mp" "$mc" "$ratio" "$slower" "${pb[*]}" "${c[*]}"
done
echo "# ${#kept[@]} rows in $(took $t_start); $below with $label below 0.95 of C, $clearly of them clearly slower (slower $(printf '%.2f' "$clear") or more)"
if ((${#judged[@]} > 0)); then
	printf '%s\n' "${judged[@]}" | cut -f2 | table_summary "$clear" "$label"
	printf '%s\n' "${judged[@]}" | kind_summaries "$clear" "$label"
fi
closing
