package seeds

import (
	"encoding/csv"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// table reads a testdata/ CSV file: comment lines (#) left out, the
// header's columns by name.
func table(t *testing.T, file string) (map[string]int, [][]string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "testdata", file))
	if err != nil {
		t.Fatal(err)
	}
	var keep []string
	for _, l := range strings.Split(string(b), "\n") {
		if !strings.HasPrefix(l, "#") {
			keep = append(keep, l)
		}
	}
	recs, err := csv.NewReader(strings.NewReader(strings.Join(keep, "\n"))).ReadAll()
	if err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	cols := map[string]int{}
	for i, h := range recs[0] {
		cols[h] = i
	}
	return cols, recs[1:]
}

func number(t *testing.T, s string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// cell is the value in column col of the row whose column key is value.
func cell(t *testing.T, file, key, value, col string) float64 {
	t.Helper()
	cols, rows := table(t, file)
	for _, r := range rows {
		if r[cols[key]] == value {
			return number(t, r[cols[col]])
		}
	}
	t.Fatalf("%s: no row with %s %s", file, key, value)
	return 0
}

func checkFigure(t *testing.T, f Figure, file string, want float64) {
	t.Helper()
	if f.File != file || f.Value != want {
		t.Errorf("figure %v from %s (%s): testdata/%s holds %v", f.Value, f.File, f.Where, file, want)
	}
}

// TestFiguresMatchTestdata: every seed figure compiled in is the one its
// testdata/ file holds (the medians recomputed from the per-second lines).
func TestFiguresMatchTestdata(t *testing.T) {
	const epb = "epoll_pipe_bench-2006.csv"
	checkFigure(t, epb1000l1, epb, cell(t, epb, "pipes", "1000", "epoll -l 1"))
	checkFigure(t, epb1000l10, epb, cell(t, epb, "pipes", "1000", "epoll -l 10"))
	checkFigure(t, epb10000l1, epb, cell(t, epb, "pipes", "10000", "epoll -l 1"))
	checkFigure(t, epb10000l10, epb, cell(t, epb, "pipes", "10000", "epoll -l 10"))
	checkFigure(t, epbBypass, epb, cell(t, epb, "pipes", "10000", "bypass -f"))
	// The medians, from every published line.
	cols, lines := table(t, "epoll_pipe_bench-2006-lines.csv")
	per := map[string][]float64{}
	for _, r := range lines {
		k := r[cols["backend"]] + "/" + r[cols["pipes"]] + "/" + r[cols["in_flight"]]
		per[k] = append(per[k], number(t, r[cols["evts_per_sec"]]))
	}
	for k, f := range map[string]Figure{"epoll/1000/1": epb1000l1, "epoll/1000/10": epb1000l10, "epoll/10000/1": epb10000l1,
		"epoll/10000/10": epb10000l10, "bypass/10000/": epbBypass} {
		v := per[k]
		sort.Float64s(v)
		med := v[len(v)/2]
		if len(v)%2 == 0 {
			med = (v[len(v)/2-1] + v[len(v)/2]) / 2
		}
		if med != f.Value {
			t.Errorf("%s: median of the published lines %v, figure %v", k, med, f.Value)
		}
	}
	const op = "epoll_pipe_bench-2006-oprofile.csv"
	cols, rows := table(t, op)
	shares := map[string]float64{}
	for _, r := range rows {
		if r[cols["symbol"]] == "pipe_poll" {
			shares[r[cols["run"]]] = number(t, r[cols["percent"]])
		}
	}
	checkFigure(t, pipePoll1000, op, shares["n1000-l10"])
	checkFigure(t, pipePoll10000, op, shares["n10000-l10"])

	const pt = "pipetest-2002.csv"
	if !slices.Equal(pipetestPipes, []int{10, 100, 1000, 5000, 10000}) {
		t.Errorf("pipetest pipes %v", pipetestPipes)
	}
	for _, n := range pipetestPipes {
		checkFigure(t, pipetestEpoll[n], pt, cell(t, pt, "pipes", strconv.Itoa(n), "sys_epoll 0.14"))
		checkFigure(t, pipetestPoll[n], pt, cell(t, pt, "pipes", strconv.Itoa(n), "poll()"))
	}

	const hd = "herd-2015.csv"
	checkFigure(t, herdRealOff, hd, cell(t, hd, "exclusive", "off", "real_s"))
	checkFigure(t, herdRealOn, hd, cell(t, hd, "exclusive", "on", "real_s"))
	checkFigure(t, herdSysOff, hd, cell(t, hd, "exclusive", "off", "sys_s"))
	checkFigure(t, herdSysOn, hd, cell(t, hd, "exclusive", "on", "sys_s"))

	const mw = "minwait-2022.csv"
	mid := func(variant, low, high string) float64 {
		return (cell(t, mw, "variant", variant, low) + cell(t, mw, "variant", variant, high)) / 2
	}
	checkFigure(t, minwaitSleepInvol, mw, mid("sleep 200us", "involuntary_cs_per_sec_low", "involuntary_cs_per_sec_high"))
	checkFigure(t, minwaitKernInvol, mw, mid("min-wait 200us", "involuntary_cs_per_sec_low", "involuntary_cs_per_sec_high"))
	checkFigure(t, minwaitSleepIdle, mw, mid("sleep 200us", "idle_percent_low", "idle_percent_high"))
	checkFigure(t, minwaitKernIdle, mw, mid("min-wait 200us", "idle_percent_low", "idle_percent_high"))

	const qm = "epoll_pwait1-2015.csv"
	for i, setup := range []string{"t1", "t2", "t3"} {
		fds := qemuFDs[i]
		if lo, hi := cell(t, qm, "setup", setup, "fds_low"), cell(t, qm, "setup", setup, "fds_high"); float64(fds) != (lo+hi)/2 {
			t.Errorf("%s: %d descriptors, the middle of %v..%v is %v", setup, fds, lo, hi, (lo+hi)/2)
		}
		checkFigure(t, qemuPpoll[fds], qm, cell(t, qm, "setup", setup, "ppoll_us"))
		checkFigure(t, qemuEpoll[fds], qm, cell(t, qm, "setup", setup, "epoll_pwait1_us"))
	}
}
