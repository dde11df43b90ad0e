package tui

// Applying the client's events to the view: messages, parts and deltas of
// the current session, its sub-agents' progress, asks and questions.

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/codeloop/codeloop/internal/client"
)

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
	if m.droppedEvent(e) {
		// The store has it: the view reads it when it comes back near.
		m.newBelow = true
		return nil
	}
	switch e.(type) {
	case client.MessageUpdatedEvent, client.PartUpdatedEvent, client.PartDeltaEvent, client.SessionErrorEvent:
		m.tr.gen++ // entries may change in place: a search looks at every one again
		if !m.tr.follow {
			m.newBelow = true
		}
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

// droppedEvent reports whether e changes a message among those dropped
// after the ones the view holds; an answer's token count still moves the
// sidebar's figures.
func (m *Model) droppedEvent(e client.Event) bool {
	if len(m.newer) == 0 {
		return false
	}
	switch e := e.(type) {
	case client.MessageUpdatedEvent:
		if !m.beyond(e.Info.ID) || m.hidden(e.Info.ID) {
			return false
		}
		if t := e.Info.Tokens; e.Info.Role == client.RoleAssistant && t != nil && t.Count() > 0 {
			m.usage = usage{tokens: t.Count(), provider: e.Info.ProviderID, model: e.Info.ModelID, cache: *t}
		}
		return true
	case client.PartUpdatedEvent:
		return m.beyond(e.Part.MessageID)
	case client.PartDeltaEvent:
		return m.beyond(e.MessageID)
	case client.PartRemovedEvent:
		return m.beyond(e.MessageID)
	case client.MessageRemovedEvent:
		return m.beyond(e.MessageID)
	case client.SessionErrorEvent, client.SessionCompactedEvent:
		return true
	}
	return false
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
	if s := toolSummary(pu.Part, pu.Part.State); s != "" {
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
		m.usage = usage{tokens: info.Tokens.Count(), provider: info.ProviderID, model: info.ModelID, cache: *info.Tokens}
	}
	if e := errorNote(info); e != nil {
		m.tr.put(e)
	}
}

// errorNote is the note an assistant's message that failed ends with; nil
// when it did not fail.
func errorNote(info client.MessageInfo) *noteEntry {
	switch e := info.Error; {
	case e == nil:
		return nil
	case e.Name == "MessageAbortedError":
		return &noteEntry{k: info.ID + "/~", text: "Interrupted.", kind: noteInfo}
	default:
		return &noteEntry{k: info.ID + "/~", text: "Error: " + e.Error(), kind: noteError}
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
	e := partEntry(key, p, m.thinking, m.details)
	switch e := e.(type) {
	case nil:
	case *textEntry:
		if old, ok := m.tr.find(key).(*textEntry); ok {
			old.set(p.Text, e.streaming)
			return
		}
		m.tr.put(e)
	case *toolEntry:
		if old, ok := m.tr.find(key).(*toolEntry); ok {
			e.expanded, e.selected = old.expanded, old.selected
		}
		if id := e.childSession(); id != "" {
			if m.children[id] == nil {
				m.children[id] = &childProgress{sessionID: id, calls: map[string]string{}}
			}
			e.child, m.childEntry[id] = m.children[id], key
		}
		m.noteChanges(key, p)
		if p.State != nil && p.State.Status == client.ToolCompleted {
			if todos := todosOf(p.State); todos != nil {
				m.todos = todos
			}
		}
		m.tr.put(e)
	default:
		m.tr.put(e)
	}
}

// partEntry is the entry that shows part p of an assistant's message under
// key, new (reasoning shown whole when thinking is set, tool calls
// expanded when details is); nil for a part that shows none.
func partEntry(key string, p client.Part, thinking, details bool) entry {
	switch p.Type {
	case client.PartText:
		if p.Synthetic || p.Ignored {
			return nil
		}
		e := &textEntry{k: key}
		e.set(p.Text, p.Time != nil && p.Time.End == 0)
		return e
	case client.PartReasoning:
		return &reasoningEntry{k: key, text: p.Text, streaming: p.Time != nil && p.Time.End == 0, full: thinking}
	case client.PartTool:
		return &toolEntry{k: key, part: p, expanded: details}
	case client.PartRetry:
		text := fmt.Sprintf("Retrying (attempt %d)", p.Attempt)
		if p.Error != nil {
			text += ": " + p.Error.Error()
		}
		return &noteEntry{k: key, text: text, kind: noteWarn}
	case client.PartSubtask:
		return &noteEntry{k: key, text: fmt.Sprintf("Subtask for @%s: %s", p.Agent, p.Description), kind: noteInfo}
	}
	return nil
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
