package message

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/codeloop/codeloop/internal/llm"
)

// FuzzToModel decodes arbitrary bytes as stored messages with their parts
// and converts them for a model. It must never panic; every message of the
// request has a known role and at least one part, tool results sit in tool
// messages, and the request encodes as JSON.
func FuzzToModel(f *testing.F) {
	if data, err := os.ReadFile("testdata/opencode_export.json"); err == nil {
		var exp struct {
			Messages json.RawMessage `json:"messages"`
		}
		if json.Unmarshal(data, &exp) == nil {
			f.Add([]byte(exp.Messages), "anthropic", "claude-sonnet-4", false)
		}
	}
	f.Add([]byte(`[{"info":{"id":"msg_1","role":"user"},"parts":[{"id":"p1","type":"text","text":"hi"}]},`+
		`{"info":{"id":"msg_2","role":"assistant","finish":"tool-calls","providerID":"p","modelID":"m"},"parts":[`+
		`{"id":"p2","type":"tool","callID":"c1","tool":"read","state":{"status":"completed","input":{"filePath":"a"},"output":"x","title":"a","metadata":{},"time":{"start":1,"end":2}}},`+
		`{"id":"p3","type":"reasoning","text":"hmm","time":{"start":1}}]}]`), "p", "m", true)
	f.Add([]byte(`[{"info":{"id":"msg_1","role":"assistant"},"parts":[{"id":"p","type":"tool","callID":"","state":{"status":"pending"}}]}]`), "openai", "gpt-5", false)
	f.Add([]byte(`[{"info":{"id":"msg_1","role":"user"},"parts":[{"id":"p","type":"file","mime":"image/png","url":"data:image/png;base64,AAAA"}]}]`), "google", "gemini", true)
	f.Add([]byte(`[{"info":{"id":"m","role":"user"},"parts":[{"type":"compaction","auto":true},{"type":"subtask","prompt":"x"}]}]`), "", "", false)
	f.Fuzz(func(t *testing.T, data []byte, provider, model string, media bool) {
		var msgs []Message
		if err := json.Unmarshal(data, &msgs); err != nil {
			return
		}
		out := ToModel(msgs, ConvertOptions{ProviderID: provider, ModelID: model, ToolResultMedia: media})
		for i, m := range out {
			switch m.Role {
			case llm.RoleUser, llm.RoleAssistant, llm.RoleTool:
			default:
				t.Fatalf("message %d has role %q", i, m.Role)
			}
			if len(m.Parts) == 0 {
				t.Fatalf("message %d (%s) has no parts", i, m.Role)
			}
			for _, p := range m.Parts {
				if p.Type == llm.PartToolResult && m.Role != llm.RoleTool {
					t.Fatalf("a tool result in a %s message", m.Role)
				}
			}
		}
		if _, err := json.Marshal(out); err != nil {
			t.Fatalf("the request does not encode: %v", err)
		}
	})
}
