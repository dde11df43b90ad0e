package github

import (
	"slices"
	"testing"
)

func TestWithoutFlags(t *testing.T) {
	tests := []struct {
		args, want []string
		token      string
	}{
		{[]string{"codeloop", "github", "run", "--token", "T1", "--review"}, []string{"codeloop", "github", "run", "--review"}, "T1"},
		{[]string{"codeloop", "github", "run", "--token=T2"}, []string{"codeloop", "github", "run"}, "T2"},
		{[]string{"codeloop", "github", "run", "--timeout", "5m"}, []string{"codeloop", "github", "run", "--timeout", "5m"}, ""},
		{[]string{"codeloop", "--", "--token", "x"}, []string{"codeloop", "--", "--token", "x"}, ""},
		{[]string{"codeloop", "--token"}, []string{"codeloop", "--token"}, ""},
	}
	for _, tt := range tests {
		kept := map[string]string{}
		got := withoutFlags(tt.args, []string{"--token"}, kept)
		if !slices.Equal(got, tt.want) || kept["--token"] != tt.token {
			t.Errorf("withoutFlags(%q) = %q, token %q; want %q, %q", tt.args, got, kept["--token"], tt.want, tt.token)
		}
	}
}
