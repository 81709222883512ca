package epoll

import (
	"github.com/pipebench/pipebench/pipebench"
	"golang.org/x/sys/unix"
)

// LevelFactory opens level-triggered epoll: a ready descriptor is reported
// by every Wait until it is read dry.
var LevelFactory = pipebench.Factory{
	Name:     "epoll",
	Summary:  "epoll(7), level-triggered",
	Features: pipebench.Nests | pipebench.Shares,
	FDs:      1,
	Open:     opener(0),
}

// EdgeFactory opens edge-triggered epoll (EPOLLET): a descriptor is reported
// once per arrival of new data, and the caller must read until a short read.
var EdgeFactory = pipebench.Factory{
	Name:     "epoll-et",
	Summary:  "epoll(7), edge-triggered (EPOLLET)",
	Features: pipebench.EdgeTriggered | pipebench.Nests | pipebench.Shares,
	FDs:      1,
	Open:     opener(unix.EPOLLET),
}

// OneShotFactory opens one-shot epoll (EPOLLONESHOT): the kernel disarms a
// descriptor when it reports it and the backend re-arms it with
// EPOLL_CTL_MOD at the start of the next Wait, one ctl call per event. The
// kernel does not allow EPOLLEXCLUSIVE with it (Waiter.Exclusive).
var OneShotFactory = pipebench.Factory{
	Name:     "epoll-oneshot",
	Summary:  "epoll(7), one-shot (EPOLLONESHOT), re-armed by the next wait",
	Features: pipebench.OneShot | pipebench.Nests | pipebench.Shares,
	FDs:      1,
	Open:     opener(unix.EPOLLONESHOT),
}

// Factories are the epoll variants, for the command's table of backends.
var Factories = []pipebench.Factory{LevelFactory, EdgeFactory, OneShotFactory}
