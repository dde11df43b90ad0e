package session

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/codeloop/codeloop/internal/llm"
	"github.com/codeloop/codeloop/internal/message"
)

// out returns a completed tool part named name whose output is about
// tokens tokens long.
func out(name, tool string, tokens int, compacted bool) *message.ToolPart {
	p := &message.ToolPart{PartBase: message.PartBase{ID: name}, Tool: tool,
		State: message.ToolState{Status: message.ToolCompleted, Output: strings.Repeat("abcd", tokens)}}
	if compacted {
		p.State.Time.Compacted = 1
	}
	return p
}

func umsg(id string) message.Message {
	return message.Message{Info: message.Info{ID: id, Role: message.RoleUser}}
}

func amsg(id string, summary bool, parts ...message.Part) message.Message {
	return message.Message{Info: message.Info{ID: id, Role: message.RoleAssistant, Summary: summary, Finish: "stop"}, Parts: parts}
}

func TestSelectPrune(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		msgs []message.Message
		want []string
	}{
		{
			name: "small session keeps everything",
			msgs: []message.Message{umsg("u1"), amsg("a1", false, out("t1", "read", 5_000, false)), umsg("u2"), umsg("u3")},
		},
		{
			name: "output beyond the newest 40k is cleared",
			msgs: []message.Message{umsg("u1"), amsg("a1", false, out("t1", "read", 30_000, false), out("t2", "bash", 30_000, false)),
				umsg("u2"), amsg("a2", false, out("t3", "read", 10_000, false)), umsg("u3"), amsg("a3", false, out("t4", "read", 10_000, false))},
			want: []string{"t1"},
		},
		{
			name: "the last two turns are protected whatever their size",
			msgs: []message.Message{umsg("u1"), amsg("a1", false, out("t1", "read", 10_000, false)),
				umsg("u2"), amsg("a2", false, out("t2", "read", 90_000, false)), umsg("u3"), amsg("a3", false, out("t3", "read", 90_000, false))},
		},
		{
			name: "skill output survives and does not count",
			msgs: []message.Message{umsg("u1"), amsg("a1", false, out("t1", "skill", 30_000, false), out("t2", "bash", 30_000, false)),
				umsg("u2"), umsg("u3")},
		},
		{
			name: "less than 20k to clear is left alone",
			msgs: []message.Message{umsg("u1"), amsg("a1", false, out("t1", "read", 15_000, false), out("t2", "bash", 30_000, false)),
				umsg("u2"), amsg("a2", false, out("t3", "read", 10_000, false)), umsg("u3")},
		},
		{
			name: "older than a summary is not looked at",
			msgs: []message.Message{umsg("u0"), amsg("a0", false, out("t0", "read", 90_000, false)), amsg("s", true),
				umsg("u1"), amsg("a1", false, out("t1", "read", 30_000, false)), umsg("u2"), umsg("u3")},
		},
		{
			name: "an already cleared part ends the walk",
			msgs: []message.Message{umsg("u0"), amsg("a0", false, out("t0", "read", 90_000, false), out("tc", "read", 10, true)),
				umsg("u1"), amsg("a1", false, out("t1", "read", 30_000, false), out("t2", "read", 30_000, false)), umsg("u2"), umsg("u3")},
			want: []string{"t1"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, p := range selectPrune(tt.msgs) {
				got = append(got, p.ID)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("pruned %v, want %v", got, tt.want)
			}
		})
	}
}

func TestShouldPrune(t *testing.T) {
	t.Parallel()
	on, off := true, false
	model := llm.Model{Limit: llm.Limit{Context: 200_000, Output: 8_000}}
	tests := []struct {
		setting *bool
		tokens  int64
		model   llm.Model
		want    bool
	}{
		{&on, 10, model, true},
		{&off, 190_000, model, false},
		{nil, 95_999, model, false},
		{nil, 96_000, model, true},
		{nil, 1_000_000, llm.Model{}, false},
		{nil, 136_000, llm.Model{Limit: llm.Limit{Context: 400_000, Input: 272_000, Output: 128_000}}, true},
	}
	for _, tt := range tests {
		e := &Engine{cfg: Config{Compaction: Compaction{Prune: tt.setting}}}
		if got := e.shouldPrune(message.Tokens{Input: tt.tokens}, tt.model); got != tt.want {
			t.Errorf("prune=%v tokens=%d limit=%+v: %v, want %v", fmtBool(tt.setting), tt.tokens, tt.model.Limit, got, tt.want)
		}
	}
}

func fmtBool(b *bool) string {
	if b == nil {
		return "unset"
	}
	return fmt.Sprint(*b)
}
