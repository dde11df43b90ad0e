package session

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/codeloop/codeloop/internal/message"
	"github.com/codeloop/codeloop/internal/store"
)

// historyKeep is how many sessions' histories a Sessions keeps in memory.
const historyKeep = 4

// historyRoom is how many messages a history's array has room for beyond
// those it holds when it is made, so that the messages of a turn's steps
// are appended without copying the array.
const historyRoom = 64

// histories keeps the recent history of the sessions a process works on,
// so that a loop does not read and decode a whole session at every step.
//
// A history holds the stored messages of a session from an id on (from the
// last completed compaction, or all of them), and the session's revision
// (store.SessionRevision) those messages correspond to. Every write this
// Sessions makes to the session is applied to the history under the
// history's lock, which also counts it; when the stored revision differs
// from the count, something else wrote to the session (another process, or
// a direct store write) and the history is read again.
type histories struct {
	mu      sync.Mutex
	entries map[string]*history
	order   []string // least recently used first
}

// history is the kept history of one session.
type history struct {
	mu    sync.Mutex // held across each write to the store and its application
	valid bool
	from  string // the first message id held; "" for the whole history
	rev   int64
	// stored is the decoded messages with their parts, in id order: those
	// of the last view, or of the read when no view was taken since.
	// sharedLen is how many of them went out in views (each cut at its
	// length): those are never changed in place, a later view builds a new
	// array rather; messages added after them are appended in place.
	stored    []message.Message
	sharedLen int
	// written is the writes applied since the last view, by message id,
	// still as stored: a view decodes them.
	written map[string]*written
	loads   int // how many times it was read from the store
	// cached is the last view, while nothing was written or read since:
	// the views a turn takes after its last write (the loop's last check,
	// prune, Engine.Wait) share it instead of copying every message again.
	cached *View
}

// written is what was written of one message since the last view: its
// info, when it was, and its parts, each once with its last data.
type written struct {
	info  []byte
	parts []writtenPart
}

type writtenPart struct {
	id   string
	data []byte
}

// find returns where the message id is, or would be, in msgs (in id
// order), and whether it is there.
func find(msgs []message.Message, id string) (int, bool) {
	i := sort.Search(len(msgs), func(i int) bool { return msgs[i].Info.ID >= id })
	return i, i < len(msgs) && msgs[i].Info.ID == id
}

// get returns the session's history, making an empty one (which loads on
// first use) when there is none, and forgetting the least recently used
// one beyond historyKeep.
func (hs *histories) get(sessionID string) *history {
	hs.mu.Lock()
	defer hs.mu.Unlock()
	if hs.entries == nil {
		hs.entries = map[string]*history{}
	}
	if i := slices.Index(hs.order, sessionID); i >= 0 {
		hs.order = append(slices.Delete(hs.order, i, i+1), sessionID)
		return hs.entries[sessionID]
	}
	h := &history{}
	hs.entries[sessionID] = h
	hs.order = append(hs.order, sessionID)
	if len(hs.order) > historyKeep {
		delete(hs.entries, hs.order[0])
		hs.order = slices.Delete(hs.order, 0, 1)
	}
	return h
}

// lookup returns the session's history, or nil when none is kept.
func (hs *histories) lookup(sessionID string) *history {
	hs.mu.Lock()
	defer hs.mu.Unlock()
	return hs.entries[sessionID]
}

// tracked runs a store write of the session and applies it to the kept
// history, if there is one: apply sees the write's error.
func (s *Sessions) tracked(sessionID string, do func() error, apply func(h *history)) error {
	if s.noHistory {
		return do()
	}
	h := s.hist.lookup(sessionID)
	if h == nil {
		return do()
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.cached = nil
	err := do()
	switch {
	case !h.valid:
	case err != nil:
		// The write may or may not have been made: read it all again.
		h.valid = false
	default:
		h.rev++ // each write stores or deletes one row
		apply(h)
	}
	return err
}

// putMessage applies a stored message info.
func (h *history) putMessage(id string, data []byte) {
	if id < h.from {
		return
	}
	h.write(id).info = data
}

// putPart applies a stored part.
func (h *history) putPart(messageID, id string, data []byte) {
	if messageID < h.from {
		return
	}
	if _, ok := h.written[messageID]; !ok {
		if _, found := find(h.stored, messageID); !found {
			// The message was stored by someone else: the revision shows
			// it, but read again at once rather than hold a part without it.
			h.valid = false
			return
		}
	}
	w := h.write(messageID)
	for i := range w.parts {
		if w.parts[i].id == id {
			w.parts[i].data = data
			return
		}
	}
	w.parts = append(w.parts, writtenPart{id: id, data: data})
}

// write returns the writes of a message since the last view.
func (h *history) write(messageID string) *written {
	w := h.written[messageID]
	if w == nil {
		if h.written == nil {
			h.written = map[string]*written{}
		}
		w = &written{}
		h.written[messageID] = w
	}
	return w
}

// View is what the loop reads of a session at the start of a step.
type View struct {
	// Stored is the session's stored messages with their parts from From
	// on, in id order.
	Stored []message.Message
	// From is the first message id Stored may hold: the compaction message
	// of the last completed compaction, or the start of the tail it
	// keeps. It is "" when Stored is the whole history.
	From string
	// Model is message.FilterCompacted of the whole history: what the
	// model sees.
	Model []message.Message
}

// View returns the session's history as the model sees it, with the
// stored messages from the last completed compaction on. It reads from the
// store only what changed since the last call, unless another process
// wrote to the session. The messages share their parts with later calls:
// a caller that changes a part must store it (PutPart) or discard it. The
// slices themselves are shared with later calls until the next write, so
// a caller must not change their elements.
func (s *Sessions) View(ctx context.Context, sessionID string) (View, error) {
	if s.noHistory {
		all, err := s.Messages(ctx, sessionID)
		if err != nil {
			return View{}, err
		}
		return View{Stored: all, Model: message.FilterCompacted(all)}, nil
	}
	h := s.hist.get(sessionID)
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.valid {
		rev, err := s.store.SessionRevision(ctx, sessionID)
		if err != nil {
			return View{}, err
		}
		if rev != h.rev {
			h.valid = false
		}
	}
	if !h.valid {
		if err := s.load(ctx, sessionID, h, true); err != nil {
			return View{}, err
		}
	}
	v, ok, err := h.view()
	if err != nil || ok {
		return v, err
	}
	// The compaction the history starts at no longer applies (its summary
	// was changed): read the whole history.
	if err := s.load(ctx, sessionID, h, false); err != nil {
		return View{}, err
	}
	v, _, err = h.view()
	return v, err
}

// view decodes what changed and returns the history. It reports false
// when the history starts at a compaction the model no longer sees from.
func (h *history) view() (View, bool, error) {
	if h.cached != nil {
		return *h.cached, true, nil
	}
	stored, err := h.update()
	if err != nil {
		h.valid = false
		return View{}, false, err
	}
	model := message.FilterCompacted(stored)
	model = model[:len(model):len(model)] // a caller's append never writes into a shared view
	start, ok := compactionStart(stored, model)
	if !ok {
		// Without a compaction the model sees everything.
		v := View{Stored: stored[:len(stored):len(stored)], From: h.from, Model: model}
		if h.from != "" {
			return v, false, nil
		}
		h.sharedLen = len(stored)
		h.cached = &v
		return v, true, nil
	}
	if start < h.from {
		return View{}, false, nil
	}
	if start > h.from {
		// A newer compaction completed: forget what it summarised.
		n, _ := find(stored, start)
		stored = stored[n:]
		h.stored = stored
		h.from = start
	}
	v := View{Stored: stored[:len(stored):len(stored)], From: h.from, Model: model}
	h.sharedLen = len(stored)
	h.cached = &v
	return v, true, nil
}

// update decodes what was written since the last view and returns the
// history's messages with their parts. A message that was not written
// keeps its info and its list of parts. The array holding them is new when
// a message that went out in a view was written, or a new one goes among
// the held ones; new messages after them all are appended in place (with
// the room historyRoom leaves, a turn's steps add theirs without a copy).
func (h *history) update() ([]message.Message, error) {
	if len(h.written) == 0 {
		return h.stored, nil
	}
	ids := make([]string, 0, len(h.written))
	for id := range h.written {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	stored := h.stored
	var added []string
	rebuild := false
	for _, id := range ids {
		j, found := find(stored, id)
		if !found {
			added = append(added, id)
			rebuild = rebuild || j < len(stored)
		}
		rebuild = rebuild || j < h.sharedLen
	}
	switch {
	case rebuild:
		// The new messages go in id order among the held ones.
		old := stored
		stored = make([]message.Message, 0, len(old)+len(added)+historyRoom)
		k := 0
		for _, id := range added {
			j, _ := find(old, id)
			stored = append(stored, old[k:j]...)
			stored = append(stored, message.Message{Info: message.Info{ID: id}})
			k = j
		}
		stored = append(stored, old[k:]...)
		h.sharedLen = 0
	case len(added) > 0:
		// After every held one: the views handed out end before them.
		for _, id := range added {
			stored = append(stored, message.Message{Info: message.Info{ID: id}})
		}
	}
	for _, id := range ids {
		w := h.written[id]
		i, _ := find(stored, id)
		m := &stored[i]
		if w.info != nil {
			var info message.Info
			if err := decodeInfo(id, w.info, &info, nil); err != nil {
				return nil, err
			}
			m.Info = info
		}
		if len(w.parts) == 0 {
			continue
		}
		parts := slices.Clone(m.Parts) // a view may hold the list
		for _, wp := range w.parts {
			var p message.Part
			if err := decodePart(wp.id, wp.data, &p, nil); err != nil {
				return nil, err
			}
			j, found := slices.BinarySearchFunc(parts, wp.id, func(p message.Part, id string) int { return strings.Compare(p.Base().ID, id) })
			if found {
				parts[j] = p
			} else {
				parts = slices.Insert(parts, j, p)
			}
		}
		m.Parts = parts[:len(parts):len(parts)]
	}
	clear(h.written)
	h.stored = stored
	return stored, nil
}

// compactionStart returns the first message id the model still sees of a
// history filtered by message.FilterCompacted: the compaction message's, or
// the start of the tail it keeps when that is older. It reports false when
// no compaction applies.
func compactionStart(stored, model []message.Message) (string, bool) {
	if len(stored) == 0 || len(model) == 0 || &model[0] == &stored[0] {
		return "", false
	}
	u := model[0].Info
	for _, p := range model[0].Parts {
		if cp, ok := p.(*message.CompactionPart); ok {
			if cp.TailStartID != "" && cp.TailStartID < u.ID {
				return cp.TailStartID, true
			}
			return u.ID, true
		}
	}
	return "", false
}

// recentStart finds from the store's indexes where the model's view of a
// session starts: at the message of the last completed compaction, or at
// the start of the tail that compaction keeps. It is "" when no compaction
// completed.
func recentStart(ctx context.Context, tx *store.Tx, sessionID string) (string, error) {
	sums, err := tx.CompletedSummaries(ctx, sessionID)
	if err != nil {
		return "", err
	}
	var users []string // asked for a compaction that completed after them
	for _, sm := range sums {
		if sm.ParentID != "" && sm.ParentID < sm.ID {
			users = append(users, sm.ParentID)
		}
	}
	slices.Sort(users)
	users = slices.Compact(users)
	for i := len(users) - 1; i >= 0; i-- {
		u := users[i]
		role, err := tx.MessageRole(ctx, sessionID, u)
		if err != nil {
			return "", err
		}
		if role != string(message.RoleUser) {
			continue
		}
		rows, err := tx.ListMessageParts(ctx, u)
		if err != nil {
			return "", err
		}
		for _, r := range rows {
			if r.SessionID != sessionID {
				continue
			}
			p, err := message.UnmarshalPart(r.Data)
			if err != nil {
				return "", fmt.Errorf("decoding part %s: %w", r.ID, err)
			}
			if cp, ok := p.(*message.CompactionPart); ok {
				if cp.TailStartID != "" && cp.TailStartID < u {
					return cp.TailStartID, nil
				}
				return u, nil
			}
		}
	}
	return "", nil
}

// MessagesFrom returns the session's messages whose id is fromID or later,
// with their parts, oldest first: the end of what Messages returns, read
// without the rest.
func (s *Sessions) MessagesFrom(ctx context.Context, sessionID, fromID string) ([]message.Message, error) {
	var out []message.Message
	err := s.store.Read(ctx, func(tx *store.Tx) error {
		rows, err := tx.ListMessagesFrom(ctx, sessionID, fromID)
		if err != nil {
			return err
		}
		parts, err := tx.ListPartsFrom(ctx, sessionID, fromID)
		if err != nil {
			return err
		}
		out, err = assemble(rows, parts)
		return err
	})
	return out, err
}
