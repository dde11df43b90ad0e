package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestStatsPruneAndDebugStore runs two prompts (one calls a tool), then
// checks codeloop stats adds them up, codeloop debug store counts them,
// and codeloop session prune deletes only sessions older than asked.
func TestStatsPruneAndDebugStore(t *testing.T) {
	p := newProject(t, `
step
call call_1 read {"filePath":"notes.txt"}
finish tool-calls input=1000 output=20
step
text Read it.
finish stop input=1200 output=10
step
text A second answer.
finish stop input=300 output=5
step
text A third answer.
finish stop input=300 output=5
`, map[string]string{"notes.txt": "some notes\n"})
	for _, prompt := range []string{"read notes.txt", "and again"} {
		if out, errb, code := p.run("run", "--auto", prompt); code != 0 {
			t.Fatalf("run %q: exit %d\n%s\n%s", prompt, code, out, errb)
		}
	}

	out, errb, code := p.run("stats", "--format", "json")
	if code != 0 {
		t.Fatalf("stats: exit %d\n%s", code, errb)
	}
	var st struct {
		Sessions int64
		Messages int64
		Total    struct{ Messages, Input, Output int64 }
		ByModel  []struct{ Key string }
		ByDay    []struct{ Key string }
		Tools    []struct {
			Tool  string
			Calls int64
		}
	}
	if err := json.Unmarshal([]byte(out), &st); err != nil {
		t.Fatalf("stats output: %v\n%s", err, out)
	}
	if st.Sessions != 2 || st.Messages != 5 || st.Total.Messages != 3 || st.Total.Input != 2500 || st.Total.Output != 35 {
		t.Errorf("stats = %+v; want 2 sessions, 5 messages, 3 answers of 2500 input and 35 output tokens", st)
	}
	if len(st.Tools) != 1 || st.Tools[0].Tool != "read" || st.Tools[0].Calls != 1 {
		t.Errorf("tools = %+v, want read once", st.Tools)
	}
	if len(st.ByModel) != 1 || st.ByModel[0].Key != "fake/model" || len(st.ByDay) != 1 {
		t.Errorf("by model %+v, by day %+v", st.ByModel, st.ByDay)
	}
	if out, _, code := p.run("stats"); code != 0 || !strings.Contains(out, "fake/model") || !strings.Contains(out, "read") {
		t.Errorf("stats table (exit %d):\n%s", code, out)
	}
	if _, errb, code := p.run("stats", "--all", "--project", p.dir); code != 2 {
		t.Errorf("stats --all --project: exit %d, want 2\n%s", code, errb)
	}

	out, errb, code = p.run("debug", "store")
	if code != 0 || !strings.Contains(out, "sessions") || !strings.Contains(out, "reclaimable") {
		t.Fatalf("debug store: exit %d\n%s\n%s", code, out, errb)
	}

	if _, errb, code := p.run("session", "prune", "--older-than", "30x"); code != 2 || !strings.Contains(errb, "30d") {
		t.Errorf("prune with a bad age: exit %d\n%s", code, errb)
	}
	if out, _, code := p.run("session", "prune", "--older-than", "1d"); code != 0 || !strings.Contains(out, "Deleted 0 sessions") {
		t.Errorf("prune of nothing old: exit %d\n%s", code, out)
	}
	if out, _, _ := p.run("session", "list", "--format", "json"); strings.Count(out, `"id": "ses_`) != 2 {
		t.Fatalf("sessions after a prune of nothing:\n%s", out)
	}
	// Make the older session look two months old, through an export and
	// an import that replaces it.
	out, errb, code = p.run("export")
	if code != 0 {
		t.Fatalf("export: exit %d\n%s", code, errb)
	}
	var exp map[string]any
	if err := json.Unmarshal([]byte(out), &exp); err != nil {
		t.Fatal(err)
	}
	info := exp["info"].(map[string]any)
	oldID := info["id"].(string)
	info["time"] = map[string]any{"created": 1_600_000_000_000, "updated": 1_600_000_000_000}
	data, _ := json.Marshal(exp)
	file := filepath.Join(t.TempDir(), "old.json")
	if err := os.WriteFile(file, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, errb, code := p.run("import", "--replace", file); code != 0 {
		t.Fatalf("import: exit %d\n%s", code, errb)
	}
	if out, _, code := p.run("session", "prune", "--older-than", "30d", "--dry-run"); code != 0 || !strings.Contains(out, "would delete "+oldID) || !strings.Contains(out, "1 sessions") {
		t.Fatalf("dry run: exit %d\n%s", code, out)
	}
	if out, _, code := p.run("session", "prune", "--older-than", "30d"); code != 0 || !strings.Contains(out, "Deleted 1 sessions") {
		t.Fatalf("prune: exit %d\n%s", code, out)
	}
	out, _, _ = p.run("session", "list", "--format", "json")
	if strings.Count(out, `"id": "ses_`) != 1 || strings.Contains(out, oldID) {
		t.Fatalf("sessions after the prune:\n%s", out)
	}
	if out, _, _ := p.run("stats", "--format", "json"); !strings.Contains(out, `"sessions": 1`) {
		t.Errorf("stats after the prune:\n%s", out)
	}

	// With a retention in the config, starting codeloop deletes it.
	if _, errb, code := p.run("import", file); code != 0 {
		t.Fatalf("import: exit %d\n%s", code, errb)
	}
	if err := os.WriteFile(filepath.Join(p.dir, "codeloop.json"), []byte(`{"retention": "30d"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	// A project's retention deletes sessions only once it is trusted.
	if out, _, _ := p.run("trust", "--check"); !strings.Contains(out, "retention: 30d") {
		t.Errorf("trust --check does not list the retention:\n%s", out)
	}
	writeFile(t, filepath.Join(p.home, ".config", "codeloop", "codeloop.json"), `{"retention": "30d"}`)
	if out, errb, code := p.run("run", "a third question"); code != 0 {
		t.Fatalf("run: exit %d\n%s\n%s", code, out, errb)
	}
	out, _, _ = p.run("session", "list", "--format", "json")
	if strings.Count(out, `"id": "ses_`) != 2 || strings.Contains(out, oldID) {
		t.Fatalf("sessions after a start with a retention of 30 days:\n%s", out)
	}
}
