package e2e

import "testing"

// TestRunOverflowLeavesNoEmptyMessage makes the model refuse a request as
// too large before answering anything: the session is compacted and the
// prompt answered, and no empty assistant message stays in the transcript.
func TestRunOverflowLeavesNoEmptyMessage(t *testing.T) {
	script := `
step
text Looking.
finish stop input=100 output=5
step
error overflow This model's maximum context length is 1000 tokens.
step
text SUMMARY: the user asked about the project.
finish stop input=120 output=10
step
text Continued.
finish stop
`
	p := newProject(t, script, nil)
	if _, stderr, code := p.run("run", "describe the project"); code != 0 {
		t.Fatalf("first run: exit %d\n%s", code, stderr)
	}
	out, stderr, code := p.run("run", "-c", "more")
	if code != 0 || out != "Continued.\n" {
		t.Fatalf("second run: exit %d, stdout %q\n%s", code, out, stderr)
	}
	for _, m := range p.exportSession("").Messages {
		if m.Info.Role != "assistant" {
			continue
		}
		content := 0
		for _, pt := range m.Parts {
			if pt.Type != "step-start" && pt.Type != "step-finish" {
				content++
			}
		}
		if content == 0 {
			t.Errorf("assistant message %s has no content: %+v", m.Info.ID, m.Parts)
		}
	}
}
