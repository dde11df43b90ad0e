package e2e

import (
	"encoding/json"
	"testing"
)

// TestContinueLastUsed works in a session A, starts a session B, goes back
// to A, then checks that `session list` puts A first and that `run -c`
// continues A, the session used last, not B, the one created last.
func TestContinueLastUsed(t *testing.T) {
	p := newProject(t, `
step
text In A.
finish stop
step
text In B.
finish stop
step
text Back in A.
finish stop
step
text Continued.
finish stop
`, nil)
	list := func() []string {
		t.Helper()
		out, stderr, code := p.run("session", "list", "--format", "json")
		if code != 0 {
			t.Fatalf("session list: exit %d\n%s", code, stderr)
		}
		var infos []struct {
			ID string `json:"id"`
		}
		if err := json.Unmarshal([]byte(out), &infos); err != nil {
			t.Fatalf("session list: %v\n%s", err, out)
		}
		var ids []string
		for _, s := range infos {
			ids = append(ids, s.ID)
		}
		return ids
	}
	if _, stderr, code := p.run("run", "work in a"); code != 0 {
		t.Fatalf("run: exit %d\n%s", code, stderr)
	}
	a := list()[0]
	if _, stderr, code := p.run("run", "work in b"); code != 0 {
		t.Fatalf("run: exit %d\n%s", code, stderr)
	}
	b := list()[0]
	if a == b {
		t.Fatalf("the second run did not make a new session")
	}
	if _, stderr, code := p.run("run", "-s", a, "back to a"); code != 0 {
		t.Fatalf("run -s: exit %d\n%s", code, stderr)
	}
	if got := list(); len(got) != 2 || got[0] != a || got[1] != b {
		t.Errorf("session list %v, want A %s then B %s", got, a, b)
	}
	if _, stderr, code := p.run("run", "-c", "go on"); code != 0 {
		t.Fatalf("run -c: exit %d\n%s", code, stderr)
	}
	users := 0
	for _, m := range p.exportSession(a).Messages {
		if m.Info.Role == "user" {
			users++
		}
	}
	if users != 3 {
		t.Errorf("session A has %d user messages, want 3: run -c went elsewhere", users)
	}
}
