package session

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"time"

	"github.com/codeloop/codeloop/internal/bus"
	"github.com/codeloop/codeloop/internal/id"
	"github.com/codeloop/codeloop/internal/message"
	"github.com/codeloop/codeloop/internal/store"
)

var forkTitle = regexp.MustCompile(`^(.+) \(fork #(\d+)\)$`)

// forkedTitle numbers a fork: "t" becomes "t (fork #1)", "t (fork #1)"
// becomes "t (fork #2)".
func forkedTitle(t string) string {
	if m := forkTitle.FindStringSubmatch(t); m != nil {
		n, _ := strconv.Atoi(m[2])
		return fmt.Sprintf("%s (fork #%d)", m[1], n+1)
	}
	return t + " (fork #1)"
}

// Fork copies a session into a new one. With before set, only the messages
// older than that message are copied. Messages and parts get new ids;
// parent ids and compaction tails are remapped to them.
func (s *Sessions) Fork(ctx context.Context, sessionID, before string) (Info, error) {
	src, err := s.Get(ctx, sessionID)
	if err != nil {
		return Info{}, err
	}
	msgs, err := s.Messages(ctx, sessionID)
	if err != nil {
		return Info{}, err
	}
	now := s.now().UnixMilli()
	dst := src
	dst.ID = id.Descending(id.Session)
	dst.Slug = newSlug()
	dst.ParentID = ""
	dst.Title = forkedTitle(src.Title)
	dst.Share = nil
	dst.Revert = nil
	dst.Time = Time{Created: now, Updated: now}

	var kept []message.Message
	for _, m := range msgs {
		if before != "" && m.Info.ID >= before {
			break
		}
		kept = append(kept, m)
	}
	copies, err := renumber(kept, dst.ID)
	if err != nil {
		return Info{}, err
	}
	if err := s.write(ctx, dst, copies, false); err != nil {
		return Info{}, err
	}
	s.publish(ctx, bus.SessionCreated, dst.ID, SessionEvent{Info: dst})
	return dst, nil
}

// renumber copies msgs into session sessionID under new message and part
// ids, in the same order, with parent ids and compaction tails remapped.
func renumber(msgs []message.Message, sessionID string) ([]message.Message, error) {
	ids := map[string]string{}
	copies := make([]message.Message, 0, len(msgs))
	for _, m := range msgs {
		nid := id.Ascending(id.Message)
		ids[m.Info.ID] = nid
		c := message.Message{Info: m.Info}
		c.Info.ID = nid
		c.Info.SessionID = sessionID
		for _, p := range m.Parts {
			cp, err := message.Clone(p)
			if err != nil {
				return nil, err
			}
			b := cp.Base()
			b.ID = id.Ascending(id.Part)
			b.MessageID = nid
			b.SessionID = sessionID
			c.Parts = append(c.Parts, cp)
		}
		copies = append(copies, c)
	}
	for i := range copies {
		c := &copies[i]
		if c.Info.ParentID != "" {
			c.Info.ParentID = ids[c.Info.ParentID]
		}
		for _, p := range c.Parts {
			if cp, ok := p.(*message.CompactionPart); ok && cp.TailStartID != "" {
				cp.TailStartID = ids[cp.TailStartID]
			}
		}
	}
	return copies, nil
}

// write stores a session and its messages in one transaction.
// With replace, a stored session with the same id is removed first.
func (s *Sessions) write(ctx context.Context, info Info, msgs []message.Message, replace bool) error {
	data, err := json.Marshal(info)
	if err != nil {
		return fmt.Errorf("encoding session %s: %w", info.ID, err)
	}
	return s.store.Tx(ctx, func(tx *store.Tx) error {
		if replace {
			if err := tx.DeleteSession(ctx, info.ID); err != nil && !errors.Is(err, store.ErrNotFound) {
				return err
			}
		}
		if err := tx.PutSession(ctx, store.Session{
			ID: info.ID, ProjectID: info.ProjectID, ParentID: info.ParentID, Directory: info.Directory,
			Title: info.Title, TimeCreated: info.Time.Created, TimeUpdated: info.Time.Updated, Data: data,
		}); err != nil {
			return err
		}
		for _, m := range msgs {
			md, err := json.Marshal(m.Info)
			if err != nil {
				return fmt.Errorf("encoding message %s: %w", m.Info.ID, err)
			}
			if err := tx.PutMessage(ctx, store.Message{ID: m.Info.ID, SessionID: info.ID, TimeCreated: m.Info.Time.Created, Data: md}); err != nil {
				return err
			}
			for _, p := range m.Parts {
				pd, err := json.Marshal(p)
				if err != nil {
					return fmt.Errorf("encoding part %s: %w", p.Base().ID, err)
				}
				b := p.Base()
				if err := tx.PutPart(ctx, store.Part{ID: b.ID, MessageID: m.Info.ID, SessionID: info.ID, Data: pd}); err != nil {
					return err
				}
			}
		}
		return nil
	})
}

// Export is a session with all its messages, in OpenCode's export shape.
type Export struct {
	Info     Info              `json:"info"`
	Messages []message.Message `json:"messages"`
}

// Export returns a session with its messages.
func (s *Sessions) Export(ctx context.Context, sessionID string) (Export, error) {
	info, err := s.Get(ctx, sessionID)
	if err != nil {
		return Export{}, err
	}
	msgs, err := s.Messages(ctx, sessionID)
	if err != nil {
		return Export{}, err
	}
	if msgs == nil {
		msgs = []message.Message{}
	}
	for i := range msgs {
		if msgs[i].Parts == nil {
			msgs[i].Parts = []message.Part{}
		}
	}
	return Export{Info: info, Messages: msgs}, nil
}

// ImportOptions say where an import goes and what it may replace.
type ImportOptions struct {
	// ProjectID, when not empty, puts the session in that project.
	ProjectID string
	// Replace lets the import replace a stored session with the same id.
	// Without it, such an import is stored as a new session, so that an
	// import never deletes anything.
	Replace bool
}

// Import stores an exported session under its own ids. When a session
// with the same id exists and opts.Replace is not set, the import gets new
// ids (session, messages, parts); the returned info then has an id other
// than the export's.
func (s *Sessions) Import(ctx context.Context, e Export, opts ImportOptions) (Info, error) {
	if err := id.Check(id.Session, e.Info.ID); err != nil {
		return Info{}, fmt.Errorf("importing: %w", err)
	}
	_, err := s.store.GetSession(ctx, e.Info.ID)
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return Info{}, err
	}
	info, msgs, err := prepareImport(e, opts, err == nil && !opts.Replace, s.now())
	if err != nil {
		return Info{}, err
	}
	if err := s.write(ctx, info, msgs, opts.Replace); err != nil {
		return Info{}, err
	}
	s.publish(ctx, bus.SessionCreated, info.ID, SessionEvent{Info: info})
	return info, nil
}

// prepareImport checks an export and returns the session and messages to
// store: under new ids when renew is set, in opts.ProjectID when given,
// with every message and part pointing at the session.
func prepareImport(e Export, opts ImportOptions, renew bool, now time.Time) (Info, []message.Message, error) {
	if err := id.Check(id.Session, e.Info.ID); err != nil {
		return Info{}, nil, fmt.Errorf("importing: %w", err)
	}
	info := e.Info
	if opts.ProjectID != "" {
		info.ProjectID = opts.ProjectID
	}
	msgs := e.Messages
	seen := make(map[string]bool, len(msgs))
	for _, m := range msgs {
		if seen[m.Info.ID] && m.Info.ID != "" {
			return Info{}, nil, fmt.Errorf("importing: message id %s appears twice", m.Info.ID)
		}
		seen[m.Info.ID] = true
	}
	if renew {
		info.ID = id.Descending(id.Session)
		info.Slug = newSlug()
		info.Revert = nil
		var err error
		if msgs, err = renumber(msgs, info.ID); err != nil {
			return Info{}, nil, err
		}
	}
	if info.Slug == "" {
		info.Slug = newSlug()
	}
	if info.Time.Created == 0 {
		info.Time.Created = now.UnixMilli()
	}
	if info.Time.Updated == 0 {
		info.Time.Updated = info.Time.Created
	}
	for i := range msgs {
		m := &msgs[i]
		if m.Info.ID == "" {
			return Info{}, nil, fmt.Errorf("importing: message %d has no id", i)
		}
		m.Info.SessionID = info.ID
		for _, p := range m.Parts {
			if p == nil {
				return Info{}, nil, fmt.Errorf("importing: message %s has an empty part", m.Info.ID)
			}
			b := p.Base()
			if b.ID == "" {
				return Info{}, nil, fmt.Errorf("importing: a part of message %s has no id", m.Info.ID)
			}
			b.SessionID = info.ID
			b.MessageID = m.Info.ID
		}
	}
	return info, msgs, nil
}
