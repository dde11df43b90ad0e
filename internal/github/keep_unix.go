//go:build unix

package github

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// secretsFDVar names the variable that tells the process KeepSecrets
// started again which descriptor holds the credentials.
const secretsFDVar = "CODELOOP_GITHUB_SECRETS_FD"

// maxSecrets bounds the credentials read back.
const maxSecrets = 1 << 20

// KeepSecrets takes the credentials (IsSecret) out of the process's
// environment, and the values of the command-line flags named (--token)
// out of its arguments, and returns them for codeloop's own use: a flag's
// value under the flag's name.
//
// Unsetting a variable is not enough: the environment and the arguments a
// process was started with stay readable to every process of the same
// user (/proc/PID/environ and cmdline, ps), the commands the model runs
// included. So when they hold a credential, KeepSecrets starts the
// executable again in the same process (execve) without them and hands
// them over through a pipe; the call returns in the process started
// again, or with an error.
func KeepSecrets(flags ...string) (map[string]string, error) {
	if fd, ok := os.LookupEnv(secretsFDVar); ok {
		if err := os.Unsetenv(secretsFDVar); err != nil {
			return nil, err
		}
		return receiveSecrets(fd)
	}
	kept := map[string]string{}
	var clean []string
	for _, kv := range os.Environ() {
		name, value, _ := strings.Cut(kv, "=")
		if IsSecret(name) {
			kept[name] = value
			continue
		}
		clean = append(clean, kv)
	}
	args := withoutFlags(os.Args, flags, kept)
	if len(kept) == 0 {
		return kept, nil
	}
	return nil, restartWithout(kept, args, clean)
}

// restartWithout executes this program again with args and the
// environment clean and the credentials kept on a pipe. It returns only on
// failure.
func restartWithout(kept map[string]string, args, clean []string) error {
	data, err := json.Marshal(kept)
	if err != nil {
		return err
	}
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("finding this executable: %w", err)
	}
	var p [2]int
	if err := unix.Pipe(p[:]); err != nil {
		return fmt.Errorf("handing over the credentials: %w", err)
	}
	r, w := p[0], p[1]
	unix.CloseOnExec(w)
	// The pipe holds the credentials whole: no reader is needed before
	// the execve, and a full pipe fails rather than waits.
	err = unix.SetNonblock(w, true)
	if err == nil {
		var n int
		n, err = unix.Write(w, data)
		if err == nil && n != len(data) {
			err = io.ErrShortWrite
		}
		if errors.Is(err, unix.EAGAIN) {
			err = errors.New("they do not fit in a pipe")
		}
	}
	unix.Close(w)
	if err != nil {
		unix.Close(r)
		return fmt.Errorf("handing over the credentials: %w", err)
	}
	env := append(clean, secretsFDVar+"="+strconv.Itoa(r))
	err = syscall.Exec(exe, args, env)
	unix.Close(r)
	return fmt.Errorf("starting %s again without the credentials in its environment: %w", exe, err)
}

// receiveSecrets reads the credentials restartWithout handed over on the
// descriptor fd and closes it.
func receiveSecrets(fd string) (map[string]string, error) {
	n, err := strconv.Atoi(fd)
	if err != nil || n < 3 {
		return nil, fmt.Errorf("%s=%q: not a descriptor codeloop handed over", secretsFDVar, fd)
	}
	f := os.NewFile(uintptr(n), "credentials")
	data, err := io.ReadAll(io.LimitReader(f, maxSecrets+1))
	f.Close()
	if err != nil {
		return nil, fmt.Errorf("reading the credentials handed over: %w", err)
	}
	kept := map[string]string{}
	if err := json.Unmarshal(data, &kept); err != nil {
		return nil, fmt.Errorf("reading the credentials handed over: %w", err)
	}
	return kept, nil
}
