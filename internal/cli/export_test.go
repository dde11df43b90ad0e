package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestImport(t *testing.T) {
	_, project := agentProject(t, `{}`)
	ids := makeSessions(t, project, 1)
	code, exported, errOut := runCLI(t, "", "export", ids[0])
	if code != 0 {
		t.Fatalf("export: %d %s", code, errOut)
	}
	if code, _, errOut := runCLI(t, "", "session", "delete", "--yes", ids[0]); code != 0 {
		t.Fatalf("delete: %d %s", code, errOut)
	}

	dir := t.TempDir()
	tests := []struct {
		name, file string
		code       int
		why        string // the reason given, for a file that is not an export
	}{
		{name: "package.json", file: `{"name": "app", "version": "1.0.0"}`, code: exitError, why: `it has no "info" field`},
		{name: "array", file: `[{"info": {}}]`, code: exitError, why: "it is not a JSON object"},
		{name: "text", file: "# Notes\nnot JSON at all\n", code: exitError, why: "it is not JSON"},
		{name: "messages only", file: `{"messages": []}`, code: exitError, why: `it has no "info" field`},
		{name: "no session id", file: `{"info": {"title": "x"}, "messages": []}`, code: exitError, why: `info.id "" is not a session id`},
		{name: "other id", file: `{"info": {"id": "msg_1"}, "messages": []}`, code: exitError, why: `info.id "msg_1" is not a session id`},
		{name: "messages not a list", file: `{"info": {"id": "` + ids[0] + `"}, "messages": {}}`, code: exitError, why: "cannot unmarshal"},
		{name: "export", file: exported, code: exitOK},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := filepath.Join(dir, strings.ReplaceAll(tt.name, " ", "-"))
			if err := os.WriteFile(p, []byte(tt.file), 0o644); err != nil {
				t.Fatal(err)
			}
			code, out, errOut := runCLI(t, "", "import", p)
			if code != tt.code {
				t.Fatalf("exit %d, want %d\nstdout %s\nstderr %s", code, tt.code, out, errOut)
			}
			if tt.code == exitOK {
				if !strings.Contains(out, "Imported session "+ids[0]) {
					t.Errorf("stdout %q", out)
				}
				return
			}
			for _, want := range []string{p + " is not a codeloop or OpenCode session export", tt.why, `"codeloop export"`, `{"info": {"id": "ses_…"`} {
				if !strings.Contains(errOut, want) {
					t.Errorf("stderr %q lacks %q", errOut, want)
				}
			}
		})
	}
	// Only the export was imported.
	if code, out, _ := runCLI(t, "", "session", "list", "--format", "json"); code != 0 || strings.Count(out, `"id"`) != 1 {
		t.Errorf("sessions after the imports: %s", out)
	}
}

// TestImportExisting imports a session that is still stored, from
// standard input: the stored one is kept and the import becomes a new
// session, unless --replace is given.
func TestImportExisting(t *testing.T) {
	_, project := agentProject(t, `{}`)
	ids := makeSessions(t, project, 1)
	code, exported, errOut := runCLI(t, "", "export", ids[0])
	if code != 0 {
		t.Fatalf("export: %d %s", code, errOut)
	}
	code, out, errOut := runCLI(t, exported, "import", "-")
	if code != 0 {
		t.Fatalf("import -: %d %s", code, errOut)
	}
	if !strings.Contains(errOut, "Session "+ids[0]+" already exists and was kept") || strings.Contains(out, "Imported session "+ids[0]) {
		t.Errorf("import of a stored session: stdout %q stderr %q", out, errOut)
	}
	if code, out, _ := runCLI(t, "", "session", "list", "--format", "json"); code != 0 || strings.Count(out, `"id"`) != 2 {
		t.Errorf("want the stored session and the import listed:\n%s", out)
	}
	code, out, errOut = runCLI(t, exported, "import", "--replace", "-")
	if code != 0 || !strings.Contains(out, "Imported session "+ids[0]) || strings.Contains(errOut, "already exists") {
		t.Errorf("import --replace: %d stdout %q stderr %q", code, out, errOut)
	}
}
