package tui

import (
	"context"
	"sort"

	tea "charm.land/bubbletea/v2"
)

// The view renders the entries around what it shows before they are
// needed, in the background: a key that scrolls then finds the lines it
// brings on screen already made, whatever the Markdown and code blocks
// of those entries cost to render.
const (
	// aheadAbove and aheadBelow are how many entries before the first
	// entry shown, and from it on, are kept rendered.
	aheadAbove = 40
	aheadBelow = 40
	// aheadBatch is how many entries one background job renders; its
	// result comes back as one message, so a small batch reaches the
	// view soon.
	aheadBatch = 4
)

// renderAhead is the state of the background rendering. At most one job
// is out at a time; the job owns the theme it renders with (a copy of
// the view's with its own Markdown renderer, which is not safe to share)
// until its result hands it back.
type renderAhead struct {
	job    *renderJob
	cancel context.CancelFunc
	th     *theme // the job's theme, nil while a job has it or before the first
	thTag  int    // the view's theme tag th was made from
	// up says the view last moved up (or has not moved since it opened
	// at the bottom); topKey is the key of the first entry it showed.
	up     bool
	topKey string
}

// renderJob is one batch of entries rendered in the background.
type renderJob struct {
	sessionID  string
	width, tag int
	th         *theme
	items      []renderItem
}

// renderItem is an entry to render: the entry in the transcript, the
// copy the job renders (sharing nothing the view changes), the entry's
// render generation when the copy was made, and the lines made.
type renderItem struct {
	e     entry
	copy  entry
	gen   uint64
	lines []string
	done  bool
}

// renderedMsg carries a finished (or cancelled) render job.
type renderedMsg struct{ job *renderJob }

// renderAround starts a background job rendering the entries near the
// view that hold no lines for the current width and theme, nearest
// first in the direction the view last moved. It does nothing while a
// job is out: the job's result starts the next one.
func (m *Model) renderAround() tea.Cmd {
	a := &m.ahead
	if j := a.job; j != nil {
		if m.current(j.sessionID) && j.width == m.trWidth() && j.tag == m.themeTag {
			return nil
		}
		// The view changed under the job: its lines would be of no use.
		m.stopRendering()
	}
	if m.sess == nil || m.trWidth() <= 0 || len(m.tr.entries) == 0 {
		return nil
	}
	first := m.firstShown()
	if k := m.tr.entries[first].key(); k != a.topKey {
		a.up = a.topKey == "" || k < a.topKey
		a.topKey = k
	}
	var items []renderItem
	add := func(i int) bool {
		e := m.tr.entries[i]
		c := renderCacheOf(e)
		if c == nil {
			return true
		}
		if _, ok := c.get(m.trWidth(), m.themeTag); ok {
			return true
		}
		cp := detached(e)
		if cp == nil {
			return true
		}
		items = append(items, renderItem{e: e, copy: cp, gen: c.gen})
		return len(items) < aheadBatch
	}
	above := func() bool {
		for i := first - 1; i >= max(first-aheadAbove, 0); i-- {
			if !add(i) {
				return false
			}
		}
		return true
	}
	below := func() bool {
		for i := first; i < min(first+aheadBelow, len(m.tr.entries)); i++ {
			if !add(i) {
				return false
			}
		}
		return true
	}
	if a.up {
		_ = above() && below()
	} else {
		_ = below() && above()
	}
	if len(items) == 0 {
		return nil
	}
	th := a.th
	if th == nil || a.thTag != m.themeTag {
		th = privateTheme(m.theme)
		if th == nil {
			return nil
		}
	}
	a.th, a.thTag = nil, m.themeTag
	ctx, cancel := context.WithCancel(m.ctx)
	j := &renderJob{sessionID: m.sess.ID, width: m.trWidth(), tag: m.themeTag, th: th, items: items}
	a.job, a.cancel = j, cancel
	return func() tea.Msg {
		defer cancel()
		j.run(ctx)
		return renderedMsg{job: j}
	}
}

// run renders the job's copies until done or ctx ends.
func (j *renderJob) run(ctx context.Context) {
	for i := range j.items {
		if ctx.Err() != nil {
			return
		}
		it := &j.items[i]
		it.lines, it.done = it.copy.render(j.width, j.th, j.tag), true
	}
}

// rendered takes the lines of a finished job into the entries that have
// not changed since, and starts the next job.
func (m *Model) rendered(msg renderedMsg) tea.Cmd {
	a := &m.ahead
	j := msg.job
	if a.job != j {
		return nil
	}
	a.job, a.cancel = nil, nil
	if j.tag == a.thTag {
		a.th = j.th
	}
	if !m.current(j.sessionID) || j.width != m.trWidth() || j.tag != m.themeTag {
		return m.renderAround()
	}
	for _, it := range j.items {
		c := renderCacheOf(it.e)
		if !it.done || c.gen != it.gen || !m.tr.holds(it.e) {
			continue
		}
		if _, ok := c.get(j.width, j.tag); ok {
			continue
		}
		c.put(j.width, j.tag, it.lines)
		m.tr.hold(it.e)
	}
	return m.renderAround()
}

// stopRendering cancels the job that is out, if any; its result is
// then ignored.
func (m *Model) stopRendering() {
	if m.ahead.cancel != nil {
		m.ahead.cancel()
	}
	m.ahead.job, m.ahead.cancel = nil, nil
}

// firstShown is the index of the first entry the view shows.
func (m *Model) firstShown() int {
	if !m.tr.follow {
		return min(m.tr.top.entry, len(m.tr.entries)-1)
	}
	return m.tr.bottomTop(m.trWidth(), m.transcriptHeight(), &m.theme, m.themeTag).entry
}

// renderCacheOf is the render cache of e, nil for an entry of a kind the
// view does not render ahead.
func renderCacheOf(e entry) *renderCache {
	switch e := e.(type) {
	case *userEntry:
		return &e.cache
	case *textEntry:
		return &e.cache
	case *reasoningEntry:
		return &e.cache
	case *noteEntry:
		return &e.cache
	case *toolEntry:
		return &e.cache
	}
	return nil
}

// detached returns a copy of e that renders the same lines and shares
// nothing the view changes, so that another goroutine may render it;
// nil for an entry still streaming or one whose render follows other
// state (a sub-agent's progress).
func detached(e entry) entry {
	switch e := e.(type) {
	case *userEntry:
		return &userEntry{id: e.id, texts: e.texts, files: e.files}
	case *textEntry:
		if e.streaming {
			return nil
		}
		return &textEntry{k: e.k, text: e.text}
	case *reasoningEntry:
		if e.streaming {
			return nil
		}
		return &reasoningEntry{k: e.k, text: e.text, full: e.full}
	case *noteEntry:
		return &noteEntry{k: e.k, text: e.text, kind: e.kind}
	case *toolEntry:
		if e.child != nil {
			return nil
		}
		cp := *e
		cp.cache = renderCache{}
		return &cp
	}
	return nil
}

// privateTheme returns a copy of th with a Markdown renderer of its own,
// nil when th's text renderer is of a kind it cannot copy.
func privateTheme(th theme) *theme {
	switch r := th.md.(type) {
	case *markdownText:
		th.md = &markdownText{style: r.style, tabs: r.tabs}
	case plainText:
	default:
		return nil
	}
	return &th
}

// holds reports whether e is in the transcript. Entries are kept in key
// order, so it costs a binary search.
func (t *transcript) holds(e entry) bool {
	k := e.key()
	i := sort.Search(len(t.entries), func(i int) bool { return t.entries[i].key() >= k })
	return i < len(t.entries) && t.entries[i] == e
}
