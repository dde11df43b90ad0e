package e2e

import (
	"strings"
	"testing"
)

// TestRunCompactionIsNotTheAnswer compacts a session with run: the
// summary the model writes is its notes for itself, not an answer, so it
// must not appear on standard output; standard error says what happened.
func TestRunCompactionIsNotTheAnswer(t *testing.T) {
	p := newProject(t, `
step
text Hello there.
finish stop input=10 output=2
step
text SUMMARY-NOTES the user greeted me and I answered.
finish stop input=20 output=8
`, nil)
	if _, stderr, code := p.run("run", "say hello"); code != 0 {
		t.Fatalf("first run: %d %s", code, stderr)
	}
	stdout, stderr, code := p.run("run", "-c", "--command", "compact")
	if code != 0 {
		t.Fatalf("compact: exit %d\n%s\n%s", code, stdout, stderr)
	}
	if strings.Contains(stdout, "SUMMARY-NOTES") {
		t.Errorf("the compaction summary was printed as the answer:\n%s", stdout)
	}
	if !strings.Contains(stderr, "compacting the conversation") {
		t.Errorf("stderr does not say the conversation was compacted:\n%s", stderr)
	}
}
