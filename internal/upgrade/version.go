package upgrade

import (
	"strconv"
	"strings"
)

// version is a parsed semantic version.
type version struct {
	nums [3]int
	pre  string
}

// parseVersion parses 1.2.3, v1.2.3 or v1.2.3-rc.1 (build metadata after
// + is ignored).
func parseVersion(s string) (version, bool) {
	s = strings.TrimPrefix(s, "v")
	s, _, _ = strings.Cut(s, "+")
	core, pre, _ := strings.Cut(s, "-")
	parts := strings.Split(core, ".")
	if len(parts) != 3 {
		return version{}, false
	}
	var v version
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 || p == "" {
			return version{}, false
		}
		v.nums[i] = n
	}
	v.pre = pre
	return v, true
}

// compare returns -1, 0 or 1 as a is older than, the same as or newer
// than b. A prerelease is older than its release; prereleases compare as
// strings.
func (a version) compare(b version) int {
	for i := range a.nums {
		if a.nums[i] != b.nums[i] {
			if a.nums[i] < b.nums[i] {
				return -1
			}
			return 1
		}
	}
	switch {
	case a.pre == b.pre:
		return 0
	case a.pre == "":
		return 1
	case b.pre == "":
		return -1
	case a.pre < b.pre:
		return -1
	}
	return 1
}

// Newer reports whether the release tag is newer than the running version
// current. A current version that does not parse (dev) is older than
// every release; a Go pseudo-version is older than the release it
// precedes, as semantic versioning orders prereleases.
func Newer(tag, current string) bool {
	t, ok := parseVersion(tag)
	if !ok {
		return false
	}
	c, ok := parseVersion(current)
	if !ok {
		return true
	}
	return t.compare(c) > 0
}
