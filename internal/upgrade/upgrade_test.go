package upgrade

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func TestNewer(t *testing.T) {
	tests := []struct {
		tag, current string
		want         bool
	}{
		{"v1.2.3", "1.2.2", true},
		{"v1.2.3", "1.2.3", false},
		{"v1.2.3", "1.3.0", false},
		{"v1.10.0", "1.9.9", true},
		{"v2.0.0", "2.0.0-rc.1", true},
		{"v2.0.0-rc.2", "2.0.0-rc.1", true},
		{"v2.0.0-rc.1", "2.0.0", false},
		{"v1.0.0", "dev", true},
		{"v1.0.0", "0.0.0-20261127131736-040dc40abcde", true},
		{"v1.0.0", "1.0.1-0.20261127131736-040dc40abcde", false},
		{"latest", "1.0.0", false},
	}
	for _, tt := range tests {
		if got := Newer(tt.tag, tt.current); got != tt.want {
			t.Errorf("Newer(%q, %q) = %v; want %v", tt.tag, tt.current, got, tt.want)
		}
	}
}

func sum(data []byte) string {
	s := sha256.Sum256(data)
	return hex.EncodeToString(s[:])
}

func TestVerify(t *testing.T) {
	data := []byte("archive bytes")
	tests := []struct {
		name, sums string
		wantErr    error
		wantText   string
	}{
		{"match", sum([]byte("x")) + "  other.tar.gz\n" + sum(data) + "  a.tar.gz\n", nil, ""},
		{"binary-mode line", sum(data) + " *a.tar.gz\n", nil, ""},
		{"mismatch", sum([]byte("x")) + "  a.tar.gz\n", ErrChecksum, "checksum mismatch"},
		{"missing", sum(data) + "  b.tar.gz\n", nil, "no entry for a.tar.gz"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Verify([]byte(tt.sums), "a.tar.gz", data)
			if tt.wantText == "" {
				if err != nil {
					t.Fatalf("Verify: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantText) {
				t.Fatalf("Verify = %v; want an error with %q", err, tt.wantText)
			}
			if tt.wantErr != nil && !errors.Is(err, tt.wantErr) {
				t.Errorf("Verify = %v; want %v", err, tt.wantErr)
			}
		})
	}
}

func tarGz(t *testing.T, files map[string]string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	for name, body := range files {
		if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o755, Size: int64(len(body)), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		tw.Write([]byte(body))
	}
	tw.Close()
	zw.Close()
	return buf.Bytes()
}

func zipOf(t *testing.T, files map[string]string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for name, body := range files {
		w, err := zw.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte(body))
	}
	zw.Close()
	return buf.Bytes()
}

func TestExtract(t *testing.T) {
	files := map[string]string{"README.md": "readme", "codeloop": "unix binary", "codeloop.exe": "windows binary"}
	tests := []struct {
		name, goos string
		data       []byte
		want       string
		wantErr    bool
	}{
		{"codeloop_linux_amd64.tar.gz", "linux", tarGz(t, files), "unix binary", false},
		{"codeloop_windows_amd64.zip", "windows", zipOf(t, files), "windows binary", false},
		{"codeloop_linux_amd64.tar.gz", "linux", tarGz(t, map[string]string{"README.md": "x"}), "", true},
		{"codeloop_linux_amd64.tar.gz", "linux", []byte("not gzip"), "", true},
		{"codeloop_linux_amd64.rar", "linux", nil, "", true},
	}
	for _, tt := range tests {
		got, err := Extract(tt.name, tt.data, tt.goos)
		if (err != nil) != tt.wantErr || string(got) != tt.want {
			t.Errorf("Extract(%s) = %q, %v; want %q, error %v", tt.name, got, err, tt.want, tt.wantErr)
		}
	}
}

func TestManaged(t *testing.T) {
	env := map[string]string{"HOME": "/home/u"}
	getenv := func(k string) string { return env[k] }
	tests := []struct {
		exe, manager string
	}{
		{"/usr/lib/node_modules/@codeloop/linux-x64/bin/codeloop", "npm"},
		{"/opt/homebrew/Cellar/codeloop/1.2.3/bin/codeloop", "Homebrew"},
		{"/home/linuxbrew/.linuxbrew/bin/codeloop", "Homebrew"},
		{"/home/u/go/bin/codeloop", "go install"},
		{"/home/u/.local/bin/codeloop", ""},
	}
	for _, tt := range tests {
		err := Managed(tt.exe, getenv)
		var me *ManagedError
		switch {
		case tt.manager == "" && err != nil:
			t.Errorf("Managed(%s) = %v; want nil", tt.exe, err)
		case tt.manager != "" && (!errors.As(err, &me) || me.Manager != tt.manager):
			t.Errorf("Managed(%s) = %v; want %s", tt.exe, err, tt.manager)
		}
	}
}

func TestLatest(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/api/latest", func(w http.ResponseWriter, _ *http.Request) {
		w.Write([]byte(`{"tag_name": "v1.4.0", "name": "codeloop 1.4.0"}`))
	})
	mux.HandleFunc("/good/latest", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/good/tag/v1.5.0", http.StatusFound)
	})
	mux.HandleFunc("/plain/latest", func(w http.ResponseWriter, _ *http.Request) { w.Write([]byte("hello")) })
	srv := httptest.NewServer(mux)
	defer srv.Close()
	tests := []struct {
		name string
		src  Source
		want string
	}{
		{"api", Source{BaseURL: srv.URL + "/good", APIURL: srv.URL + "/api/latest"}, "v1.4.0"},
		{"redirect", Source{BaseURL: srv.URL + "/good"}, "v1.5.0"},
		{"no redirect", Source{BaseURL: srv.URL + "/plain"}, ""},
		{"api missing", Source{BaseURL: srv.URL + "/good", APIURL: srv.URL + "/nothing"}, ""},
	}
	for _, tt := range tests {
		got, err := tt.src.Latest(context.Background())
		if got != tt.want || (err != nil) != (tt.want == "") {
			t.Errorf("%s: Latest = %q, %v; want %q", tt.name, got, err, tt.want)
		}
	}
}

func TestNewSource(t *testing.T) {
	env := map[string]string{}
	getenv := func(k string) string { return env[k] }
	if s := NewSource(getenv, "ua"); s.BaseURL != DefaultBaseURL || s.APIURL != DefaultAPIURL {
		t.Errorf("default source = %+v", s)
	}
	env["CODELOOP_RELEASE_URL"] = "https://mirror.example/codeloop/"
	if s := NewSource(getenv, "ua"); s.BaseURL != "https://mirror.example/codeloop" || s.APIURL != "" {
		t.Errorf("mirror source = %+v", s)
	}
}

func TestReplace(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("runs shell scripts")
	}
	failing := errors.New("does not start")
	tests := []struct {
		name    string
		check   error
		want    string
		wantErr string
	}{
		{"kept", nil, "new", ""},
		{"restored", failing, "old", "old one is back in place"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			exe := filepath.Join(dir, "codeloop")
			if err := os.WriteFile(exe, []byte("old"), 0o755); err != nil {
				t.Fatal(err)
			}
			var sawNew string
			err := Replace(context.Background(), exe, []byte("new"), func(_ context.Context, p string) error {
				b, _ := os.ReadFile(p)
				sawNew = string(b)
				return tt.check
			})
			if tt.wantErr == "" && err != nil || tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
				t.Fatalf("Replace = %v; want %q", err, tt.wantErr)
			}
			if sawNew != "new" {
				t.Errorf("check ran on %q; want the new binary", sawNew)
			}
			got, _ := os.ReadFile(exe)
			if string(got) != tt.want {
				t.Errorf("executable holds %q; want %q", got, tt.want)
			}
			info, _ := os.Stat(exe)
			if info.Mode().Perm()&0o100 == 0 {
				t.Errorf("executable mode %v is not executable", info.Mode())
			}
			entries, _ := os.ReadDir(dir)
			if len(entries) != 1 {
				t.Errorf("%d files left beside the executable; want 1", len(entries))
			}
		})
	}
}

func TestRunRefusesAVersionThatIsNoVersion(t *testing.T) {
	var asked []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked = append(asked, r.URL.Path)
		http.NotFound(w, r)
	}))
	defer srv.Close()
	exe := filepath.Join(t.TempDir(), "codeloop")
	if err := os.WriteFile(exe, []byte("old"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, v := range []string{"../../../elsewhere", "1.2.3/../../x", "v1.2.3?x=1", "latest", "1.2"} {
		_, err := Run(context.Background(), Options{Source: Source{BaseURL: srv.URL}, Exe: exe, Current: "1.0.0",
			GOOS: "linux", GOARCH: "amd64", Version: v, Getenv: func(string) string { return "" }})
		if err == nil || !strings.Contains(err.Error(), "not a release version") {
			t.Errorf("Run(version %q) = %v; want a refusal", v, err)
		}
	}
	if len(asked) != 0 {
		t.Errorf("the server was asked for %v", asked)
	}
}
