package cli

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/codeloop/codeloop/internal/app"
	"github.com/codeloop/codeloop/internal/bus"
	"github.com/codeloop/codeloop/internal/paths"
	"github.com/codeloop/codeloop/internal/permission"
	"github.com/codeloop/codeloop/internal/shellscan"
)

// approve answers a permission ask "always" with scope through the app's
// permission service, as the TUI would.
func approve(t *testing.T, a *app.App, session, cmd string, scope permission.Scope) {
	t.Helper()
	sub := a.Bus.Subscribe(bus.Filter{Types: []string{bus.PermissionAsked}}, 4)
	defer sub.Close()
	rules := permission.Ruleset{{Permission: "bash", Pattern: "*", Action: permission.Ask}}
	an := shellscan.AnalyzeBash(cmd)
	done := make(chan error, 1)
	go func() {
		done <- a.Permissions.Ask(t.Context(), rules, permission.Request{SessionID: session, Permission: "bash",
			Patterns: an.Patterns, Always: an.Always})
	}()
	select {
	case e := <-sub.C:
		if err := a.Permissions.Reply(t.Context(), e.Properties.(permission.Request).ID,
			permission.Reply{Kind: permission.ReplyAlways, Scope: scope}); err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("not asked")
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

func runCLI(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := Run(context.Background(), args, strings.NewReader(stdin), &out, &errOut)
	return code, out.String(), errOut.String()
}

func TestPermissionsListAndReset(t *testing.T) {
	_, project := agentProject(t, `{}`)
	code, out, errOut := runCLI(t, "", "permissions", "list")
	if code != 0 || !strings.Contains(out, "No saved approvals") {
		t.Fatalf("empty list: %d %q %q", code, out, errOut)
	}

	dirs, err := paths.Resolve(os.Getenv)
	if err != nil {
		t.Fatal(err)
	}
	a, err := app.Open(t.Context(), app.Options{Dir: project, Dirs: dirs, Getenv: os.Getenv,
		Log: slog.New(slog.DiscardHandler), Version: Version, NoMCP: true})
	if err != nil {
		t.Fatal(err)
	}
	approve(t, a, "ses_a", "git commit -m first", permission.ScopeProject)
	approve(t, a, "ses_a", "npm run dev", permission.ScopeGlobal)
	approve(t, a, "ses_a", "make build", permission.ScopeSession)
	projectID := a.ProjectID
	a.Close()

	code, out, errOut = runCLI(t, "", "permissions", "list")
	if code != 0 {
		t.Fatalf("list: %d %q", code, errOut)
	}
	for _, want := range []string{"SCOPE", "ORIGIN", "project", projectID + " (this project)", "git commit *",
		"global", "npm run dev *", "session", "ses_a", "make build *", "git commit -m first"} {
		if !strings.Contains(out, want) {
			t.Errorf("list lacks %q:\n%s", want, out)
		}
	}
	code, out, _ = runCLI(t, "", "permissions", "list", "--global", "--format", "json")
	if code != 0 || !strings.Contains(out, `"Pattern": "npm run dev *"`) || strings.Contains(out, "git commit") {
		t.Errorf("list --global --format json: %d\n%s", code, out)
	}

	// Removing needs a terminal or --yes; conflicting scopes are a usage error.
	if code, _, errOut := runCLI(t, "", "permissions", "reset", "--project"); code != exitUsage || !strings.Contains(errOut, "--yes") {
		t.Errorf("reset without a terminal: %d %q", code, errOut)
	}
	if code, _, _ := runCLI(t, "", "permissions", "reset", "--project", "--global", "--yes"); code != exitUsage {
		t.Errorf("reset with two scopes: %d", code)
	}
	code, out, _ = runCLI(t, "", "permissions", "reset", "--project", "--yes")
	if code != 0 || !strings.Contains(out, "Removed 1 saved approval.") {
		t.Errorf("reset --project: %d %q", code, out)
	}
	_, out, _ = runCLI(t, "", "permissions", "list")
	if strings.Contains(out, "git commit *") || !strings.Contains(out, "npm run dev *") {
		t.Errorf("after reset --project:\n%s", out)
	}
	code, out, _ = runCLI(t, "", "permissions", "reset", "--yes")
	if code != 0 || !strings.Contains(out, "Removed 2 saved approvals.") {
		t.Errorf("reset: %d %q", code, out)
	}
	if _, out, _ = runCLI(t, "", "permissions", "list"); !strings.Contains(out, "No saved approvals") {
		t.Errorf("after reset:\n%s", out)
	}
}
