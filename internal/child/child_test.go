package child

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestMain lets this test binary serve as its own children.
func TestMain(m *testing.M) {
	Serve()
	os.Exit(m.Run())
}

// The roles of these tests.
const (
	kindDone Kind = 'D'
)

type echoConfig struct {
	Pipes int    `json:"pipes"`
	Word  string `json:"word"`
}

func init() {
	// echo receives its write ends, writes its word's first byte into
	// each, answers with the word and its pid, and waits for the socket
	// to close.
	Register(Role{Name: "test echo", Kinds: map[Kind]string{kindDone: "done"}, Serve: func(c *Conn) error {
		var cfg echoConfig
		if err := c.Config(&cfg); err != nil {
			return err
		}
		fds, err := c.RecvFDs(cfg.Pipes)
		if err != nil {
			return err
		}
		for i, fd := range fds {
			if _, err := unix.Write(fd, []byte(cfg.Word[:1])); err != nil {
				return fmt.Errorf("write pipe %d: %w", i, err)
			}
		}
		if err := c.Send(kindDone, []any{cfg.Word, os.Getpid()}); err != nil {
			return err
		}
		c.WaitClosed()
		return nil
	}})
	Register(Role{Name: "test fail", Serve: func(c *Conn) error { return errors.New("out of beans") }})
	Register(Role{Name: "test exit", Serve: func(c *Conn) error { os.Exit(3); return nil }})
	Register(Role{Name: "test hold", Serve: func(c *Conn) error { c.WaitClosed(); return nil }})
}

// TestDescriptorsAndConfig hands a child more write ends than one message
// carries and its configuration: every pipe gets the byte the
// configuration named, and the child answers.
func TestDescriptorsAndConfig(t *testing.T) {
	const pipes = 2*MaxFDs + 7
	var rfds, wfds []int
	defer func() { closeAll(rfds); closeAll(wfds) }()
	for range pipes {
		var p [2]int
		if err := unix.Pipe2(p[:], unix.O_NONBLOCK|unix.O_CLOEXEC); err != nil {
			t.Fatal(err)
		}
		rfds, wfds = append(rfds, p[0]), append(wfds, p[1])
	}
	p, err := Start("test echo", echoConfig{Pipes: pipes, Word: "xyz"})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close(5 * time.Second)
	if err := p.SendFDs(wfds[:10]); err != nil {
		t.Fatal(err)
	}
	if err := p.SendFDs(wfds[10:]); err != nil {
		t.Fatal(err)
	}
	closeAll(wfds)
	wfds = nil
	body, err := p.Await(kindDone, 10*time.Second, nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := fmt.Sprintf(`["xyz",%d]`, p.Pid()); string(body) != want {
		t.Errorf("child answered %s, want %s", body, want)
	}
	for i, fd := range rfds {
		var b [2]byte
		if n, err := unix.Read(fd, b[:]); err != nil || n != 1 || b[0] != 'x' {
			t.Fatalf("pipe %d: read %q, %v; want the one byte x", i, b[:n], err)
		}
	}
	p.Close(5 * time.Second)
	if cause, ok := p.Exited(0); !ok || !p.Clean() {
		t.Errorf("child not cleanly gone after Close: %q %v", cause, ok)
	}
}

// TestChildFailure: a child's error reaches its parent as the error.
func TestChildFailure(t *testing.T) {
	p, err := Start("test fail", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close(5 * time.Second)
	_, err = p.Await(kindDone, 10*time.Second, nil)
	want := fmt.Sprintf("test fail process %d failed: out of beans", p.Pid())
	if err == nil || err.Error() != want {
		t.Errorf("Await = %v, want %q", err, want)
	}
	if _, ok := p.Exited(5 * time.Second); !ok || p.Clean() {
		t.Error("a failed child should exit with a non-zero status")
	}
}

// TestChildDeath: a child that dies without a word is named with its exit.
func TestChildDeath(t *testing.T) {
	p, err := Start("test exit", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close(5 * time.Second)
	_, err = p.Await(kindDone, 10*time.Second, nil)
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("test exit process %d exit status 3", p.Pid())) {
		t.Errorf("Await = %v, want the child's exit status 3", err)
	}
}

// TestAwaitStops: a closed stop ends a wait for a child that says nothing,
// and Close kills a child that does not exit.
func TestAwaitStops(t *testing.T) {
	p, err := Start("test hold", nil)
	if err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	close(stop)
	if _, err := p.Await(kindDone, time.Minute, stop); !errors.Is(err, ErrStopped) {
		t.Errorf("Await with stop closed = %v, want ErrStopped", err)
	}
	if _, err := p.Await(kindDone, 200*time.Millisecond, nil); err == nil || !strings.Contains(err.Error(), "sent nothing") {
		t.Errorf("Await of a silent child = %v, want a timeout naming it", err)
	}
	// It holds on until its socket closes; Close closes it, and it exits.
	p.Close(5 * time.Second)
	if !p.Clean() {
		cause, _ := p.Exited(0)
		t.Errorf("held child after Close: %s, want status 0", cause)
	}
}

func TestUnknownRole(t *testing.T) {
	if _, err := Start("no such role", nil); err == nil || !strings.Contains(err.Error(), `"no such role"`) {
		t.Errorf("Start of an unregistered role = %v, want an error naming it", err)
	}
}

func TestServing(t *testing.T) {
	if !Serving() {
		t.Error("Serving is false after Serve")
	}
}

// TestEnviron: a child's variables replace the parent's of the same name,
// and the role variable is never inherited.
func TestEnviron(t *testing.T) {
	t.Setenv("GOMAXPROCS", "7")
	t.Setenv(roleEnv, "stale")
	env := environ([]string{roleEnv + "=new", "GOMAXPROCS=2"})
	for _, name := range []string{"GOMAXPROCS", roleEnv} {
		var got []string
		for _, kv := range env {
			if strings.HasPrefix(kv, name+"=") {
				got = append(got, kv)
			}
		}
		want := map[string]string{"GOMAXPROCS": "GOMAXPROCS=2", roleEnv: roleEnv + "=new"}[name]
		if !slices.Equal(got, []string{want}) {
			t.Errorf("%s in the child's environment: %q, want %q", name, got, want)
		}
	}
}
