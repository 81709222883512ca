package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/pipebench/pipebench/experiment/seeds"
)

// fakeSeeds makes the command's reproduction return one synthetic row at
// once, and records the plan it was given.
func fakeSeeds(t *testing.T, plan *seeds.Plan) {
	old := runSeeds
	runSeeds = func(p seeds.Plan, opt seeds.Options) (*seeds.Result, error) {
		*plan = p
		if opt.Backends["poll"] == nil || opt.Backends["epoll"] == nil || opt.Backends["epoll-et"] == nil || opt.Backends["uring"] == nil || opt.OnProgress == nil {
			t.Errorf("options %+v: want poll, epoll, epoll-et, uring and a progress display", opt)
		}
		x := 1.5
		return &seeds.Result{Plan: p, Rows: []seeds.Row{{Seed: "001", Claim: "batching pays", Unit: "ratio", TheirsFrom: "seed",
			Here: &x, HereFrom: "here", Judgement: seeds.Expect(seeds.Above, x), Command: "pipebench"}}}, nil
	}
	t.Cleanup(func() { runSeeds = old })
}

// TestSeedsCommand: -quick picks the quick plan, the default the full one;
// each format carries the rows; the progress goes to stderr.
func TestSeedsCommand(t *testing.T) {
	var plan seeds.Plan
	fakeSeeds(t, &plan)
	code, stdout, stderr := invoke(t, "seeds", "-quick")
	if code != exitOK || plan.Name != "quick" {
		t.Fatalf("exit %d, plan %q: %s", code, plan.Name, stderr)
	}
	if !strings.Contains(stdout, "  1. batching pays: ratio\n") || !strings.Contains(stderr, fmt.Sprintf("seeds: %d steps, the quick plan", seeds.Steps(seeds.Quick))) {
		t.Errorf("stdout:\n%s\nstderr:\n%s", stdout, stderr)
	}
	code, stdout, _ = invoke(t, "seeds", "-format", "json")
	var d seeds.Doc
	if code != exitOK || plan.Name != "full" || json.Unmarshal([]byte(stdout), &d) != nil || len(d.Rows) != 1 {
		t.Errorf("exit %d, plan %q, json:\n%s", code, plan.Name, stdout)
	}
	code, stdout, _ = invoke(t, "seeds", "-quick", "-format", "csv")
	if code != exitOK || !strings.HasPrefix(stdout, "seed,claim,unit,theirs") || !strings.Contains(stdout, "001,batching pays") {
		t.Errorf("exit %d, csv:\n%s", code, stdout)
	}
}
