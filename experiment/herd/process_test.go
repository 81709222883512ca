package herd_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/pipebench/pipebench/experiment/herd"
)

// children lists this process's child processes.
func children(t *testing.T) []int {
	t.Helper()
	files, err := filepath.Glob("/proc/self/task/*/children")
	if err != nil {
		t.Fatal(err)
	}
	var pids []int
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			continue // the thread has exited
		}
		for _, w := range strings.Fields(string(b)) {
			pid, err := strconv.Atoi(w)
			if err != nil {
				t.Fatal(err)
			}
			pids = append(pids, pid)
		}
	}
	return pids
}

// TestWaiterProcessDies kills a waiter process once every waiter waits:
// the run fails at the next interval, naming that process and how it
// ended, and leaves no process behind.
func TestWaiterProcessDies(t *testing.T) {
	victim := 0
	cfg := herd.Config{Waiters: 3, Pipes: 4, InFlight: 1, Mode: herd.Processes, Exclusive: []bool{false},
		Duration: time.Minute, Interval: 50 * time.Millisecond}
	obs := herd.Observers{
		OnSetup: func(herd.Setup) {
			kids := children(t)
			if len(kids) != 3 {
				t.Fatalf("want 3 waiter processes, found %v", kids)
			}
			victim = kids[1]
			if err := unix.Kill(victim, unix.SIGKILL); err != nil {
				t.Fatal(err)
			}
		}}
	_, err := run(t, cfg, obs)
	want := fmt.Sprintf("herd waiter process %d signal: killed before it was told to stop", victim)
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("Run = %v, want an error with %q", err, want)
	}
	if kids := children(t); len(kids) != 0 {
		t.Errorf("processes %v outlived the run", kids)
	}
}
