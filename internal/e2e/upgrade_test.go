package e2e

import (
	"bytes"
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// fakeReleases serves one release, v9.9.9, laid out as GitHub does.
func fakeReleases(t *testing.T, archive, sums []byte) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("/releases/latest", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/releases/tag/v9.9.9", http.StatusFound)
	})
	mux.HandleFunc("/releases/download/v9.9.9/"+assetName(), func(w http.ResponseWriter, _ *http.Request) {
		w.Write(archive)
	})
	mux.HandleFunc("/releases/download/v9.9.9/checksums.txt", func(w http.ResponseWriter, _ *http.Request) {
		w.Write(sums)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

func TestUpgrade(t *testing.T) {
	newer := releaseArchive(t, buildVersioned(t, "9.9.9"))
	broken := releaseArchive(t, []byte("#!/bin/sh\necho 'cannot start' >&2\nexit 3\n"))
	tests := []struct {
		name        string
		archive     []byte
		sums        []byte
		installDir  string // relative to the test's directory
		wantErr     bool
		wantOutput  []string
		wantVersion string // of the installed executable afterwards
	}{
		{name: "upgrades", archive: newer, sums: checksums(assetName(), newer), installDir: "bin",
			wantOutput: []string{"upgraded from dev to v9.9.9"}, wantVersion: "codeloop 9.9.9"},
		{name: "bad checksum", archive: newer, sums: checksums(assetName(), []byte("something else")), installDir: "bin",
			wantErr: true, wantOutput: []string{"checksum mismatch", "nothing was installed"}, wantVersion: "codeloop dev"},
		{name: "new binary fails", archive: broken, sums: checksums(assetName(), broken), installDir: "bin",
			wantErr: true, wantOutput: []string{"the old one is back in place", "cannot start"}, wantVersion: "codeloop dev"},
		{name: "installed by npm", archive: newer, sums: checksums(assetName(), newer), installDir: "lib/node_modules/@codeloop/linux-x64/bin",
			wantErr: true, wantOutput: []string{"installed with npm", "npm install -g codeloop@latest"}, wantVersion: "codeloop dev"},
		{name: "installed by go install", archive: newer, sums: checksums(assetName(), newer), installDir: "gopath/bin",
			wantErr: true, wantOutput: []string{"installed with go install", "go install github.com/codeloop/codeloop/cmd/codeloop@latest"}, wantVersion: "codeloop dev"},
	}
	old := readBinary(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := fakeReleases(t, tt.archive, tt.sums)
			root := t.TempDir()
			dir := filepath.Join(root, tt.installDir)
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			exe := filepath.Join(dir, "codeloop")
			if err := os.WriteFile(exe, old, 0o755); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(exe, "upgrade")
			cmd.Env = []string{"HOME=" + root, "PATH=" + os.Getenv("PATH"), "GOPATH=" + filepath.Join(root, "gopath"),
				"CODELOOP_RELEASE_URL=" + srv.URL + "/releases"}
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			err := cmd.Run()
			if tt.wantErr != (err != nil) {
				t.Fatalf("codeloop upgrade: err = %v, want error %v\n%s", err, tt.wantErr, out.String())
			}
			for _, w := range tt.wantOutput {
				if !strings.Contains(out.String(), w) {
					t.Errorf("output lacks %q:\n%s", w, out.String())
				}
			}
			if v := versionOf(t, exe); !strings.HasPrefix(v, tt.wantVersion) {
				t.Errorf("afterwards codeloop --version = %q; want %q", v, tt.wantVersion)
			}
			entries, err := os.ReadDir(dir)
			if err != nil {
				t.Fatal(err)
			}
			if len(entries) != 1 {
				var names []string
				for _, e := range entries {
					names = append(names, e.Name())
				}
				t.Errorf("%s holds %v; want only codeloop", dir, names)
			}
		})
	}
}

func TestUpgradeCheckUpToDate(t *testing.T) {
	newer := buildVersioned(t, "9.9.9")
	srv := fakeReleases(t, nil, nil)
	root := t.TempDir()
	exe := filepath.Join(root, "codeloop")
	if err := os.WriteFile(exe, newer, 0o755); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"upgrade"}, "codeloop is up to date (9.9.9; the newest release is v9.9.9)"},
		{[]string{"upgrade", "--check"}, "codeloop is up to date"},
	}
	for _, tt := range tests {
		cmd := exec.Command(exe, tt.args...)
		cmd.Env = []string{"HOME=" + root, "PATH=" + os.Getenv("PATH"), "CODELOOP_RELEASE_URL=" + srv.URL + "/releases"}
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("codeloop %v: %v\n%s", tt.args, err, out)
		}
		if !strings.Contains(string(out), tt.want) {
			t.Errorf("codeloop %v said %q; want %q", tt.args, out, tt.want)
		}
	}
}

// TestUpgradeRefusesRedirectToHTTP: a release location reached over https
// that redirects the download to plain http (where anyone on the path can
// change the archive and checksums.txt alike) installs nothing, as
// install.sh refuses it too.
func TestUpgradeRefusesRedirectToHTTP(t *testing.T) {
	evil := releaseArchive(t, buildVersioned(t, "9.9.9"))
	plain := fakeReleases(t, evil, checksums(assetName(), evil))
	mux := http.NewServeMux()
	mux.HandleFunc("/releases/latest", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/releases/tag/v9.9.9", http.StatusFound)
	})
	mux.HandleFunc("/releases/download/", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, plain.URL+r.URL.Path, http.StatusFound)
	})
	tlsSrv := httptest.NewTLSServer(mux)
	t.Cleanup(tlsSrv.Close)
	root := t.TempDir()
	ca := filepath.Join(root, "ca.pem")
	cert := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: tlsSrv.Certificate().Raw})
	if err := os.WriteFile(ca, cert, 0o644); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(root, "bin")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	exe := filepath.Join(dir, "codeloop")
	if err := os.WriteFile(exe, readBinary(t), 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "upgrade")
	cmd.Env = []string{"HOME=" + root, "PATH=" + os.Getenv("PATH"), "SSL_CERT_FILE=" + ca,
		"CODELOOP_RELEASE_URL=" + tlsSrv.URL + "/releases"}
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "redirect") || !strings.Contains(string(out), "not https") {
		t.Errorf("codeloop upgrade: %v\n%s", err, out)
	}
	if v := versionOf(t, exe); !strings.HasPrefix(v, "codeloop dev") {
		t.Errorf("afterwards codeloop --version = %q; want the old one", v)
	}
}
