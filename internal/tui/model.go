package tui

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"charm.land/bubbles/v2/textarea"
	tea "charm.land/bubbletea/v2"

	"github.com/codeloop/codeloop/internal/client"
)

// Model is the session view: the transcript, the input, the status line
// and the dialogs. Update changes it in reply to keys, events and the
// results of the client calls its commands make; View draws it.
type Model struct {
	c    client.Client
	ctx  context.Context
	opts Options
	now  func() time.Time

	width, height int
	theme         theme
	themeTag      int // changes with the theme, so cached renders are redone
	noColor       bool
	// themeChoice is the theme chosen (auto, dark, light, plain; "" is
	// auto) and darkBackground what the terminal reported.
	themeChoice    string
	darkBackground bool

	sess     *client.Session
	parents  []string // the sessions a sub-agent's session was opened from, innermost last
	msgs     map[string]*msgState
	tr       *transcript
	selected string // key of the selected tool call, "" for none
	usage    usage  // the newest answer's tokens and model
	todos    []client.Todo
	// children follows the sessions of the sub-agents that task calls
	// run, by session id; childEntry is the key of each one's call.
	children   map[string]*childProgress
	childEntry map[string]string
	// revertFrom hides the messages from this id on: the session was
	// reverted to before it.
	revertFrom string
	// lastCopy is the text of the newest copy, for OSC 52.
	lastCopy string
	// details shows every tool call expanded; thinking shows reasoning
	// in full.
	details, thinking bool
	// older says the store may hold messages older than those shown;
	// loadingOlder that a page of them is being read.
	older        bool
	loadingOlder bool
	// ahead renders the entries around the view in the background; pages
	// numbers the reads of older pages.
	ahead renderAhead
	pages int

	input textarea.Model
	comp  completion
	hist  history
	// pastes are the large pastes the editor shows as placeholders.
	pastes   []pasted
	pasteSeq int
	// files are the project's files for @ completion, nil until loaded.
	files        []string
	filesLoading bool

	status    client.SessionStatus
	busySince time.Time
	spin      int // spinner frame
	spinTag   int // the spinner tick that is current

	agents   []client.Agent
	agent    string
	model    *client.ModelRef
	catalog  client.ModelCatalog
	commands []client.Command

	asks      []client.PermissionRequest
	questions []client.QuestionRequest
	dialog    *listDialog // a list dialog (sessions, models, help), or nil
	perm      permDialog
	quest     questionDialog

	events   client.Events
	toast    toast
	escArmed int // the sequence of the Esc press that arms an interrupt, 0 when none
	seq      int // sequence of timed things (toasts, Esc presses)
	sessErr  int // numbers session errors, for their keys
	loaded   bool
	quitting bool

	// find is the transcript search; sel the messages selected to copy.
	find finder
	sel  selection
}

// msgState is what the view keeps of a message: its role and, for the
// user's messages, the parts its entry shows.
type msgState struct {
	role  string
	parts []client.Part
}

// usage is the newest answer's token count and the model that gave it.
type usage struct {
	tokens   int64
	provider string
	model    string
}

// toast is a short notice over the status line.
type toast struct {
	text string
	bad  bool
	seq  int
}

// New returns the view for opts. Run starts it; tests drive Update and
// View directly.
func New(ctx context.Context, opts Options) *Model {
	m := &Model{
		c: opts.Client, ctx: ctx, opts: opts, now: opts.Now,
		noColor: opts.NoColor, msgs: map[string]*msgState{}, tr: newTranscript(),
		agent: opts.Agent, children: map[string]*childProgress{}, childEntry: map[string]string{},
	}
	if m.now == nil {
		m.now = time.Now
	}
	m.darkBackground = true
	m.theme = newTheme(m.noColor, true)
	if opts.Model != "" {
		if p, id, ok := strings.Cut(opts.Model, "/"); ok && p != "" && id != "" {
			m.model = &client.ModelRef{ProviderID: p, ModelID: id}
		}
	}
	m.input = newInput(m.theme)
	if opts.Theme != "" && opts.Theme != "auto" {
		m.setTheme(opts.Theme)
	}
	m.hist = loadHistory(opts.HistoryFile)
	return m
}

// Init loads the session and subscribes to events.
func (m *Model) Init() tea.Cmd {
	cmds := []tea.Cmd{m.load()}
	if !m.noColor {
		cmds = append(cmds, tea.RequestBackgroundColor)
	}
	return tea.Batch(cmds...)
}

// Update applies msg.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		m.layout()
		return m, m.renderAround()
	case tea.BackgroundColorMsg:
		m.darkBackground = msg.IsDark()
		m.setTheme(m.themeChoice)
		return m, nil
	case tea.KeyPressMsg:
		return m, tea.Batch(m.key(msg), m.renderAround())
	case tea.PasteMsg:
		return m, m.paste(msg.Content)
	case olderMsg:
		cmd := m.olderMsg(msg)
		if m.find.active() {
			m.research(false)
		}
		return m, cmd
	case tea.MouseMsg:
		return m, tea.Batch(m.mouse(msg), m.renderAround())
	case renderedMsg:
		return m, m.rendered(msg)
	case scrollbackMsg:
		return m, m.scrollbackMsg(msg)
	case scrollbackDoneMsg:
		return m, m.scrollbackDone(msg)
	case copiedMsg:
		return m, m.copied(msg)
	case editorDoneMsg:
		return m, m.editorDone(msg)
	case filesMsg:
		m.files = msg
		if m.files == nil {
			m.files = []string{}
		}
		m.comp.update(m)
		return m, nil
	case loadedMsg:
		return m, tea.Batch(m.loadedMsg(msg), m.renderAround())
	case eventsMsg:
		cmd := m.applyEvents(msg)
		return m, tea.Batch(cmd, m.waitEvents())
	case eventsEndedMsg:
		if msg.err != nil && !isCanceled(msg.err) {
			return m, m.notify("lost the event stream: "+msg.err.Error(), true)
		}
		return m, nil
	case sessionMsg:
		return m, tea.Batch(m.sessionMsg(msg), m.renderAround())
	case createdMsg:
		return m, m.createdMsg(msg)
	case droppedMsg:
		if m.current(msg.sessionID) {
			m.newSession()
		}
		return m, m.failed(msg.result.what, msg.result.err)
	case resultMsg:
		if msg.err != nil && !isCanceled(msg.err) {
			return m, m.failed(msg.what, msg.err)
		}
		if msg.then != nil && msg.err == nil {
			msg.then(m)
		}
		if msg.ok != "" {
			return m, m.notify(msg.ok, false)
		}
		return m, nil
	case listMsg:
		return m, m.listMsg(msg)
	case tickMsg:
		if msg.tag != m.spinTag || !m.busy() {
			return m, nil
		}
		m.spin++
		return m, m.tick()
	case expireMsg:
		if msg.seq == m.toast.seq {
			m.toast = toast{}
		}
		if msg.seq == m.escArmed {
			m.escArmed = 0
		}
		return m, nil
	}
	return m, nil
}

// loadedMsg applies what Init loaded.
func (m *Model) loadedMsg(msg loadedMsg) tea.Cmd {
	m.loaded = true
	m.events = msg.events
	m.agents, m.catalog, m.commands = msg.agents, msg.catalog, msg.commands
	m.asks, m.questions = msg.asks, msg.questions
	if m.agent == "" {
		m.agent = m.defaultAgent()
	}
	var cmds []tea.Cmd
	if msg.events != nil {
		cmds = append(cmds, m.waitEvents())
	}
	if msg.sess != nil {
		m.openSession(*msg.sess, msg.msgs)
		cmds = append(cmds, m.maybeLoadOlder())
	}
	if msg.status.Type == client.StatusBusy || msg.status.Type == client.StatusRetry {
		cmds = append(cmds, m.setStatus(msg.status))
	}
	for _, err := range msg.errs {
		cmds = append(cmds, m.failed("starting", err))
	}
	if m.opts.Prompt != "" {
		cmds = append(cmds, m.submit(m.opts.Prompt))
	}
	return tea.Batch(cmds...)
}

// defaultAgent is the session's agent, else the first primary agent.
func (m *Model) defaultAgent() string {
	if m.sess != nil && m.sess.Agent != "" {
		return m.sess.Agent
	}
	for _, a := range m.agents {
		if a.Primary() && !a.Hidden {
			return a.Name
		}
	}
	return ""
}

// openSession shows sess with its messages.
func (m *Model) openSession(sess client.Session, msgs []client.Message) {
	m.sess = &sess
	m.msgs = map[string]*msgState{}
	m.tr.reset()
	m.selected = ""
	m.usage = usage{}
	m.todos = nil
	m.revertFrom = revertPoint(sess.Revert)
	m.older, m.loadingOlder = len(msgs) >= pageMessages, false
	m.status, m.busySince = client.SessionStatus{}, time.Time{}
	if sess.Agent != "" && m.opts.Agent == "" && sess.ParentID == "" {
		m.agent = sess.Agent
	}
	for _, msg := range msgs {
		m.applyInfo(msg.Info)
		for _, p := range msg.Parts {
			m.applyPart(p)
		}
	}
}

func (m *Model) sessionMsg(msg sessionMsg) tea.Cmd {
	if msg.err != nil {
		return m.failed("opening the session", msg.err)
	}
	m.openSession(msg.sess, msg.msgs)
	return tea.Batch(m.setStatus(msg.status), m.maybeLoadOlder())
}

// busy reports whether the current session's loop runs.
func (m *Model) busy() bool {
	return m.status.Type == client.StatusBusy || m.status.Type == client.StatusRetry
}

// setStatus records the session's status and runs the spinner while busy.
func (m *Model) setStatus(st client.SessionStatus) tea.Cmd {
	was := m.busy()
	m.status = st
	if !m.busy() {
		m.busySince = time.Time{}
		m.spinTag++
		return nil
	}
	if !was {
		m.busySince = m.now()
		m.spin = 0
		m.spinTag++
		return m.tick()
	}
	return nil
}

// applyEvents applies a batch of events.
func (m *Model) applyEvents(evs []client.Event) tea.Cmd {
	var cmds []tea.Cmd
	for _, e := range evs {
		cmds = append(cmds, m.applyEvent(e))
	}
	return tea.Batch(cmds...)
}

func (m *Model) current(sessionID string) bool {
	return m.sess != nil && m.sess.ID == sessionID
}

// applyEvent applies one event. Asks are shown whatever session they
// come from: a sub-agent's child session asks too.
func (m *Model) applyEvent(e client.Event) tea.Cmd {
	switch e := e.(type) {
	case client.PermissionAskedEvent:
		if !slices.ContainsFunc(m.asks, func(r client.PermissionRequest) bool { return r.ID == e.ID }) {
			m.asks = append(m.asks, e.PermissionRequest)
		}
		return nil
	case client.PermissionRepliedEvent:
		m.dropAsk(e.RequestID)
		return nil
	case client.QuestionAskedEvent:
		if !slices.ContainsFunc(m.questions, func(q client.QuestionRequest) bool { return q.ID == e.ID }) {
			m.questions = append(m.questions, e.QuestionRequest)
		}
		return nil
	case client.QuestionRepliedEvent:
		m.dropQuestion(e.RequestID)
		return nil
	case client.QuestionRejectedEvent:
		m.dropQuestion(e.RequestID)
		return nil
	case client.EventsDroppedEvent:
		// Some events were lost: read the session again.
		return m.reload()
	case client.HookNoticeEvent:
		return m.hookNotice(e)
	}
	if cp := m.children[e.Session()]; cp != nil {
		m.childEvent(cp, e)
	}
	if !m.current(e.Session()) {
		return nil
	}
	switch e := e.(type) {
	case client.SessionUpdatedEvent:
		s := e.Info
		m.sess = &s
		if revertPoint(s.Revert) != m.revertFrom {
			return m.reload()
		}
	case client.TodoUpdatedEvent:
		m.todos = e.Todos
	case client.SessionDeletedEvent:
		m.newSession()
		return m.notify("this session was deleted", true)
	case client.SessionStatusEvent:
		return m.setStatus(e.Status)
	case client.SessionErrorEvent:
		if e.Error != nil && e.Error.Name != "MessageAbortedError" {
			m.sessErr++
			m.tr.put(&noteEntry{k: m.lastKey() + fmt.Sprintf("/~s%06d", m.sessErr), text: "Error: " + e.Error.Error(), kind: noteError})
		}
	case client.MessageUpdatedEvent:
		m.applyInfo(e.Info)
	case client.PartUpdatedEvent:
		m.applyPart(e.Part)
	case client.PartDeltaEvent:
		m.applyDelta(e)
	case client.PartRemovedEvent:
		m.tr.remove(e.MessageID + "/" + e.PartID)
	case client.MessageRemovedEvent:
		delete(m.msgs, e.MessageID)
		m.tr.remove(e.MessageID + "/")
	case client.SessionCompactedEvent:
		m.tr.put(&noteEntry{k: m.lastKey() + "/~compacted", text: "The conversation was summarised to free the context.", kind: noteInfo})
	}
	return nil
}

// lastKey is the key of the newest message, for notes that follow it.
func (m *Model) lastKey() string {
	last := ""
	for id := range m.msgs {
		last = max(last, id)
	}
	return last
}

func (m *Model) dropAsk(id string) {
	m.asks = slices.DeleteFunc(m.asks, func(r client.PermissionRequest) bool { return r.ID == id })
	if len(m.asks) == 0 || m.perm.id != m.asks[0].ID {
		m.perm = permDialog{}
	}
}

func (m *Model) dropQuestion(id string) {
	m.questions = slices.DeleteFunc(m.questions, func(q client.QuestionRequest) bool { return q.ID == id })
	if len(m.questions) == 0 || m.quest.id != m.questions[0].ID {
		m.quest = questionDialog{}
	}
}

// hidden reports whether a message is hidden by the session's revert.
func (m *Model) hidden(messageID string) bool {
	return m.revertFrom != "" && messageID >= m.revertFrom
}

// revertPoint reads the message a session was reverted to, "" when none.
func revertPoint(raw json.RawMessage) string {
	var r struct {
		MessageID string `json:"messageID"`
	}
	if len(raw) == 0 || json.Unmarshal(raw, &r) != nil {
		return ""
	}
	return r.MessageID
}

// childEvent follows what a sub-agent's session does, for its task
// call's line.
func (m *Model) childEvent(cp *childProgress, e client.Event) {
	pu, ok := e.(client.PartUpdatedEvent)
	if !ok || pu.Part.Type != client.PartTool || pu.Part.State == nil {
		return
	}
	cp.calls[pu.Part.ID] = pu.Part.State.Status
	cp.current = pu.Part.Tool
	if s := toolSummary(pu.Part.Tool, pu.Part.State); s != "" {
		cp.current += " " + firstLine(s)
	}
	if te, ok := m.tr.find(m.childEntry[cp.sessionID]).(*toolEntry); ok {
		te.cache.reset()
	}
}

// applyInfo records a message's info; an answer's error becomes a note.
func (m *Model) applyInfo(info client.MessageInfo) {
	if m.hidden(info.ID) {
		return
	}
	st := m.msgs[info.ID]
	if st == nil {
		st = &msgState{}
		m.msgs[info.ID] = st
	}
	st.role = info.Role
	if info.Role != client.RoleAssistant {
		return
	}
	if info.Tokens != nil && info.Tokens.Count() > 0 {
		m.usage = usage{tokens: info.Tokens.Count(), provider: info.ProviderID, model: info.ModelID}
	}
	if e := info.Error; e != nil {
		if e.Name == "MessageAbortedError" {
			m.tr.put(&noteEntry{k: info.ID + "/~", text: "Interrupted.", kind: noteInfo})
		} else {
			m.tr.put(&noteEntry{k: info.ID + "/~", text: "Error: " + e.Error(), kind: noteError})
		}
	}
}

// applyPart shows a part in its entry.
func (m *Model) applyPart(p client.Part) {
	if m.hidden(p.MessageID) {
		return
	}
	st := m.msgs[p.MessageID]
	if st == nil {
		st = &msgState{role: client.RoleAssistant}
		m.msgs[p.MessageID] = st
	}
	key := p.MessageID + "/" + p.ID
	if st.role == client.RoleUser {
		if i := slices.IndexFunc(st.parts, func(q client.Part) bool { return q.ID == p.ID }); i >= 0 {
			st.parts[i] = p
		} else {
			st.parts = append(st.parts, p)
		}
		m.tr.put(userEntryOf(p.MessageID, st.parts))
		return
	}
	switch p.Type {
	case client.PartText:
		if p.Synthetic || p.Ignored {
			return
		}
		streaming := p.Time != nil && p.Time.End == 0
		if e, ok := m.tr.find(key).(*textEntry); ok {
			e.set(p.Text, streaming)
			return
		}
		e := &textEntry{k: key}
		e.set(p.Text, streaming)
		m.tr.put(e)
	case client.PartReasoning:
		m.tr.put(&reasoningEntry{k: key, text: p.Text, streaming: p.Time != nil && p.Time.End == 0, full: m.thinking})
	case client.PartTool:
		e := &toolEntry{k: key, part: p, expanded: m.details}
		if old, ok := m.tr.find(key).(*toolEntry); ok {
			e.expanded, e.selected = old.expanded, old.selected
		}
		if id := e.childSession(); id != "" {
			if m.children[id] == nil {
				m.children[id] = &childProgress{sessionID: id, calls: map[string]string{}}
			}
			e.child, m.childEntry[id] = m.children[id], key
		}
		if p.Tool == "todowrite" && p.State != nil && p.State.Status == client.ToolCompleted {
			m.todos = todosOf(p.State)
		}
		m.tr.put(e)
	case client.PartRetry:
		text := fmt.Sprintf("Retrying (attempt %d)", p.Attempt)
		if p.Error != nil {
			text += ": " + p.Error.Error()
		}
		m.tr.put(&noteEntry{k: key, text: text, kind: noteWarn})
	case client.PartSubtask:
		m.tr.put(&noteEntry{k: key, text: fmt.Sprintf("Subtask for @%s: %s", p.Agent, p.Description), kind: noteInfo})
	}
}

// userEntryOf builds the entry of a user's message from its parts.
func userEntryOf(id string, parts []client.Part) *userEntry {
	e := &userEntry{id: id}
	for _, p := range parts {
		switch {
		case p.Type == client.PartText && !p.Synthetic && !p.Ignored && strings.TrimSpace(p.Text) != "":
			e.texts = append(e.texts, p.Text)
		case p.Type == client.PartFile:
			name := p.Filename
			if name == "" {
				name = p.URL
			}
			e.files = append(e.files, name)
		}
	}
	return e
}

// applyDelta appends streamed text to its entry.
func (m *Model) applyDelta(d client.PartDeltaEvent) {
	if d.Field != "text" {
		return
	}
	switch e := m.tr.find(d.MessageID + "/" + d.PartID).(type) {
	case *textEntry:
		e.appendText(d.Delta)
	case *reasoningEntry:
		e.text += d.Delta
		e.cache.reset()
	}
}

// newSession empties the view for a session created on the next prompt.
func (m *Model) newSession() {
	m.sess = nil
	m.parents = nil
	m.msgs = map[string]*msgState{}
	m.tr.reset()
	m.selected = ""
	m.usage = usage{}
	m.todos, m.revertFrom = nil, ""
	m.older, m.loadingOlder = false, false
	m.status, m.busySince = client.SessionStatus{}, time.Time{}
	m.spinTag++
}

// getenv reads the environment.
func (m *Model) getenv(k string) string {
	if m.opts.Getenv != nil {
		return m.opts.Getenv(k)
	}
	return os.Getenv(k)
}

// notify shows a toast, its first line, for a few seconds.
func (m *Model) notify(text string, bad bool) tea.Cmd {
	if i := strings.IndexByte(text, '\n'); i >= 0 {
		text = text[:i]
	}
	m.seq++
	m.toast = toast{text: text, bad: bad, seq: m.seq}
	return expireAfter(m.seq, 4*time.Second)
}

// failed shows an error; an operation the client does not support says
// so plainly. An error of several lines (one that says what to do) is
// also written into the transcript, where it stays.
func (m *Model) failed(what string, err error) tea.Cmd {
	if errors.Is(err, client.ErrUnsupported) {
		return m.notify(err.Error(), true)
	}
	if errors.Is(err, client.ErrBusy) {
		return m.notify(what+": the session is busy; press Esc twice to interrupt it", true)
	}
	text := what + ": " + err.Error()
	if strings.Contains(text, "\n") {
		m.seq++
		m.tr.put(&noteEntry{k: m.lastKey() + fmt.Sprintf("/~f%06d", m.seq), text: text, kind: noteError})
	}
	return m.notify(text, true)
}
