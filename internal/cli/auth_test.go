package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestAuthLoginListLogout(t *testing.T) {
	home, _ := agentProject(t, `{}`)
	clearProviderEnv(t)
	const key = "sk-ant-api03-0123456789abcdefghij"
	code, out, errOut := runCLI(t, key+"\n", "auth", "login", "anthropic")
	if code != 0 || !strings.Contains(out, "Saved the key for anthropic") {
		t.Fatalf("login: %d %q %q", code, out, errOut)
	}
	if strings.Contains(out+errOut, key) {
		t.Error("login printed the key")
	}
	path := filepath.Join(home, ".local", "share", "codeloop", "auth.json")
	st, err := os.Stat(path)
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("auth.json: %v %v", st, err)
	}
	data, _ := os.ReadFile(path)
	if !strings.Contains(string(data), `"type": "api"`) || !strings.Contains(string(data), key) {
		t.Errorf("auth.json = %s", data)
	}

	t.Setenv("GROQ_API_KEY", "gsk_0123456789abcdefghij")
	code, out, _ = runCLI(t, "", "auth", "list")
	if code != 0 || !strings.Contains(out, "anthropic") || !strings.Contains(out, "$GROQ_API_KEY") {
		t.Fatalf("list: %d %q", code, out)
	}
	if strings.Contains(out, key) || strings.Contains(out, "gsk_0123456789abcdefghij") {
		t.Errorf("list shows a key in full:\n%s", out)
	}

	// The stored key makes the provider usable.
	code, out, _ = runCLI(t, "", "models", "anthropic")
	if code != 0 || !strings.HasPrefix(out, "anthropic/") {
		t.Errorf("models after login: %d %q", code, out)
	}

	code, out, _ = runCLI(t, "", "auth", "logout", "anthropic")
	if code != 0 || !strings.Contains(out, "Removed") {
		t.Fatalf("logout: %d %q", code, out)
	}
	if code, _, errOut := runCLI(t, "", "auth", "logout", "anthropic"); code == 0 || !strings.Contains(errOut, "no stored credential") {
		t.Errorf("second logout: %d %q", code, errOut)
	}
}

func TestAuthLoginNeedsInput(t *testing.T) {
	agentProject(t, `{}`)
	clearProviderEnv(t)
	if code, _, errOut := runCLI(t, "", "auth", "login"); code != exitUsage || !strings.Contains(errOut, "name the provider") {
		t.Errorf("login without a provider: %d %q", code, errOut)
	}
	if code, _, errOut := runCLI(t, "\n", "auth", "login", "openai"); code != exitUsage || !strings.Contains(errOut, "no key") {
		t.Errorf("login without a key: %d %q", code, errOut)
	}
}
