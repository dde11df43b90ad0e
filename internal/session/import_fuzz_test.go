package session

import (
	"encoding/json"
	"os"
	"testing"
	"time"

	"github.com/codeloop/codeloop/internal/id"
)

// FuzzImport decodes arbitrary bytes as a session export and prepares
// what decodes for storing, as a fresh import and as one renumbered beside
// a stored session. It must never panic; what it accepts must be a valid
// session whose messages and parts all point at it, and a renumbered
// import must keep every message, in order, with parents remapped.
func FuzzImport(f *testing.F) {
	if data, err := os.ReadFile("../message/testdata/opencode_export.json"); err == nil {
		f.Add(data, false)
	}
	f.Add([]byte(`{"info":{"id":"ses_7fffffffffffABCDEFGHIJKLMN","title":"t"},"messages":[]}`), true)
	f.Add([]byte(`{"info":{"id":"ses_7fffffffffffABCDEFGHIJKLMN"},"messages":[{"info":{"id":"msg_000000000001ABCDEFGHIJKLMN","role":"user"},"parts":[{"id":"prt_1","type":"text","text":"hi"}]},`+
		`{"info":{"id":"msg_000000000002ABCDEFGHIJKLMN","role":"assistant","parentID":"msg_000000000001ABCDEFGHIJKLMN"},"parts":[{"id":"prt_2","type":"compaction","tailStartID":"msg_000000000001ABCDEFGHIJKLMN"}]}]}`), true)
	f.Add([]byte(`{"info":{"id":"ses_x"},"messages":[{"info":{"id":""},"parts":null}]}`), false)
	f.Add([]byte(`{"info":{"id":"ses_7fffffffffffABCDEFGHIJKLMN"},"messages":[{"info":{"id":"m"},"parts":[null]}]}`), true)
	f.Fuzz(func(t *testing.T, data []byte, renew bool) {
		var e Export
		if err := json.Unmarshal(data, &e); err != nil {
			return
		}
		orig := make([]string, len(e.Messages))
		parents := map[string]string{}
		for i, m := range e.Messages {
			orig[i] = m.Info.ID
			parents[m.Info.ID] = m.Info.ParentID
		}
		info, msgs, err := prepareImport(e, ImportOptions{ProjectID: "p"}, renew, time.UnixMilli(1))
		if err != nil {
			return
		}
		if id.Check(id.Session, info.ID) != nil || info.ProjectID != "p" || info.Slug == "" || info.Time.Created == 0 {
			t.Fatalf("prepared session %+v", info)
		}
		if renew && info.ID == e.Info.ID {
			t.Fatal("a renumbered import kept the session id")
		}
		if len(msgs) != len(orig) {
			t.Fatalf("%d messages prepared from %d", len(msgs), len(orig))
		}
		newID := map[string]string{}
		for i, m := range msgs {
			newID[orig[i]] = m.Info.ID
			if m.Info.SessionID != info.ID {
				t.Fatalf("message %s points at session %s", m.Info.ID, m.Info.SessionID)
			}
			for _, p := range m.Parts {
				if b := p.Base(); b.SessionID != info.ID || b.MessageID != m.Info.ID || b.ID == "" {
					t.Fatalf("part %+v of message %s", b, m.Info.ID)
				}
			}
		}
		if renew {
			for i, m := range msgs {
				if p := parents[orig[i]]; p != "" && m.Info.ParentID != newID[p] {
					t.Fatalf("parent %q of %s became %q, want %q", p, orig[i], m.Info.ParentID, newID[p])
				}
			}
		}
	})
}
