package cli

import (
	"runtime/debug"
	"strings"
)

// The release build sets these with -ldflags "-X ...": the release's
// version (without a leading v), the commit it was built from and the
// commit's date. A plain go build leaves them empty.
var (
	version string
	commit  string
	date    string
)

// Version is codeloop's version: the release's, else the main module's
// version from the build information (a tag or a pseudo-version), else
// "dev".
var Version = resolveVersion(version, buildInfo())

// buildInfo returns the binary's build information, nil when it has none.
func buildInfo() *debug.BuildInfo {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return nil
	}
	return bi
}

// resolveVersion returns the injected version when there is one, else the
// version recorded in bi.
func resolveVersion(injected string, bi *debug.BuildInfo) string {
	if injected != "" {
		return strings.TrimPrefix(injected, "v")
	}
	if bi != nil {
		if v := bi.Main.Version; v != "" && v != "(devel)" {
			return strings.TrimPrefix(v, "v")
		}
	}
	return "dev"
}

// versionLine returns what codeloop --version prints after the name: the
// version, then the commit and its date when they are known.
func versionLine() string {
	return describeVersion(Version, commit, date, buildInfo())
}

// describeVersion formats v with the commit and date, taking them from
// the VCS settings in bi when they were not injected.
func describeVersion(v, rev, when string, bi *debug.BuildInfo) string {
	modified := false
	if bi != nil {
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				if rev == "" {
					rev = s.Value
				}
			case "vcs.time":
				if when == "" {
					when = s.Value
				}
			case "vcs.modified":
				modified = s.Value == "true" && commit == ""
			}
		}
	}
	var extra []string
	if rev != "" {
		if len(rev) > 12 {
			rev = rev[:12]
		}
		if modified {
			rev += "-dirty"
		}
		extra = append(extra, "commit "+rev)
	}
	if when != "" {
		extra = append(extra, "built "+when)
	}
	if len(extra) == 0 {
		return v
	}
	return v + " (" + strings.Join(extra, ", ") + ")"
}
