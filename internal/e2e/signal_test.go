package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestRunSignalExitStatus stops a streaming run with SIGINT and SIGTERM:
// the exit status is 128 plus the signal's number, and in JSON the last
// event says the run was cancelled and by what.
func TestRunSignalExitStatus(t *testing.T) {
	tests := []struct {
		sig  os.Signal
		name string
		code int
	}{
		{os.Interrupt, "SIGINT", 130},
		{syscall.SIGTERM, "SIGTERM", 143},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := newProject(t, "step\ntext Half of an answer\nhang\n", nil)
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			cmd := p.command(ctx, "run", "--format", "json", "tell me everything")
			var errb, outb bytes.Buffer
			cmd.Stderr, cmd.Stdout = &errb, &outb
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			select {
			case <-p.model.Hung():
			case <-time.After(30 * time.Second):
				t.Fatal("the model was never reached")
			}
			if err := cmd.Process.Signal(tt.sig); err != nil {
				t.Fatal(err)
			}
			_ = cmd.Wait()
			if code := cmd.ProcessState.ExitCode(); code != tt.code {
				t.Fatalf("exit status %d, want %d\n%s", code, tt.code, errb.String())
			}
			var last map[string]any
			sc := bufio.NewScanner(strings.NewReader(outb.String()))
			for sc.Scan() {
				var ev map[string]any
				if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
					t.Fatalf("not a JSON line: %q", sc.Text())
				}
				last = ev
			}
			if last["type"] != "cancelled" || last["signal"] != tt.name {
				t.Errorf("last event %v, want a cancelled event naming %s", last, tt.name)
			}
		})
	}
}
