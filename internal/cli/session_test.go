package cli

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codeloop/codeloop/internal/app"
	"github.com/codeloop/codeloop/internal/paths"
	"github.com/codeloop/codeloop/internal/session"
	"github.com/codeloop/codeloop/internal/tool"
)

// makeSessions stores n sessions of the project, oldest first, and
// returns their ids in that order.
func makeSessions(t *testing.T, project string, n int) []string {
	t.Helper()
	dirs, err := paths.Resolve(os.Getenv)
	if err != nil {
		t.Fatal(err)
	}
	a, err := app.Open(t.Context(), app.Options{Dir: project, Dirs: dirs, Getenv: os.Getenv,
		Log: slog.New(slog.DiscardHandler), Version: Version, NoMCP: true})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	var ids []string
	for i := range n {
		s, err := a.Sessions.Create(t.Context(), session.CreateInput{ProjectID: a.ProjectID, Directory: project,
			Title: fmt.Sprintf("session %d", i)})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, s.ID)
	}
	return ids
}

func TestSessionList(t *testing.T) {
	_, project := agentProject(t, `{}`)
	if code, out, errOut := runCLI(t, "", "session", "list", "--format", "json"); code != 0 || strings.TrimSpace(out) != "[]" {
		t.Fatalf("empty list: %d %q %q", code, out, errOut)
	}
	ids := makeSessions(t, project, 3)

	code, out, errOut := runCLI(t, "", "session", "list")
	if code != 0 {
		t.Fatalf("list: %d %q", code, errOut)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 4 || !strings.HasPrefix(lines[0], "ID") {
		t.Fatalf("table:\n%s", out)
	}
	for i, want := range []string{ids[2] + "  session 2", ids[1] + "  session 1", ids[0] + "  session 0"} {
		if !strings.HasPrefix(lines[i+1], want) {
			t.Errorf("row %d = %q, want it to start with %q (newest first)", i+1, lines[i+1], want)
		}
	}

	code, out, _ = runCLI(t, "", "session", "list", "-n", "2", "--format", "json")
	var got []session.Info
	if err := json.Unmarshal([]byte(out), &got); code != 0 || err != nil {
		t.Fatalf("json: %d %v\n%s", code, err, out)
	}
	if len(got) != 2 || got[0].ID != ids[2] || got[1].ID != ids[1] {
		t.Errorf("-n 2 listed %+v, want the two newest", got)
	}
	if code, _, errOut := runCLI(t, "", "session", "list", "--format", "yaml"); code != exitUsage || !strings.Contains(errOut, "table or json") {
		t.Errorf("--format yaml: %d %q", code, errOut)
	}
}

func TestSessionDelete(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp) // where the sandbox keeps a session's temporary directory
	_, project := agentProject(t, `{}`)
	ids := makeSessions(t, project, 2)
	var temps []string
	for _, id := range ids {
		dir := tool.SessionTempDir("", id)
		if err := os.MkdirAll(filepath.Join(dir, "cache"), 0o700); err != nil {
			t.Fatal(err)
		}
		temps = append(temps, dir)
	}

	// Without a terminal to ask on, nothing is deleted unless --yes.
	code, _, errOut := runCLI(t, "y\n", "session", "delete", ids[0])
	if code != exitUsage || !strings.Contains(errOut, "--yes") {
		t.Errorf("delete without --yes: %d %q", code, errOut)
	}
	if _, out, _ := runCLI(t, "", "session", "list"); !strings.Contains(out, ids[0]) {
		t.Fatalf("deleted without confirmation:\n%s", out)
	}
	if code, out, errOut := runCLI(t, "", "session", "delete", "--yes", ids[0]); code != 0 || !strings.Contains(out, "Deleted session "+ids[0]) {
		t.Errorf("delete --yes: %d %q %q", code, out, errOut)
	}
	_, out, _ := runCLI(t, "", "session", "list")
	if strings.Contains(out, ids[0]) || !strings.Contains(out, ids[1]) {
		t.Errorf("after delete:\n%s", out)
	}
	if code, _, errOut := runCLI(t, "", "session", "delete", "--yes", ids[0]); code != exitError || !strings.Contains(errOut, "does not exist") {
		t.Errorf("deleting again: %d %q", code, errOut)
	}
	if _, err := os.Stat(temps[0]); !os.IsNotExist(err) {
		t.Errorf("the deleted session's temporary directory %s is still there (%v)", temps[0], err)
	}
	if _, err := os.Stat(temps[1]); err != nil {
		t.Errorf("the kept session's temporary directory: %v", err)
	}
}
