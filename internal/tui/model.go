package tui

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"charm.land/bubbles/v2/textarea"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

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
	// tabs are the tab widths of the project's .editorconfig.
	tabs tabStops
	// themes are the themes of theme files, built-in ones included;
	// themeProblems what was wrong with the files or the theme asked for.
	themes        map[string]colorTheme
	themeProblems []string

	sess     *client.Session
	parents  []string // the sessions a sub-agent's session was opened from, innermost last
	msgs     map[string]*msgState
	tr       *transcript
	selected string // key of the selected tool call, "" for none
	usage    usage  // the newest answer's tokens and model
	todos    []client.Todo
	// changes are the files each completed call changed, by the call's
	// key; changedList sums them, nil until needed again.
	changes     map[string][]fileCount
	changedList []fileCount
	// sidebarPref is 1 when the sidebar was asked for, -1 when hidden, 0
	// for the default (shown on wide terminals).
	sidebarPref int
	// children follows the sessions of the sub-agents that task calls
	// run, by session id; childEntry is the key of each one's call.
	children   map[string]*childProgress
	childEntry map[string]string
	// revertFrom hides the messages from this id on: the session was
	// reverted to before it.
	revertFrom string
	// newBelow says something came in below the view while the user had
	// scrolled up; the rule says so.
	newBelow bool
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
	// newer are the spans of messages dropped after those the view
	// holds, the nearest last; loadingNewer says one is being read again,
	// read numbered newerSeq.
	newer        []span
	loadingNewer bool
	newerSeq     int

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

	events client.Events
	toast  toast
	// keys are the keybinds in force; leaderOn is the sequence of the
	// leader press that waits for its second key, 0 when none.
	keys     keymap
	leaderOn int
	// recent are the project's newest sessions, for the start screen.
	recent []client.Session
	// jump is the message the timeline chose, while older pages are read
	// to reach it.
	jump string
	// mcp and lsp are the MCP and language servers' states.
	mcp      map[string]client.MCPStatus
	lsp      []client.LSPStatus
	escArmed int // the sequence of the Esc press that arms an interrupt, 0 when none
	seq      int // sequence of timed things (toasts, Esc presses)
	sessErr  int // numbers session errors, for their keys
	loaded   bool
	quitting bool

	// find is the transcript search; sel the messages selected to copy.
	// scans numbers the searches of the whole session.
	find  finder
	scans int
	// jumps numbers the jumps to a message far from the view (see jumpTo).
	jumps int
	sel   selection
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
	// cache is the newest answer's input tokens as the model counted
	// them, for the share read from the prompt cache.
	cache client.Tokens
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
		noColor: opts.NoColor, msgs: map[string]*msgState{}, tr: newTranscript(), changes: map[string][]fileCount{},
		agent: opts.Agent, children: map[string]*childProgress{}, childEntry: map[string]string{},
	}
	if m.now == nil {
		m.now = time.Now
	}
	m.darkBackground = true
	m.tabs = loadTabStops(opts.Dir)

	m.theme = newTheme(m.noColor, true).withProject(m.opts.Dir, m.tabs)
	if opts.Model != "" {
		if p, id, ok := strings.Cut(opts.Model, "/"); ok && p != "" && id != "" {
			m.model = &client.ModelRef{ProviderID: p, ModelID: id}
		}
	}
	m.input = newInput(m.theme)
	configHome := m.getenv("XDG_CONFIG_HOME")
	if home := m.getenv("HOME"); configHome == "" && home != "" {
		configHome = filepath.Join(home, ".config")
	}
	m.themes, m.themeProblems = loadThemes(configHome, opts.Dir)
	// OpenCode's tui.json files first, codeloop's config over them.
	binds, bindProblems := openCodeKeybinds(configHome, opts.Dir)
	for k, v := range opts.Keybinds {
		binds[k] = v
	}
	m.keys = newKeymap(binds)
	m.keys.problems = append(bindProblems, m.keys.problems...)
	if opts.Theme != "" && opts.Theme != "auto" {
		if _, fixed := fixedThemes[opts.Theme]; !fixed && m.themes[opts.Theme].name == "" {
			m.themeProblems = append(m.themeProblems, fmt.Sprintf("no theme is named %q; using the default", opts.Theme))
		} else {
			m.setTheme(opts.Theme)
		}
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
	if m.getenv("SSH_TTY") != "" {
		// Bubble Tea asks the terminal whether it draws synchronized
		// updates (mode 2026) except over SSH; its answer is as good
		// there, so ask, and frames are wrapped once it says yes.
		cmds = append(cmds, tea.Raw(ansi.RequestModeSynchronizedOutput))
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
		return m, tea.Batch(m.key(msg), m.renderAround(), m.maybeLoadNewer())
	case tea.PasteMsg:
		return m, m.paste(msg.Content)
	case olderMsg:
		cmd := m.olderMsg(msg)
		if m.find.active() {
			cmd = tea.Batch(cmd, m.research(false))
		}
		if m.jump != "" {
			cmd = tea.Batch(cmd, m.continueJump())
		}
		return m, cmd
	case newerMsg:
		cmd := m.newerMsg(msg)
		if m.find.active() {
			cmd = tea.Batch(cmd, m.research(false))
		}
		if m.jump != "" {
			cmd = tea.Batch(cmd, m.continueJump())
		}
		return m, cmd
	case scanMsg:
		return m, m.scanned(msg)
	case jumpMsg:
		return m, m.jumped(msg)
	case tea.MouseMsg:
		return m, tea.Batch(m.mouse(msg), m.renderAround(), m.maybeLoadNewer())
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
	case serversMsg:
		return m, m.serversMsg(msg)
	case contextMsg:
		return m, m.contextMsg(msg)
	case connectedMsg:
		return m, m.connected(msg)
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
		if msg.seq == m.leaderOn {
			m.leaderOn = 0
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
	m.recent = msg.recent
	if m.agent == "" {
		m.agent = m.defaultAgent()
	}
	cmds := []tea.Cmd{m.fetchServers(0)}
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
	if text := startProblems(m.themeProblems, m.keys.problems); text != "" {
		cmds = append(cmds, m.notifyFor(text, true, 10*time.Second))
	}
	if m.opts.Prompt != "" {
		cmds = append(cmds, m.submit(m.opts.Prompt))
	}
	return tea.Batch(cmds...)
}

// startProblems says on one line what was wrong with the theme files
// and the keybinds, "" when nothing was.
func startProblems(themes, keys []string) string {
	var parts []string
	for _, p := range []struct {
		what string
		list []string
	}{{"theme", themes}, {"keybinds", keys}} {
		if len(p.list) == 0 {
			continue
		}
		text := p.what + ": " + p.list[0]
		if len(p.list) > 1 {
			text += fmt.Sprintf(" (and %d more)", len(p.list)-1)
		}
		if p.what == "keybinds" {
			text += "; /keybinds lists them"
		}
		parts = append(parts, text)
	}
	return strings.Join(parts, " · ")
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
	m.changes, m.changedList = map[string][]fileCount{}, nil
	m.revertFrom = revertPoint(sess.Revert)
	m.older, m.loadingOlder = len(msgs) >= pageMessages, false
	m.newer, m.loadingNewer = nil, false
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
	var found tea.Cmd
	if m.find.active() {
		found = m.research(false)
	}
	return tea.Batch(m.setStatus(msg.status), m.maybeLoadOlder(), found, m.continueJump())
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

// newSession empties the view for a session created on the next prompt.
func (m *Model) newSession() {
	m.sess = nil
	m.parents = nil
	m.msgs = map[string]*msgState{}
	m.tr.reset()
	m.selected = ""
	m.usage = usage{}
	m.todos, m.revertFrom = nil, ""
	m.changes, m.changedList = map[string][]fileCount{}, nil
	m.older, m.loadingOlder = false, false
	m.newer, m.loadingNewer = nil, false
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
	return m.notifyFor(text, bad, 4*time.Second)
}

// notifyFor shows a toast, its first line, for d.
func (m *Model) notifyFor(text string, bad bool, d time.Duration) tea.Cmd {
	if i := strings.IndexByte(text, '\n'); i >= 0 {
		text = text[:i]
	}
	m.seq++
	m.toast = toast{text: text, bad: bad, seq: m.seq}
	return expireAfter(m.seq, d)
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
