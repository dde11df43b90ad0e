package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestUsageErrors checks that bad flags end with exit status 2 and a
// message naming the flag, before the command does anything.
func TestUsageErrors(t *testing.T) {
	_, project := agentProject(t, `{}`)
	// A usable model: agent create would draft with it.
	t.Setenv("ANTHROPIC_API_KEY", "sk-ant-test")
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"bad log level", []string{"--log-level", "LOUD", "session", "list"}, `--log-level "LOUD": want DEBUG, INFO, WARN or ERROR`},
		{"bad log level, other command", []string{"agent", "list", "--log-level", "trace"}, `--log-level "trace"`},
		{"bad number", []string{"session", "list", "-n", "many"}, `invalid argument "many"`},
		{"unknown flag", []string{"session", "list", "--colour"}, "unknown flag: --colour"},
		{"agent create: bad mode", []string{"agent", "create", "--description", "Reviews SQL", "--mode", "bogus",
			"-m", "anthropic/claude-haiku-4-5"}, `--mode "bogus": want all, primary or subagent`},
		{"agent create: bad tool", []string{"agent", "create", "--description", "Reviews SQL", "--tools", "read,teleport",
			"-m", "anthropic/claude-haiku-4-5"}, `unknown tool "teleport"`},
		{"agent create: no description", []string{"agent", "create", "--mode", "subagent"}, `required flag(s) "description" not set`},
		{"agent create: empty description", []string{"agent", "create", "--description", " "}, "--description: say what the agent should do"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := runCLI(t, "", tt.args...)
			if code != exitUsage {
				t.Errorf("exit %d, want %d (usage)", code, exitUsage)
			}
			if !strings.Contains(errOut, tt.want) {
				t.Errorf("stderr %q lacks %q", errOut, tt.want)
			}
			// Nothing was drafted, written or said before the refusal.
			if strings.Contains(errOut, "Draft") || strings.Contains(errOut, "draft") || out != "" {
				t.Errorf("the command went on before refusing:\nstdout %q\nstderr %q", out, errOut)
			}
		})
	}
	if entries, _ := os.ReadDir(filepath.Join(project, ".codeloop", "agents")); len(entries) != 0 {
		t.Errorf("agent files were written: %v", entries)
	}
}
