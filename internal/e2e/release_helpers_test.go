package e2e

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
)

// releaseArchive returns a tar.gz holding bin as the file codeloop, as the
// release build packs it.
func releaseArchive(t *testing.T, bin []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	files := []struct {
		name string
		data []byte
		mode int64
	}{
		{"README.md", []byte("# codeloop\n"), 0o644},
		{"codeloop", bin, 0o755},
	}
	for _, f := range files {
		if err := tw.WriteHeader(&tar.Header{Name: f.name, Mode: f.mode, Size: int64(len(f.data)), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write(f.data); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// assetName is the release archive's name for this platform.
func assetName() string {
	return fmt.Sprintf("codeloop_%s_%s.tar.gz", runtime.GOOS, runtime.GOARCH)
}

// checksums returns a checksums.txt line for data named name.
func checksums(name string, data []byte) []byte {
	sum := sha256.Sum256(data)
	return []byte(hex.EncodeToString(sum[:]) + "  " + name + "\n")
}

// readBinary returns the bytes of the codeloop binary built for the tests.
func readBinary(t *testing.T) []byte {
	t.Helper()
	data, err := os.ReadFile(binary)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// buildVersioned builds codeloop with the release version v injected, as
// the release build does.
func buildVersioned(t *testing.T, v string) []byte {
	t.Helper()
	out := filepath.Join(t.TempDir(), "codeloop")
	cmd := exec.Command("go", "build", "-o", out,
		"-ldflags", "-X github.com/codeloop/codeloop/internal/cli.version="+v,
		"github.com/codeloop/codeloop/cmd/codeloop")
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building codeloop %s: %v\n%s", v, err, msg)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// versionOf runs exe --version.
func versionOf(t *testing.T, exe string) string {
	t.Helper()
	out, err := exec.Command(exe, "--version").CombinedOutput()
	if err != nil {
		t.Fatalf("%s --version: %v\n%s", exe, err, out)
	}
	return string(out)
}
