package main

import (
	"encoding/csv"
	"encoding/json"
	"regexp"
	"strings"
	"testing"
)

func TestHerdOutput(t *testing.T) {
	args := "herd -waiters 4 -n 8 -d 300ms -i 100ms"
	code, stdout, stderr := invoke(t, strings.Fields(args)...)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{
		`(?m)^herd: 4 waiter threads, 8 pipes, 1 tokens in flight, 300ms a setting$`,
		`(?m)^exclusive off: 4 waiters ready in `,
		`(?m)^exclusive on: [0-9]+ evts/sec [0-9.e+-]+ returns per token$`,
		`(?m)^EPOLLEXCLUSIVE +off +on +off/on$`,
		`(?m)^wake-ups/token +[0-9.]+ +[0-9.]+ +[0-9.]+$`,
		`(?m)^waiters' sys ns/token +[0-9.]+ +[0-9.]+ `,
		`(?m)^tokens off +sent [0-9]+  received [0-9]+  drained [0-9]+  lost 0 `,
		`(?m)^tokens on +sent [0-9]+  received [0-9]+  drained [0-9]+  lost 0 `,
		`(?m)^machine `,
	} {
		if !regexp.MustCompile(want).MatchString(stdout) {
			t.Errorf("output does not match %s:\n%s", want, stdout)
		}
	}
	checkWidth(t, stdout, 80)
}

func TestHerdFormats(t *testing.T) {
	base := "herd -waiters 2 -n 4 -d 100ms -i 50ms -mode processes -format "
	code, stdout, stderr := invoke(t, strings.Fields(base+"json")...)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var doc struct {
		Mode  string `json:"mode"`
		Sides []struct {
			Setup   struct{ Exclusive bool } `json:"setup"`
			Tokens  struct{ Lost int64 }     `json:"tokens"`
			Figures map[string]any           `json:"figures"`
		} `json:"sides"`
		Ratios map[string]float64 `json:"ratios_off_over_on"`
	}
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, stdout)
	}
	if doc.Mode != "processes" || len(doc.Sides) != 2 || doc.Sides[0].Setup.Exclusive || !doc.Sides[1].Setup.Exclusive {
		t.Errorf("JSON describes mode %q and %d sides, want processes, off then on", doc.Mode, len(doc.Sides))
	}
	if _, ok := doc.Ratios["wakeups_per_token"]; !ok {
		t.Errorf("JSON carries no wake-ups ratio: %v", doc.Ratios)
	}
	code, stdout, stderr = invoke(t, strings.Fields(base+"csv")...)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	rows, err := csv.NewReader(strings.NewReader(stdout)).ReadAll()
	if err != nil || len(rows) != 3 || rows[0][0] != "exclusive" || rows[1][0] != "off" || rows[2][0] != "on" {
		t.Fatalf("want a header and rows off, on; got %q (%v)", rows, err)
	}
	if lost := rows[1][len(rows[1])-1]; lost != "0" {
		t.Errorf("CSV says %s tokens lost", lost)
	}
}

func TestTimeoutFormats(t *testing.T) {
	base := "timeout -samples 3 -timeouts 50us,1ms -mechanisms epoll_wait,epoll+timerfd -format "
	code, stdout, stderr := invoke(t, strings.Fields(base+"text")...)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{
		`(?m)^timeout: 2 mechanisms x 2 timeouts, 3 samples each$`,
		`(?m)^mechanism +requested +min µs +p50 µs +p99 µs +max µs$`,
		`(?m)^epoll_wait +50µs +[0-9.]+( +[0-9.]+){3}$`,
		`(?m)^epoll\+timerfd +1ms `,
	} {
		if !regexp.MustCompile(want).MatchString(stdout) {
			t.Errorf("output does not match %s:\n%s", want, stdout)
		}
	}
	code, stdout, stderr = invoke(t, strings.Fields(base+"csv")...)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	rows, err := csv.NewReader(strings.NewReader(stdout)).ReadAll()
	if err != nil || len(rows) != 5 || rows[1][0] != "epoll_wait" || rows[1][1] != "50000" || rows[4][0] != "epoll+timerfd" {
		t.Fatalf("want a header and four rows; got %q (%v)", rows, err)
	}
	code, stdout, stderr = invoke(t, strings.Fields(base+"json")...)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var doc struct {
		Points []struct {
			Mechanism string `json:"mechanism"`
			Min       int64  `json:"min_ns"`
		} `json:"points"`
	}
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil || len(doc.Points) != 4 || doc.Points[0].Mechanism != "epoll_wait" {
		t.Fatalf("JSON points %+v (%v)", doc.Points, err)
	}
	if doc.Points[0].Min < 950000 {
		t.Errorf("epoll_wait 50µs overshoot %dns in JSON, want at least 950µs", doc.Points[0].Min)
	}
}
