package auth

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSetGetRemove(t *testing.T) {
	dir := t.TempDir()
	s := &Store{Path: filepath.Join(dir, "sub", "auth.json")}
	if all, err := s.All(); err != nil || len(all) != 0 {
		t.Fatalf("empty store: %v %v", all, err)
	}
	if err := s.Set("anthropic", Info{Type: "api", Key: "sk-ant-1234567890abcdef"}); err != nil {
		t.Fatal(err)
	}
	if err := s.Set("https://example.com/", Info{Type: "wellknown", Key: "K", Token: "tok"}); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(s.Path)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o600 {
		t.Errorf("mode = %v, want 0600", st.Mode().Perm())
	}
	i, ok, err := s.Get("anthropic")
	if err != nil || !ok || i.Key != "sk-ant-1234567890abcdef" || i.Type != "api" {
		t.Errorf("get = %+v %v %v", i, ok, err)
	}
	if i, ok, _ := s.Get("https://example.com"); !ok || i.Secret() != "K" {
		t.Errorf("url key not normalised: %+v %v", i, ok)
	}
	found, err := s.Remove("anthropic")
	if err != nil || !found {
		t.Fatalf("remove: %v %v", found, err)
	}
	if found, _ := s.Remove("anthropic"); found {
		t.Error("removed twice")
	}
	if _, ok, _ := s.Get("anthropic"); ok {
		t.Error("still there after remove")
	}
}

func TestKeepsUnknownEntries(t *testing.T) {
	p := filepath.Join(t.TempDir(), "auth.json")
	orig := `{"openai":{"type":"oauth","refresh":"r","access":"a","expires":1,"extra":{"x":1}}}`
	if err := os.WriteFile(p, []byte(orig), 0o600); err != nil {
		t.Fatal(err)
	}
	s := &Store{Path: p}
	if err := s.Set("groq", Info{Type: "api", Key: "gsk_abcdefghijkl"}); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(p)
	if !strings.Contains(string(data), `"extra": {`) {
		t.Errorf("unknown fields of other entries were lost:\n%s", data)
	}
}

func TestFallbackAndContent(t *testing.T) {
	dir := t.TempDir()
	main := filepath.Join(dir, "auth.json")
	other := filepath.Join(dir, "opencode.json")
	os.WriteFile(main, []byte(`{"openai":{"type":"api","key":"main-key-123456"}}`), 0o600)
	os.WriteFile(other, []byte(`{"openai":{"type":"api","key":"other-key"},"xai":{"type":"api","key":"xai-key"}}`), 0o600)
	s := &Store{Path: main, Fallbacks: []string{other}}
	all, err := s.All()
	if err != nil {
		t.Fatal(err)
	}
	if all["openai"].Key != "main-key-123456" || all["xai"].Key != "xai-key" {
		t.Errorf("all = %+v", all)
	}
	s.Content = `{"mistral":{"type":"api","key":"m"}}`
	all, _ = s.All()
	if len(all) != 1 || all["mistral"].Key != "m" {
		t.Errorf("content override: %+v", all)
	}
}

func TestErrorsHideKeys(t *testing.T) {
	p := filepath.Join(t.TempDir(), "auth.json")
	os.WriteFile(p, []byte(`{"openai":{"type":"api","key":"sk-secret-value-123"`), 0o600)
	s := &Store{Path: p}
	_, err := s.All()
	if err == nil {
		t.Fatal("broken file read")
	}
	if strings.Contains(err.Error(), "sk-secret") {
		t.Errorf("error shows the key: %v", err)
	}
	if err := s.Set("x", Info{Type: "api", Key: "k"}); err == nil || strings.Contains(err.Error(), "sk-secret") {
		t.Errorf("set over a broken file: %v", err)
	}
}

func TestMask(t *testing.T) {
	if m := Mask("sk-ant-api03-abcdefghijklmnop"); m != "sk-a…mnop" {
		t.Errorf("Mask = %q", m)
	}
	if m := Mask("short"); m != "*****" {
		t.Errorf("Mask = %q", m)
	}
}
