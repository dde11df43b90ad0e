package tui

import (
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	tea "charm.land/bubbletea/v2"

	"github.com/codeloop/codeloop/internal/client"
)

// listDialog is a list to choose from (sessions, models) or a page of
// text (help). Typing filters the list.
type listDialog struct {
	title  string
	items  []listItem
	text   []string
	filter string
	sel    int
	pick   func(m *Model, it listItem) tea.Cmd
	// actions are what other keys do to the selected item, and hint
	// names them.
	actions map[string]func(m *Model, it listItem) tea.Cmd
	hint    string
	// page is how many lines of text the dialog showed last; sel is then
	// the first one shown.
	page int
	// preview, when set, runs on the item the selection moves to, and
	// cancel when the dialog is closed without a choice.
	preview func(m *Model, it listItem)
	cancel  func(m *Model)
	// fuzzy filters the items fuzzily, best match first, and draws
	// their details (keys) flush right; matches caches the filter's
	// result for matchesFor.
	fuzzy      bool
	matches    []listItem
	matchesFor string
	// asking, when set, reads a line (a new title) for the item.
	asking *lineQuestion
	// other, when set, offers the filter's text itself as an item whose
	// detail it is, when no item has that value.
	other string
}

// lineQuestion reads a line of text in a dialog.
type lineQuestion struct {
	label, value string
	secret       bool // drawn as dots
	item         listItem
	done         func(m *Model, it listItem, value string) tea.Cmd
}

type listItem struct {
	label, detail string
	value         string
	// preview is shown under the list while the item is selected, and
	// the filter matches it too.
	preview string
	armed   bool // a destructive action waits for its second press
}

// listMsg carries a dialog whose items were loaded.
type listMsg struct {
	dialog *listDialog
	err    error
}

func (m *Model) listMsg(msg listMsg) tea.Cmd {
	if msg.err != nil {
		return m.failed("listing", msg.err)
	}
	m.dialog = msg.dialog
	return nil
}

// shown is the items matching the filter.
func (d *listDialog) shown() []listItem {
	if d.filter == "" {
		return d.items
	}
	if d.other != "" {
		out := d.matching()
		if !slices.ContainsFunc(d.items, func(it listItem) bool { return it.value == d.filter }) {
			out = append(slices.Clip(out), listItem{label: d.filter, detail: d.other, value: d.filter})
		}
		return out
	}
	return d.matching()
}

// matching is the items matching the filter.
func (d *listDialog) matching() []listItem {
	if d.fuzzy {
		if d.matches == nil || d.matchesFor != d.filter {
			d.matches, d.matchesFor = fuzzyItems(d.items, d.filter), d.filter
		}
		return d.matches
	}
	f := strings.ToLower(d.filter)
	var out []listItem
	for _, it := range d.items {
		if strings.Contains(strings.ToLower(it.label+" "+it.detail+" "+it.value+" "+it.preview), f) {
			out = append(out, it)
		}
	}
	return out
}

func (m *Model) dialogKey(k tea.KeyPressMsg) tea.Cmd {
	d := m.dialog
	if q := d.asking; q != nil {
		switch k.String() {
		case "esc":
			d.asking = nil
		case "ctrl+u":
			q.value = ""
		case "enter":
			m.dialog = nil
			return q.done(m, q.item, strings.TrimSpace(q.value))
		case "backspace":
			if r := []rune(q.value); len(r) > 0 {
				q.value = string(r[:len(r)-1])
			}
		default:
			q.value += k.Text
		}
		return nil
	}
	items := d.shown()
	if act := d.actions[k.String()]; act != nil && d.sel < len(items) {
		return act(m, items[d.sel])
	}
	if d.preview != nil {
		defer func() {
			if m.dialog == d {
				if shown := d.shown(); d.sel < len(shown) {
					d.preview(m, shown[d.sel])
				}
			}
		}()
	}
	switch k.String() {
	case "esc", "ctrl+c":
		m.dialog = nil
		if d.cancel != nil {
			d.cancel(m)
		}
	case "up", "ctrl+p":
		if len(items) > 0 {
			d.sel = (d.sel - 1 + len(items)) % len(items)
		} else {
			d.sel = max(d.sel-1, 0)
		}
	case "down", "ctrl+n":
		if len(items) > 0 {
			d.sel = (d.sel + 1) % len(items)
		} else {
			d.sel = min(d.sel+1, max(len(d.text)-max(d.page, 1), 0))
		}
	case "enter":
		if d.pick == nil {
			m.dialog = nil
			return nil
		}
		if d.sel < len(items) {
			m.dialog = nil
			return d.pick(m, items[d.sel])
		}
	case "backspace":
		if d.filter != "" {
			_, n := utf8.DecodeLastRuneInString(d.filter)
			d.filter = d.filter[:len(d.filter)-n]
			d.sel = 0
		}
	case "ctrl+u":
		d.filter, d.sel = "", 0
	case "pgup", "pgdown", "home", "end":
		if d.pick == nil {
			d.sel = scrollText(d, k.String())
		}
	default:
		if d.pick != nil && k.Text != "" {
			d.filter += k.Text
			d.sel = 0
		}
	}
	return nil
}

// openSessions lists the project's sessions to switch to.
func (m *Model) openSessions() tea.Cmd {
	c, ctx, now := m.c, m.ctx, m.now()
	current := ""
	if m.sess != nil {
		current = m.sess.ID
	}
	return func() tea.Msg {
		list, err := c.ListSessions(ctx, client.ListSessionsOptions{Roots: true, Details: true})
		if err != nil {
			return listMsg{err: err}
		}
		return listMsg{dialog: sessionsDialog(list, current, now)}
	}
}

// sessionsDialog lists sessions, newest activity first, each with its
// number of messages and last activity; the selected one's first message
// shows under the list, and the filter matches it too.
func sessionsDialog(list []client.Session, current string, now time.Time) *listDialog {
	d := &listDialog{title: "Sessions", pick: func(m *Model, it listItem) tea.Cmd {
		m.parents = nil
		return m.openSessionCmd(it.value)
	}, actions: sessionActions(), hint: "^R rename · ^D delete · ^F fork"}
	for i, s := range list {
		detail := ago(now, time.UnixMilli(s.Time.Updated))
		if s.Messages > 0 {
			detail = plural(s.Messages, "message") + " · " + detail
		}
		if s.ID == current {
			detail += " · current"
			d.sel = i
		}
		d.items = append(d.items, listItem{label: s.Title, detail: detail, value: s.ID, preview: s.Preview})
	}
	if len(d.items) == 0 {
		d.text = []string{"No sessions yet in this project."}
	}
	return d
}

// openModels lists the models, the recent ones first.
func (m *Model) openModels() tea.Cmd {
	c, ctx := m.c, m.ctx
	return func() tea.Msg {
		cat, err := c.Models(ctx)
		if err != nil {
			return listMsg{err: err}
		}
		return listMsg{dialog: modelsDialog(cat)}
	}
}

// modelsDialog lists the catalog's models, the recent ones first, each
// followed by its variants.
func modelsDialog(cat client.ModelCatalog) *listDialog {
	d := &listDialog{title: "Models", pick: func(m *Model, it listItem) tea.Cmd {
		ref, variant, _ := strings.Cut(it.value, "#")
		p, id, _ := strings.Cut(ref, "/")
		m.model = &client.ModelRef{ProviderID: p, ModelID: id, Variant: variant}
		return m.notify("model: "+m.modelName(), false)
	}}
	variants := map[string][]string{}
	names := map[string]string{}
	var all []string
	for _, p := range cat.Providers {
		for _, md := range p.Models {
			ref := p.ID + "/" + md.ID
			names[ref] = md.Name
			all = append(all, ref)
			variants[ref] = md.Variants
		}
	}
	seen := map[string]bool{}
	add := func(ref, tag string) {
		if seen[ref] {
			return
		}
		if _, ok := names[ref]; !ok {
			return
		}
		seen[ref] = true
		d.items = append(d.items, listItem{label: ref, detail: strings.TrimSpace(names[ref] + " " + tag), value: ref})
		for _, v := range variants[ref] {
			d.items = append(d.items, listItem{label: ref + " · " + v, detail: "variant", value: ref + "#" + v})
		}
	}
	for _, r := range cat.Recent {
		add(r.String(), "· recent")
	}
	for _, ref := range all {
		add(ref, "")
	}
	if len(d.items) == 0 {
		d.text = []string{"No model is available: /connect adds a provider's key."}
	}
	return d
}

// helpDialog lists the keys and commands.
func helpDialog(m *Model) *listDialog {
	text := []string{
		"Enter               send",
		"Shift+Enter, Ctrl+J newline",
		"Esc Esc             interrupt the answer",
		"Tab, Shift+Tab      next, previous agent",
		"PgUp, PgDn          scroll",
		"Up, Down            earlier, later messages sent",
		"Ctrl+G              write the message in $EDITOR",
		"@file               attach a file (Tab completes)",
		"Alt+Up, Alt+Down    select a tool call",
		"Ctrl+O              show or hide it; open a sub-agent's session",
		"Ctrl+F              search the transcript (n, N move; Esc closes)",
		"Ctrl+S              select messages (↑ ↓, Shift+↑ ↓, Space; y copies)",
		"!command            run a shell command",
		"Ctrl+C              clear the input; quit when it is empty",
		"Ctrl+P              the command palette: every action with its keys",
		"Ctrl+X, then a key  the leader keys (/keybinds lists them all)",
		"",
	}
	for _, c := range append(builtinCommands(), m.commands...) {
		text = append(text, fmt.Sprintf("/%-18s %s", c.Name, c.Description))
	}
	return &listDialog{title: "Help", text: text}
}

// fit lays out a dialog's body in at most room lines: the head, a blank
// line, the choices, a blank line and the tail; when that is too tall the
// blank lines, then the tail, then choices far from sel are left out, and
// at last the head is cut.
func fit(head, choices []string, sel int, tail []string, room int) []string {
	join := func(parts ...[]string) []string {
		var out []string
		for _, p := range parts {
			out = append(out, p...)
		}
		return out
	}
	blank := []string{""}
	if full := join(head, blank, choices, blank, tail); len(full) <= room {
		return full
	}
	if b := join(head, choices, tail); len(b) <= room {
		return b
	}
	if b := join(head, choices); len(b) <= room {
		return b
	}
	if len(head) >= room {
		head = head[:max(room-1, 0)]
	}
	n := max(room-len(head), 1)
	start := min(max(sel-n/2, 0), max(len(choices)-n, 0))
	return join(head, choices[start:min(start+n, len(choices))])
}

// listView renders a list dialog in at most height lines; a page of
// text scrolls with the arrows.
func (m *Model) listView(width, height int) []string {
	d := m.dialog
	th := &m.theme
	var head, choices []string
	if d.pick != nil {
		head = append(head, "> "+d.filter+"▏")
	}
	if q := d.asking; q != nil {
		value := q.value
		if q.secret {
			value = strings.Repeat("•", utf8.RuneCountInString(value))
		}
		body := fit([]string{q.label}, []string{"> " + value + "▏"}, 0, []string{th.faint.Render("Enter save · Esc back")}, height-2)
		return frame(th, d.title, body, width)
	}
	if d.pick == nil && len(d.items) == 0 {
		return frame(th, d.title, m.textPage(d, height-2), width)
	}
	choices = append(choices, d.text...)
	sel := d.sel
	for i, it := range d.shown() {
		label, detail := it.label, it.detail
		if d.fuzzy && detail != "" {
			// The keys flush right.
			room := max(width-4-2-cellWidth(detail)-2, 1)
			label = padRight(truncate(label, room), room)
		}
		line := "  " + label
		if detail != "" {
			line += "  " + th.faint.Render(detail)
		}
		if i == d.sel {
			line = th.selected.Render(padRight("› "+label+"  "+detail, width-4))
		}
		choices = append(choices, line)
	}
	hint := "Esc close"
	if d.pick != nil {
		hint = "type to filter · ↑↓ Enter · Esc close"
		sel += len(d.text)
	}
	if d.hint != "" {
		hint = d.hint + " · " + hint
	}
	tail := []string{th.faint.Render(hint)}
	if shown := d.shown(); d.sel < len(shown) && shown[d.sel].preview != "" && height >= 16 {
		// The selected item's preview, two lines at most, above the hint.
		lines := wrapLine(shown[d.sel].preview, max(width-6, 10), nil)
		if len(lines) > 2 {
			lines = lines[:2]
			lines[1] = truncate(lines[1]+" …", max(width-6, 10))
		}
		for i := range lines {
			lines[i] = th.faint.Render("┊ " + lines[i])
		}
		tail = append(lines, tail...)
	}
	return frame(th, d.title, fit(head, choices, sel, tail, height-2), width)
}

// textPage is the part of a page of text that fits in room lines, from
// the line the dialog is scrolled to; when not all of it fits, the last
// line says which lines show and how to scroll.
func (m *Model) textPage(d *listDialog, room int) []string {
	th := &m.theme
	if len(d.text) <= room {
		d.page, d.sel = room, 0
		return d.text
	}
	page := max(room-1, 1)
	d.page = page
	d.sel = min(max(d.sel, 0), len(d.text)-page)
	end := d.sel + page
	out := append([]string(nil), d.text[d.sel:end]...)
	return append(out, th.faint.Render(fmt.Sprintf("lines %d–%d of %d · ↑↓ PgUp PgDn scroll · Esc close", d.sel+1, end, len(d.text))))
}

// scrollText is the first line of a page of text after a page key.
func scrollText(d *listDialog, key string) int {
	page := max(d.page, 1)
	last := max(len(d.text)-page, 0)
	switch key {
	case "pgup":
		return max(d.sel-page, 0)
	case "pgdown":
		return min(d.sel+page, last)
	case "home":
		return 0
	}
	return last
}

// frame draws lines in a box of width cells with title on its top edge.
func frame(th *theme, title string, lines []string, width int) []string {
	if width < 8 {
		return lines
	}
	inner := width - 4
	top := "╭─ " + truncate(title, inner-2) + " "
	top += strings.Repeat("─", max(width-1-cellWidth(top), 0)) + "╮"
	out := []string{th.border.Render(top)}
	for _, l := range lines {
		l = truncate(l, inner)
		out = append(out, th.border.Render("│")+" "+padRight(l, inner)+" "+th.border.Render("│"))
	}
	return append(out, th.border.Render("╰"+strings.Repeat("─", width-2)+"╯"))
}

// ago says how long before now t was.
func ago(now, t time.Time) string {
	d := now.Sub(t)
	switch {
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return fmt.Sprintf("%dm ago", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh ago", int(d.Hours()))
	}
	return t.Format("2006-01-02")
}

// plural is n and the word, with an s unless n is one.
func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}
