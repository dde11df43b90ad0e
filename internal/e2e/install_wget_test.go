package e2e

import (
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// noCurlPath is a PATH directory with what install.sh uses, wget but not
// curl.
func noCurlPath(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, tool := range []string{"sh", "uname", "mktemp", "rm", "awk", "cut", "sha256sum", "tar", "gzip", "mkdir", "cp",
		"chmod", "mv", "sed", "tail", "tr", "grep", "wget"} {
		p, err := exec.LookPath(tool)
		if err != nil {
			t.Skipf("no %s", tool)
		}
		if err := os.Symlink(p, filepath.Join(dir, tool)); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestInstallScriptWgetStaysOnHTTPS runs install.sh where only wget can
// download: a release location reached over https may redirect to https,
// but not to plain http, where anyone on the path could change the
// archive and checksums.txt alike.
func TestInstallScriptWgetStaysOnHTTPS(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the tool directory is Linux's")
	}
	path := noCurlPath(t)
	archive := releaseArchive(t, readBinary(t))
	sums := checksums(assetName(), archive)
	files := http.NewServeMux()
	files.HandleFunc("/files/"+assetName(), func(w http.ResponseWriter, _ *http.Request) { w.Write(archive) })
	files.HandleFunc("/files/checksums.txt", func(w http.ResponseWriter, _ *http.Request) { w.Write(sums) })
	plain := httptest.NewServer(files)
	t.Cleanup(plain.Close)
	var secureURL string
	mux := http.NewServeMux()
	mux.Handle("/files/", files)
	mux.HandleFunc("/https/latest/download/", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, secureURL+"/files/"+filepath.Base(r.URL.Path), http.StatusFound)
	})
	mux.HandleFunc("/http/latest/download/", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, plain.URL+"/files/"+filepath.Base(r.URL.Path), http.StatusFound)
	})
	secure := httptest.NewTLSServer(mux)
	t.Cleanup(secure.Close)
	secureURL = secure.URL
	root := t.TempDir()
	ca := filepath.Join(root, "ca.pem")
	if err := os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: secure.Certificate().Raw}), 0o644); err != nil {
		t.Fatal(err)
	}
	wgetrc := filepath.Join(root, "wgetrc")
	if err := os.WriteFile(wgetrc, []byte("ca_certificate = "+ca+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name, base string
		installed  bool
		want       string
	}{
		{"redirect to https", "/https", true, "installed codeloop"},
		{"redirect to http", "/http", false, "not https"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			home := t.TempDir()
			bin := filepath.Join(home, "bin")
			out, err := runInstallPath(t, home, path, "WGETRC="+wgetrc, "CODELOOP_RELEASE_URL="+secure.URL+tt.base, "CODELOOP_INSTALL_DIR="+bin)
			if !strings.Contains(out, tt.want) {
				t.Errorf("output lacks %q:\n%s", tt.want, out)
			}
			_, serr := os.Stat(filepath.Join(bin, "codeloop"))
			if installed := err == nil && serr == nil; installed != tt.installed {
				t.Errorf("installed: %v, want %v (%v)\n%s", installed, tt.installed, err, out)
			}
		})
	}
}

// runInstallPath runs install.sh with PATH set to path.
func runInstallPath(t *testing.T, home, path string, env ...string) (string, error) {
	t.Helper()
	script, err := filepath.Abs(filepath.Join("..", "..", "install.sh"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(filepath.Join(path, "sh"), script)
	cmd.Env = append([]string{"HOME=" + home, "PATH=" + path, "SHELL=/bin/sh"}, env...)
	out, err := cmd.CombinedOutput()
	return string(out), err
}
