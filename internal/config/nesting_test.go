package config

import (
	"errors"
	"strings"
	"testing"
)

func TestParseDeepNesting(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, text string
		wantErr    bool
		line, col  int
	}{
		{"two million brackets", `{"x": ` + strings.Repeat("[", 2_000_000), true, 1, 7 + maxNesting - 1},
		{"deep on a later line", "{\n  \"x\":\n" + strings.Repeat("{\"a\":", maxNesting+5), true, 3, 5*maxNesting - 4},
		{"brackets in strings and comments", `{"username": "` + strings.Repeat("[", 5000) + `" // ` + strings.Repeat("{", 5000) + "\n}", false, 0, 0},
		{"at the bound (refused for the unknown key only)", `{"share": "manual", "x": ` + strings.Repeat("[", maxNesting-1) + strings.Repeat("]", maxNesting-1) + `}`, true, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(tt.text), ParseOptions{Name: "opencode.json"})
			var ce *Error
			if !tt.wantErr {
				if err != nil {
					t.Fatalf("Parse: %v", err)
				}
				return
			}
			if !errors.As(err, &ce) {
				t.Fatalf("want a config error, got %v", err)
			}
			if tt.line == 0 {
				if strings.Contains(err.Error(), "nest more than") {
					t.Fatalf("a config within the bound was refused for nesting: %v", err)
				}
				return
			}
			if !strings.Contains(err.Error(), "nest more than 1000 levels") || ce.Line != tt.line || ce.Col != tt.col {
				t.Fatalf("error %v at %d:%d, want line %d column %d", err, ce.Line, ce.Col, tt.line, tt.col)
			}
		})
	}
}
