//go:build linux

package sandbox

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// wrap rewrites cmd to run through the helper at exe.
func wrap(cmd *exec.Cmd, exe string, p Policy, mountNS bool) error {
	if cmd.Path == "" || !strings.HasPrefix(cmd.Path, "/") {
		return fmt.Errorf("sandboxed command %q: want an absolute path", cmd.Path)
	}
	p.Hidden = p.hidden() // codeloop's own directories, not the command's environment's
	req, err := json.Marshal(helperRequest{Policy: p, MountNamespace: mountNS})
	if err != nil {
		return err
	}
	args := append([]string{exe, HelperArg, "--", cmd.Path}, cmd.Args[1:]...)
	cmd.Path, cmd.Args = exe, args
	if cmd.Env == nil {
		cmd.Env = os.Environ()
	}
	cmd.Env = append(cmd.Env, policyEnv+"="+string(req))
	if mountNS {
		if cmd.SysProcAttr == nil {
			cmd.SysProcAttr = &syscall.SysProcAttr{}
		}
		namespace(cmd.SysProcAttr)
	}
	return nil
}

// namespace asks for a private mount namespace, inside a user namespace
// when codeloop is not root, with the one capability the helper needs to
// mount there.
func namespace(a *syscall.SysProcAttr) {
	a.Cloneflags |= unix.CLONE_NEWNS
	if os.Geteuid() == 0 {
		return
	}
	uid, gid := os.Geteuid(), os.Getegid()
	a.Cloneflags |= unix.CLONE_NEWUSER
	a.UidMappings = []syscall.SysProcIDMap{{ContainerID: uid, HostID: uid, Size: 1}}
	a.GidMappings = []syscall.SysProcIDMap{{ContainerID: gid, HostID: gid, Size: 1}}
	a.GidMappingsEnableSetgroups = false
	a.AmbientCaps = []uintptr{unix.CAP_SYS_ADMIN}
}

// probe runs the helper once to learn what this machine can enforce.
func probe(ctx context.Context, exe string) Status {
	abi := landlockABI()
	if abi == 0 {
		return Status{Reason: "the kernel has no Landlock (Linux 5.13 or later with Landlock enabled is needed)"}
	}
	dir, err := os.MkdirTemp("", "codeloop-sandbox-probe-")
	if err != nil {
		return Status{Reason: "probing: " + err.Error()}
	}
	defer os.RemoveAll(dir)
	p := Policy{Mode: ModeWorkspaceWrite, Project: dir, TempDir: dir}
	st, err := runProbe(ctx, exe, p, true)
	if err == nil {
		return st
	}
	nsErr := err
	st, err = runProbe(ctx, exe, p, false)
	if err != nil {
		return Status{Landlock: abi, Reason: "probing: " + err.Error()}
	}
	st.Reason = joinReason(st.Reason, "no private mount namespace: "+nsErr.Error())
	return st
}

func runProbe(ctx context.Context, exe string, p Policy, mountNS bool) (Status, error) {
	req, err := json.Marshal(helperRequest{Policy: p, MountNamespace: mountNS, Probe: true})
	if err != nil {
		return Status{}, err
	}
	cmd := exec.CommandContext(ctx, exe, HelperArg)
	cmd.Env = append(os.Environ(), policyEnv+"="+string(req))
	if mountNS {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
		namespace(cmd.SysProcAttr)
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		if msg := strings.TrimSpace(stderr.String()); msg != "" {
			return Status{}, errors.New(msg)
		}
		return Status{}, err
	}
	var st Status
	if err := json.Unmarshal(stdout.Bytes(), &st); err != nil {
		return Status{}, fmt.Errorf("reading the probe's answer: %w", err)
	}
	return st, nil
}

func joinReason(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}
