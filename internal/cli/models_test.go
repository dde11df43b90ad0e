package cli

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// clearProviderEnv unsets the key variables of the providers the tests
// touch, so a developer's own keys do not leak in.
func clearProviderEnv(t *testing.T) {
	for _, v := range []string{"ANTHROPIC_API_KEY", "OPENAI_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY",
		"GOOGLE_GENERATIVE_AI_API_KEY", "OPENROUTER_API_KEY", "GROQ_API_KEY", "DEEPSEEK_API_KEY", "XAI_API_KEY",
		"CODELOOP_AUTH_CONTENT", "OPENCODE_AUTH_CONTENT", "CODELOOP_MODELS_URL", "CODELOOP_MODELS_PATH",
		"CODELOOP_DISABLE_MODELS_FETCH", "OLLAMA_HOST"} {
		t.Setenv(v, "")
	}
}

func TestModelsOffline(t *testing.T) {
	agentProject(t, `{}`)
	clearProviderEnv(t)
	t.Setenv("CODELOOP_MODELS_URL", "http://127.0.0.1:1/api.json") // nothing listens there

	// Nothing usable: the whole embedded catalog, with a note.
	code, out, errOut := runCLI(t, "", "models")
	if code != 0 || !strings.Contains(errOut, "No provider is usable") {
		t.Fatalf("models: %d %q", code, errOut)
	}
	for _, want := range []string{"anthropic/claude-sonnet-4-5\n", "openai/gpt-5\n", "google/gemini-2.5-pro\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("catalog listing lacks %q", want)
		}
	}

	// One usable provider: only its models.
	t.Setenv("ANTHROPIC_API_KEY", "sk-ant-test")
	code, out, _ = runCLI(t, "", "models")
	if code != 0 || !strings.Contains(out, "anthropic/claude-sonnet-4-5\n") || strings.Contains(out, "openai/") {
		t.Fatalf("usable listing: %d\n%s", code, out)
	}

	// --refresh with no network still lists, from the embedded copy.
	code, out, errOut = runCLI(t, "", "models", "anthropic", "--refresh", "--verbose")
	if code != 0 || !strings.Contains(errOut, "Could not refresh") {
		t.Fatalf("refresh offline: %d %q", code, errOut)
	}
	i := strings.Index(out, "anthropic/claude-sonnet-4-5\n")
	if i < 0 {
		t.Fatalf("verbose listing lacks the model:\n%s", out)
	}
	var d modelDetails
	dec := json.NewDecoder(strings.NewReader(out[i+len("anthropic/claude-sonnet-4-5\n"):]))
	if err := dec.Decode(&d); err != nil {
		t.Fatal(err)
	}
	if d.Limit.Context == 0 || d.Cost.Input == 0 || !d.ToolCall || len(d.Variants) == 0 {
		t.Errorf("details = %+v", d)
	}

	if code, _, errOut := runCLI(t, "", "models", "--all", "nosuchprovider"); code == 0 || !strings.Contains(errOut, "unknown provider") {
		t.Errorf("unknown provider: %d %q", code, errOut)
	}
	// Without --all, an unknown provider is not called "not usable yet".
	if code, _, errOut := runCLI(t, "", "models", "nosuchprovider"); code == 0 || !strings.Contains(errOut, "unknown provider") || strings.Contains(errOut, "not usable") {
		t.Errorf("unknown provider: %d %q", code, errOut)
	}
}

func TestModelsRefresh(t *testing.T) {
	home, _ := agentProject(t, `{}`)
	clearProviderEnv(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Write([]byte(`{"acme":{"id":"acme","name":"Acme","env":["ACME_KEY"],"npm":"@ai-sdk/openai-compatible","api":"https://acme.test/v1",
			"models":{"rocket":{"id":"rocket","name":"Rocket","tool_call":true,"limit":{"context":1000,"output":100}}}}}`))
	}))
	defer srv.Close()
	t.Setenv("CODELOOP_MODELS_URL", srv.URL)
	t.Setenv("ACME_KEY", "k")
	code, out, errOut := runCLI(t, "", "models", "--refresh")
	if code != 0 || out != "acme/rocket\n" {
		t.Fatalf("models --refresh: %d %q %q", code, out, errOut)
	}
	if _, err := os.Stat(filepath.Join(home, ".cache", "codeloop", "models.json")); err != nil {
		t.Errorf("catalog not cached: %v", err)
	}
}
