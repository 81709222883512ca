package child

import (
	"fmt"
	"os"
	"sync"
	"sync/atomic"
)

// The child's environment names its role; its control socket is descriptor
// 3 (the first of exec's extra files).
const (
	roleEnv = "PIPEBENCH_CHILD"
	ctlFD   = 3
)

// A Role is one kind of child: what its parent starts it for.
type Role struct {
	// Name is what the parent passes to Start.
	Name string
	// Serve is the child's work, from its configuration (Conn.Config) to
	// its end. An error is sent to the parent as an error message, printed
	// on standard error, and ends the child with status 1.
	Serve func(*Conn) error
	// Kinds name the role's own message kinds in errors.
	Kinds map[Kind]string
}

var (
	rolesMu sync.Mutex
	roles   = map[string]*Role{}
	serving atomic.Bool
)

// Register adds r to the roles this binary can serve. It panics on a
// second role of the same name (a programming error, found at init).
func Register(r Role) {
	rolesMu.Lock()
	defer rolesMu.Unlock()
	if r.Name == "" || r.Serve == nil {
		panic("child: Register needs a name and a Serve function")
	}
	if _, dup := roles[r.Name]; dup {
		panic("child: role " + r.Name + " registered twice")
	}
	roles[r.Name] = &r
}

func lookup(name string) (*Role, error) {
	rolesMu.Lock()
	defer rolesMu.Unlock()
	r, ok := roles[name]
	if !ok {
		return nil, fmt.Errorf("no child role %q in this binary", name)
	}
	return r, nil
}

// Serve runs the role this process was started for, and exits, when it was
// started as a child; otherwise it returns at once. Every binary that starts
// children (the command, test binaries) calls it first thing in main or
// TestMain.
func Serve() {
	serving.Store(true)
	name := os.Getenv(roleEnv)
	if name == "" {
		return
	}
	if err := serve(name); err != nil {
		fmt.Fprintf(os.Stderr, "pipebench %s process %d: %v\n", name, os.Getpid(), err)
		os.Exit(1)
	}
	os.Exit(0)
}

// Serving reports whether this binary called Serve, and so can be started
// again as a child.
func Serving() bool { return serving.Load() }

func serve(name string) (err error) {
	r, err := lookup(name)
	if err != nil {
		return err
	}
	c := &Conn{fd: ctlFD, role: r, peer: "parent"}
	defer func() {
		if err != nil {
			// Best effort: the parent learns the cause; it also sees the exit.
			_ = c.Send(kindError, failure{Error: err.Error()})
		}
	}()
	if c.config, err = c.Expect(kindConfig); err != nil {
		return err
	}
	return r.Serve(c)
}
