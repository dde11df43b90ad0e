package tool

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/codeloop/codeloop/internal/sandbox"
)

// Confinement is how the bash tool confines its commands with the OS
// sandbox.
type Confinement struct {
	Sandbox  *sandbox.Sandbox
	Mode     sandbox.Mode // off leaves commands unconfined
	Network  bool
	Writable []string // extra paths commands may write
	// AutoAllow runs confined commands that the rules would ask about
	// without asking; deny rules still apply.
	AutoAllow bool
	// Fallback is what happens when the machine cannot confine commands:
	// "ask" (each command needs approval) or "deny".
	Fallback string
	// TempDir is the base of the sessions' temporary directories; empty
	// means the system's.
	TempDir string
}

// on reports whether a sandbox mode is configured: commands are then
// confined, or run unconfined only after the user confirms.
func (c *Confinement) on() bool {
	return c != nil && c.Mode != "" && c.Mode != sandbox.ModeOff
}

// tighten returns the confinement for a call of a session whose own mode
// is mode: c when c is at least as strict, else c with mode (or, when
// nothing is configured, mode with the defaults). A session's mode never
// loosens the configured one.
func (c *Confinement) tighten(mode sandbox.Mode) (*Confinement, error) {
	have := sandbox.ModeOff
	if c != nil && c.Mode != "" {
		have = c.Mode
	}
	if !mode.Stricter(have) {
		return c, nil
	}
	if c != nil {
		n := *c
		n.Mode = mode
		return &n, nil
	}
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("finding codeloop's executable for the sandbox helper: %w", err)
	}
	return &Confinement{Sandbox: sandbox.New(exe), Mode: mode, Fallback: SandboxFallbackAsk}, nil
}

// Fallback values.
const (
	SandboxFallbackAsk  = "ask"
	SandboxFallbackDeny = "deny"
)

// confinePlan is what the sandbox does for one command.
type confinePlan struct {
	policy  *sandbox.Policy // nil: the command runs unconfined
	confirm bool            // ask the user even where the rules allow
	note    string          // why the command is not confined, for the metadata
}

// planConfinement decides how the command of call runs: confined, or
// unconfined after the user confirms (the call asked for sandbox off, or
// the sandbox is unavailable and the fallback asks), or not at all.
func (c *Confinement) plan(ctx context.Context, call *Call, dir string, off bool) (confinePlan, error) {
	if c == nil || c.Mode == sandbox.ModeOff || c.Mode == "" {
		return confinePlan{}, nil
	}
	if off {
		return confinePlan{confirm: true, note: "run outside the sandbox at the model's request"}, nil
	}
	st := c.Sandbox.Status(ctx)
	if !st.Available || !c.Network && !st.Seccomp {
		why := st.Reason
		if c.Fallback == SandboxFallbackDeny {
			return confinePlan{}, fmt.Errorf("the sandbox is unavailable on this machine (%s) and sandbox.fallback is deny, so no shell command can run", why)
		}
		return confinePlan{confirm: true, note: "sandbox unavailable: " + why}, nil
	}
	tmp, err := c.sessionTemp(call.SessionID)
	if err != nil {
		return confinePlan{}, err
	}
	project := call.Worktree
	if project == "" || project == "/" {
		project = dir
	}
	return confinePlan{policy: &sandbox.Policy{Mode: c.Mode, Network: c.Network, Project: project, TempDir: tmp, Writable: c.Writable}}, nil
}

// sessionTemp returns the session's temporary directory, creating it.
func (c *Confinement) sessionTemp(sessionID string) (string, error) {
	dir := SessionTempDir(c.TempDir, sessionID)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("creating the sandbox's temporary directory: %w", err)
	}
	return dir, nil
}

// SessionTempDir is the temporary directory the confined commands of a
// session may write, under base (the system's when empty).
func SessionTempDir(base, sessionID string) string {
	if base == "" {
		base = os.TempDir()
	}
	return filepath.Join(base, "codeloop-"+sessionID)
}

// RemoveSessionTemp removes a deleted session's temporary directory (see
// SessionTempDir) with what its commands left there; one never made is not
// an error. Anything in the directory's place that is not a directory (a
// symbolic link) is left as it is, and an id that is not a plain name
// removes nothing.
func RemoveSessionTemp(base, sessionID string) error {
	if sessionID == "" || sessionID == "." || sessionID == ".." || strings.ContainsAny(sessionID, `/\`) {
		return fmt.Errorf("session id %q cannot name a temporary directory", sessionID)
	}
	dir := SessionTempDir(base, sessionID)
	fi, err := os.Lstat(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("removing the temporary directory of session %s: %w", sessionID, err)
	}
	if !fi.IsDir() {
		return nil
	}
	if err := os.RemoveAll(dir); err != nil {
		return fmt.Errorf("removing the temporary directory of session %s: %w", sessionID, err)
	}
	return nil
}

// wrap confines cmd as planned.
func (c *Confinement) wrap(ctx context.Context, cmd *exec.Cmd, pl confinePlan) error {
	if pl.policy == nil {
		return nil
	}
	return c.Sandbox.Wrap(ctx, cmd, *pl.policy)
}

// sandboxHint explains a failure that may come from the sandbox, for the
// model: what was refused and how to ask for the command to run outside.
func sandboxHint(p sandbox.Policy, output string) string {
	low := strings.ToLower(output)
	if !strings.Contains(low, "permission denied") && !strings.Contains(low, "read-only file system") &&
		!strings.Contains(low, "operation not permitted") && !strings.Contains(low, "network is unreachable") {
		return ""
	}
	where := "inside " + p.Project + " and " + p.TempDir
	if p.Mode == sandbox.ModeReadOnly {
		where = "only in " + p.TempDir
	}
	net := "cannot open network connections"
	if p.Network {
		net = "may use the network"
	}
	return fmt.Sprintf("The command ran in codeloop's sandbox (%s): it may write %s (not the project's codeloop.json, opencode.json, .codeloop, .opencode, .claude or .mcp.json, nor .git's config, hooks or info, and .git itself cannot be renamed or removed) and %s. "+
		"If it failed because of that and it must do more, call bash again with \"sandbox\": \"off\"; the user will be asked to approve running it unconfined.",
		p.String(), where, net)
}
