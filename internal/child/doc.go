// Package child is the one way a pipebench binary starts a process of its
// own to help a measurement: the harness's writer process (pipebench) and
// the herd's waiter processes (experiment/herd). A child is the same binary
// started again with the name of its role in the environment. It talks to
// its parent over one SOCK_SEQPACKET socketpair (descriptor 3 in the child):
// each message is one kind byte and a JSON body; the configuration is the
// first message; descriptors travel as SCM_RIGHTS, in order, in batches of
// at most MaxFDs. Descriptors are never handed over as os.File on either
// side: an os.File would register a non-blocking pipe with the Go runtime's
// own epoll, one more waiter on every pipe.
//
// A package that starts children registers its roles (Register) from an
// init function; every program that may be started as a child (the command,
// every test binary that runs such a measurement) calls Serve first thing
// in main or TestMain. Serve returns at once in an ordinary process and
// never returns in a child.
//
// Imports: as imports_test.go at the module's root allows (the table in
// docs/contributing.md shows the rules).
package child
