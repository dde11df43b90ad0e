package session

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/codeloop/codeloop/internal/message"
)

// MessagesPage returns the newest limit messages of a session older than
// the message before (the newest of all when before is empty), oldest
// first, with their parts. It reads only that page from the store.
func (s *Sessions) MessagesPage(ctx context.Context, sessionID, before string, limit int) ([]message.Message, error) {
	rows, err := s.store.ListMessagesPage(ctx, sessionID, before, limit)
	if err != nil || len(rows) == 0 {
		return nil, err
	}
	parts, err := s.store.ListPartsBetween(ctx, sessionID, rows[0].ID, rows[len(rows)-1].ID)
	if err != nil {
		return nil, err
	}
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
