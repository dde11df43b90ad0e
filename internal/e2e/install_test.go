package e2e

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// writeRelease lays out a release as file:// URLs reach it: the same
// files under download/v1.2.3 and latest/download.
func writeRelease(t *testing.T, dir string, archive, sums []byte) {
	t.Helper()
	for _, sub := range []string{"download/v1.2.3", "latest/download"} {
		d := filepath.Join(dir, sub)
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(d, assetName()), archive, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(d, "checksums.txt"), sums, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// runInstall runs the repository's install.sh with sh and the given
// environment on top of a clean HOME.
func runInstall(t *testing.T, home string, env ...string) (stderr string, err error) {
	t.Helper()
	cmd := exec.Command("sh", filepath.Join("..", "..", "install.sh"))
	cmd.Env = append([]string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "SHELL=/bin/sh"}, env...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err = cmd.Run()
	return out.String(), err
}

func TestInstallScript(t *testing.T) {
	if runtime.GOOS != "linux" && runtime.GOOS != "darwin" {
		t.Skip("install.sh installs on Linux and macOS")
	}
	archive := releaseArchive(t, readBinary(t))
	sums := checksums(assetName(), archive)
	tampered := bytes.Clone(archive)
	tampered[len(tampered)/2] ^= 0x01

	tests := []struct {
		name      string
		archive   []byte
		env       []string
		installed bool
		want      []string // in the script's output
	}{
		{name: "latest", archive: archive, installed: true,
			want: []string{"latest/download/" + assetName(), "installed codeloop", "is not on your PATH", "export PATH="}},
		{name: "given version", archive: archive, env: []string{"CODELOOP_VERSION=1.2.3"}, installed: true,
			want: []string{"download/v1.2.3/" + assetName(), "installed codeloop"}},
		{name: "one byte changed", archive: tampered,
			want: []string{"checksum mismatch", "nothing was installed"}},
		{name: "unknown platform", archive: archive, env: []string{"CODELOOP_OS=plan9", "CODELOOP_ARCH=mips"},
			want: []string{"no codeloop release for plan9/mips", "linux/amd64", "darwin/arm64"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			home := t.TempDir()
			rel := filepath.Join(t.TempDir(), "releases")
			writeRelease(t, rel, tt.archive, sums)
			bin := filepath.Join(home, "bin")
			env := append([]string{"CODELOOP_RELEASE_URL=file://" + rel, "CODELOOP_INSTALL_DIR=" + bin}, tt.env...)
			out, err := runInstall(t, home, env...)
			for _, w := range tt.want {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
			exe := filepath.Join(bin, "codeloop")
			if !tt.installed {
				if err == nil {
					t.Errorf("install.sh succeeded; want a failure:\n%s", out)
				}
				if _, serr := os.Stat(exe); serr == nil {
					t.Errorf("%s was installed; want nothing installed", exe)
				}
				return
			}
			if err != nil {
				t.Fatalf("install.sh: %v\n%s", err, out)
			}
			if v := versionOf(t, exe); !strings.HasPrefix(v, "codeloop ") {
				t.Errorf("installed codeloop --version = %q", v)
			}
			entries, _ := os.ReadDir(bin)
			if len(entries) != 1 {
				t.Errorf("install dir holds %d files; want only codeloop", len(entries))
			}
		})
	}
}

func TestInstallScriptDefaultDirOnPath(t *testing.T) {
	if runtime.GOOS != "linux" && runtime.GOOS != "darwin" {
		t.Skip("install.sh installs on Linux and macOS")
	}
	archive := releaseArchive(t, readBinary(t))
	home := t.TempDir()
	rel := filepath.Join(t.TempDir(), "releases")
	writeRelease(t, rel, archive, checksums(assetName(), archive))
	bin := filepath.Join(home, ".local", "bin")
	cmd := exec.Command("sh", filepath.Join("..", "..", "install.sh"))
	cmd.Env = []string{"HOME=" + home, "PATH=" + bin + string(os.PathListSeparator) + os.Getenv("PATH"), "CODELOOP_RELEASE_URL=file://" + rel}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("install.sh: %v\n%s", err, out)
	}
	if strings.Contains(string(out), "not on your PATH") {
		t.Errorf("install.sh asks to add %s to PATH though it is there:\n%s", bin, out)
	}
	if _, err := os.Stat(filepath.Join(bin, "codeloop")); err != nil {
		t.Errorf("not installed in ~/.local/bin: %v", err)
	}
}
