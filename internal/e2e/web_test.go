package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

const webScript = `
step
text Hello from the fake model. Here is **bold** text and code:\n\n` + "```go" + `\nfunc main() { fmt.Println("hi") }\n` + "```" + `\n
finish stop input=900 output=12
step
call call_1 bash {"command":"echo made > made.txt","description":"make a file"}
finish tool-calls input=1000 output=10
step
text Made it.
finish stop input=1100 output=5
step
call call_2 bash {"command":"rm a.txt","description":"remove a.txt"}
finish tool-calls input=1200 output=10
step
text I kept a.txt.
finish stop input=1300 output=5
step
call call_q question {"questions":[{"question":"Which colour?","header":"Colour","options":[{"label":"Red","description":"warm"},{"label":"Blue","description":"cool"}]}]}
finish tool-calls input=1350 output=10
step
text Blue it is.
finish stop input=1360 output=5
step
call call_3 edit {"filePath":"a.txt","oldString":"hello","newString":"goodbye"}
finish tool-calls input=1400 output=30
step
text Edited.
finish stop input=1500 output=5
step
text The other tab sees this.
finish stop input=1600 output=5
step
text Half an answer
hang
`

// TestWebSession drives the page in headless Chromium: log in with the
// printed link, prompt and see the streamed answer, allow a command and
// reject another with a message, see an edit as a diff and undo it,
// follow the session from a second tab, complete commands and files, and
// stop an answer.
func TestWebSession(t *testing.T) {
	p := newProject(t, webScript, map[string]string{"a.txt": "hello world\n"})
	p.writeConfig(`{"permission": {"bash": "ask", "edit": "allow"}}`)
	w := p.web()
	if !strings.HasPrefix(w.login, w.url+"/web/login?code=") {
		t.Fatalf("login link %q is not on %s", w.login, w.url)
	}
	shots := artefacts(t)
	b := newBrowser(t, 1280, 800)

	// The page without the login shows how to get in.
	b.do(chromedp.Navigate(w.url + "/web/"))
	b.wait("the login help", `!document.getElementById('gate').hidden && document.getElementById('app').hidden`)

	// The printed link logs in and leads to the clean URL.
	b.do(chromedp.Navigate(w.login))
	b.wait("the logged-in page", `location.href === `+jsString(w.url+"/web/")+` && !document.getElementById('app').hidden`)
	var found bool
	for _, c := range b.cookies(w.url + "/web/") {
		if c.Name == "codeloop_web" {
			found = true
			if !c.HTTPOnly || c.SameSite != "Strict" || c.Path != "/web/" {
				t.Errorf("cookie: HttpOnly %v, SameSite %q, Path %q; want true, Strict, /web/", c.HTTPOnly, c.SameSite, c.Path)
			}
		}
	}
	if !found {
		t.Fatal("the login set no codeloop_web cookie")
	}
	if got := eval[string](b, `document.cookie`); got != "" {
		t.Errorf("the page's script can read cookies: %q", got)
	}
	b.wait("the next login link", `true`)
	if out := w.output(); !strings.Contains(out, "the next one: "+w.url+"/web/login?code=") {
		t.Errorf("codeloop web did not print the next login link: %q", out)
	}

	// Pickers.
	b.wait("the model picker", `[...document.querySelectorAll('#model option')].some((o) => o.value === 'fake/model')`)
	b.wait("the agent picker", `[...document.querySelectorAll('#agent option')].some((o) => o.value === 'build')`)

	// A prompt over two lines (Shift+Enter), sent with Enter.
	b.typeIn("say hello")
	b.enter(true)
	b.send("please")
	b.wait("the user's message", `[...document.querySelectorAll('.user-text')].some((e) => e.textContent === 'say hello\nplease')`)
	b.waitText("Hello from the fake model.")
	b.wait("Markdown and highlighted code", `document.querySelector('.md strong')?.textContent === 'bold' && document.querySelector('pre.code .tok-kw')?.textContent === 'func'`)
	b.wait("the session in the list", `document.querySelectorAll('#sessions a').length === 1`)
	b.wait("the generated title in the list and the header", `document.querySelector('#sessions .s-title').textContent === 'Greeting change' && document.getElementById('title').textContent === 'Greeting change'`)
	b.wait("the context and cost figures", `/tokens/.test(document.getElementById('figures').textContent)`)
	b.shoot(shots, "session")

	// Allow a command with the dialog's button; it runs.
	b.send("make a file")
	b.wait("the permission dialog", `document.getElementById('permission').open && document.getElementById('perm-patterns').textContent.includes('echo made > made.txt')`)
	b.shoot(shots, "permission")
	b.do(chromedp.Click(chromedp.CSS("#perm-once")))
	b.waitText("Made it.")
	b.wait("the command's call summarised by its command", `[...document.querySelectorAll('.tool-line')].some((e) => e.textContent === 'echo made > made.txt')`)
	if got := p.read("made.txt"); got != "made\n" {
		t.Errorf("made.txt = %q after Allow", got)
	}

	// Reject another with a message; the model reads it.
	b.send("remove a.txt")
	b.wait("the second permission dialog", `document.getElementById('permission').open && document.getElementById('perm-patterns').textContent.includes('rm a.txt')`)
	b.do(chromedp.SendKeys(chromedp.CSS("#perm-message"), "keep a.txt, it is needed"), chromedp.Click(chromedp.CSS("#perm-reject")))
	b.waitText("I kept a.txt.")
	if _, err := os.Stat(filepath.Join(p.dir, "a.txt")); err != nil {
		t.Errorf("a.txt is gone after Reject: %v", err)
	}
	if reqs := p.model.Requests(); !strings.Contains(string(reqs[len(reqs)-1].Body), "keep a.txt, it is needed") {
		t.Errorf("the model was not told the rejection's message: %s", reqs[len(reqs)-1].Body)
	}

	// A question: pick an answer in the dialog; the model reads it.
	b.send("ask me a colour")
	b.wait("the question dialog", `document.getElementById('question').open && document.getElementById('q-body').textContent.includes('Which colour?')`)
	b.do(chromedp.Click(chromedp.CSS(`#q-body input[value="Blue"]`)), chromedp.Click(chromedp.CSS("#q-send")))
	b.waitText("Blue it is.")
	if reqs := p.model.Requests(); !strings.Contains(string(reqs[len(reqs)-1].Body), "Blue") {
		t.Errorf("the model was not told the answer: %s", reqs[len(reqs)-1].Body)
	}

	// An edit shows as a diff; Undo restores the file, Redo the change.
	b.send("change hello to goodbye")
	b.waitText("Edited.")
	b.wait("the edit's diff", `[...document.querySelectorAll('.diff .tok-add')].some((e) => e.textContent.includes('goodbye'))`)
	if got := p.read("a.txt"); got != "goodbye world\n" {
		t.Fatalf("a.txt = %q after the edit", got)
	}
	b.shoot(shots, "diff")
	b.do(chromedp.Click(chromedp.CSS("#undo")))
	b.wait("the undone message back in the prompt box", `document.getElementById('prompt').value === 'change hello to goodbye' && !document.getElementById('revert-bar').hidden`)
	waitContent(t, filepath.Join(p.dir, "a.txt"), "hello world\n")
	b.do(chromedp.Click(chromedp.CSS("#redo")))
	b.wait("the redone messages", `document.getElementById('revert-bar').hidden`)
	b.waitText("Edited.")
	waitContent(t, filepath.Join(p.dir, "a.txt"), "goodbye world\n")
	eval[bool](b, `document.getElementById('prompt').value = ''; true`)

	// Completion: "/" lists commands, "@" files the session touched.
	b.typeIn("/un")
	b.wait("command completion", `!document.getElementById('completions').hidden && document.getElementById('completions').textContent.includes('/undo')`)
	b.press("Escape", 27, "", false)
	eval[bool](b, `document.getElementById('prompt').value = ''; true`)
	b.typeIn("look at @a.")
	b.wait("file completion", `!document.getElementById('completions').hidden && document.getElementById('completions').textContent.includes('a.txt')`)
	b.press("Tab", 9, "\t", false)
	b.wait("the completed file", `document.getElementById('prompt').value === 'look at @a.txt '`)
	eval[bool](b, `document.getElementById('prompt').value = ''; true`)

	// A second tab on the session follows what the first sends.
	hash := eval[string](b, `location.hash`)
	b2 := b.tab()
	b2.do(chromedp.Navigate(w.url + "/web/" + hash))
	b2.waitText("Edited.")
	b.send("tell the other tab")
	b2.waitText("The other tab sees this.")
	b2.wait("the other tab's user message", `[...document.querySelectorAll('.user-text')].some((e) => e.textContent === 'tell the other tab')`)

	// Stop an answer that does not end.
	b.send("never finish")
	b.wait("the Stop button", `!document.getElementById('abort').hidden`)
	b.waitText("Half an answer")
	b.do(chromedp.Click(chromedp.CSS("#abort")))
	b.wait("the end of the answer", `document.getElementById('abort').hidden && document.getElementById('status').textContent === ''`)
	b2.wait("the other tab idle", `document.getElementById('abort').hidden`)

	// Dark theme, phone layout with the session list opened.
	b.do(chromedp.Click(chromedp.CSS("#theme")), chromedp.Click(chromedp.CSS("#theme")))
	b.wait("the dark theme", `document.documentElement.dataset.theme === 'dark'`)
	b.shoot(shots, "dark")
	b.do(chromedp.EmulateViewport(390, 844))
	b.do(chromedp.Click(chromedp.CSS("#open-side")))
	b.wait("the session list on a phone", `document.body.classList.contains('side-open')`)
	b.shoot(shots, "sessions-dark")
	t.Logf("screenshots in %s", shots)
}

// waitContent waits until the file at path holds want.
func waitContent(t *testing.T, path, want string) {
	t.Helper()
	for i := 0; ; i++ {
		got, err := os.ReadFile(path)
		if err == nil && string(got) == want {
			return
		}
		if i == 600 {
			t.Fatalf("%s = %q (%v), want %q", path, got, err, want)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// jsString quotes s for JavaScript.
func jsString(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `'`, `\'`, "\n", `\n`)
	return "'" + r.Replace(s) + "'"
}
