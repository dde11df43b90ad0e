package session

import (
	"context"

	"github.com/codeloop/codeloop/internal/message"
	"github.com/codeloop/codeloop/internal/store"
)

// MessagesPage returns the newest limit messages of a session older than
// the message before (the newest of all when before is empty), oldest
// first, with their parts. It reads only that page from the store.
func (s *Sessions) MessagesPage(ctx context.Context, sessionID, before string, limit int) ([]message.Message, error) {
	var out []message.Message
	err := s.store.Read(ctx, func(tx *store.Tx) error {
		rows, err := tx.ListMessagesPage(ctx, sessionID, before, limit)
		if err != nil || len(rows) == 0 {
			return err
		}
		parts, err := tx.ListPartsBetween(ctx, sessionID, rows[0].ID, rows[len(rows)-1].ID)
		if err != nil {
			return err
		}
		out, err = assemble(rows, parts)
		return err
	})
	return out, err
}
