package config

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestLoadHooks checks that hook groups of several files add up per event,
// each knowing its file, and that custom tool paths resolve against the
// file that names them.
func TestLoadHooks(t *testing.T) {
	t.Parallel()
	tr := newTree(t, true)
	tr.write(t, map[string]string{
		"home/.config/codeloop/codeloop.json": `{
			"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "global-stop"}]}]},
			"custom_tools": ["~/bin/deploy", "tools"]
		}`,
		"proj/codeloop.jsonc": `{
			// a project hook
			"hooks": {
				"Stop": [{"hooks": [{"type": "command", "command": "project-stop", "timeout": 2.5}]}],
				"PreToolUse": [{"matcher": "Bash", "hooks": [{"command": "check", "args": ["-x"]}]}]
			},
			"custom_tools": ["./scripts/tools"]
		}`,
	})
	l, err := tr.load(t, nil)
	if err != nil {
		t.Fatal(err)
	}
	stop := l.Config.Hooks["Stop"]
	if len(stop) != 2 || stop[0].Hooks[0].Command != "global-stop" || stop[1].Hooks[0].Command != "project-stop" {
		t.Fatalf("Stop groups = %+v", stop)
	}
	if !strings.HasSuffix(stop[0].Source, filepath.Join(".config", "codeloop", "codeloop.json")) ||
		stop[1].Source != filepath.Join(tr.proj, "codeloop.jsonc") {
		t.Errorf("sources = %q, %q", stop[0].Source, stop[1].Source)
	}
	if h := stop[1].Hooks[0]; h.Timeout != 2.5 {
		t.Errorf("timeout = %v", h.Timeout)
	}
	pre := l.Config.Hooks["PreToolUse"]
	if len(pre) != 1 || pre[0].Matcher != "Bash" || pre[0].Hooks[0].Args[0] != "-x" {
		t.Errorf("PreToolUse = %+v", pre)
	}
	want := []string{filepath.Join(tr.home, "bin", "deploy"), filepath.Join(tr.home, ".config", "codeloop", "tools"),
		filepath.Join(tr.proj, "scripts", "tools")}
	if strings.Join(l.Config.CustomTools, "\n") != strings.Join(want, "\n") {
		t.Errorf("custom tools = %q, want %q", l.Config.CustomTools, want)
	}
}

func TestLoadHooksInvalid(t *testing.T) {
	t.Parallel()
	tr := newTree(t, true)
	tr.write(t, map[string]string{
		"proj/codeloop.json": `{"hooks": {"Stop": [{"hooks": [{"command": "x", "timeot": 3}]}]}}`,
	})
	_, err := tr.load(t, nil)
	if err == nil || !strings.Contains(err.Error(), `unknown key "timeot"`) {
		t.Fatalf("err = %v", err)
	}
}
