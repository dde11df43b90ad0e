package message

import (
	"slices"
	"strings"
)

// FilterCompacted returns the part of a history (oldest first, as stored)
// that a model still sees after compaction. Walking back from the newest
// message it stops at the newest user message holding a compaction part whose
// summary completed without error, and returns
//
//	[compaction message, summary, retained tail..., later messages...]
//
// where the retained tail is the messages from the compaction part's
// TailStartID up to the compaction message. Without a completed compaction it
// returns msgs unchanged. The result is not in id order; use FindLatest to
// find the newest messages.
func FilterCompacted(msgs []Message) []Message {
	completed := map[string]int{} // compaction message id → index of its summary
	for i := len(msgs) - 1; i >= 0; i-- {
		info := &msgs[i].Info
		if info.Role == RoleAssistant && info.Summary && info.Finish != "" && info.Error == nil {
			if _, seen := completed[info.ParentID]; !seen {
				completed[info.ParentID] = i
			}
			continue
		}
		if info.Role != RoleUser {
			continue
		}
		summary, ok := completed[info.ID]
		if !ok {
			continue
		}
		cp := compactionPart(&msgs[i])
		if cp == nil {
			continue
		}
		out := make([]Message, 0, len(msgs)-i+4)
		out = append(out, msgs[i], msgs[summary])
		if cp.TailStartID != "" {
			for j := range i {
				if msgs[j].Info.ID >= cp.TailStartID {
					out = append(out, msgs[j])
				}
			}
		}
		for j := i + 1; j < len(msgs); j++ {
			if j != summary {
				out = append(out, msgs[j])
			}
		}
		return out
	}
	return msgs
}

func compactionPart(m *Message) *CompactionPart {
	for _, p := range m.Parts {
		if cp, ok := p.(*CompactionPart); ok {
			return cp
		}
	}
	return nil
}

// Latest describes the newest messages of a history.
type Latest struct {
	User      *Message // the newest user message
	Assistant *Message // the newest assistant message
	Finished  *Message // the newest assistant message with a finish reason
	// Tasks are the compaction and subtask parts of user messages newer
	// than Finished, oldest first.
	Tasks []Part
}

// FindLatest finds the newest user, assistant and finished assistant
// messages by id, and the pending tasks.
func FindLatest(msgs []Message) Latest {
	var l Latest
	for i := range msgs {
		m := &msgs[i]
		switch m.Info.Role {
		case RoleUser:
			if l.User == nil || m.Info.ID > l.User.Info.ID {
				l.User = m
			}
		case RoleAssistant:
			if l.Assistant == nil || m.Info.ID > l.Assistant.Info.ID {
				l.Assistant = m
			}
			if m.Info.Finish != "" && (l.Finished == nil || m.Info.ID > l.Finished.Info.ID) {
				l.Finished = m
			}
		}
	}
	var pending []*Message
	for i := range msgs {
		m := &msgs[i]
		if m.Info.Role == RoleUser && (l.Finished == nil || m.Info.ID > l.Finished.Info.ID) {
			pending = append(pending, m)
		}
	}
	slices.SortFunc(pending, func(a, b *Message) int { return strings.Compare(a.Info.ID, b.Info.ID) })
	for _, m := range pending {
		for _, p := range m.Parts {
			switch p.(type) {
			case *CompactionPart, *SubtaskPart:
				l.Tasks = append(l.Tasks, p)
			}
		}
	}
	return l
}
