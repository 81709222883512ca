package waitcall

// Raw6 makes system call trap with six arguments as a raw system call, one
// that keeps the thread's P, as the Mechanism contract says a wait call
// must (pipebench.Mechanism), and returns what the kernel returned: a
// count, or a failure as its negated errno (syscall(2)). Split takes it
// apart. A pointer passed as an argument must be converted to uintptr in
// the call's argument list, as for syscall.RawSyscall6 (unsafe.Pointer's
// fourth rule): Raw6 is an assembly function here (raw6_amd64.s),
// and the standard library's call on other architectures (raw6_other.go).
func Raw6(trap, a1, a2, a3, a4, a5, a6 uintptr) uintptr
