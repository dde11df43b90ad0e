package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestRunFullDisk runs `codeloop run -c` with a file-size limit just above
// the database's size, as on a full disk: the run must end on its own,
// non-zero, with an error that names the database and the cause, without
// re-sending the model request or re-running tools; and once the limit is
// gone the session resumes.
func TestRunFullDisk(t *testing.T) {
	big, _ := json.Marshal(map[string]string{"filePath": "big.txt", "content": strings.Repeat("line of content\n", 16<<10)})
	p := newProject(t, `
step
text Hello.
finish stop input=10 output=2
step
call call_1 bash {"command":"echo ran >> bash-runs.txt"}
call call_2 write `+string(big)+`
finish tool-calls input=20 output=5
step
text Done after the disk was full.
finish stop input=30 output=5
step
text Resumed fine.
finish stop input=40 output=5
`, map[string]string{"a.txt": "hello\n"})
	if _, stderr, code := p.run("run", "say hello"); code != 0 {
		t.Fatalf("first run: %d %s", code, stderr)
	}
	dataDir := filepath.Join(p.home, ".local/share", "codeloop")
	var largest int64
	for _, name := range []string{"codeloop.db", "codeloop.db-wal"} {
		if st, err := os.Stat(filepath.Join(dataDir, name)); err == nil {
			largest = max(largest, st.Size())
		}
	}
	limitKB := largest/1024 + 16
	ctx, cancel := context.WithTimeout(context.Background(), 40*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-c", fmt.Sprintf(`ulimit -f %d; exec "$0" "$@"`, limitKB), binary, "run", "--auto", "-c", "write the big file")
	cmd.Dir, cmd.Env = p.dir, p.env()
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("the run did not end under a %d KB file-size limit (%d requests so far)\nstderr:\n%s", limitKB, len(p.model.Requests()), errb.String())
	}
	if err == nil {
		t.Fatalf("the run succeeded under a %d KB file-size limit:\n%s", limitKB, out.String())
	}
	t.Logf("exit: %v\nstderr:\n%s", err, errb.String())
	msg := errb.String()
	if !strings.Contains(msg, filepath.Join(dataDir, "codeloop.db")) || !(strings.Contains(msg, "file too large") || strings.Contains(msg, "no space")) {
		t.Errorf("the error does not name the database and the cause:\n%s", msg)
	}
	if n := len(p.model.Requests()); n > 2 {
		t.Errorf("the model was asked %d times; a failed store write must not re-send the step", n)
	}
	if runs, _ := os.ReadFile(filepath.Join(p.dir, "bash-runs.txt")); strings.Count(string(runs), "ran") > 1 {
		t.Errorf("bash ran %d times", strings.Count(string(runs), "ran"))
	}
	if stdout, stderr, code := p.run("run", "-c", "are you there"); code != 0 {
		t.Fatalf("the session does not resume after the limit is gone: %d\n%s\n%s", code, stdout, stderr)
	}
}
