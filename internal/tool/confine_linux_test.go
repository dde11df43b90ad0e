//go:build linux

package tool

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codeloop/codeloop/internal/permission"
	"github.com/codeloop/codeloop/internal/sandbox"
)

// confirmRejecter refuses requests that ask for confirmation, as a user
// who says no would, and lets everything else through.
type confirmRejecter struct{ asked []permission.Request }

func (a *confirmRejecter) Ask(_ context.Context, req permission.Request) error {
	a.asked = append(a.asked, req)
	if req.Confirm {
		return &permission.RejectedError{}
	}
	return nil
}

// bash returns the bash requests asked.
func (a *confirmRejecter) bash() []permission.Request {
	var out []permission.Request
	for _, r := range a.asked {
		if r.Permission == "bash" {
			out = append(out, r)
		}
	}
	return out
}

func confinedEnv(t *testing.T, exe string) Env {
	t.Helper()
	env := testEnv(t)
	env.Sandbox = &Confinement{Sandbox: sandbox.New(exe), Mode: sandbox.ModeWorkspaceWrite, AutoAllow: true,
		Fallback: SandboxFallbackAsk, TempDir: t.TempDir()}
	return env
}

func TestBashSandboxed(t *testing.T) {
	t.Parallel()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	env := confinedEnv(t, exe)
	if st := env.Sandbox.Sandbox.Status(context.Background()); !st.Available {
		t.Skipf("sandbox unavailable: %s", st.Reason)
	}
	root := t.TempDir()
	project, outside := filepath.Join(root, "project"), filepath.Join(root, "outside")
	for _, d := range []string{project, outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}

	call, asker := newCall(t, "bash", project, map[string]any{"command": "echo in > inside.txt && echo out > " + filepath.Join(outside, "f.txt")})
	res, err := toolByID(t, env, "bash").Run(context.Background(), call)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(project, "inside.txt")); err != nil {
		t.Errorf("a write inside the project failed: %v", err)
	}
	if _, err := os.Stat(filepath.Join(outside, "f.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a write outside the project went through: %v", err)
	}
	if !strings.Contains(res.Output, "ran in codeloop's sandbox") || !strings.Contains(res.Output, `"sandbox": "off"`) {
		t.Errorf("the result does not say the sandbox refused it:\n%s", res.Output)
	}
	if reqs := asker.requests("bash"); len(reqs) != 1 || !reqs[0].Confined || reqs[0].Confirm {
		t.Errorf("requests %+v, want one confined request", reqs)
	}

	// Asking to run outside the sandbox needs the user's approval.
	rej := &confirmRejecter{}
	call, _ = newCall(t, "bash", project, map[string]any{"command": "echo out > " + filepath.Join(outside, "g.txt"), "sandbox": "off"})
	call.Asker = rej
	if _, err := toolByID(t, env, "bash").Run(context.Background(), call); err == nil {
		t.Fatal("a command to run outside the sandbox ran although the user refused")
	}
	if bash := rej.bash(); len(bash) != 1 || !bash[0].Confirm {
		t.Fatalf("requests %+v, want one asking for confirmation", rej.asked)
	}
	if _, err := os.Stat(filepath.Join(outside, "g.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the refused command ran: %v", err)
	}
}

// TestBashSandboxUndoesProtected has a confined command create protected
// paths that did not exist: they are gone afterwards and the model is told.
func TestBashSandboxUndoesProtected(t *testing.T) {
	t.Parallel()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	env := confinedEnv(t, exe)
	if st := env.Sandbox.Sandbox.Status(context.Background()); !st.Available {
		t.Skipf("sandbox unavailable: %s", st.Reason)
	}
	project := t.TempDir()
	call, _ := newCall(t, "bash", project, map[string]any{"command": "echo '{}' > .mcp.json && mkdir -p .codeloop/tools && echo x > kept.txt"})
	res, err := toolByID(t, env, "bash").Run(context.Background(), call)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{".mcp.json", ".codeloop"} {
		if _, err := os.Lstat(filepath.Join(project, name)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s is still there: %v", name, err)
		}
		if !strings.Contains(res.Output, filepath.Join(project, name)) {
			t.Errorf("the result does not name %s:\n%s", name, res.Output)
		}
	}
	if !strings.Contains(res.Output, "The sandbox undid what the command did to") {
		t.Errorf("the result does not say what the sandbox undid:\n%s", res.Output)
	}
	if _, err := os.Stat(filepath.Join(project, "kept.txt")); err != nil {
		t.Errorf("an ordinary file the command wrote is gone: %v", err)
	}
}

// TestBashSandboxUnavailable forces the sandbox to be unavailable: with
// the ask fallback every command is asked, not run unasked; with deny it
// is refused.
func TestBashSandboxUnavailable(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	env := confinedEnv(t, filepath.Join(t.TempDir(), "no-such-codeloop"))
	rej := &confirmRejecter{}
	call, _ := newCall(t, "bash", dir, map[string]any{"command": "touch marker"})
	call.Asker = rej
	if _, err := toolByID(t, env, "bash").Run(context.Background(), call); err == nil {
		t.Fatal("the command ran without approval while the sandbox is unavailable")
	}
	if bash := rej.bash(); len(bash) != 1 || !bash[0].Confirm || !strings.Contains(bash[0].Metadata["sandbox"].(string), "sandbox unavailable") {
		t.Fatalf("requests %+v, want one asking for confirmation that says why", rej.asked)
	}
	if _, err := os.Stat(filepath.Join(dir, "marker")); !errors.Is(err, os.ErrNotExist) {
		t.Fatal("the command ran")
	}

	env.Sandbox.Fallback = SandboxFallbackDeny
	_, err := run(t, env, "bash", dir, map[string]any{"command": "touch marker"})
	if err == nil || !strings.Contains(err.Error(), "sandbox.fallback is deny") {
		t.Fatalf("with the deny fallback: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "marker")); !errors.Is(err, os.ErrNotExist) {
		t.Fatal("the command ran")
	}
}
