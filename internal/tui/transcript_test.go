package tui

import (
	"fmt"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/codeloop/codeloop/internal/client"
)

// counted is an entry that counts how often the transcript renders it.
type counted struct {
	*textEntry
	calls *int
}

func (c counted) render(width int, th *theme, tag int) []string {
	*c.calls++
	return c.textEntry.render(width, th, tag)
}

// longTranscript returns a transcript of n three-line entries and the
// counter of their renders.
func longTranscript(n int) (*transcript, *int) {
	calls := 0
	tr := newTranscript()
	for i := range n {
		e := &textEntry{k: fmt.Sprintf("msg_%06d/", i)}
		e.set(fmt.Sprintf("entry %d\nsecond line\nthird line", i), false)
		tr.put(counted{textEntry: e, calls: &calls})
	}
	return tr, &calls
}

// TestTranscriptRendersWhatIsVisible: with 10,000 entries, a frame and a
// page of scrolling render only the entries on screen, wherever it is.
func TestTranscriptRendersWhatIsVisible(t *testing.T) {
	th := newTheme(true, true)
	tr, calls := longTranscript(10000)
	const w, h = 80, 20
	// Each entry takes four lines with its separator: five or six fill
	// the view, and the walk that finds the first line touches them too.
	const most = 2 * (h/4 + 2)

	view := tr.view(w, h, &th, 0)
	if *calls > most {
		t.Errorf("the first frame rendered %d entries, want at most %d", *calls, most)
	}
	if view[h-1] != "third line" || !strings.HasPrefix(view[h-3], "entry 9999") {
		t.Errorf("the bottom of the view: %q", view[h-4:])
	}
	for page := 0; page < 3000; page++ {
		*calls = 0
		tr.scroll(-(h - 2), w, h, &th, 0)
		tr.view(w, h, &th, 0)
		if *calls > 2*most {
			t.Fatalf("page %d rendered %d entries, want at most %d", page, *calls, 2*most)
		}
	}
	if got := tr.view(w, h, &th, 0); got[0] != "entry 0" {
		t.Errorf("paging up 3,000 times did not reach the top: %q", got[0])
	}
	for !tr.follow {
		tr.scroll(h-2, w, h, &th, 0)
	}
	if got := tr.view(w, h, &th, 0); got[h-1] != "third line" || !strings.HasPrefix(got[h-3], "entry 9999") {
		t.Errorf("paging down did not come back to the end: %q", got[h-4:])
	}
}

// TestTranscriptScrollStaysPut: an answer growing at the bottom does not
// move a view scrolled up, and new entries inserted before the view's
// first line keep it on the same line.
func TestTranscriptScrollStaysPut(t *testing.T) {
	th := newTheme(true, true)
	tr, _ := longTranscript(100)
	const w, h = 40, 10
	tr.scroll(-25, w, h, &th, 0)
	before := strings.Join(tr.view(w, h, &th, 0), "\n")
	last := tr.entries[len(tr.entries)-1].(counted)
	last.appendText("\nmore text streamed in")
	tr.put(&noteEntry{k: "msg_000000/~", text: "a note near the top"})
	after := strings.Join(tr.view(w, h, &th, 0), "\n")
	if before != after || tr.follow {
		t.Errorf("the view moved:\nbefore:\n%s\nafter:\n%s", before, after)
	}
}

// TestRenderCacheByWidth: a finished entry renders once per width and
// keeps two widths, so a resize back renders nothing again.
func TestRenderCacheByWidth(t *testing.T) {
	th := newTheme(true, true)
	e := &textEntry{k: "m/"}
	e.set(strings.Repeat("word ", 60), false)
	a := e.render(120, &th, 0)
	b := e.render(60, &th, 0)
	if len(a) >= len(b) {
		t.Fatalf("%d lines at 120 columns, %d at 60", len(a), len(b))
	}
	if again := e.render(120, &th, 0); &again[0] != &a[0] {
		t.Error("the render at 120 columns was not kept")
	}
	if again := e.render(60, &th, 0); &again[0] != &b[0] {
		t.Error("the render at 60 columns was not kept")
	}
	if again := e.render(120, &th, 1); &again[0] == &a[0] {
		t.Error("a theme change did not render again")
	}
}

// TestStreamRendersTheTail: a streaming text renders the same lines as
// the finished text, whatever the deltas.
func TestStreamRendersTheTail(t *testing.T) {
	th := newTheme(true, true)
	full := "The first paragraph is long enough to wrap at forty columns.\n\n- a list item\n- another one that is long enough to wrap too\n\n日本語の文章も折り返されます。これは長い文です。\nlast"
	for _, step := range []int{1, 3, 7, 50} {
		e := &textEntry{k: "m/"}
		e.set("", true)
		for i := 0; i < len(full); i += step {
			e.appendText(full[i:min(i+step, len(full))])
			e.render(40, &th, 0)
		}
		streamed := e.render(40, &th, 0)
		done := &textEntry{k: "m/"}
		done.set(full, false)
		if want := done.render(40, &th, 0); strings.Join(streamed, "\n") != strings.Join(want, "\n") {
			t.Errorf("deltas of %d bytes:\n%s\nwant:\n%s", step, strings.Join(streamed, "\n"), strings.Join(want, "\n"))
		}
	}
}

// benchSession returns a view of a session of n messages: questions and
// Markdown answers (a list, a code block), a tool call in every other
// answer and an edit's diff in every eighth.
func benchSession(b testing.TB, n int) *Model {
	m := testModel(b, 120, 40)
	m.Update(sessionMsg{sess: goldenSession(), msgs: benchMessages(n)})
	return m
}

func benchMessages(n int) []client.Message {
	msgs := make([]client.Message, 0, n)
	for i := 0; i < n; i += 2 {
		u := fmt.Sprintf("msg_%06d", i)
		msgs = append(msgs, userMsg(u, fmt.Sprintf("Question %d: why does the greeting in module %d repeat itself?", i, i)))
		answerText := fmt.Sprintf("Answer %d: the **loop** calls `greet` twice.\n\n- once before the flag check\n- once after it\n\n"+
			"```go\nfunc main() {\n\tgreet() // %d\n}\n```\n\nRemove the first call.", i, i)
		parts := []client.Part{text(answerText)}
		if i%4 == 0 {
			parts = append(parts, toolCall("c", "bash", `{"command":"go test ./..."}`, client.ToolCompleted, "ok  \texample.com/greet\t0.01s"))
		}
		if i%16 == 0 {
			parts = append(parts, withMeta(toolCall("e", "edit", `{"filePath":"greet.go","oldString":"\tgreet()\n\tgreet()","newString":"\tgreet() // once"}`, client.ToolCompleted, "Edit applied successfully."),
				map[string]any{"diff": greetDiff}))
		}
		msgs = append(msgs, answer(fmt.Sprintf("msg_%06d", i+1), u, 1000, parts...))
	}
	return msgs
}

// frameTimes records the time of each operation of a benchmark and
// reports their 50th and 95th percentiles.
type frameTimes struct {
	b     *testing.B
	times []time.Duration
	start time.Time
}

func newFrameTimes(b *testing.B) *frameTimes {
	return &frameTimes{b: b, times: make([]time.Duration, 0, 4096)}
}

func (f *frameTimes) begin() { f.start = time.Now() }
func (f *frameTimes) end()   { f.times = append(f.times, time.Since(f.start)) }

func (f *frameTimes) report() {
	if len(f.times) == 0 {
		return
	}
	slices.Sort(f.times)
	at := func(q float64) float64 {
		return float64(f.times[min(int(q*float64(len(f.times))), len(f.times)-1)]) / float64(time.Millisecond)
	}
	f.b.ReportMetric(at(0.50), "p50-ms")
	f.b.ReportMetric(at(0.95), "p95-ms")
}

// BenchmarkOpen10k opens a 10,000-message session and draws its first
// frame.
func BenchmarkOpen10k(b *testing.B) {
	msgs := benchMessages(10000)
	ft := newFrameTimes(b)
	for b.Loop() {
		ft.begin()
		m := testModel(b, 120, 40)
		m.Update(sessionMsg{sess: goldenSession(), msgs: msgs})
		m.View()
		ft.end()
	}
	ft.report()
}

// BenchmarkPageUp10k pages up and down through a 10,000-message session,
// a frame per page, rendering entries never drawn before on the way up.
func BenchmarkPageUp10k(b *testing.B) { benchPageUp(b, benchSession(b, 10000)) }

// BenchmarkPageUp100k is BenchmarkPageUp10k on 100,000 messages.
func BenchmarkPageUp100k(b *testing.B) { benchPageUp(b, benchSession(b, 100000)) }

// benchPageUp pages up and down through m's session, a frame per page.
func benchPageUp(b *testing.B, m *Model) {
	m.View()
	up, down := keyPress("pgup"), keyPress("pgdown")
	key := up
	ft := newFrameTimes(b)
	for b.Loop() {
		ft.begin()
		m.Update(key)
		m.View()
		ft.end()
		if m.tr.top.entry == 0 && !m.tr.follow {
			key = down
		} else if m.tr.follow {
			key = up
		}
	}
	ft.report()
}

// BenchmarkStreamDelta10k appends a streamed token at the bottom of a
// 10,000-message session and draws the frame; the answer grows as
// Markdown with a paragraph break every 40 tokens.
func BenchmarkStreamDelta10k(b *testing.B) { benchStreamDelta(b, benchSession(b, 10000)) }

// benchStreamDelta streams tokens at the bottom of m's session, a frame
// per token, with a paragraph break every 40.
func benchStreamDelta(b *testing.B, m *Model) {
	m.Update(eventsMsg{
		client.MessageUpdatedEvent{Info: client.MessageInfo{ID: "msg_999999", SessionID: sessID, Role: client.RoleAssistant}},
		client.PartUpdatedEvent{Part: client.Part{ID: "prt_s", SessionID: sessID, MessageID: "msg_999999", Type: client.PartText, Time: &client.PartTime{Start: 1}}},
	})
	delta := eventsMsg{client.PartDeltaEvent{SessionID: sessID, MessageID: "msg_999999", PartID: "prt_s", Field: "text", Delta: "token "}}
	para := eventsMsg{client.PartDeltaEvent{SessionID: sessID, MessageID: "msg_999999", PartID: "prt_s", Field: "text", Delta: "\n\nNext "}}
	i := 0
	ft := newFrameTimes(b)
	for b.Loop() {
		ft.begin()
		if i++; i%40 == 0 {
			m.Update(para)
		}
		m.Update(delta)
		m.View()
		ft.end()
	}
	ft.report()
}

// BenchmarkKeystrokeBigOutput types a key while a 50,000-line tool output
// is expanded on screen.
func BenchmarkKeystrokeBigOutput(b *testing.B) {
	m := testModel(b, 120, 40)
	var out strings.Builder
	for i := range 50000 {
		fmt.Fprintf(&out, "line %d of the build log\n", i)
	}
	m.Update(sessionMsg{sess: goldenSession(), msgs: []client.Message{
		userMsg("msg_01", "build it"),
		answer("msg_02", "msg_01", 1000, toolCall("c", "bash", `{"command":"make"}`, client.ToolCompleted, out.String())),
	}})
	m.Update(keyPress("ctrl+o"))
	m.View()
	// Type and erase, so the editor keeps the size of a message.
	keys := []tea.KeyPressMsg{keyPress("a"), {Code: tea.KeyBackspace}}
	i := 0
	ft := newFrameTimes(b)
	for b.Loop() {
		ft.begin()
		m.Update(keys[i%2])
		m.View()
		ft.end()
		i++
	}
	ft.report()
}

// BenchmarkMemory1kTo10k reports how much more live heap a view holds
// for a 10,000-message session than for a 1,000-message one, once every
// entry has been drawn (paged through top to bottom), so that every
// render cache is full.
func BenchmarkMemory1kTo10k(b *testing.B) {
	heap := func(n int) (*Model, uint64) {
		m := benchSession(b, n)
		for m.View(); !(m.tr.top.entry == 0 && !m.tr.follow); m.View() {
			m.Update(keyPress("pgup"))
		}
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		return m, ms.HeapAlloc
	}
	var growth float64
	for b.Loop() {
		small, a := heap(1000)
		big, z := heap(10000)
		growth = (float64(z) - float64(a)) / (1 << 20)
		runtime.KeepAlive(small)
		runtime.KeepAlive(big)
	}
	b.ReportMetric(growth, "heap-MB-growth")
}

// TestRenderCacheBounded: paging through a long session keeps the
// renders of a bounded number of entries, the latest drawn.
func TestRenderCacheBounded(t *testing.T) {
	th := newTheme(true, true)
	tr, _ := longTranscript(5000)
	for tr.view(80, 20, &th, 0); !(tr.top.entry == 0 && !tr.follow); tr.view(80, 20, &th, 0) {
		tr.scroll(-18, 80, 20, &th, 0)
	}
	holding := 0
	for _, e := range tr.entries {
		if c := e.(counted).cache; c.lines[0] != nil || c.lines[1] != nil {
			holding++
		}
	}
	if holding > 2*maxCachedEntries || holding == 0 {
		t.Errorf("%d of %d entries hold renders, want at most %d", holding, len(tr.entries), 2*maxCachedEntries)
	}
	if c := tr.entries[0].(counted).cache; c.lines[0] == nil && c.lines[1] == nil {
		t.Error("the entry on screen lost its render")
	}
}
