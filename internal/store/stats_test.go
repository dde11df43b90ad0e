package store

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/codeloop/codeloop/internal/id"
)

// TestStats checks the sums by model, day and agent and the tool counts,
// and that the project and time filters apply.
func TestStats(t *testing.T) {
	ctx := context.Background()
	s := open(t, ":memory:")
	day := time.Date(2026, 3, 10, 12, 0, 0, 0, time.Local).UnixMilli()
	ses := newSession(t, s, "")
	other := Session{ID: id.Descending(id.Session), ProjectID: "other", TimeCreated: day, TimeUpdated: day, Data: json.RawMessage(`{}`)}
	if err := s.PutSession(ctx, other); err != nil {
		t.Fatal(err)
	}
	put := func(sessionID string, created int64, data string, tools ...string) {
		t.Helper()
		m := Message{ID: id.Ascending(id.Message), SessionID: sessionID, TimeCreated: created, Data: json.RawMessage(data)}
		if err := s.PutMessage(ctx, m); err != nil {
			t.Fatal(err)
		}
		for _, tool := range tools {
			p := Part{ID: id.Ascending(id.Part), MessageID: m.ID, SessionID: sessionID,
				Data: json.RawMessage(fmt.Sprintf(`{"type":"tool","tool":%q}`, tool))}
			if err := s.PutPart(ctx, p); err != nil {
				t.Fatal(err)
			}
		}
	}
	answer := func(model, agent string, cost float64, in, out int) string {
		return fmt.Sprintf(`{"role":"assistant","providerID":"p","modelID":%q,"agent":%q,"cost":%g,
			"tokens":{"input":%d,"output":%d,"reasoning":1,"cache":{"read":2,"write":3}}}`, model, agent, cost, in, out)
	}
	put(ses.ID, day, `{"role":"user","agent":"build","model":{"providerID":"p","modelID":"a"}}`)
	put(ses.ID, day, answer("a", "build", 0.5, 100, 10), "read", "bash")
	put(ses.ID, day+86_400_000, answer("b", "plan", 0.25, 50, 5), "read")
	put(other.ID, day, answer("a", "build", 1, 1000, 100), "edit")

	st, err := s.Stats(ctx, StatsFilter{ProjectID: "prj"})
	if err != nil {
		t.Fatal(err)
	}
	if st.Sessions != 1 || st.Messages != 3 {
		t.Errorf("sessions, messages = %d, %d; want 1, 3", st.Sessions, st.Messages)
	}
	want := Usage{Messages: 2, Cost: 0.75, Input: 150, Output: 15, Reasoning: 2, CacheRead: 4, CacheWrite: 6,
		CacheReadShare: 4.0 / (150 + 4 + 6)}
	if st.Total != want {
		t.Errorf("total = %+v, want %+v", st.Total, want)
	}
	keys := func(us []Usage) []string {
		var out []string
		for _, u := range us {
			out = append(out, fmt.Sprintf("%s:%d:%d:%.4f", u.Key, u.Messages, u.Input, u.CacheReadShare))
		}
		return out
	}
	if g := keys(st.ByModel); !slices.Equal(g, []string{"p/a:1:100:0.0190", "p/b:1:50:0.0364"}) {
		t.Errorf("by model = %v", g)
	}
	if g := keys(st.ByDay); !slices.Equal(g, []string{"2026-03-10:1:100:0.0190", "2026-03-11:1:50:0.0364"}) {
		t.Errorf("by day = %v", g)
	}
	if g := keys(st.ByAgent); !slices.Equal(g, []string{"build:1:100:0.0190", "plan:1:50:0.0364"}) {
		t.Errorf("by agent = %v", g)
	}
	if !slices.Equal(st.Tools, []ToolCount{{"read", 2}, {"bash", 1}}) {
		t.Errorf("tools = %v", st.Tools)
	}

	all, err := s.Stats(ctx, StatsFilter{Since: day + 1})
	if err != nil {
		t.Fatal(err)
	}
	if all.Total.Messages != 1 || all.Total.Input != 50 || len(all.Tools) != 1 {
		t.Errorf("since the next day: %+v", all)
	}
	sz, err := s.Size(ctx)
	if err != nil || sz.Messages != 4 || sz.Parts != 4 || sz.Sessions != 2 || sz.FileBytes == 0 {
		t.Errorf("Size = %+v, %v", sz, err)
	}
	old, err := s.SessionsBefore(ctx, "", 2)
	if err != nil || !slices.Equal(old, []string{ses.ID}) {
		t.Errorf("SessionsBefore = %v, %v; want [%s]", old, err, ses.ID)
	}
}

// BenchmarkStats adds up a store of 100,000 messages (half of them answers
// with a tool call) in 100 sessions.
func BenchmarkStats(b *testing.B) {
	ctx := context.Background()
	s, err := Open(ctx, b.TempDir()+"/stats.db")
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	err = s.Tx(ctx, func(tx *Tx) error {
		for i := range 100 {
			ses := Session{ID: id.Descending(id.Session), ProjectID: "prj", TimeCreated: 1, TimeUpdated: 1, Data: json.RawMessage(`{}`)}
			if err := tx.PutSession(ctx, ses); err != nil {
				return err
			}
			for j := range 500 {
				at := int64(1_700_000_000_000 + (i*500+j)*60_000)
				if err := tx.PutMessage(ctx, Message{ID: id.Ascending(id.Message), SessionID: ses.ID, TimeCreated: at,
					Data: json.RawMessage(`{"role":"user","agent":"build","model":{"providerID":"p","modelID":"m"},"time":{"created":1}}`)}); err != nil {
					return err
				}
				m := Message{ID: id.Ascending(id.Message), SessionID: ses.ID, TimeCreated: at,
					Data: json.RawMessage(`{"role":"assistant","providerID":"p","modelID":"m","agent":"build","cost":0.01,"finish":"stop",` +
						`"path":{"cwd":"/w","root":"/w"},"time":{"created":1,"completed":2},"tokens":{"input":1000,"output":100,"reasoning":0,"cache":{"read":500,"write":0}}}`)}
				if err := tx.PutMessage(ctx, m); err != nil {
					return err
				}
				if err := tx.PutPart(ctx, Part{ID: id.Ascending(id.Part), MessageID: m.ID, SessionID: ses.ID,
					Data: json.RawMessage(`{"type":"tool","tool":"read","state":{"status":"completed","output":"x"}}`)}); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		st, err := s.Stats(ctx, StatsFilter{ProjectID: "prj"})
		if err != nil || st.Messages != 100_000 {
			b.Fatalf("Stats = %d messages, %v", st.Messages, err)
		}
	}
}
