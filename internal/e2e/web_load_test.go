package e2e

import (
	"context"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// The page loads a session in two reads (its latest messages, then all of
// them) while events keep coming; these tests hold the page's requests
// and events with a script run before its own, so that the loads and the
// events cross in a set order.

// loggedInWith starts a browser logged in to w whose pages run script
// before their own.
func loggedInWith(t *testing.T, w *webProc, script string) *browser {
	t.Helper()
	b := newBrowser(t, 1280, 800)
	b.do(chromedp.Navigate(w.login))
	b.wait("the logged-in page", `!document.getElementById('app').hidden`)
	b.do(chromedp.Navigate("about:blank"))
	b.onNewDocument(script)
	return b
}

// onNewDocument runs script before the page's own in each page the
// browser loads from now on.
func (b *browser) onNewDocument(script string) {
	b.t.Helper()
	b.do(chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := cdp.Call(ctx, t, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: script})
		return err
	}))
}

// slowRecent is a script run before the page's own: it holds the event
// stream's messages until the page has asked for a session's latest
// messages, and that answer until the stream's first message was handled.
// So the stream's connection lands while the first load is in flight.
const slowRecent = `(() => {
	let asked = false, connected = false;
	const until = (ok) => new Promise((r) => { const f = () => ok() ? r() : setTimeout(f, 10); f(); });
	const fetch0 = window.fetch;
	window.fetch = (url, init) => {
		if (!String(url).includes('limit=40')) return fetch0(url, init);
		asked = true;
		return until(() => connected).then(() => new Promise((r) => setTimeout(r, 300))).then(() => fetch0(url, init));
	};
	const ES = window.EventSource;
	window.EventSource = class extends ES {
		set onmessage(f) {
			let chain = until(() => asked);
			super.onmessage = (m) => { chain = chain.then(() => { f(m); connected = true; }); };
		}
	};
})()`

// TestWebFirstPaintRace opens a session while the event stream connects
// in the middle of the first load (which reloads the session on screen):
// the latest messages are still drawn first, before the whole history.
func TestWebFirstPaintRace(t *testing.T) {
	p := newProject(t, "", nil)
	file, session, _ := longExport(t, 400)
	p.mustRun("import", file)
	w := p.web()
	b := loggedInWith(t, w, slowRecent)
	b.do(chromedp.Navigate(w.url + "/web/#/s/" + session))
	b.wait("the whole history", `document.getElementById('rows').dataset.count === '400'`)
	b.wait("the first paint's mark", `performance.getEntriesByName('codeloop:first-paint').length > 0`)
	got := eval[[]string](b, `performance.getEntriesByType('resource').filter((e) => e.name.includes('/message')).map((e) => new URL(e.name).search)`)
	var recent int
	for _, q := range got {
		if strings.Contains(q, "limit=40") {
			recent++
		}
	}
	if recent < 2 {
		t.Errorf("the latest messages were asked for %d times, want twice (a first load and the one the stream's connection started): %q", recent, got)
	}
}

// raceLoads is a script run before the page's own. It holds the event
// stream until the page has asked for a session's latest messages; the
// prompt until the page has asked for them twice (the route's load and
// the one the stream's connection starts), or for 3 s; and the answers to
// those asks until the model's answer is on the page, or for 5 s. So the
// fetched pages are older than what events brought. window.lost becomes
// true if the answer, once drawn, leaves the page.
const raceLoads = `(() => {
	const answer = 'Hello from the fake model.';
	let asked = 0, shown = false;
	window.lost = false;
	setInterval(() => {
		const rows = document.getElementById('rows');
		const has = !!rows && rows.textContent.includes(answer);
		if (has) shown = true; else if (shown) window.lost = true;
	}, 5);
	const until = (ok, ms) => new Promise((r) => { const end = Date.now() + ms; const f = () => ok() || Date.now() > end ? r() : setTimeout(f, 10); f(); });
	const fetch0 = window.fetch;
	window.fetch = (url, init) => {
		const u = String(url);
		if (u.includes('limit=40')) {
			asked++;
			return fetch0(url, init).then((r) => until(() => shown, 5000).then(() => r));
		}
		if (u.includes('prompt_async')) return until(() => asked >= 2, 3000).then(() => fetch0(url, init));
		return fetch0(url, init);
	};
	const ES = window.EventSource;
	window.EventSource = class extends ES {
		set onmessage(f) {
			let chain = until(() => asked > 0, 60000);
			super.onmessage = (m) => { chain = chain.then(() => f(m)); };
		}
	};
})()`

// TestWebEventsDuringLoad sends the first prompt of a new session while
// the page's loads of it are in flight and older than the events that
// come meanwhile: the answer the events drew stays on the page.
func TestWebEventsDuringLoad(t *testing.T) {
	p := newProject(t, webScript, map[string]string{"a.txt": "hello world\n"})
	w := p.web()
	b := loggedInWith(t, w, raceLoads)
	b.do(chromedp.Navigate(w.url + "/web/"))
	b.wait("the model picker", `[...document.querySelectorAll('#model option')].some((o) => o.value === 'fake/model')`)
	b.send("say hello")
	b.waitText("Hello from the fake model.")
	b.wait("the context and cost figures", `/tokens/.test(document.getElementById('figures').textContent)`)
	b.wait("the loads' end", `document.getElementById('rows').dataset.count === '2'`)
	if eval[bool](b, `window.lost`) {
		t.Error("the answer left the page when a load that began before it ended")
	}
	b.waitText("Hello from the fake model.")
}
