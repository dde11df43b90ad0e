package tui

import (
	"sort"
)

// entry is one block of the transcript: a user's message, a text or
// reasoning part, a tool call, an error. Its key orders it: the message
// id, then the part id, so blocks stay in conversation order whatever
// order their events arrive in.
type entry interface {
	key() string
	// render returns the entry's lines at width. Entries cache what does
	// not change; view calls render only for entries it shows.
	render(width int, th *theme, tag int) []string
	// drop forgets the cached renders.
	drop()
}

// maxCachedEntries bounds how many entries keep their rendered lines:
// those rendered longest ago forget them first, so paging through a long
// session holds the renders of the last pages only.
const maxCachedEntries = 1000

// renderCache keeps an entry's last renders for two widths, so a resize
// back and forth renders nothing again.
type renderCache struct {
	width [2]int
	tag   [2]int
	lines [2][]string
	next  int
	// gen counts the resets: a render made from the entry as it was at
	// gen is still right while gen has not moved.
	gen uint64
}

func (c *renderCache) get(width, tag int) ([]string, bool) {
	for i := range c.width {
		if c.lines[i] != nil && c.width[i] == width && c.tag[i] == tag {
			return c.lines[i], true
		}
	}
	return nil, false
}

func (c *renderCache) put(width, tag int, lines []string) []string {
	if lines == nil {
		lines = []string{}
	}
	c.width[c.next], c.tag[c.next], c.lines[c.next] = width, tag, lines
	c.next = 1 - c.next
	return lines
}

func (c *renderCache) reset() { *c = renderCache{gen: c.gen + 1} }

// transcript is the list of entries with a virtual scroll position: only
// the entries on screen are rendered, so the cost of a frame follows the
// height of the screen, not the length of the session.
type transcript struct {
	entries []entry
	index   map[string]int // key → position, rebuilt lazily after inserts
	stale   bool
	// cached are the entries that hold renders, oldest first; inCache
	// marks them.
	cached  []entry
	inCache map[entry]bool

	// follow keeps the last line at the bottom of the view; otherwise
	// top is the first line shown: line top.line of entry top.entry.
	follow bool
	top    anchor
	// tail says entries after the last one were dropped: the view does
	// not follow the last entry it holds, which is not the session's.
	tail bool
	// gen counts the changes to the entries: added, replaced, removed,
	// or their text grown.
	gen uint64
}

type anchor struct{ entry, line int }

func newTranscript() *transcript {
	return &transcript{index: map[string]int{}, inCache: map[entry]bool{}, follow: true}
}

// find returns the entry with key, or nil.
func (t *transcript) find(key string) entry {
	t.reindex()
	if i, ok := t.index[key]; ok {
		return t.entries[i]
	}
	return nil
}

func (t *transcript) reindex() {
	if !t.stale {
		return
	}
	clear(t.index)
	for i, e := range t.entries {
		t.index[e.key()] = i
	}
	t.stale = false
}

// put adds e in key order, or replaces the entry with its key.
func (t *transcript) put(e entry) {
	t.gen++
	t.reindex()
	k := e.key()
	if i, ok := t.index[k]; ok {
		t.entries[i] = e
		return
	}
	n := len(t.entries)
	if n == 0 || t.entries[n-1].key() < k {
		t.entries = append(t.entries, e)
		t.index[k] = n
		return
	}
	i := sort.Search(n, func(i int) bool { return t.entries[i].key() > k })
	t.entries = append(t.entries, nil)
	copy(t.entries[i+1:], t.entries[i:])
	t.entries[i] = e
	t.stale = true
	if !t.follow && i <= t.top.entry {
		t.top.entry++
	}
}

// prepend adds entries that all sort before the first entry, in one
// move; entries that do not are put one by one.
func (t *transcript) prepend(es []entry) {
	if len(es) == 0 {
		return
	}
	t.gen++
	sort.SliceStable(es, func(i, j int) bool { return es[i].key() < es[j].key() })
	if len(t.entries) > 0 && es[len(es)-1].key() >= t.entries[0].key() {
		for _, e := range es {
			t.put(e)
		}
		return
	}
	t.entries = append(es, t.entries...)
	t.stale = true
	if !t.follow {
		t.top.entry += len(es)
	}
}

// remove deletes the entry with key.
func (t *transcript) remove(key string) {
	t.gen++
	t.reindex()
	i, ok := t.index[key]
	if !ok {
		return
	}
	t.entries = append(t.entries[:i], t.entries[i+1:]...)
	t.stale = true
	if !t.follow && i < t.top.entry {
		t.top.entry--
	} else if !t.follow && i == t.top.entry {
		t.top.line = 0
	}
	if t.top.entry >= len(t.entries) {
		t.follow = true
	}
}

// reset empties the transcript.
func (t *transcript) reset() {
	t.gen++
	t.entries = nil
	clear(t.index)
	t.cached = nil
	clear(t.inCache)
	t.stale = false
	t.follow, t.top, t.tail = true, anchor{}, false
}

// view returns the height lines shown at width, rendering only the
// entries they come from. Entries are separated by a blank line.
func (t *transcript) view(width, height int, th *theme, tag int) []string {
	if height <= 0 {
		return nil
	}
	out := make([]string, 0, height)
	if !t.follow {
		for i, skip := t.top.entry, t.top.line; i < len(t.entries) && len(out) < height; i, skip = i+1, 0 {
			b := t.block(i, width, th, tag)
			out = b.appendTo(out, skip, b.len(), height-len(out))
		}
		if len(out) >= height {
			return out
		}
		if t.tail {
			// The last entry held is not the session's: show what there is.
			for len(out) < height {
				out = append(out, "")
			}
			return out
		}
		// The end came into view: stick to it.
		t.follow = true
		out = out[:0]
	}
	// Find the first line shown, then render downwards from it.
	a := t.bottomTop(width, height, th, tag)
	for i, skip := a.entry, a.line; i < len(t.entries); i, skip = i+1, 0 {
		b := t.block(i, width, th, tag)
		out = b.appendTo(out, skip, b.len(), height-len(out))
	}
	if pad := height - len(out); pad > 0 {
		out = append(make([]string, pad, height), out...)
	}
	return out
}

// block is an entry's lines with the blank line that separates it from
// the one before, without copying them.
type block struct {
	sep   bool
	lines []string
}

func (b block) len() int {
	if b.sep {
		return len(b.lines) + 1
	}
	return len(b.lines)
}

// appendTo appends lines [from, to) of the block to out, at most limit.
func (b block) appendTo(out []string, from, to, limit int) []string {
	to = min(to, from+limit)
	for j := from; j < to; j++ {
		if b.sep {
			if j == 0 {
				out = append(out, "")
				continue
			}
			out = append(out, b.lines[j-1])
		} else {
			out = append(out, b.lines[j])
		}
	}
	return out
}

// block renders entry i.
func (t *transcript) block(i, width int, th *theme, tag int) block {
	e := t.entries[i]
	ls := e.render(width, th, tag)
	t.hold(e)
	return block{sep: i > 0 && len(ls) > 0, lines: ls}
}

// hold counts e among the entries that keep renders, making those held
// longest forget theirs when there are too many.
func (t *transcript) hold(e entry) {
	if t.inCache[e] {
		return
	}
	t.inCache[e] = true
	t.cached = append(t.cached, e)
	if n := len(t.cached); n > 2*maxCachedEntries {
		for _, old := range t.cached[:n-maxCachedEntries] {
			old.drop()
			delete(t.inCache, old)
		}
		t.cached = append(t.cached[:0], t.cached[n-maxCachedEntries:]...)
	}
}

// scroll moves the view by n lines (negative: up) for a view of height
// lines at width.
func (t *transcript) scroll(n, width, height int, th *theme, tag int) {
	if n == 0 || len(t.entries) == 0 {
		return
	}
	if t.follow {
		if n > 0 {
			return
		}
		t.top = t.bottomTop(width, height, th, tag)
		t.follow = false
	}
	a := t.top
	if n < 0 {
		for n < 0 {
			if a.line > 0 {
				step := min(a.line, -n)
				a.line -= step
				n += step
				continue
			}
			if a.entry == 0 {
				break
			}
			a.entry--
			a.line = t.block(a.entry, width, th, tag).len()
		}
		t.top = a
		return
	}
	for n > 0 && a.entry < len(t.entries) {
		ls := t.block(a.entry, width, th, tag).len()
		if left := ls - a.line; left > n {
			a.line += n
			n = 0
		} else {
			n -= left
			a.entry, a.line = a.entry+1, 0
		}
	}
	t.top = a
	if !t.fillsFrom(a, width, height, th, tag) {
		if t.tail {
			t.top = t.bottomTop(width, height, th, tag)
			return
		}
		t.follow = true
	}
}

// bottomTop is the anchor of the first line shown when following.
func (t *transcript) bottomTop(width, height int, th *theme, tag int) anchor {
	need := height
	for i := len(t.entries) - 1; i >= 0; i-- {
		n := t.block(i, width, th, tag).len()
		if n >= need {
			return anchor{entry: i, line: n - need}
		}
		need -= n
	}
	return anchor{}
}

// fillsFrom reports whether the lines from a fill a view of height.
func (t *transcript) fillsFrom(a anchor, width, height int, th *theme, tag int) bool {
	have := 0
	for i, skip := a.entry, a.line; i < len(t.entries); i, skip = i+1, 0 {
		have += t.block(i, width, th, tag).len() - skip
		if have >= height {
			return true
		}
	}
	return false
}
