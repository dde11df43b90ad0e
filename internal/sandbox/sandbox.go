// Package sandbox confines the shell commands codeloop runs on the model's
// behalf. On Linux a command runs through a helper: the codeloop binary
// re-executed with a hidden first argument, which restricts itself with
// Landlock (writes only beneath the project, the session's temporary
// directory and a few device files), a seccomp filter (no network sockets
// but Unix ones when the network is off, no ptrace, no io_uring, no kernel
// module or mount changes) and, where the kernel allows a private mount
// namespace, mounts: the whole file system read-only but the writable
// paths, the git directories pinned where they are and the other protected
// paths (ProtectedPaths) read-only. The helper then executes the shell, and
// every child of the shell inherits the confinement. The codeloop process
// itself is never confined; it undoes, with a Guard, what a command did to
// protected paths no mount could cover.
//
// Where the kernel lacks Landlock the sandbox is unavailable: Probe says so
// and callers decide what to do (by default, ask before each command).
package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/codeloop/codeloop/internal/paths"
)

// Mode is how much of the file system a confined command may change.
type Mode string

// The modes.
const (
	// ModeOff runs commands unconfined.
	ModeOff Mode = "off"
	// ModeReadOnly lets commands write only the temporary directory and
	// device files such as /dev/null.
	ModeReadOnly Mode = "read-only"
	// ModeWorkspaceWrite also lets commands write beneath the project,
	// except its protected paths.
	ModeWorkspaceWrite Mode = "workspace-write"
)

// ParseMode returns the mode named s.
func ParseMode(s string) (Mode, error) {
	switch m := Mode(s); m {
	case ModeOff, ModeReadOnly, ModeWorkspaceWrite:
		return m, nil
	}
	return "", fmt.Errorf("sandbox mode %q: want %s, %s or %s", s, ModeReadOnly, ModeWorkspaceWrite, ModeOff)
}

// Stricter reports whether m confines commands more than other: read-only
// more than workspace-write, which confines more than off (or no mode).
func (m Mode) Stricter(other Mode) bool { return m.rank() > other.rank() }

func (m Mode) rank() int {
	switch m {
	case ModeWorkspaceWrite:
		return 1
	case ModeReadOnly:
		return 2
	}
	return 0
}

// Policy says what a confined command may do.
type Policy struct {
	Mode    Mode   `json:"mode"`
	Network bool   `json:"network"` // sockets other than Unix ones allowed
	Project string `json:"project"` // absolute project directory
	TempDir string `json:"tempDir"` // absolute, writable in every mode

	// Writable lists extra absolute paths commands may write.
	Writable []string `json:"writable,omitempty"`
	// Protected lists paths relative to Project that commands may not
	// change (see DefaultProtected); nil means DefaultProtected().
	Protected []string `json:"protected,omitempty"`
	// Hidden lists absolute directories commands may not read: each is
	// covered by an empty, read-only file system. nil means DefaultHidden().
	Hidden []string `json:"hidden,omitempty"`
}

// DefaultHidden is the directories confined commands do not see:
// codeloop's state directory, which holds the running servers' addresses
// and tokens. A command that read a token could ask the server to run a
// command outside the sandbox.
func DefaultHidden() []string {
	dirs, err := paths.Resolve(os.Getenv)
	if err != nil || dirs.State == "" {
		return []string{}
	}
	return []string{dirs.State}
}

func (p Policy) hidden() []string {
	if p.Hidden == nil {
		return DefaultHidden()
	}
	return p.Hidden
}

// Check reports whether the policy can be applied.
func (p Policy) Check() error {
	if _, err := ParseMode(string(p.Mode)); err != nil {
		return err
	}
	if p.Mode == ModeOff {
		return nil
	}
	for _, d := range append([]string{p.Project, p.TempDir}, p.Writable...) {
		if d == "" || !filepath.IsAbs(d) {
			return fmt.Errorf("sandbox path %q: want an absolute path", d)
		}
	}
	for _, r := range p.Protected {
		if filepath.IsAbs(r) || strings.HasPrefix(filepath.Clean(r), "..") {
			return fmt.Errorf("protected path %q: want a path inside the project", r)
		}
	}
	return nil
}

// writable returns the directories and files the policy lets commands write.
func (p Policy) writable() []string {
	w := []string{p.TempDir}
	if p.Mode == ModeWorkspaceWrite {
		w = append(w, p.Project)
	}
	w = append(w, p.Writable...)
	slices.Sort(w)
	return slices.Compact(w)
}

// String describes the policy in a few words, for tool results and logs.
func (p Policy) String() string {
	if p.Mode == ModeOff {
		return "sandbox off"
	}
	net := "network off"
	if p.Network {
		net = "network on"
	}
	return fmt.Sprintf("sandbox %s, %s", p.Mode, net)
}

// Status is what the sandbox can enforce on this machine.
type Status struct {
	// Available is false when commands cannot be confined at all.
	Available bool `json:"available"`
	// Landlock is the kernel's Landlock ABI version, 0 when absent.
	Landlock int `json:"landlock"`
	// Seccomp is true when a seccomp filter can be installed.
	Seccomp bool `json:"seccomp"`
	// MountNamespace is true when commands run in a mount namespace of
	// their own where the file system is read-only but for the writable
	// paths, and the protected paths are read-only too.
	MountNamespace bool `json:"mountNamespace"`
	// Reason says why the sandbox, or a part of it, is missing.
	Reason string `json:"reason,omitempty"`
	// Seatbelt is true on macOS, where one Seatbelt profile does what
	// Landlock, seccomp and the mount namespace do on Linux.
	Seatbelt bool `json:"seatbelt,omitempty"`
}

// String describes the status in one line.
func (s Status) String() string {
	if !s.Available {
		return "unavailable: " + s.Reason
	}
	if s.Seatbelt {
		return "available: " + s.Reason
	}
	parts := []string{fmt.Sprintf("landlock ABI v%d", s.Landlock)}
	if s.Seccomp {
		parts = append(parts, "seccomp")
	}
	if s.MountNamespace {
		parts = append(parts, "read-only file system but the writable paths", "read-only protected paths")
	} else {
		parts = append(parts, "no mount namespace: protected paths and metadata (chmod, chown, timestamps, extended attributes) outside the writable paths not enforced")
	}
	out := "available: " + strings.Join(parts, ", ")
	if s.Reason != "" {
		out += " (" + s.Reason + ")"
	}
	return out
}

// ErrUnavailable is returned when a command must be confined but the
// machine cannot confine it.
var ErrUnavailable = errors.New("the sandbox is unavailable on this machine")
