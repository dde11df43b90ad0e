package main

import (
	"testing"
	"time"
)

func TestMedian(t *testing.T) {
	tests := []struct {
		in   []float64
		want float64
	}{
		{nil, 0},
		{[]float64{3}, 3},
		{[]float64{5, 1, 3}, 3},
		{[]float64{4, 1, 3, 2}, 2.5},
	}
	for _, tt := range tests {
		if got := median(tt.in); got != tt.want {
			t.Errorf("median(%v) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

func TestMeasure(t *testing.T) {
	tests := []struct {
		name                   string
		body                   string
		system, tools, message int
	}{
		{
			name:    "chat completions",
			body:    `{"messages":[{"role":"system","content":"You are codeloop."},{"role":"system","content":[{"type":"text","text":"Rules."}]},{"role":"user","content":"hi"},{"role":"assistant","content":"yo"}],"tools":[{"type":"function"}]}`,
			system:  len("You are codeloop.") + len("Rules."),
			tools:   len(`[{"type":"function"}]`),
			message: 2,
		},
		{
			name:    "messages",
			body:    `{"system":[{"type":"text","text":"You are codeloop."},{"type":"text","text":"More."}],"messages":[{"role":"user","content":[{"type":"text","text":"hi"}]}],"tools":[{"name":"read"}]}`,
			system:  len("You are codeloop.") + len("More."),
			tools:   len(`[{"name":"read"}]`),
			message: 1,
		},
		{
			name:    "responses",
			body:    `{"instructions":"Be brief.","input":[{"type":"message","role":"developer","content":[{"type":"input_text","text":"You are Codex."}]},{"type":"message","role":"user","content":[{"type":"input_text","text":"hi"}]},{"type":"function_call","call_id":"c","name":"exec_command","arguments":"{}"}],"tools":[{"type":"function","name":"exec_command"}]}`,
			system:  len("Be brief.") + len("You are Codex."),
			tools:   len(`[{"type":"function","name":"exec_command"}]`),
			message: 2,
		},
		{name: "not json", body: `{`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := measure([]byte(tt.body))
			if got.system != tt.system || got.tools != tt.tools || got.messages != tt.message || got.body != len(tt.body) {
				t.Errorf("measure = %+v, want system %d tools %d messages %d", got, tt.system, tt.tools, tt.message)
			}
		})
	}
}

func TestOverlap(t *testing.T) {
	at := func(ms int64) time.Time { return time.UnixMilli(ms) }
	spans := []toolSpan{{110, 130}, {100, 120}, {200, 210}}
	tests := []struct {
		from, to int64
		want     time.Duration
	}{
		{90, 140, 30 * time.Millisecond},  // two overlapping spans count once
		{115, 205, 20 * time.Millisecond}, // clipped at both ends
		{140, 190, 0},
	}
	for _, tt := range tests {
		if got := overlap(spans, at(tt.from), at(tt.to)); got != tt.want {
			t.Errorf("overlap(%d, %d) = %v, want %v", tt.from, tt.to, got, tt.want)
		}
	}
}

func TestToolSpans(t *testing.T) {
	out := `{"type":"step_start","part":{}}
{"type":"tool_use","part":{"state":{"status":"completed","time":{"start":100,"end":120}}}}
not json
{"type":"tool_use","part":{"state":{"status":"error","time":{"start":130,"end":125}}}}
`
	got := toolSpans([]byte(out))
	if len(got) != 1 || got[0] != (toolSpan{100, 120}) {
		t.Errorf("toolSpans = %v", got)
	}
}
