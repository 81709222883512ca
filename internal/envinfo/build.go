package envinfo

import (
	"runtime/debug"
	"strings"
)

// Unknown stands where the build does not say.
const Unknown = "unknown"

// Build is the pipebench binary a result was measured with: its module
// version, and the commit it was built from with a dirty mark when the
// work tree had changes. `go build` and `go install` in a checkout record
// the commit; `go run` and `go test` do not, and the fields then say
// Unknown.
type Build struct {
	Module   string `json:"module"`
	Version  string `json:"version"`
	Revision string `json:"revision"`
	Time     string `json:"revision_time,omitempty"`
	Dirty    bool   `json:"dirty"`
}

// ReadBuild reads this binary's build information.
func ReadBuild() Build {
	b := Build{Module: Unknown, Version: Unknown, Revision: Unknown}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return b
	}
	if info.Main.Path != "" {
		b.Module = info.Main.Path
	}
	if v := info.Main.Version; v != "" && v != "(devel)" {
		b.Version = v
	}
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			b.Revision = s.Value
		case "vcs.time":
			b.Time = s.Value
		case "vcs.modified":
			b.Dirty = s.Value == "true"
		}
	}
	return b
}

// String is the build in one word or two: "abc123def456", with
// "+dirty" when the tree had changes, after the version when one is set
// that is not the commit's own pseudo-version (v0.0.0-DATE-abc123def456,
// which go build stamps since Go 1.24).
func (b Build) String() string {
	rev := b.Revision
	if len(rev) > 12 {
		rev = rev[:12]
	}
	pseudo := rev != Unknown && strings.Contains(b.Version, "-"+rev)
	if b.Dirty {
		rev += "+dirty"
	}
	if b.Version != Unknown && !pseudo {
		return b.Version + " " + rev
	}
	return rev
}
