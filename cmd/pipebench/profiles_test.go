package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	pprofile "github.com/google/pprof/profile"

	"github.com/pipebench/pipebench/internal/golden"
	"github.com/pipebench/pipebench/internal/profile"
)

const profiledRun = "-n 50 -l 4 -d 400ms -i 100ms"

// readProfile parses a profile file the command wrote.
func readProfile(t *testing.T, path string) *pprofile.Profile {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	p, err := pprofile.Parse(f)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.CheckValid(); err != nil {
		t.Fatal(err)
	}
	return p
}

// tableOf is the part of the output from the line after the profile's
// title to the blank line that ends its table.
func tableOf(t *testing.T, out, title string) string {
	t.Helper()
	i := strings.Index(out, title)
	if i < 0 {
		t.Fatalf("no %q in the output:\n%s", title, out)
	}
	rest := out[i:]
	rest = rest[strings.Index(rest, "\n")+1:]
	if j := strings.Index(rest, "\n\n"); j >= 0 {
		rest = rest[:j+1]
	}
	return rest
}

func TestCPUProfile(t *testing.T) {
	t.Chdir(t.TempDir())
	code, stdout, stderr := invoke(t, strings.Fields(profiledRun+" -writer thread -cpuprofile c.pb.gz")...)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	p := readProfile(t, "c.pb.gz")
	roles := map[string]bool{}
	for _, s := range p.Sample {
		if r := s.Label["role"]; len(r) > 0 {
			roles[r[0]] = true
			if !s.HasLabel("backend", "epoll") || !s.HasLabel("pipes", "50") || !s.HasLabel("writer", "thread") || !s.HasLabel("inflight", "4") {
				t.Errorf("sample labelled %v: want backend epoll, pipes 50, writer thread, inflight 4", s.Label)
			}
		}
	}
	if !roles["reader"] || !roles["writer"] {
		t.Errorf("roles seen %v: want reader and writer", roles)
	}
	table := tableOf(t, stdout, "--- Go CPU profile (this process, cpu every 10ms): c.pb.gz")
	if !strings.Contains(table, "samples  %        symbol name\n") {
		t.Errorf("no table header in\n%s", table)
	}
	checkTopAgrees(t, "c.pb.gz", table)
}

// TestKernelProfile runs a short real -kprofile run, when perf can record.
func TestKernelProfile(t *testing.T) {
	if err := profile.Check(); err != nil {
		t.Skipf("perf cannot record here, so -kprofile is untested end to end: %v", err)
	}
	t.Chdir(t.TempDir())
	code, stdout, stderr := invoke(t, strings.Fields(profiledRun+" -writer process -kprofile k.pb.gz -perfdata k.data")...)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	p := readProfile(t, "k.pb.gz")
	var kernelEpoll bool
	roles, procs := map[string]int64{}, map[string]int64{}
	for _, s := range p.Sample {
		roles[s.Label["role"][0]] += s.Value[0]
		procs[s.Label["process"][0]] += s.Value[0]
		for _, l := range s.Location {
			if l.Mapping != nil && l.Mapping.File == profile.KernelMapping && len(l.Line) > 0 && strings.Contains(l.Line[0].Function.Name, "epoll") {
				kernelEpoll = true
			}
		}
	}
	if roles["reader"] == 0 || roles["writer"] == 0 || procs["main"] == 0 || procs["writer"] == 0 {
		t.Errorf("samples by role %v, by process %v: want reader and writer, main and writer", roles, procs)
	}
	if !kernelEpoll {
		t.Error("no kernel epoll frame in the profile of an epoll run")
	}
	// The main process is this test binary, and so is the writer process.
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if got := p.Mapping[0].File; got != exe {
		t.Errorf("first mapping %s: pprof would name the profile after it, want this binary %s", got, exe)
	}
	if p.DurationNanos < 300e6 || p.TimeNanos == 0 {
		t.Errorf("duration %d ns, time %d: want the measured window", p.DurationNanos, p.TimeNanos)
	}
	table := tableOf(t, stdout, "--- kernel and user stacks (perf, cpu-clock every 250µs): k.pb.gz")
	if !strings.Contains(table, "by role ") || !strings.Contains(table, "in the kernel ") {
		t.Errorf("no summary by role and kernel share in\n%s", table)
	}
	checkTopAgrees(t, "k.pb.gz", table)
	checkPerfData(t, stdout, "k.data")
}

// checkPerfData wants the run to say it kept perf's recording at path, and
// perf report to read it and find the reader's epoll wait in the kernel.
func checkPerfData(t *testing.T, stdout, path string) {
	t.Helper()
	if !strings.Contains(stdout, "perf.data kept: "+path+" (perf report -i "+path+")\n") {
		t.Errorf("the output does not say where perf.data was kept:\n%s", stdout)
	}
	out, err := exec.Command("perf", "report", "-i", path, "--stdio", "--sort", "sym").CombinedOutput()
	if err != nil {
		t.Fatalf("perf report -i %s: %v\n%s", path, err, out)
	}
	if !strings.Contains(string(out), "epoll") {
		t.Errorf("perf report -i %s names no epoll symbol:\n%s", path, out)
	}
}

// checkTopAgrees runs pipebench top on a saved profile and wants the table
// the run printed.
func checkTopAgrees(t *testing.T, path, table string) {
	t.Helper()
	code, stdout, stderr := invoke(t, "top", path)
	if code != exitOK {
		t.Fatalf("top: exit %d: %s", code, stderr)
	}
	if got := tableOf(t, stdout, "--- "+path); got != table {
		t.Errorf("top %s prints\n%s\nbut the run printed\n%s", path, got, table)
	}
}

func TestKprofileWithoutPerf(t *testing.T) {
	wd := getwd(t)
	t.Chdir(t.TempDir())
	t.Setenv("PATH", t.TempDir())
	args := "-d 100ms -i 100ms -kprofile k.pb.gz"
	code, stdout, stderr := invoke(t, strings.Fields(args)...)
	if code != exitUsage || stdout != "" || strings.Count(stderr, "\n") != 1 {
		t.Fatalf("exit %d, stdout %q, stderr %q: want exit %d and one line", code, stdout, stderr, exitUsage)
	}
	if _, err := os.Stat("k.pb.gz"); err == nil {
		t.Error("the refused run left its profile file behind")
	}
	t.Chdir(wd)
	golden.Check(t, "errors/kprofile-no-perf.golden", []byte("$ pipebench "+args+"\n"+stderr))
}

// TestTopCommand prints the tables of the perf fixture, converted.
func TestTopCommand(t *testing.T) {
	fixture, err := filepath.Abs("../../internal/profile/testdata/pipebench-process.perf-script.txt")
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(fixture)
	if err != nil {
		t.Fatal(err)
	}
	p, err := profile.Parse(f, profile.Options{
		Roles:     map[int]string{23757: "reader", 23760: "writer"},
		Processes: map[int]string{23751: "main", 23760: "writer"},
	})
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	wd := getwd(t)
	t.Chdir(t.TempDir())
	out, err := os.Create("fixture.pb.gz")
	if err != nil {
		t.Fatal(err)
	}
	if err := errors.Join(p.Write(out), out.Close()); err != nil {
		t.Fatal(err)
	}
	cases := []struct{ name, args string }{
		{"top", "top -rows 8 fixture.pb.gz"},
		{"top-role", "top -rows 5 -role writer fixture.pb.gz"},
	}
	var got []byte
	for _, c := range cases {
		code, stdout, stderr := invoke(t, strings.Fields(c.args)...)
		if code != exitOK {
			t.Fatalf("%s: exit %d: %s", c.args, code, stderr)
		}
		got = append(got, "$ pipebench "+c.args+"\n"+stdout...)
	}
	t.Chdir(wd)
	golden.Check(t, "output/top.golden", got)
}

func getwd(t *testing.T) string {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	return wd
}

// TestKprofilePerfFailsToStart puts a perf on PATH that passes the check but
// cannot attach: the run ends at once with perf's words, exit 1.
func TestKprofilePerfFailsToStart(t *testing.T) {
	bin := t.TempDir()
	fake := "#!/bin/sh\ncase \"$*\" in *' -- true') exit 0;; version) echo 'perf version 6.1.0'; exit 0;; esac\necho 'fake perf: cannot attach' >&2\nexit 1\n"
	if err := os.WriteFile(filepath.Join(bin, "perf"), []byte(fake), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	t.Chdir(t.TempDir())
	start := time.Now()
	code, stdout, stderr := invoke(t, strings.Fields("-n 20 -l 2 -writer self -d 20s -i 100ms -kprofile k.pb.gz")...)
	if code != exitFailed || !strings.Contains(stderr, "-kprofile: perf record did not start") || !strings.Contains(stderr, "fake perf: cannot attach") {
		t.Errorf("exit %d, stderr %q: want exit %d naming perf's failure", code, stderr, exitFailed)
	}
	if took := time.Since(start); took > 10*time.Second {
		t.Errorf("the run went on for %v after perf failed", took)
	}
	if !strings.Contains(stdout, "interrupted after") {
		t.Errorf("the run's summary is missing:\n%s", stdout)
	}
	if _, err := os.Stat("k.pb.gz"); err == nil {
		t.Error("a profile file was written although perf never recorded")
	}
}
