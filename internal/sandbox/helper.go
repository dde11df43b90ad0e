package sandbox

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"sync"
)

// HelperArg is the first argument that makes the codeloop binary run as the
// sandbox helper instead of as itself.
const HelperArg = "__codeloop_sandbox"

// policyEnv carries the policy from codeloop to its helper.
const policyEnv = "CODELOOP_SANDBOX_REQUEST"

// Main runs the helper when args (os.Args) ask for it and exits the
// process; otherwise it returns at once. The codeloop binary calls it first
// thing, and so do the test binaries that run sandboxed commands.
func Main(args []string) {
	if len(args) < 2 || args[1] != HelperArg {
		return
	}
	rest := args[2:]
	if len(rest) > 0 && rest[0] == "--" {
		rest = rest[1:]
	}
	os.Exit(helper(rest, os.Stdout, os.Stderr))
}

// Sandbox confines commands through the helper in one executable. It
// learns once what the machine can enforce.
type Sandbox struct {
	exe string

	once   sync.Once
	status Status
}

// New returns a sandbox whose helper is the executable exe (normally
// os.Executable()).
func New(exe string) *Sandbox { return &Sandbox{exe: exe} }

// Status reports what the sandbox can enforce here, probing the first time.
func (s *Sandbox) Status(ctx context.Context) Status {
	s.once.Do(func() { s.status = probeStatus(ctx, s.exe) })
	return s.status
}

// Wrap rewrites cmd, whose Path must be absolute, to run confined by p.
// It fails with ErrUnavailable when the machine cannot confine it; a
// policy whose mode is off leaves cmd as it is.
func (s *Sandbox) Wrap(ctx context.Context, cmd *exec.Cmd, p Policy) error {
	if p.Mode == ModeOff {
		return nil
	}
	if err := p.Check(); err != nil {
		return err
	}
	st := s.Status(ctx)
	if !st.Available {
		return fmt.Errorf("%w: %s", ErrUnavailable, st.Reason)
	}
	if !p.Network && !st.Seccomp {
		return fmt.Errorf("%w: the network cannot be switched off (%s)", ErrUnavailable, st.Reason)
	}
	return wrapCommand(cmd, s.exe, p, st.MountNamespace)
}
