package store

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
)

// SessionOverview is what a session picker shows of a session beside its
// record: how many messages it holds and the start of its first message.
type SessionOverview struct {
	Messages int
	Preview  string
}

// previewChars bounds SessionOverview.Preview.
const previewChars = 200

// SessionOverviews returns the overview of each session of ids that
// exists. Each costs two indexed reads and the parts of one message.
func (q q) SessionOverviews(ctx context.Context, ids []string) (map[string]SessionOverview, error) {
	out := make(map[string]SessionOverview, len(ids))
	for _, id := range ids {
		var o SessionOverview
		var first string
		err := q.ex.QueryRowContext(ctx, `SELECT count(*), coalesce(min(id), '') FROM message WHERE session_id = ?`, id).Scan(&o.Messages, &first)
		if err != nil {
			return nil, fmt.Errorf("counting the messages of %s: %w", id, err)
		}
		if first != "" {
			parts, err := q.queryParts(ctx, `WHERE message_id = ? ORDER BY id`, first)
			if err != nil {
				return nil, fmt.Errorf("reading the first message of %s: %w", id, err)
			}
			o.Preview = firstText(parts)
		}
		out[id] = o
	}
	return out, nil
}

// firstText is the first text the user wrote among parts, on one line and
// at most previewChars long.
func firstText(parts []Part) string {
	for _, p := range parts {
		var v struct {
			Type      string `json:"type"`
			Text      string `json:"text"`
			Synthetic bool   `json:"synthetic"`
		}
		if json.Unmarshal(p.Data, &v) != nil || v.Type != "text" || v.Synthetic || strings.TrimSpace(v.Text) == "" {
			continue
		}
		s := strings.Join(strings.Fields(v.Text), " ")
		if r := []rune(s); len(r) > previewChars {
			s = string(r[:previewChars-1]) + "…"
		}
		return s
	}
	return ""
}
