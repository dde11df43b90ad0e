package session

import (
	"context"

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
	return assemble(rows, parts)
}
