package cli

import (
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/codeloop/codeloop/internal/app"
	"github.com/codeloop/codeloop/internal/paths"
	"github.com/codeloop/codeloop/internal/store"
)

// TestStoreCommandsOpenOnlyTheStore runs the commands that only read and
// write stored sessions and approvals. They must not start what a prompt
// needs (the model catalog fetch is the visible part of it), and only a
// command that adds to the project records it.
func TestStoreCommandsOpenOnlyTheStore(t *testing.T) {
	_, project := agentProject(t, `{}`)
	ids := makeSessions(t, project, 2)
	code, exported, errOut := runCLI(t, "", "export", ids[0])
	if code != 0 {
		t.Fatalf("export: %d %s", code, errOut)
	}
	exportFile := filepath.Join(t.TempDir(), "export.json")
	if err := os.WriteFile(exportFile, []byte(exported), 0o644); err != nil {
		t.Fatal(err)
	}

	// From here on the catalog is stale and may be fetched.
	var fetches atomic.Int32
	catalog := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		fetches.Add(1)
		http.Error(w, "no catalog here", http.StatusServiceUnavailable)
	}))
	defer catalog.Close()
	t.Setenv("CODELOOP_DISABLE_MODELS_FETCH", "")
	t.Setenv("CODELOOP_MODELS_URL", catalog.URL+"/api.json")

	// A second project, never opened before.
	other := filepath.Join(filepath.Dir(project), "other")
	if err := os.MkdirAll(filepath.Join(other, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(other, ".git", "HEAD"), []byte("ref: refs/heads/main\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		dir    string
		args   []string
		stdout string
	}{
		{project, []string{"session", "list"}, ids[1]},
		{project, []string{"session", "list", "--format", "json"}, ids[0]},
		{project, []string{"export"}, ids[1]},
		{project, []string{"export", ids[0]}, ids[0]},
		{project, []string{"permissions", "list"}, "No saved approvals"},
		{project, []string{"permissions", "reset", "--yes"}, "No saved approvals to remove"},
		{project, []string{"session", "delete", "--yes", ids[0]}, "Deleted session " + ids[0]},
		{other, []string{"session", "list", "--format", "json"}, "[]"},
		{other, []string{"permissions", "list", "--project"}, "No saved approvals"},
	}
	for _, tt := range tests {
		t.Chdir(tt.dir)
		before := fetches.Load()
		code, out, errOut := runCLI(t, "", tt.args...)
		if code != 0 || !strings.Contains(out, tt.stdout) {
			t.Errorf("%v in %s: exit %d, stdout %q lacks %q; stderr %s", tt.args, filepath.Base(tt.dir), code, out, tt.stdout, errOut)
		}
		if n := fetches.Load() - before; n != 0 {
			t.Errorf("%v fetched the model catalog (%d requests)", tt.args, n)
		}
	}

	// Reading left the new project unrecorded; importing into it records it.
	if _, err := storedProject(t, other); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("reading commands recorded the project: %v", err)
	}
	code, out, errOut := runCLI(t, "", "import", exportFile)
	if code != 0 || !strings.Contains(out, "Imported session "+ids[0]) {
		t.Fatalf("import: %d %q %s", code, out, errOut)
	}
	if p, err := storedProject(t, other); err != nil || p.Worktree != other {
		t.Errorf("after import the project is %+v (%v), want it recorded", p, err)
	}
	if n := fetches.Load(); n != 0 {
		t.Errorf("the commands fetched the model catalog %d times", n)
	}
}

// storedProject returns the store's row of the project of dir.
func storedProject(t *testing.T, dir string) (store.Project, error) {
	t.Helper()
	dirs, err := paths.Resolve(os.Getenv)
	if err != nil {
		t.Fatal(err)
	}
	d, err := app.OpenData(t.Context(), app.Options{Dir: dir, Dirs: dirs, Getenv: os.Getenv,
		Log: slog.New(slog.DiscardHandler), Version: Version})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	return d.Store.GetProject(t.Context(), d.ProjectID)
}
