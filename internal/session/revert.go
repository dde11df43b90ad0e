package session

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/codeloop/codeloop/internal/bus"
	"github.com/codeloop/codeloop/internal/message"
	"github.com/codeloop/codeloop/internal/snapshot"
	"github.com/codeloop/codeloop/internal/store"
)

// RevertState is a session's revert point: the messages from MessageID on
// (or the parts after PartID in it) are hidden, and the files they changed
// restored. Snapshot names the state before the revert, for Unrevert.
type RevertState struct {
	MessageID string   `json:"messageID"`
	PartID    string   `json:"partID,omitempty"`
	Snapshot  string   `json:"snapshot,omitempty"`
	Diff      string   `json:"diff,omitempty"`
	Files     []string `json:"files,omitempty"`
}

// ErrSnapshotsOff says a revert was asked of an engine without snapshots.
var ErrSnapshotsOff = errors.New(`snapshots are off ("snapshot": false in the config), so there is nothing to revert`)

// BusyError says a session's loop is running, so it cannot be reverted.
type BusyError struct {
	SessionID string
	PID       int // the process running it, when another one
}

func (e *BusyError) Error() string {
	who := ""
	if e.PID > 0 {
		who = fmt.Sprintf(" (codeloop process %d)", e.PID)
	}
	return fmt.Sprintf("session %s is busy%s: abort it or wait until it is idle, then revert", e.SessionID, who)
}

// lockIdle takes the session's cross-process lock without waiting: a
// session another process is answering is a *BusyError.
func (e *Engine) lockIdle(ctx context.Context, sessionID string) (*store.SessionLock, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	holder, busy := 0, false
	lock, err := e.sessions.lockLoop(ctx, sessionID, func(pid int) { holder, busy = pid, true; cancel() })
	if err != nil && busy {
		return nil, &BusyError{SessionID: sessionID, PID: holder}
	}
	return lock, err
}

// RevertInput says where to revert a session to.
type RevertInput struct {
	SessionID string
	MessageID string
	PartID    string // optional: keep the message's parts up to this one
	Force     bool   // overwrite files changed since the agent wrote them
}

// Revert restores the files changed from a message on (by the session and
// the sub-agents it started) and hides those messages until Unrevert or
// the next prompt, which removes them. A file changed since the agent wrote
// it stops the revert unless in.Force (see snapshot.ConflictError).
func (e *Engine) Revert(ctx context.Context, in RevertInput) (Info, error) {
	if e.cfg.Snapshots == nil {
		return Info{}, ErrSnapshotsOff
	}
	if e.Busy(in.SessionID) {
		return Info{}, &BusyError{SessionID: in.SessionID}
	}
	lock, err := e.lockIdle(ctx, in.SessionID)
	if err != nil {
		return Info{}, err
	}
	defer lock.Release()
	// A step a killed process left open is closed first, so the revert
	// restores what it changed.
	if err := e.recover(ctx, in.SessionID); err != nil {
		return Info{}, err
	}
	info, err := e.sessions.Get(ctx, in.SessionID)
	if err != nil {
		return Info{}, err
	}
	msgs, err := e.sessions.Messages(ctx, in.SessionID)
	if err != nil {
		return Info{}, err
	}
	at := slices.IndexFunc(msgs, func(m message.Message) bool { return m.Info.ID == in.MessageID })
	if at < 0 {
		return Info{}, fmt.Errorf("message %s is not in session %s", in.MessageID, in.SessionID)
	}
	// Reverting again starts from the files as they were before the
	// earlier revert; a revert that restored no file (its messages
	// changed none) has nothing to undo.
	undone := ""
	if prev := revertOf(info); prev != nil && prev.Snapshot != "" {
		r, err := e.cfg.Snapshots.Unrevert(ctx, in.SessionID, prev.Snapshot, in.Force)
		if err != nil {
			return Info{}, fmt.Errorf("undoing the earlier revert (to message %s) first: %w", prev.MessageID, err)
		}
		undone = r.Checkpoint
	}
	state, err := e.revertFiles(ctx, in, msgs[at:])
	if err != nil && undone != "" {
		// Put the earlier revert back, so the files match the revert
		// point the session still has.
		if _, rerr := e.cfg.Snapshots.Unrevert(context.WithoutCancel(ctx), in.SessionID, undone, true); rerr != nil {
			err = errors.Join(err, fmt.Errorf("restoring the earlier revert: %w", rerr))
		}
	}
	if err != nil {
		return Info{}, err
	}
	raw, err := json.Marshal(state)
	if err != nil {
		return Info{}, err
	}
	return e.sessions.Update(ctx, in.SessionID, func(i *Info) { i.Revert = raw })
}

// revertFiles restores the files the messages from msgs[0] on changed and
// returns the revert state that records it.
func (e *Engine) revertFiles(ctx context.Context, in RevertInput, msgs []message.Message) (RevertState, error) {
	state := RevertState{MessageID: in.MessageID, PartID: in.PartID}
	cps, err := e.patchesFrom(ctx, msgs, in.PartID)
	if err != nil || len(cps) == 0 {
		return state, err
	}
	diffs, err := e.cfg.Snapshots.Diff(ctx, cps)
	if err != nil {
		return state, err
	}
	var b strings.Builder
	for _, d := range diffs {
		b.WriteString(d.Patch)
	}
	state.Diff = b.String()
	r, err := e.cfg.Snapshots.Revert(ctx, in.SessionID, cps, in.Force)
	if err != nil {
		return state, err
	}
	state.Snapshot, state.Files = r.Checkpoint, r.Files
	return state, nil
}

// Unrevert brings back the files and messages of the session's revert.
func (e *Engine) Unrevert(ctx context.Context, sessionID string, force bool) (Info, error) {
	if e.Busy(sessionID) {
		return Info{}, &BusyError{SessionID: sessionID}
	}
	lock, err := e.lockIdle(ctx, sessionID)
	if err != nil {
		return Info{}, err
	}
	defer lock.Release()
	info, err := e.sessions.Get(ctx, sessionID)
	if err != nil {
		return Info{}, err
	}
	prev := revertOf(info)
	if prev == nil {
		return info, nil
	}
	if prev.Snapshot != "" {
		if e.cfg.Snapshots == nil {
			return Info{}, ErrSnapshotsOff
		}
		if _, err := e.cfg.Snapshots.Unrevert(ctx, sessionID, prev.Snapshot, force); err != nil {
			return Info{}, err
		}
	}
	return e.sessions.Update(ctx, sessionID, func(i *Info) { i.Revert = nil })
}

// Diff returns the file changes of a session, or of one of its messages
// when messageID is set, sub-agents' changes included.
func (e *Engine) Diff(ctx context.Context, sessionID, messageID string) ([]snapshot.FileDiff, error) {
	if e.cfg.Snapshots == nil {
		return nil, ErrSnapshotsOff
	}
	msgs, err := e.sessions.Messages(ctx, sessionID)
	if err != nil {
		return nil, err
	}
	if messageID != "" {
		msgs = slices.DeleteFunc(msgs, func(m message.Message) bool { return m.Info.ID != messageID })
		if len(msgs) == 0 {
			return nil, fmt.Errorf("message %s is not in session %s", messageID, sessionID)
		}
	}
	cps, err := e.patchesFrom(ctx, msgs, "")
	if err != nil || len(cps) == 0 {
		return nil, err
	}
	return e.cfg.Snapshots.Diff(ctx, cps)
}

// patchesFrom returns the checkpoints of the patch parts in msgs (after
// the part afterPart of the first message, when set), and of the child
// sessions their task calls started, oldest first.
func (e *Engine) patchesFrom(ctx context.Context, msgs []message.Message, afterPart string) ([]string, error) {
	var cps []string
	for i, m := range msgs {
		parts := m.Parts
		if i == 0 && afterPart != "" {
			if k := slices.IndexFunc(parts, func(p message.Part) bool { return p.Base().ID == afterPart }); k >= 0 {
				parts = parts[k+1:]
			}
		}
		for _, p := range parts {
			switch p := p.(type) {
			case *message.PatchPart:
				cps = append(cps, p.Hash)
			case *message.ToolPart:
				child, _ := p.State.Metadata["sessionId"].(string)
				if p.Tool != TaskTool || child == "" {
					continue
				}
				kids, err := e.sessions.Messages(ctx, child)
				if err != nil {
					continue // the child session was deleted
				}
				more, err := e.patchesFrom(ctx, kids, "")
				if err != nil {
					return nil, err
				}
				cps = append(cps, more...)
			}
		}
	}
	slices.Sort(cps) // checkpoint ids ascend with time
	return slices.Compact(cps), nil
}

// revertOf decodes a session's revert state; nil when it has none.
func revertOf(info Info) *RevertState {
	if len(info.Revert) == 0 || string(info.Revert) == "null" {
		return nil
	}
	var r RevertState
	if json.Unmarshal(info.Revert, &r) != nil || r.MessageID == "" {
		return nil
	}
	return &r
}

// cleanupRevert removes the messages (or parts) a revert hid, once a new
// prompt makes the revert final.
func (e *Engine) cleanupRevert(ctx context.Context, sessionID string) error {
	info, err := e.sessions.Get(ctx, sessionID)
	if err != nil {
		return err
	}
	r := revertOf(info)
	if r == nil {
		return nil
	}
	msgs, err := e.sessions.Messages(ctx, sessionID)
	if err != nil {
		return err
	}
	at := slices.IndexFunc(msgs, func(m message.Message) bool { return m.Info.ID == r.MessageID })
	if at >= 0 {
		first := msgs[at]
		rest := msgs[at:]
		if r.PartID != "" {
			rest = msgs[at+1:]
			if k := slices.IndexFunc(first.Parts, func(p message.Part) bool { return p.Base().ID == r.PartID }); k >= 0 {
				for _, p := range first.Parts[k+1:] {
					if err := e.sessions.store.DeletePart(ctx, p.Base().ID); err != nil {
						return err
					}
					e.sessions.publish(ctx, bus.PartRemoved, sessionID, PartRemovedEvent{
						SessionID: sessionID, MessageID: first.Info.ID, PartID: p.Base().ID})
				}
			}
		}
		for _, m := range rest {
			if err := e.sessions.removeMessage(ctx, sessionID, m.Info.ID); err != nil {
				return err
			}
		}
	}
	_, err = e.sessions.Update(ctx, sessionID, func(i *Info) { i.Revert = nil })
	return err
}

// removeMessage deletes a message with its parts and tells subscribers.
func (s *Sessions) removeMessage(ctx context.Context, sessionID, messageID string) error {
	if err := s.store.DeleteMessage(ctx, messageID); err != nil {
		return err
	}
	s.publish(ctx, bus.MessageRemoved, sessionID, MessageRemovedEvent{SessionID: sessionID, MessageID: messageID})
	return nil
}
