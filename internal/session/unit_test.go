package session

import (
	"testing"
	"time"

	"github.com/codeloop/codeloop/internal/llm"
	"github.com/codeloop/codeloop/internal/message"
)

func TestRetryDelay(t *testing.T) {
	t.Parallel()
	const s = time.Second
	tests := []struct {
		attempt int
		after   time.Duration
		want    time.Duration
	}{
		{1, 0, 2 * s},
		{2, 0, 4 * s},
		{3, 0, 8 * s},
		{4, 0, 16 * s},
		{5, 0, 30 * s},
		{9, 0, 30 * s},
		{1, 1500 * time.Millisecond, 1500 * time.Millisecond},
		{7, 90 * s, 90 * s},
	}
	for _, tt := range tests {
		got := retryDelay(tt.attempt, &llm.Error{Kind: llm.ErrRetryable, RetryAfter: tt.after}, 2*s, 30*s)
		if got != tt.want {
			t.Errorf("attempt %d, retry-after %v: %v, want %v", tt.attempt, tt.after, got, tt.want)
		}
	}
}

func TestIsOverflow(t *testing.T) {
	t.Parallel()
	ptr := func(n int) *int { return &n }
	tk := func(n int64) message.Tokens { return message.Tokens{Input: n} }
	tests := []struct {
		name     string
		tokens   message.Tokens
		limit    llm.Limit
		auto     bool
		reserved *int
		want     bool
	}{
		{"unknown context", tk(1_000_000), llm.Limit{}, true, nil, false},
		{"auto off", tk(199_000), llm.Limit{Context: 200_000, Output: 8_000}, false, nil, false},
		{"context less output, under", tk(191_999), llm.Limit{Context: 200_000, Output: 8_000}, true, nil, false},
		{"context less output, at", tk(192_000), llm.Limit{Context: 200_000, Output: 8_000}, true, nil, true},
		{"output capped at 32k", tk(167_999), llm.Limit{Context: 200_000, Output: 64_000}, true, nil, false},
		{"output capped at 32k, over", tk(168_000), llm.Limit{Context: 200_000, Output: 64_000}, true, nil, true},
		{"unknown output takes 32k", tk(168_000), llm.Limit{Context: 200_000}, true, nil, true},
		{"input limit less reserve", tk(251_999), llm.Limit{Context: 400_000, Input: 272_000, Output: 128_000}, true, nil, false},
		{"input limit less reserve, at", tk(252_000), llm.Limit{Context: 400_000, Input: 272_000, Output: 128_000}, true, nil, true},
		{"reserve below 20k follows output", tk(263_000), llm.Limit{Context: 400_000, Input: 272_000, Output: 8_000}, true, nil, false},
		{"reserve below 20k follows output, at", tk(264_000), llm.Limit{Context: 400_000, Input: 272_000, Output: 8_000}, true, nil, true},
		{"configured reserve", tk(261_999), llm.Limit{Context: 400_000, Input: 272_000, Output: 128_000}, true, ptr(10_000), false},
		{"configured reserve, at", tk(262_000), llm.Limit{Context: 400_000, Input: 272_000, Output: 128_000}, true, ptr(10_000), true},
		{"cache and output count", message.Tokens{Input: 1_000, Output: 1_000, Cache: message.TokensCache{Read: 190_000}}, llm.Limit{Context: 200_000, Output: 8_000}, true, nil, true},
		{"reported total wins", message.Tokens{Total: 10, Input: 1_000_000}, llm.Limit{Context: 200_000, Output: 8_000}, true, nil, false},
	}
	for _, tt := range tests {
		if got := IsOverflow(tt.tokens, tt.limit, tt.auto, tt.reserved); got != tt.want {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestCleanTitle(t *testing.T) {
	t.Parallel()
	long := ""
	for range 120 {
		long += "x"
	}
	tests := []struct{ in, want string }{
		{"Fix the login bug", "Fix the login bug"},
		{"<think>hmm\nlet me see</think>\n\n  \"Refactor parser\"  \nmore", "Refactor parser"},
		{"\n\n", ""},
		{long, long[:97] + "..."},
	}
	for _, tt := range tests {
		if got := cleanTitle(tt.in); got != tt.want {
			t.Errorf("cleanTitle(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestDefaultTitle(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 1, 2, 3, 4, 5, 6e6, time.UTC)
	if got := DefaultTitle(now, false); got != "New session - 2026-01-02T03:04:05.006Z" {
		t.Errorf("DefaultTitle = %q", got)
	}
	for _, tt := range []struct {
		title string
		want  bool
	}{
		{DefaultTitle(now, false), true},
		{DefaultTitle(now, true), true},
		{"New session - tomorrow", false},
		{"My work", false},
	} {
		if got := IsDefaultTitle(tt.title); got != tt.want {
			t.Errorf("IsDefaultTitle(%q) = %v", tt.title, got)
		}
	}
	if got := forkedTitle("Work (fork #3)"); got != "Work (fork #4)" {
		t.Errorf("forkedTitle = %q", got)
	}
	if got := forkedTitle("Work"); got != "Work (fork #1)" {
		t.Errorf("forkedTitle = %q", got)
	}
}

func TestDoomLoop(t *testing.T) {
	t.Parallel()
	rec := func(tool, input, output string) callRecord {
		return callRecord{tool: tool, input: input, output: output, done: output != ""}
	}
	a := `{"filePath":"a"}`
	b := `{"filePath":"b"}`
	tests := []struct {
		name string
		turn []callRecord
		want bool
	}{
		{"first call", nil, false},
		{"two before, same input", []callRecord{rec("read", a, "x"), rec("read", a, "y")}, true},
		{"two before, other tool", []callRecord{rec("read", a, "x"), rec("glob", a, "x")}, false},
		{"one repeat only", []callRecord{rec("read", a, "x")}, false},
		{"cycle with the same results", []callRecord{rec("read", a, "x"), rec("read", b, "y"), rec("read", a, "x"), rec("read", b, "y")}, true},
		{"cycle with changing results", []callRecord{rec("read", a, "x1"), rec("read", b, "y"), rec("read", a, "x2"), rec("read", b, "y")}, false},
		{"repeats outside the window", append([]callRecord{rec("read", a, "x"), rec("read", a, "x")},
			rec("bash", "1", "o"), rec("bash", "2", "o"), rec("bash", "3", "o"), rec("bash", "4", "o"), rec("bash", "5", "o"),
			rec("bash", "6", "o"), rec("bash", "7", "o"), rec("bash", "8", "o"), rec("bash", "9", "o"), rec("bash", "10", "o"),
			rec("bash", "11", "o")), false},
	}
	for _, tt := range tests {
		p := &processor{turn: tt.turn}
		part := &message.ToolPart{Tool: "read", State: message.ToolState{Status: message.ToolRunning, Input: []byte(a)}}
		p.order = []*message.ToolPart{part}
		if got := p.doomLoopLocked(part); got != tt.want {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
}
