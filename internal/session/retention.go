package session

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/codeloop/codeloop/internal/store"
)

// ParseAge reads an age given as a number of hours (12h), days (30d) or
// weeks (4w), as `session prune --older-than` and the retention key take
// it.
func ParseAge(s string) (time.Duration, error) {
	units := map[string]time.Duration{"h": time.Hour, "d": 24 * time.Hour, "w": 7 * 24 * time.Hour}
	if s == "" {
		return 0, errors.New("no age given: write a number of hours, days or weeks, such as 12h, 30d or 4w")
	}
	unit, ok := units[s[len(s)-1:]]
	n, err := strconv.Atoi(strings.TrimSpace(s[:len(s)-1]))
	if !ok || err != nil || n <= 0 {
		return 0, fmt.Errorf("age %q: write a positive number of hours, days or weeks, such as 12h, 30d or 4w", s)
	}
	return time.Duration(n) * unit, nil
}

// OlderThan returns the sessions without a parent, of projectID (every
// project's when it is empty), not changed since before, oldest first.
func (s *Sessions) OlderThan(ctx context.Context, projectID string, before time.Time) ([]string, error) {
	return s.store.SessionsBefore(ctx, projectID, before.UnixMilli())
}

// DeleteOlderThan deletes the sessions OlderThan returns, with their
// messages and child sessions, and returns how many it deleted.
func (s *Sessions) DeleteOlderThan(ctx context.Context, projectID string, before time.Time) (int, error) {
	ids, err := s.OlderThan(ctx, projectID, before)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, id := range ids {
		if err := s.Delete(ctx, id); err != nil && !errors.Is(err, store.ErrNotFound) {
			return n, fmt.Errorf("deleting session %s (%d deleted before it): %w", id, n, err)
		}
		n++
	}
	return n, nil
}
