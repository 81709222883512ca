// Package waitcall holds the few small pieces that every readiness backend
// needs around its wait call, so that poll, select and epoll do not each
// carry a copy: the timeout rule of pipebench.Mechanism turned into a system
// call argument, the EINTR retry with the time that remains, and tables
// indexed by descriptor that grow outside the hot loop.
//
// Nothing here allocates or reads a clock on the path a Wait takes when no
// signal interrupts it.
//
// Imports: as imports_test.go at the module's root allows (the table in
// docs/contributing.md shows the rules).
package waitcall
