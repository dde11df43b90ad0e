package store

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"testing"
)

// TestMessagesPage: a page is the newest messages below a bound, in
// order, with the parts of exactly those messages.
func TestMessagesPage(t *testing.T) {
	ctx := context.Background()
	s, err := Open(ctx, filepath.Join(t.TempDir(), "db.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.PutProject(ctx, Project{ID: "prj", Worktree: "/w"}); err != nil {
		t.Fatal(err)
	}
	for _, sid := range []string{"ses_a", "ses_b"} {
		if err := s.PutSession(ctx, Session{ID: sid, ProjectID: "prj", Directory: "/w", Data: []byte(`{}`)}); err != nil {
			t.Fatal(err)
		}
		for i := range 10 {
			id := fmt.Sprintf("msg_%s_%02d", sid, i)
			if err := s.PutMessage(ctx, Message{ID: id, SessionID: sid, Data: []byte(`{}`)}); err != nil {
				t.Fatal(err)
			}
			if err := s.PutPart(ctx, Part{ID: "prt_" + id, MessageID: id, SessionID: sid, Data: []byte(`{}`)}); err != nil {
				t.Fatal(err)
			}
		}
	}
	ids := func(ms []Message) []string {
		var out []string
		for _, m := range ms {
			out = append(out, m.ID[len(m.ID)-2:])
		}
		return out
	}
	tests := []struct {
		before string
		limit  int
		want   []string
	}{
		{"", 3, []string{"07", "08", "09"}},
		{"msg_ses_a_05", 3, []string{"02", "03", "04"}},
		{"msg_ses_a_02", 5, []string{"00", "01"}},
		{"msg_ses_a_00", 5, nil},
		{"", 50, []string{"00", "01", "02", "03", "04", "05", "06", "07", "08", "09"}},
	}
	for _, tt := range tests {
		got, err := s.ListMessagesPage(ctx, "ses_a", tt.before, tt.limit)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(ids(got), tt.want) {
			t.Errorf("page before %q limit %d = %v, want %v", tt.before, tt.limit, ids(got), tt.want)
		}
	}
	parts, err := s.ListPartsBetween(ctx, "ses_a", "msg_ses_a_02", "msg_ses_a_04")
	if err != nil {
		t.Fatal(err)
	}
	if len(parts) != 3 || parts[0].MessageID != "msg_ses_a_02" || parts[2].MessageID != "msg_ses_a_04" {
		t.Errorf("parts between: %+v", parts)
	}
}
