package main

import (
	"fmt"
	"strings"

	"github.com/pipebench/pipebench/epoll"
	"github.com/pipebench/pipebench/gonet"
	"github.com/pipebench/pipebench/pipebench"
	"github.com/pipebench/pipebench/poll"
	fdselect "github.com/pipebench/pipebench/select"
	"github.com/pipebench/pipebench/uring"
)

// backends is the table of mechanisms; only the command knows them all.
// Adding a backend is its package and one line here.
var backends = []*pipebench.Factory{
	&fdselect.Factory,
	&poll.Factory,
	&epoll.LevelFactory,
	&epoll.EdgeFactory,
	&epoll.OneShotFactory,
	&uring.Factory,
	&uring.OneShotFactory,
	&uring.EpollFactory,
	&uring.RWFactory,
	&uring.RWOneShotFactory,
	&uring.RWSQPollFactory,
	&gonet.Factory,
	&pipebench.Bypass,
}

func backendNames() string {
	names := make([]string, 0, len(backends))
	for _, b := range backends {
		names = append(names, b.Name)
	}
	return strings.Join(names, ", ")
}

// findBackend returns the factory a -b name names: one of the table's, or
// an io_uring backend with some of its settings off (uring.Variant).
func findBackend(name string) (*pipebench.Factory, error) {
	for _, b := range backends {
		if b.Name == name {
			return b, nil
		}
	}
	if f, ok, err := uring.Variant(name); ok {
		return f, err
	}
	if strings.HasPrefix(name, "uring") {
		return nil, fmt.Errorf("unknown backend %q: want one of %s, or an io_uring one with suffixes that turn settings off: %s", name, backendNames(), uring.VariantHelp())
	}
	return nil, fmt.Errorf("unknown backend %q: want one of %s", name, backendNames())
}
