package message_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/codeloop/codeloop/internal/id"
	"github.com/codeloop/codeloop/internal/message"
)

// benchHistory is a working session of n turns: a user prompt, then an
// assistant message with a step, some text, a completed read with 2 KB of
// output, and the step's end.
func benchHistory(n int) []message.Message {
	var msgs []message.Message
	output := strings.Repeat("func example() int { return 42 } // a line of a file\n", 40)
	for i := range n {
		u := message.Info{ID: id.Ascending(id.Message), SessionID: "ses_bench", Role: message.RoleUser,
			Agent: "build", Model: message.ModelRef{ProviderID: "fake", ModelID: "model"}, Time: message.Time{Created: 1}}
		msgs = append(msgs, message.Message{Info: u, Parts: []message.Part{
			&message.TextPart{PartBase: message.PartBase{ID: id.Ascending(id.Part), SessionID: "ses_bench", MessageID: u.ID},
				Text: fmt.Sprintf("Please look at file %d and fix the bug in it.", i)},
		}})
		a := message.Info{ID: id.Ascending(id.Message), SessionID: "ses_bench", Role: message.RoleAssistant, ParentID: u.ID,
			ProviderID: "fake", ModelID: "model", Agent: "build", Mode: "build", Finish: "tool-calls", Time: message.Time{Created: 2, Completed: 3}}
		base := func() message.PartBase {
			return message.PartBase{ID: id.Ascending(id.Part), SessionID: "ses_bench", MessageID: a.ID}
		}
		msgs = append(msgs, message.Message{Info: a, Parts: []message.Part{
			&message.StepStartPart{PartBase: base()},
			&message.TextPart{PartBase: base(), Text: "I will read the file first.", Time: &message.PartTime{Start: 2, End: 2}},
			&message.ToolPart{PartBase: base(), CallID: fmt.Sprintf("call_%d", i), Tool: "read", State: message.ToolState{
				Status: message.ToolCompleted, Input: json.RawMessage(fmt.Sprintf(`{"filePath":"/repo/file%d.go"}`, i)),
				Output: output, Title: fmt.Sprintf("file%d.go", i), Time: message.ToolTime{Start: 2, End: 3},
			}},
			&message.StepFinishPart{PartBase: base(), Reason: "tool-calls"},
		}})
	}
	return msgs
}

// BenchmarkToModel measures what each step does with a 200-turn history
// once it is loaded: drop what compaction replaced, then convert to the
// provider-neutral request messages.
func BenchmarkToModel(b *testing.B) {
	msgs := benchHistory(200)
	b.ReportAllocs()
	for b.Loop() {
		out := message.ToModel(message.FilterCompacted(msgs), message.ConvertOptions{ProviderID: "fake", ModelID: "model"})
		if len(out) < 400 {
			b.Fatalf("%d messages", len(out))
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(msgs)), "ns/message")
}

// BenchmarkDecodeHistory measures decoding a 200-turn history from the
// JSON the store holds, as every step does before converting it.
func BenchmarkDecodeHistory(b *testing.B) {
	msgs := benchHistory(200)
	var infos, parts [][]byte
	for _, m := range msgs {
		ib, err := json.Marshal(m.Info)
		if err != nil {
			b.Fatal(err)
		}
		infos = append(infos, ib)
		for _, p := range m.Parts {
			pb, err := json.Marshal(p)
			if err != nil {
				b.Fatal(err)
			}
			parts = append(parts, pb)
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		for _, ib := range infos {
			var info message.Info
			if err := json.Unmarshal(ib, &info); err != nil {
				b.Fatal(err)
			}
		}
		for _, pb := range parts {
			if _, err := message.UnmarshalPart(pb); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(msgs)), "ns/message")
}
