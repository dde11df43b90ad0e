package session

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strconv"

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

	ids := map[string]string{}
	var copies []message.Message
	for _, m := range msgs {
		if before != "" && m.Info.ID >= before {
			break
		}
		nid := id.Ascending(id.Message)
		ids[m.Info.ID] = nid
		c := message.Message{Info: m.Info}
		c.Info.ID = nid
		c.Info.SessionID = dst.ID
		if c.Info.ParentID != "" {
			c.Info.ParentID = ids[c.Info.ParentID]
		}
		for _, p := range m.Parts {
			cp, err := message.Clone(p)
			if err != nil {
				return Info{}, err
			}
			b := cp.Base()
			b.ID = id.Ascending(id.Part)
			b.MessageID = nid
			b.SessionID = dst.ID
			c.Parts = append(c.Parts, cp)
		}
		copies = append(copies, c)
	}
	for _, c := range copies {
		for _, p := range c.Parts {
			if cp, ok := p.(*message.CompactionPart); ok && cp.TailStartID != "" {
				cp.TailStartID = ids[cp.TailStartID]
			}
		}
	}
	if err := s.write(ctx, dst, copies, false); err != nil {
		return Info{}, err
	}
	s.publish(ctx, bus.SessionCreated, dst.ID, SessionEvent{Info: dst})
	return dst, nil
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

// Import stores an exported session under its own ids, replacing a session
// with the same id. A non-empty projectID moves it into that project so it
// is listed there.
func (s *Sessions) Import(ctx context.Context, e Export, projectID string) (Info, error) {
	if err := id.Check(id.Session, e.Info.ID); err != nil {
		return Info{}, fmt.Errorf("importing: %w", err)
	}
	info := e.Info
	if projectID != "" {
		info.ProjectID = projectID
	}
	if info.Slug == "" {
		info.Slug = newSlug()
	}
	if info.Time.Created == 0 {
		info.Time.Created = s.now().UnixMilli()
	}
	if info.Time.Updated == 0 {
		info.Time.Updated = info.Time.Created
	}
	for i := range e.Messages {
		m := &e.Messages[i]
		if m.Info.ID == "" {
			return Info{}, fmt.Errorf("importing: message %d has no id", i)
		}
		m.Info.SessionID = info.ID
		for _, p := range m.Parts {
			b := p.Base()
			if b.ID == "" {
				return Info{}, fmt.Errorf("importing: a part of message %s has no id", m.Info.ID)
			}
			b.SessionID = info.ID
			b.MessageID = m.Info.ID
		}
	}
	if err := s.write(ctx, info, e.Messages, true); err != nil {
		return Info{}, err
	}
	s.publish(ctx, bus.SessionCreated, info.ID, SessionEvent{Info: info})
	return info, nil
}
