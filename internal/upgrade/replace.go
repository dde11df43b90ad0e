package upgrade

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"
)

// Replace installs bin as the executable exe. It writes bin beside exe,
// keeps the old executable as exe+".old", renames the new file over exe
// and runs check on it. When check fails the old executable is put back
// and the error says so; when it succeeds the old one is removed (on
// Windows, where a running executable cannot be removed, it stays until
// the next upgrade).
func Replace(ctx context.Context, exe string, bin []byte, check func(context.Context, string) error) error {
	info, err := os.Stat(exe)
	if err != nil {
		return fmt.Errorf("the executable to replace: %w", err)
	}
	dir := filepath.Dir(exe)
	tmp, err := writeBeside(dir, bin, info.Mode().Perm()|0o111)
	if err != nil {
		return fmt.Errorf("cannot write beside %s (reinstall codeloop somewhere you can write, or with the installer you used): %w", exe, err)
	}
	defer os.Remove(tmp) // gone after a successful rename
	backup := exe + ".old"
	if err := os.Remove(backup); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("removing the previous backup %s: %w", backup, err)
	}
	if err := swapIn(exe, tmp, backup); err != nil {
		return err
	}
	if err := check(ctx, exe); err != nil {
		if rerr := os.Rename(backup, exe); rerr != nil {
			return fmt.Errorf("the new codeloop failed (%w), and putting the old one back failed too: %v; it is at %s", err, rerr, backup)
		}
		return fmt.Errorf("the new codeloop failed, so the old one is back in place: %w", err)
	}
	if runtime.GOOS != "windows" {
		_ = os.Remove(backup)
	}
	return nil
}

// writeBeside writes data to a new file in dir and returns its name.
func writeBeside(dir string, data []byte, mode os.FileMode) (string, error) {
	f, err := os.CreateTemp(dir, ".codeloop-new-*")
	if err != nil {
		return "", err
	}
	name := f.Name()
	_, err = f.Write(data)
	if err == nil {
		err = f.Chmod(mode)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(name)
		return "", err
	}
	return name, nil
}

// swapIn keeps exe as backup and renames tmp over exe. On Unix the old
// file is linked (or copied) to backup first, so exe never goes missing;
// Windows cannot replace a running executable, only rename it, so there
// exe is renamed aside first.
func swapIn(exe, tmp, backup string) error {
	if runtime.GOOS == "windows" {
		if err := os.Rename(exe, backup); err != nil {
			return fmt.Errorf("moving the running codeloop aside: %w", err)
		}
		if err := os.Rename(tmp, exe); err != nil {
			_ = os.Rename(backup, exe)
			return fmt.Errorf("installing the new codeloop: %w", err)
		}
		return nil
	}
	if err := os.Link(exe, backup); err != nil {
		if err := copyFile(exe, backup); err != nil {
			return fmt.Errorf("keeping the old codeloop: %w", err)
		}
	}
	if err := os.Rename(tmp, exe); err != nil {
		_ = os.Remove(backup)
		return fmt.Errorf("installing the new codeloop: %w", err)
	}
	return nil
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	info, err := in.Stat()
	if err != nil {
		return err
	}
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_EXCL|os.O_WRONLY, info.Mode().Perm())
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// CheckVersion runs exe --version and returns an error unless it exits
// successfully and names itself codeloop.
func CheckVersion(ctx context.Context, exe string) error {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, exe, "--version")
	cmd.Env = append(os.Environ(), "CODELOOP_DISABLE_AUTOUPDATE=1")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s --version: %w: %s", exe, err, strings.TrimSpace(out.String()))
	}
	if !strings.HasPrefix(out.String(), "codeloop ") {
		return fmt.Errorf("%s --version printed %q, not codeloop's version", exe, strings.TrimSpace(out.String()))
	}
	return nil
}
