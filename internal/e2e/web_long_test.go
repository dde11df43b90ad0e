package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/codeloop/codeloop/internal/id"
)

// longExport writes a session export of n messages, a question and an
// answer in turn, some answers with code or a tool call, and returns the
// file, the session's id and the first message's id.
func longExport(t *testing.T, n int) (file, session, first string) {
	t.Helper()
	session = id.Descending(id.Session)
	start := time.Now().Add(-time.Duration(n) * time.Second).UnixMilli()
	msgs := make([]map[string]any, 0, n)
	var parent string
	for i := range n {
		mid := id.Ascending(id.Message)
		if i == 0 {
			first = mid
		}
		created := start + int64(i)*1000
		part := func(kind string, extra map[string]any) map[string]any {
			p := map[string]any{"id": id.Ascending(id.Part), "sessionID": session, "messageID": mid, "type": kind}
			for k, v := range extra {
				p[k] = v
			}
			return p
		}
		if i%2 == 0 {
			parent = mid
			msgs = append(msgs, map[string]any{
				"info":  map[string]any{"id": mid, "sessionID": session, "role": "user", "time": map[string]any{"created": created}, "agent": "build"},
				"parts": []any{part("text", map[string]any{"text": fmt.Sprintf("Question %d: what does step %d do?", i/2, i/2)})},
			})
			continue
		}
		text := fmt.Sprintf("Answer %d. Step %d **adds** the numbers and returns `sum`.", i/2, i/2)
		if i%10 == 1 {
			text += "\n\n```go\nfunc sum(a, b int) int {\n\treturn a + b // the step\n}\n```"
		}
		parts := []any{part("text", map[string]any{"text": text})}
		if i%14 == 3 {
			parts = append(parts, part("tool", map[string]any{"callID": fmt.Sprintf("call_%d", i), "tool": "bash",
				"state": map[string]any{"status": "completed", "input": map[string]any{"command": "go test ./..."}, "output": "ok  \texample\t0.01s", "title": "go test ./...",
					"time": map[string]any{"start": created, "end": created + 10}}}))
		}
		msgs = append(msgs, map[string]any{
			"info": map[string]any{"id": mid, "sessionID": session, "role": "assistant", "parentID": parent, "agent": "build", "mode": "build",
				"modelID": "model", "providerID": "fake", "time": map[string]any{"created": created, "completed": created + 500},
				"tokens": map[string]any{"input": 1000 + i, "output": 50, "reasoning": 0, "cache": map[string]any{"read": 0, "write": 0}}, "cost": 0.0001, "finish": "stop"},
			"parts": parts,
		})
	}
	exp := map[string]any{
		"info":     map[string]any{"id": session, "title": fmt.Sprintf("A session of %d messages", n), "directory": "", "time": map[string]any{"created": start, "updated": start + int64(n)*1000}},
		"messages": msgs,
	}
	data, err := json.Marshal(exp)
	if err != nil {
		t.Fatal(err)
	}
	file = filepath.Join(t.TempDir(), "long.json")
	if err := os.WriteFile(file, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return file, session, first
}

// TestWebLongSession opens a session of 10,000 messages: the page draws
// only the rows in view, and scrolls to the first message. It reports the
// first paint and the longest frame of a scroll, which it does not assert
// (the machine's load decides them).
func TestWebLongSession(t *testing.T) {
	const n = 10000
	p := newProject(t, "", nil)
	file, session, first := longExport(t, n)
	p.mustRun("import", file)
	w := p.web()
	shots := artefacts(t)
	b := newBrowser(t, 1280, 800)
	b.do(chromedp.Navigate(w.login))
	b.wait("the logged-in page", `!document.getElementById('app').hidden`)

	b.do(chromedp.Navigate("about:blank"), chromedp.Navigate(w.url+"/web/#/s/"+session))
	b.wait("the last answer", `document.getElementById('rows').textContent.includes('Answer 4999.')`)
	b.wait("the first paint's mark", `performance.getEntriesByName('codeloop:first-paint').length > 0`)
	paint := eval[float64](b, `performance.getEntriesByName('codeloop:first-paint')[0].startTime`)
	b.wait("the whole history", fmt.Sprintf(`document.getElementById('rows').dataset.count === '%d'`, n))
	if rows := eval[int](b, `document.querySelectorAll('#rows > .vrow').length`); rows > 80 {
		t.Errorf("%d rows are in the document for %d messages; the list is not virtualised", rows, n)
	}
	b.shoot(shots, "long-end")

	// Scroll up for a while, one step a frame, and note the longest frame.
	frames := eval[map[string]float64](b, `new Promise((resolve) => {
		const s = document.getElementById('scroller');
		let last = performance.now(), worst = 0, count = 0, slow = 0;
		const step = () => {
			const now = performance.now();
			const d = now - last;
			last = now;
			if (count > 0) { worst = Math.max(worst, d); if (d > 34) slow++; }
			if (++count > 240) { resolve({worst, slow, frames: count - 1}); return; }
			s.scrollTop = Math.max(0, s.scrollTop - 700);
			requestAnimationFrame(step);
		};
		requestAnimationFrame(step);
	})`)
	b.wait("the first message", fmt.Sprintf(`(() => { document.getElementById('scroller').scrollTop = 0; return !!document.querySelector('[data-id=%q]'); })()`, first))
	b.waitText("Question 0: what does step 0 do?")
	if rows := eval[int](b, `document.querySelectorAll('#rows > .vrow').length`); rows > 80 {
		t.Errorf("%d rows are in the document at the start", rows)
	}
	b.shoot(shots, "long-start")
	report := fmt.Sprintf("first paint of a %d-message session: %.0f ms after navigation\nscrolling %v frames: longest %.1f ms, %v longer than 34 ms\n",
		n, paint, frames["frames"], frames["worst"], frames["slow"])
	t.Log(strings.TrimSpace(report))
	if err := os.WriteFile(filepath.Join(shots, "long-session.txt"), []byte(report), 0o644); err != nil {
		t.Fatal(err)
	}
}
