package tool

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

type echoParams struct {
	Text  string `json:"text"`
	Count int    `json:"count,omitempty"`
	Loud  bool   `json:"loud,omitempty"`
}

func echoTool(t *testing.T) Tool {
	t.Helper()
	tl, err := New(Def[echoParams]{
		ID: "echo",
		Run: func(_ context.Context, _ *Call, p echoParams) (*Result, error) {
			b, _ := json.Marshal(p)
			return &Result{Output: string(b)}, nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	return tl
}

func TestDefineDecodesAndValidates(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, input string
		want        string // output, or the error's detail
		wantErr     bool
	}{
		{"plain", `{"text":"hi","count":2}`, `{"text":"hi","count":2}`, false},
		{"unknown keys dropped", `{"text":"hi","extra":1}`, `{"text":"hi"}`, false},
		{"numbers and booleans as strings", `{"text":"hi","count":"3","loud":"true"}`, `{"text":"hi","count":3,"loud":true}`, false},
		{"missing required", `{"count":1}`, "text", true},
		{"wrong type", `{"text":5}`, "text", true},
		{"not json", `{"text":`, "not valid JSON", true},
		{"empty input", ``, "text", true},
	}
	tl := echoTool(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := tl.Run(context.Background(), &Call{Input: json.RawMessage(tt.input)})
			if tt.wantErr {
				var ia *InvalidArgumentsError
				if !errors.As(err, &ia) {
					t.Fatalf("error %v, want *InvalidArgumentsError", err)
				}
				msg := err.Error()
				if !strings.HasPrefix(msg, "The echo tool was called with invalid arguments: ") ||
					!strings.HasSuffix(msg, ". Please rewrite the input so it satisfies the expected schema.") ||
					!strings.Contains(ia.Detail, tt.want) {
					t.Errorf("error text %q does not name %q in the expected wording", msg, tt.want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if res.Output != tt.want {
				t.Errorf("output %s, want %s", res.Output, tt.want)
			}
		})
	}
}

func TestDefineTruncatesUnlessToolDecided(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("line\n", 50)
	tr := &Truncator{Dir: t.TempDir(), Limits: Limits{MaxLines: 10}}
	for _, decided := range []bool{false, true} {
		tl := Must(Def[echoParams]{
			ID:       "long",
			Truncate: tr,
			Run: func(context.Context, *Call, echoParams) (*Result, error) {
				r := &Result{Output: long}
				if decided {
					r.Metadata = map[string]any{"truncated": false}
				}
				return r, nil
			},
		})
		res, err := tl.Run(context.Background(), &Call{Input: json.RawMessage(`{"text":"x"}`)})
		if err != nil {
			t.Fatal(err)
		}
		if got := res.Output == long; got != decided {
			t.Errorf("decided=%v: output kept whole = %v", decided, got)
		}
	}
}
