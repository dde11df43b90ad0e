package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
)

// webProc is a codeloop web running on a project.
type webProc struct {
	url, token, login string
	mu                sync.Mutex
	lines             []string // its standard output after the login line
}

// web starts codeloop web --no-open and waits for its login link.
func (p *project) web(args ...string) *webProc {
	p.t.Helper()
	cmd := p.command(context.Background(), append([]string{"web", "--port", "0", "--no-open"}, args...)...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		p.t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		p.t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	p.t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(30 * time.Second):
			_ = cmd.Process.Kill()
		}
	})
	w := &webProc{}
	var state string
	lines := bufio.NewScanner(out)
	for lines.Scan() {
		line := lines.Text()
		if path, ok := strings.CutPrefix(line, "its token is in "); ok {
			state = path
		}
		if u, ok := strings.CutPrefix(line, "log in at "); ok {
			w.login = u
			break
		}
	}
	go func() {
		for lines.Scan() {
			w.mu.Lock()
			w.lines = append(w.lines, lines.Text())
			w.mu.Unlock()
		}
		_, _ = io.Copy(io.Discard, out)
	}()
	if w.login == "" || state == "" {
		<-exited
		p.t.Fatalf("codeloop web did not print a login link: %s", stderr.String())
	}
	var st struct{ URL, Token string }
	data, err := os.ReadFile(state)
	if err != nil || json.Unmarshal(data, &st) != nil {
		p.t.Fatalf("state file %s: %v %s", state, err, data)
	}
	w.url, w.token = st.URL, st.Token
	return w
}

// output returns what codeloop web printed after the login link.
func (w *webProc) output() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return strings.Join(w.lines, "\n")
}

// browser is a headless Chromium driven over the DevTools protocol.
type browser struct {
	t   *testing.T
	ctx context.Context
}

// newBrowser starts headless Chromium (Debian's chromium, which .ci/run
// installs) with a window of width×height. The test is skipped where
// there is none.
func newBrowser(t *testing.T, width, height int) *browser {
	t.Helper()
	var path string
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			path = p
			break
		}
	}
	if path == "" {
		t.Skip("no chromium to drive (apt-get install chromium)")
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path), chromedp.NoSandbox, chromedp.WindowSize(width, height),
		chromedp.Flag("disable-gpu", true), chromedp.Flag("hide-scrollbars", true),
		chromedp.UserDataDir(t.TempDir()))
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx)
	ctx, cancelTimeout := context.WithTimeout(ctx, 100*time.Second)
	t.Cleanup(func() { cancelTimeout(); cancel(); cancelAlloc() })
	b := &browser{t: t, ctx: ctx}
	b.do(chromedp.EmulateViewport(int64(width), int64(height)))
	return b
}

// tab opens another tab of the same browser (the same cookies).
func (b *browser) tab() *browser {
	ctx, cancel := chromedp.NewContext(b.ctx)
	b.t.Cleanup(cancel)
	nb := &browser{t: b.t, ctx: ctx}
	nb.do(chromedp.EmulateViewport(1280, 800))
	return nb
}

func (b *browser) do(actions ...chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	if err := chromedp.Do(b.ctx, actions...); err != nil {
		b.t.Fatalf("browser: %v", err)
	}
}

// eval returns the value of a JavaScript expression (awaited when it is
// a promise).
func eval[T any](b *browser, expr string) T {
	b.t.Helper()
	v, err := chromedp.Run(b.ctx, chromedp.Evaluate[T](expr, chromedp.EvalAwaitPromise))
	if err != nil {
		b.t.Fatalf("browser: evaluating %s: %v", expr, err)
	}
	return v
}

// wait waits until a JavaScript expression is true; what says what for.
func (b *browser) wait(what, expr string) {
	b.t.Helper()
	if _, err := chromedp.Run(b.ctx, chromedp.Poll[bool](expr, chromedp.WithPollingTimeout(45*time.Second))); err != nil {
		text, _ := chromedp.Run(b.ctx, chromedp.Evaluate[string](`'prompt: ' + JSON.stringify(document.getElementById('prompt').value) + ', completions: ' + document.getElementById('completions').hidden + ' ' + JSON.stringify(document.getElementById('completions').textContent) + '\n' + document.body.innerText.slice(-1500)`))
		b.t.Fatalf("waiting for %s (%s): %v\npage text:\n%s", what, expr, err, text)
	}
}

// waitText waits until the messages show text.
func (b *browser) waitText(text string) {
	b.t.Helper()
	b.wait(fmt.Sprintf("%q on the page", text), fmt.Sprintf(`document.getElementById('rows').textContent.includes(%q)`, text))
}

// typeIn focuses the prompt box and types text into it.
func (b *browser) typeIn(text string) {
	b.t.Helper()
	b.do(chromedp.SendKeys(chromedp.CSS("#prompt"), text))
}

// enter presses Enter, with Shift when shift is true.
func (b *browser) enter(shift bool) { b.t.Helper(); b.press("Enter", 13, "\r", shift) }

// press presses a key as one key press whose default action the page can
// prevent, as a keyboard's does.
func (b *browser) press(key string, code int64, text string, shift bool) {
	b.t.Helper()
	var mods int64
	if shift {
		mods = int64(chromedp.ModifierShift)
	}
	_, err := chromedp.Run(b.ctx, func(ctx context.Context, t *chromedp.Target) (struct{}, error) {
		for _, typ := range []input.DispatchKeyEventType{input.DispatchKeyEventTypeKeyDown, input.DispatchKeyEventTypeKeyUp} {
			p := input.DispatchKeyEventParams{Type: typ, Key: key, Code: key, WindowsVirtualKeyCode: code, NativeVirtualKeyCode: code, Modifiers: mods}
			if typ == input.DispatchKeyEventTypeKeyDown {
				p.Text, p.UnmodifiedText = text, text
			}
			if _, err := cdp.Call(ctx, t, input.DispatchKeyEvent, p); err != nil {
				return struct{}{}, err
			}
		}
		return struct{}{}, nil
	})
	if err != nil {
		b.t.Fatalf("browser: %s: %v", key, err)
	}
}

// send types text into the prompt box and presses Enter.
func (b *browser) send(text string) {
	b.t.Helper()
	b.typeIn(text)
	b.enter(false)
}

// cookies returns the browser's cookies for url.
func (b *browser) cookies(url string) []*network.Cookie {
	b.t.Helper()
	got, err := chromedp.Run(b.ctx, func(ctx context.Context, t *chromedp.Target) ([]*network.Cookie, error) {
		res, err := cdp.Call(ctx, t, network.GetCookies, network.GetCookiesParams{URLs: []string{url}})
		return res.Cookies, err
	})
	if err != nil {
		b.t.Fatalf("browser: cookies: %v", err)
	}
	return got
}

// artefacts is where screenshots go: $CODELOOP_WEB_ARTIFACTS, else a
// directory of the test's own.
func artefacts(t *testing.T) string {
	dir := os.Getenv("CODELOOP_WEB_ARTIFACTS")
	if dir == "" {
		return t.TempDir()
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// shoot saves screenshots of the page at the desktop and phone sizes as
// name-1280x800.png and name-390x844.png, and returns to the desktop size.
func (b *browser) shoot(dir, name string) {
	b.t.Helper()
	for _, size := range [][2]int64{{390, 844}, {1280, 800}} {
		b.do(chromedp.EmulateViewport(size[0], size[1]))
		// Two frames for the layout to follow the new size.
		eval[bool](b, `new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => r(true))))`)
		png, err := chromedp.Run(b.ctx, chromedp.CaptureScreenshot())
		if err != nil {
			b.t.Fatalf("screenshot: %v", err)
		}
		file := filepath.Join(dir, fmt.Sprintf("%s-%dx%d.png", name, size[0], size[1]))
		if err := os.WriteFile(file, png, 0o644); err != nil {
			b.t.Fatal(err)
		}
	}
}
