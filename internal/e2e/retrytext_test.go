package e2e

import (
	"encoding/json"
	"strings"
	"testing"
)

// retryTextScript streams part of an answer, loses the connection, and
// answers in full on the retry.
const retryTextScript = `
step
text The answer is forty
error retryable
step
text The answer is forty-two.
finish stop
`

// TestRunRetriedTextOnce checks that text streamed before a dropped
// connection is not given twice: --format json prints only the retry's
// text, the default output says the partial text was cut and the answer
// follows, and the model is not sent the partial text back.
func TestRunRetriedTextOnce(t *testing.T) {
	p := newProject(t, retryTextScript, nil)
	out, stderr, code := p.run("run", "--format", "json", "what is the answer?")
	if code != 0 {
		t.Fatalf("run: exit %d\n%s", code, stderr)
	}
	var texts []string
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var ev struct {
			Type string `json:"type"`
			Part struct {
				Text string `json:"text"`
			} `json:"part"`
		}
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			t.Fatalf("bad line %q: %v", line, err)
		}
		if ev.Type == "text" {
			texts = append(texts, ev.Part.Text)
		}
	}
	if len(texts) != 1 || texts[0] != "The answer is forty-two." {
		t.Errorf("text events %q, want only the retry's answer", texts)
	}
	reqs := p.model.Requests()
	if n := len(reqs); n != 2 {
		t.Fatalf("%d model requests, want 2", n)
	}
	if strings.Contains(string(reqs[1].Body), "The answer is forty") {
		t.Errorf("the retry sent the discarded partial text back to the model:\n%s", reqs[1].Body)
	}

	p2 := newProject(t, retryTextScript, nil)
	out, stderr, code = p2.run("run", "what is the answer?")
	if code != 0 {
		t.Fatalf("run: exit %d\n%s", code, stderr)
	}
	if !strings.Contains(stderr, "the text above is incomplete") || !strings.HasSuffix(strings.TrimSpace(out), "The answer is forty-two.") {
		t.Errorf("default output:\nstdout %q\nstderr %q\nwant the cut marked on stderr and the full answer last", out, stderr)
	}
}
