package session

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/codeloop/codeloop/internal/bus"
	"github.com/codeloop/codeloop/internal/id"
	"github.com/codeloop/codeloop/internal/message"
	"github.com/codeloop/codeloop/internal/permission"
	"github.com/codeloop/codeloop/internal/store"
)

// ErrNotFound reports a session or message that does not exist.
var ErrNotFound = store.ErrNotFound

// Sessions reads and writes sessions, messages and parts, and publishes a
// bus event for every change. Its methods are safe for concurrent use.
type Sessions struct {
	store   *store.Store
	bus     *bus.Bus
	version string
	now     func() time.Time

	mu sync.Mutex // serialises read-modify-write of session infos

	hist      histories // recent histories of the sessions worked on (View)
	noHistory bool      // View reads the whole session every time

	afterDelete func(sessionID string) // see AfterDelete
}

// NewSessions returns the session service over st. Version is written into
// every new session; b may be nil.
func NewSessions(st *store.Store, b *bus.Bus, version string) *Sessions {
	return &Sessions{store: st, bus: b, version: version, now: time.Now}
}

// AfterDelete makes Delete call fn with the id of each session it
// removes, its children's too, once the session is gone from the store:
// what is kept outside the store for a session goes with it. It must be
// called before the Sessions is used.
func (s *Sessions) AfterDelete(fn func(sessionID string)) { s.afterDelete = fn }

// lockLoop takes the cross-process lock of the session's loop, calling
// waiting with the holder's process id if another process has it.
func (s *Sessions) lockLoop(ctx context.Context, sessionID string, waiting func(pid int)) (*store.SessionLock, error) {
	return s.store.LockSession(ctx, sessionID, waiting)
}

func (s *Sessions) publish(ctx context.Context, typ, sessionID string, props any) {
	if s.bus != nil {
		s.bus.Publish(ctx, bus.Event{Type: typ, SessionID: sessionID, Properties: props})
	}
}

// CreateInput describes a new session.
type CreateInput struct {
	ProjectID  string
	Directory  string
	ParentID   string
	Title      string // empty for the default title
	Permission permission.Ruleset
	Sandbox    string // see Info.Sandbox
}

// Create makes and stores a new session.
func (s *Sessions) Create(ctx context.Context, in CreateInput) (Info, error) {
	now := s.now()
	info := Info{
		ID:         id.Descending(id.Session),
		Slug:       newSlug(),
		ProjectID:  in.ProjectID,
		Directory:  in.Directory,
		ParentID:   in.ParentID,
		Title:      in.Title,
		Version:    s.version,
		Time:       Time{Created: now.UnixMilli(), Updated: now.UnixMilli()},
		Permission: in.Permission,
		Sandbox:    in.Sandbox,
	}
	if info.Title == "" {
		info.Title = DefaultTitle(now, in.ParentID != "")
	}
	if err := s.put(ctx, info); err != nil {
		return Info{}, err
	}
	s.publish(ctx, bus.SessionCreated, info.ID, SessionEvent{Info: info})
	return info, nil
}

func (s *Sessions) put(ctx context.Context, info Info) error {
	data, err := json.Marshal(info)
	if err != nil {
		return fmt.Errorf("encoding session %s: %w", info.ID, err)
	}
	return s.store.PutSession(ctx, store.Session{
		ID: info.ID, ProjectID: info.ProjectID, ParentID: info.ParentID, Directory: info.Directory,
		Title: info.Title, TimeCreated: info.Time.Created, TimeUpdated: info.Time.Updated, Data: data,
	})
}

func decodeSession(r store.Session) (Info, error) {
	var info Info
	if err := json.Unmarshal(r.Data, &info); err != nil {
		return Info{}, fmt.Errorf("decoding session %s: %w", r.ID, err)
	}
	return info, nil
}

// Get returns the session with id; the error wraps ErrNotFound when there is
// none.
func (s *Sessions) Get(ctx context.Context, id string) (Info, error) {
	r, err := s.store.GetSession(ctx, id)
	if err != nil {
		return Info{}, err
	}
	return decodeSession(r)
}

// Update applies fn to the stored session and saves the result, updating
// time.updated unless fn set it.
func (s *Sessions) Update(ctx context.Context, id string, fn func(*Info)) (Info, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	info, err := s.Get(ctx, id)
	if err != nil {
		return Info{}, err
	}
	before := info.Time.Updated
	fn(&info)
	if info.Time.Updated == before {
		info.Time.Updated = s.now().UnixMilli()
	}
	if err := s.put(ctx, info); err != nil {
		return Info{}, err
	}
	s.publish(ctx, bus.SessionUpdated, info.ID, SessionEvent{Info: info})
	return info, nil
}

// List returns the sessions f selects, the one used last first.
func (s *Sessions) List(ctx context.Context, f store.SessionFilter) ([]Info, error) {
	rows, err := s.store.ListSessions(ctx, f)
	if err != nil {
		return nil, err
	}
	out := make([]Info, 0, len(rows))
	for _, r := range rows {
		info, err := decodeSession(r)
		if err != nil {
			return nil, err
		}
		out = append(out, info)
	}
	return out, nil
}

// Delete removes a session, its messages and parts, and its child sessions.
func (s *Sessions) Delete(ctx context.Context, id string) error {
	info, err := s.Get(ctx, id)
	if err != nil {
		return err
	}
	children, err := s.List(ctx, store.SessionFilter{ParentID: id})
	if err != nil {
		return err
	}
	for _, c := range children {
		if err := s.Delete(ctx, c.ID); err != nil && !errors.Is(err, store.ErrNotFound) {
			return err
		}
	}
	if err := s.store.DeleteSession(ctx, id); err != nil {
		return err
	}
	if s.afterDelete != nil {
		s.afterDelete(id)
	}
	s.publish(ctx, bus.SessionDeleted, id, SessionEvent{Info: info})
	return nil
}

// Messages returns a session's messages with their parts, oldest first.
func (s *Sessions) Messages(ctx context.Context, sessionID string) ([]message.Message, error) {
	return s.MessagesFrom(ctx, sessionID, "")
}

// assemble decodes message rows and gives each the parts among parts that
// belong to it, in their order; parts of other messages are left out.
func assemble(rows []store.Message, parts []store.Part) ([]message.Message, error) {
	out := make([]message.Message, len(rows))
	index := make(map[string]int, len(rows))
	for i, r := range rows {
		if err := json.Unmarshal(r.Data, &out[i].Info); err != nil {
			return nil, fmt.Errorf("decoding message %s: %w", r.ID, err)
		}
		index[r.ID] = i
	}
	for _, r := range parts {
		i, ok := index[r.MessageID]
		if !ok {
			continue
		}
		p, err := message.UnmarshalPart(r.Data)
		if err != nil {
			return nil, fmt.Errorf("decoding part %s: %w", r.ID, err)
		}
		out[i].Parts = append(out[i].Parts, p)
	}
	return out, nil
}

// Message returns one message with its parts.
func (s *Sessions) Message(ctx context.Context, messageID string) (message.Message, error) {
	r, err := s.store.GetMessage(ctx, messageID)
	if err != nil {
		return message.Message{}, err
	}
	var m message.Message
	if err := json.Unmarshal(r.Data, &m.Info); err != nil {
		return m, fmt.Errorf("decoding message %s: %w", r.ID, err)
	}
	parts, err := s.store.ListMessageParts(ctx, messageID)
	if err != nil {
		return m, err
	}
	for _, pr := range parts {
		p, err := message.UnmarshalPart(pr.Data)
		if err != nil {
			return m, fmt.Errorf("decoding part %s: %w", pr.ID, err)
		}
		m.Parts = append(m.Parts, p)
	}
	return m, nil
}

// PutMessage stores a message's info and publishes it. A user's message
// marks the session as updated now.
func (s *Sessions) PutMessage(ctx context.Context, info message.Info) error {
	data, err := json.Marshal(info)
	if err != nil {
		return fmt.Errorf("encoding message %s: %w", info.ID, err)
	}
	err = s.tracked(info.SessionID, func() error {
		return s.store.PutMessage(ctx, store.Message{ID: info.ID, SessionID: info.SessionID, TimeCreated: info.Time.Created, Data: data})
	}, func(h *history) { h.putMessage(info.ID, data) })
	if err != nil {
		return err
	}
	s.publish(ctx, bus.MessageUpdated, info.SessionID, MessageEvent{Info: info})
	if info.Role == message.RoleUser {
		// A message from the user is activity: the session moves to the
		// top of the list, and --continue takes it.
		if _, err := s.Update(ctx, info.SessionID, func(*Info) {}); err != nil {
			return err
		}
	}
	return nil
}

// PutPart stores a part and publishes a copy of it.
func (s *Sessions) PutPart(ctx context.Context, p message.Part) error {
	data, err := json.Marshal(p)
	if err != nil {
		return fmt.Errorf("encoding part %s: %w", p.Base().ID, err)
	}
	b := p.Base()
	if err := s.putPartData(ctx, b, data); err != nil {
		return err
	}
	if s.bus != nil {
		if c, err := message.UnmarshalPart(data); err == nil {
			s.publish(ctx, bus.PartUpdated, b.SessionID, PartEvent{Part: c})
		}
	}
	return nil
}

// putPartData stores an encoded part without publishing it.
func (s *Sessions) putPartData(ctx context.Context, b *message.PartBase, data []byte) error {
	return s.tracked(b.SessionID, func() error {
		return s.store.PutPart(ctx, store.Part{ID: b.ID, MessageID: b.MessageID, SessionID: b.SessionID, Data: data})
	}, func(h *history) { h.putPart(b.MessageID, b.ID, data) })
}

// AddUsage adds a step's cost and tokens to the session's totals.
func (s *Sessions) AddUsage(ctx context.Context, sessionID string, cost float64, tokens message.Tokens) error {
	_, err := s.Update(ctx, sessionID, func(info *Info) {
		info.Cost += cost
		t := tokens
		if info.Tokens != nil {
			t = info.Tokens.Add(tokens)
		}
		info.Tokens = &t
	})
	return err
}
