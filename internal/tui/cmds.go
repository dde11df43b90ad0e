package tui

import (
	"context"
	"errors"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/codeloop/codeloop/internal/client"
)

// The messages the view's commands send back.
type (
	// loadedMsg is what the view starts with.
	loadedMsg struct {
		events    client.Events
		sess      *client.Session
		msgs      []client.Message
		status    client.SessionStatus
		agents    []client.Agent
		catalog   client.ModelCatalog
		commands  []client.Command
		asks      []client.PermissionRequest
		questions []client.QuestionRequest
		recent    []client.Session // the project's newest sessions, for the start screen
		errs      []error          // what could not be loaded; the view works without it
	}
	// eventsMsg is a burst of events read at once.
	eventsMsg []client.Event
	// eventsEndedMsg says the event stream ended.
	eventsEndedMsg struct{ err error }
	// sessionMsg carries a session to show.
	sessionMsg struct {
		sess   client.Session
		msgs   []client.Message
		status client.SessionStatus
		err    error
	}
	// createdMsg carries the session made for a first prompt.
	createdMsg struct {
		sess client.Session
		send func(sessionID string) tea.Cmd
		err  error
	}
	// resultMsg ends a call: ok is a notice to show, err a failure;
	// then, after a success, runs on the model.
	resultMsg struct {
		what string
		ok   string
		err  error
		then func(m *Model)
	}
	// tickMsg advances the spinner.
	tickMsg struct{ tag int }
	// expireMsg ends a toast or an armed Esc.
	expireMsg struct{ seq int }
)

// eventBurst bounds how many waiting events one update applies.
const eventBurst = 512

// load subscribes to events, then reads the session to open and the
// catalogs, so no event falls between the two.
func (m *Model) load() tea.Cmd {
	c, ctx, opts := m.c, m.ctx, m.opts
	return func() tea.Msg {
		var out loadedMsg
		fail := func(err error) { out.errs = append(out.errs, err) }
		ev, err := c.Subscribe(ctx, client.EventFilter{})
		if err != nil {
			fail(err)
		}
		out.events = ev
		var sess *client.Session
		switch {
		case opts.SessionID != "":
			s, err := c.GetSession(ctx, opts.SessionID)
			if err != nil {
				fail(err)
			} else {
				sess = &s
			}
		case opts.Continue:
			list, err := c.ListSessions(ctx, client.ListSessionsOptions{Roots: true, Limit: 1})
			if err != nil {
				fail(err)
			} else if len(list) > 0 {
				sess = &list[0]
			}
		}
		if sess != nil {
			msgs, err := c.Messages(ctx, sess.ID, client.MessagesOptions{Limit: pageMessages})
			if err != nil {
				fail(err)
			}
			out.sess, out.msgs = sess, msgs
			if st, err := c.Status(ctx); err == nil {
				out.status = st[sess.ID]
			}
		}
		if out.agents, err = c.Agents(ctx); err != nil {
			fail(err)
		}
		if out.catalog, err = c.Models(ctx); err != nil {
			fail(err)
		}
		if out.commands, err = c.Commands(ctx); err != nil {
			fail(err)
		}
		if sess == nil {
			out.recent, _ = c.ListSessions(ctx, client.ListSessionsOptions{Roots: true, Limit: recentSessions})
		}
		out.asks, _ = c.Permissions(ctx)
		out.questions, _ = c.Questions(ctx)
		return out
	}
}

// waitEvents reads the next burst of events.
func (m *Model) waitEvents() tea.Cmd {
	ev, ctx := m.events, m.ctx
	if ev == nil {
		return nil
	}
	return func() tea.Msg {
		e, err := ev.Next(ctx)
		if err != nil {
			return eventsEndedMsg{err: err}
		}
		batch := eventsMsg{e}
		done, cancel := context.WithCancel(context.Background())
		cancel()
		for len(batch) < eventBurst {
			e, err := ev.Next(done)
			if err != nil {
				break
			}
			batch = append(batch, e)
		}
		return batch
	}
}

// reload reads the current session again.
func (m *Model) reload() tea.Cmd {
	if m.sess == nil {
		return nil
	}
	return m.openSessionCmd(m.sess.ID)
}

// openSessionCmd reads a session with its messages and status.
func (m *Model) openSessionCmd(id string) tea.Cmd {
	c, ctx := m.c, m.ctx
	return func() tea.Msg {
		s, err := c.GetSession(ctx, id)
		if err != nil {
			return sessionMsg{err: err}
		}
		msgs, err := c.Messages(ctx, id, client.MessagesOptions{Limit: pageMessages})
		if err != nil {
			return sessionMsg{err: err}
		}
		st, _ := c.Status(ctx)
		return sessionMsg{sess: s, msgs: msgs, status: st[id]}
	}
}

// call runs f and reports its outcome as a resultMsg; then, when given,
// runs on the model after a success.
func (m *Model) call(what, ok string, f func(ctx context.Context, c client.Client) error, then ...func(m *Model)) tea.Cmd {
	c, ctx := m.c, m.ctx
	r := resultMsg{what: what, ok: ok}
	if len(then) > 0 {
		r.then = then[0]
	}
	return func() tea.Msg {
		r.err = f(ctx, c)
		return r
	}
}

// withSession runs send on the current session, creating it first when
// there is none yet.
func (m *Model) withSession(send func(sessionID string) tea.Cmd) tea.Cmd {
	if m.sess != nil {
		return send(m.sess.ID)
	}
	c, ctx := m.c, m.ctx
	return func() tea.Msg {
		s, err := c.CreateSession(ctx, client.CreateSessionInput{})
		return createdMsg{sess: s, send: send, err: err}
	}
}

// createdMsg makes the new session current before anything is sent to
// it, so the view sees all of its events. When what is sent fails, the
// session, still empty, is deleted again.
func (m *Model) createdMsg(msg createdMsg) tea.Cmd {
	if msg.err != nil {
		return m.failed("creating a session", msg.err)
	}
	if m.sess == nil {
		m.openSession(msg.sess, nil)
	}
	send := msg.send(msg.sess.ID)
	c, ctx, id := m.c, m.ctx, msg.sess.ID
	return func() tea.Msg {
		out := send()
		if r, ok := out.(resultMsg); ok && r.err != nil {
			if msgs, err := c.Messages(ctx, id, client.MessagesOptions{Limit: 1}); err == nil && len(msgs) == 0 {
				_ = c.DeleteSession(ctx, id)
				return droppedMsg{sessionID: id, result: r}
			}
		}
		return out
	}
}

// droppedMsg says the session made for a message that failed was
// deleted.
type droppedMsg struct {
	sessionID string
	result    resultMsg
}

// tick schedules the next spinner frame.
func (m *Model) tick() tea.Cmd {
	tag := m.spinTag
	return tea.Tick(100*time.Millisecond, func(time.Time) tea.Msg { return tickMsg{tag: tag} })
}

func expireAfter(seq int, d time.Duration) tea.Cmd {
	return tea.Tick(d, func(time.Time) tea.Msg { return expireMsg{seq: seq} })
}

// isCanceled reports whether err only says the view is closing.
func isCanceled(err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, client.ErrClosed)
}
