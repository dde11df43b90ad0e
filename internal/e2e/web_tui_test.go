package e2e

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

const webTUIScript = `
step
text Seen from the page.
finish stop input=900 output=5
step
text Seen from the terminal.
finish stop input=1000 output=5
step
call call_1 bash {"command":"echo both > both.txt","description":"write both.txt"}
finish tool-calls input=1100 output=10
step
text Both clients saw it.
finish stop input=1200 output=5
`

// TestWebAndTUIOneSession: the page and the terminal interface attached
// to one server follow one session together. A prompt sent from either
// shows in both; a command the terminal's prompt asks for is allowed in
// the page, and the terminal's dialog closes as the command runs.
func TestWebAndTUIOneSession(t *testing.T) {
	tm := newTmux(t)
	p := newProject(t, webTUIScript, nil)
	p.writeConfig(`{"permission": {"bash": "ask"}}`)
	w := p.web()
	b := newBrowser(t, 1280, 800)
	b.do(chromedp.Navigate(w.login))
	b.wait("the logged-in page", `!document.getElementById('app').hidden`)
	// Sent at once, before the page's event stream may be up: the answer
	// must show all the same.

	b.send("hello from the page")
	b.waitText("Seen from the page.")
	hash := eval[string](b, `location.hash`)
	sid, ok := strings.CutPrefix(hash, "#/s/")
	if !ok || sid == "" {
		t.Fatalf("the page's address names no session: %q", hash)
	}

	// The terminal opens the same session and shows what the page sent.
	status := filepath.Join(t.TempDir(), "status")
	tm.start("t", p.dir, p.commandLine(status, "attach", w.url, "--token", w.token, "--session", sid), 100, 30)
	tm.waitFor("t", "hello from the page", "Seen from the page.")

	// What the terminal sends shows in the page.
	tm.typeText("t", "hello from the terminal")
	tm.keys("t", "Enter")
	tm.waitFor("t", "Seen from the terminal.")
	b.waitText("Seen from the terminal.")
	b.wait("the terminal's message in the page", `[...document.querySelectorAll('.user-text')].some((e) => e.textContent === 'hello from the terminal')`)

	// A command asked for by the terminal's prompt, allowed in the page.
	tm.typeText("t", "write both files")
	tm.keys("t", "Enter")
	tm.waitFor("t", "Permission needed: bash", "Allow once")
	b.wait("the permission dialog in the page", `document.getElementById('permission').open && document.getElementById('perm-patterns').textContent.includes('echo both > both.txt')`)
	b.do(chromedp.Click(chromedp.CSS("#perm-once")))
	b.waitText("Both clients saw it.")
	scr := tm.waitFor("t", "Both clients saw it.")
	if strings.Contains(scr, "Allow once") {
		t.Errorf("the terminal still shows the answered permission dialog:\n%s", scr)
	}
	waitContent(t, filepath.Join(p.dir, "both.txt"), "both\n")
}
