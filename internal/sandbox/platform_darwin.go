//go:build darwin

package sandbox

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
)

// probeStatus checks that sandbox-exec runs a command under a profile. On
// macOS the Seatbelt profile does what seccomp and the mount namespace do
// on Linux: it switches the network off and keeps protected paths
// read-only, so Status reports both.
func probeStatus(ctx context.Context, _ string) Status {
	if _, err := os.Stat(SandboxExec); err != nil {
		return Status{Reason: "macOS Seatbelt is missing: " + err.Error()}
	}
	dir, err := os.MkdirTemp("", "codeloop-sandbox-probe-")
	if err != nil {
		return Status{Reason: "probing: " + err.Error()}
	}
	defer os.RemoveAll(dir)
	profile, err := SeatbeltProfile(Policy{Mode: ModeWorkspaceWrite, Project: realPath(dir), TempDir: realPath(dir)})
	if err != nil {
		return Status{Reason: "probing: " + err.Error()}
	}
	out, err := exec.CommandContext(ctx, SandboxExec, "-p", profile, "/usr/bin/true").CombinedOutput()
	if err != nil {
		return Status{Reason: fmt.Sprintf("probing %s: %v: %s", SandboxExec, err, strings.TrimSpace(string(out)))}
	}
	return Status{Available: true, Seccomp: true, MountNamespace: true, Seatbelt: true,
		Reason: "macOS Seatbelt through " + SandboxExec + ": writes confined, network off, protected paths read-only"}
}

// wrapCommand rewrites cmd to run through sandbox-exec with the profile
// of p.
func wrapCommand(cmd *exec.Cmd, _ string, p Policy, _ bool) error {
	if cmd.Path == "" || !filepath.IsAbs(cmd.Path) {
		return fmt.Errorf("sandboxed command %q: want an absolute path", cmd.Path)
	}
	// Seatbelt matches real paths: /tmp is /private/tmp, and a project
	// may be reached through a symbolic link.
	p.Project, p.TempDir = realPath(p.Project), realPath(p.TempDir)
	w := make([]string, len(p.Writable))
	for i, d := range p.Writable {
		w[i] = realPath(d)
	}
	p.Writable = w
	profile, err := SeatbeltProfile(p)
	if err != nil {
		return err
	}
	args := append([]string{SandboxExec, "-p", profile, cmd.Path}, cmd.Args[1:]...)
	cmd.Path, cmd.Args = SandboxExec, args
	if cmd.Env == nil {
		cmd.Env = os.Environ()
	}
	cmd.Env = slices.DeleteFunc(slices.Clone(cmd.Env), func(kv string) bool { return strings.HasPrefix(kv, "TMPDIR=") })
	cmd.Env = append(cmd.Env, "TMPDIR="+p.TempDir)
	return nil
}

// realPath returns path with its symbolic links resolved, or path itself
// when it cannot be resolved (it may not exist yet).
func realPath(path string) string {
	if r, err := filepath.EvalSymlinks(path); err == nil {
		return r
	}
	return path
}

// helper is Linux's: macOS confines through sandbox-exec instead.
func helper([]string, io.Writer, io.Writer) int { return 126 }
