//go:build linux

package sandbox

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// helperRequest is what the parent hands the helper in policyEnv.
type helperRequest struct {
	Policy Policy `json:"policy"`
	// MountNamespace says the helper runs in a mount namespace of its own
	// and should make the protected paths read-only.
	MountNamespace bool `json:"mountNamespace"`
	// Probe asks the helper to confine itself, report and exit.
	Probe bool `json:"probe,omitempty"`
}

// helper confines the process and executes args, or reports for a probe.
// It returns only on failure, with the exit status to use.
func helper(args []string, stdout, stderr io.Writer) int {
	fail := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "codeloop sandbox: "+format+"\n", a...)
		return 126
	}
	raw := os.Getenv(policyEnv)
	os.Unsetenv(policyEnv)
	var req helperRequest
	if err := json.Unmarshal([]byte(raw), &req); err != nil {
		return fail("reading the policy: %v", err)
	}
	if err := req.Policy.Check(); err != nil {
		return fail("%v", err)
	}
	if !req.Probe && len(args) == 0 {
		return fail("no command to run")
	}
	// Landlock and seccomp confine the calling thread; the exec below
	// happens on the same thread and so carries them.
	runtime.LockOSThread()

	st := Status{Available: true, MountNamespace: req.MountNamespace}
	if req.MountNamespace {
		if err := confineMounts(req.Policy, false); err != nil {
			return fail("%v", err)
		}
	}
	// Capabilities given to set up the mount namespace must not reach
	// the command.
	if err := unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0); err != nil {
		return fail("clearing ambient capabilities: %v", err)
	}
	abi, err := restrictFS(req.Policy)
	if err != nil {
		return fail("%v", err)
	}
	st.Landlock = abi
	if err := installFilter(req.Policy); err != nil {
		if !req.Probe {
			return fail("%v", err)
		}
		st.Reason = err.Error()
	} else {
		st.Seccomp = true
	}
	if req.Probe {
		if err := json.NewEncoder(stdout).Encode(st); err != nil {
			return fail("%v", err)
		}
		return 0
	}
	env := slices.DeleteFunc(os.Environ(), func(kv string) bool { return strings.HasPrefix(kv, "TMPDIR=") })
	env = append(env, "TMPDIR="+req.Policy.TempDir)
	err = syscall.Exec(args[0], args, env)
	return fail("running %s: %v", args[0], err)
}
