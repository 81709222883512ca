package waitcall

// Grow returns s extended, if it must be, so that s[fd] exists; new
// entries are set to fill. Backends size their descriptor-indexed tables
// from Options.MaxFD at Open and call Grow from Add, never from Wait, so a
// descriptor above MaxFD costs an allocation in Add rather than an error.
// fd must not be negative.
func Grow[T any](s []T, fd int, fill T) []T {
	if fd < len(s) {
		return s
	}
	n := max(fd+1, 2*len(s))
	grown := make([]T, n)
	copy(grown, s)
	for i := len(s); i < n; i++ {
		grown[i] = fill
	}
	return grown
}
