package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/codeloop/codeloop/internal/fakellm"
	"github.com/codeloop/codeloop/internal/llm"
	"github.com/codeloop/codeloop/internal/store"
)

// TestCrashSafety kills `codeloop run` with SIGKILL at random moments of a
// scripted session (while the model streams, while tools run, while parts
// are written), then checks what a restart finds: the database passes
// PRAGMA integrity_check, every part the run had published as ended is
// stored as published, tool calls cut off by the kill are marked
// interrupted, and `codeloop run -c` continues with a well-formed
// transcript.
//
// It kills 10 times by default and is skipped with -short. The full run:
//
//	CODELOOP_CRASH_KILLS=100 go test ./internal/e2e -run TestCrashSafety -v -timeout 30m
//
// CODELOOP_CRASH_SEED replays a run's kill moments.
func TestCrashSafety(t *testing.T) {
	if testing.Short() {
		t.Skip("kills codeloop at random moments; run without -short")
	}
	kills := 10
	if v := os.Getenv("CODELOOP_CRASH_KILLS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			t.Fatalf("CODELOOP_CRASH_KILLS=%q", v)
		}
		kills = n
	}
	seed := uint64(time.Now().UnixNano())
	if v := os.Getenv("CODELOOP_CRASH_SEED"); v != "" {
		s, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			t.Fatalf("CODELOOP_CRASH_SEED=%q", v)
		}
		seed = s
	}
	t.Logf("seed %d (CODELOOP_CRASH_SEED replays it)", seed)
	rng := rand.New(rand.NewPCG(seed, seed>>1|1))

	phases := map[string]int{}
	passed, done := 0, 0
	for attempt := 0; done < kills && attempt < kills*3; attempt++ {
		m := moment{anchor: anchor(rng.IntN(int(anchorCount)))}
		m.after = time.Duration(rng.IntN(int(m.anchor.window()/time.Millisecond))) * time.Millisecond
		var phase string
		ok := t.Run(fmt.Sprintf("kill-%03d-%s", done+1, m), func(t *testing.T) {
			phase = crashOnce(t, m)
		})
		if phase == "" {
			continue // the run ended before the kill; draw another moment
		}
		done++
		phases[phase]++
		if ok {
			passed++
		}
	}
	t.Logf("crash safety: %d/%d kills recovered; kills by phase: %v", passed, done, phases)
	if done < kills {
		t.Errorf("only %d of %d runs were still going at their kill moment", done, kills)
	}
}

// anchor is an event of the run a kill moment is counted from, so that
// kills land in every phase however fast the machine is.
type anchor int

const (
	anchorStart         anchor = iota // the process started
	anchorFirstRequest                // the first model request arrived: streaming, text flushes
	anchorFirstResponse               // the first response ended: tools run, tool parts are written
	anchorSecondRequest               // the second request arrived: streaming, then the end of the run
	anchorCount
)

func (a anchor) String() string {
	return [...]string{"start", "first-request", "first-response", "second-request"}[a]
}

// window is how long after the anchor a kill may come.
func (a anchor) window() time.Duration {
	return [...]time.Duration{200 * time.Millisecond, 400 * time.Millisecond, 500 * time.Millisecond, 350 * time.Millisecond}[a]
}

// reached reports whether the run has got to the anchor.
func (a anchor) reached(reqs []served) bool {
	switch a {
	case anchorFirstRequest:
		return len(reqs) >= 1
	case anchorFirstResponse:
		return len(reqs) >= 1 && !reqs[0].done.IsZero()
	case anchorSecondRequest:
		return len(reqs) >= 2
	}
	return true
}

// moment is when to kill: a delay after an anchor.
type moment struct {
	anchor anchor
	after  time.Duration
}

func (m moment) String() string { return fmt.Sprintf("%s+%v", m.anchor, m.after) }

// crashScript is a session with something to cut at every moment: a
// streamed answer with pauses, a slow shell command, a file write, then a
// second streamed answer.
func crashScript() []fakellm.Step {
	paced := func(id string, words int, pause time.Duration) fakellm.Step {
		s := fakellm.Step{{Type: llm.EventTextStart, ID: id}}
		for i := range words {
			s = append(s, llm.Event{Type: llm.EventTextDelta, ID: id, Text: fmt.Sprintf("word%d ", i)},
				llm.Event{Type: fakellm.EventSleep, Text: pause.String()})
		}
		return append(s, llm.Event{Type: llm.EventTextEnd, ID: id})
	}
	first := paced("t1", 40, 8*time.Millisecond)
	first = append(first, fakellm.Call("call_1", "bash", `{"command":"sleep 0.4; echo slept","description":"Wait a little"}`)...)
	first = append(first, fakellm.Call("call_2", "write", `{"filePath":"notes.txt","content":"crash test notes\n"}`)...)
	first = append(first, fakellm.Finish(llm.FinishToolCalls, llm.Usage{Input: 100, Output: 50})...)
	second := append(paced("t2", 40, 6*time.Millisecond), fakellm.Finish(llm.FinishStop, llm.Usage{Input: 200, Output: 40})...)
	return []fakellm.Step{first, second}
}

// published is a part the killed run printed as ended.
type published struct {
	id, typ, text, status string
}

// crashOnce runs one kill and restart. It returns the phase the kill hit,
// or "" when the run had ended before the kill.
func crashOnce(t *testing.T, m moment) string {
	r := newRig(t, crashScript(), map[string]string{"README.md": "# crash\n"})
	if _, stderr, code := r.run(time.Minute, "session", "list"); code != 0 { // an installed codeloop
		t.Fatalf("session list: %d %s", code, stderr)
	}

	lines, phase, killed := r.killAt(t, m)
	if !killed {
		return ""
	}
	t.Logf("killed while %s; %d lines published", phase, len(lines))

	// The database as the kill left it.
	stored, running := r.checkStore(t, lines)

	// Restart: continue the session (or start one if the kill came first).
	r.model.swap(fakellm.NewServer(append(fakellm.Text("t", "Continuing after the crash."), fakellm.Finish(llm.FinishStop, llm.Usage{})...)))
	args := []string{"run", "--auto", "--format", "json", "-c", "continue"}
	if stored == 0 {
		args = []string{"run", "--auto", "--format", "json", "start again"}
	}
	out, stderr, code := r.run(time.Minute, args...)
	if code != 0 || !strings.Contains(out, "Continuing after the crash.") {
		t.Fatalf("restart: exit status %d\nstdout:\n%s\nstderr:\n%s", code, out, stderr)
	}
	if bad := r.model.invalid(); len(bad) > 0 {
		t.Errorf("invalid transcripts sent to the model:\n%s", strings.Join(bad, "\n"))
	}

	// After the restart every call is settled, and the ones the kill cut
	// off say so.
	for _, m := range r.export().Messages {
		for _, p := range m.Parts {
			if p.Type != "tool" {
				continue
			}
			switch {
			case p.State.Status != "completed" && p.State.Status != "error":
				t.Errorf("tool part %s (%s) is still %s after the restart", p.ID, p.Tool, p.State.Status)
			case running[p.ID] && (p.State.Status != "error" || p.State.Metadata["interrupted"] != true):
				t.Errorf("tool part %s (%s) was cut off but is %s %v", p.ID, p.Tool, p.State.Status, p.State.Metadata)
			}
		}
	}
	s, err := store.Open(context.Background(), r.database())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if res := integrity(t, s); res != "ok" {
		t.Errorf("integrity_check after the restart: %s", res)
	}
	return phase
}

// killAt starts a run, kills it with SIGKILL at moment m and returns the
// lines it printed, what it was doing when killed (from the model server's
// view), and whether the kill found it still running.
func (r *rig) killAt(t *testing.T, m moment) (lines []string, phase string, killed bool) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := r.command(ctx, "run", "--auto", "--format", "json", "do the work")
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	cmd.Stdout = pw
	var errb strings.Builder
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pw.Close()
	read := make(chan []string, 1)
	go func() {
		var got []string
		sc := bufio.NewScanner(pr)
		sc.Buffer(make([]byte, 1<<20), 1<<24)
		for sc.Scan() {
			got = append(got, sc.Text())
		}
		read <- got
	}()
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()

	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	var due <-chan time.Time
	if m.anchor.reached(nil) {
		due = time.After(m.after)
	}
wait:
	for {
		select {
		case <-tick.C:
			if due == nil && m.anchor.reached(r.model.requests()) {
				due = time.After(m.after)
			}
		case <-due:
			phase = r.phaseNow()
			_ = cmd.Process.Signal(syscall.SIGKILL)
			<-exited
			ws, _ := cmd.ProcessState.Sys().(syscall.WaitStatus)
			killed = ws.Signaled() && ws.Signal() == syscall.SIGKILL
			break wait
		case <-exited:
			break wait
		}
	}
	select {
	case lines = <-read:
	case <-ctx.Done():
		t.Fatal("the killed run's output never ended")
	}
	if !killed && cmd.ProcessState.ExitCode() != 0 {
		t.Fatalf("the run failed before its kill: %s", errb.String())
	}
	return lines, phase, killed
}

// phaseNow names what the run is doing as seen from the model server.
func (r *rig) phaseNow() string {
	reqs := r.model.requests()
	switch {
	case len(reqs) == 0:
		return "starting"
	case reqs[len(reqs)-1].done.IsZero():
		return fmt.Sprintf("streaming response %d", len(reqs))
	case len(reqs) == 1:
		return "running tools"
	default:
		return "finishing"
	}
}

// checkStore opens the database the kill left, checks its integrity and
// that every published part is stored as published. It returns the number
// of sessions and the ids of tool parts stored as pending or running.
func (r *rig) checkStore(t *testing.T, lines []string) (sessions int, running map[string]bool) {
	var pub []published
	for _, line := range lines {
		var ev struct {
			Type string       `json:"type"`
			Part exportedPart `json:"part"`
		}
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			t.Fatalf("output line %q: %v", line, err)
		}
		if ev.Part.ID != "" {
			pub = append(pub, published{ev.Part.ID, ev.Part.Type, ev.Part.Text, ev.Part.State.Status})
		}
	}
	s, err := store.Open(context.Background(), r.database())
	if err != nil {
		t.Fatalf("opening the database after the kill: %v", err)
	}
	defer s.Close()
	if res := integrity(t, s); res != "ok" {
		t.Errorf("integrity_check after the kill: %s", res)
	}
	list, err := s.ListSessions(context.Background(), store.SessionFilter{})
	if err != nil {
		t.Fatal(err)
	}
	parts := map[string]exportedPart{}
	for _, sess := range list {
		ps, err := s.ListParts(context.Background(), sess.ID)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range ps {
			var ep exportedPart
			if err := json.Unmarshal(p.Data, &ep); err != nil {
				t.Errorf("part %s is not JSON: %v", p.ID, err)
			}
			parts[p.ID] = ep
		}
	}
	running = map[string]bool{}
	for id, p := range parts {
		if p.Type == "tool" && (p.State.Status == "pending" || p.State.Status == "running") {
			running[id] = true
		}
	}
	for _, p := range pub {
		got, ok := parts[p.id]
		switch {
		case !ok:
			t.Errorf("published %s part %s is not in the database", p.typ, p.id)
		case p.typ == "text" && got.Text != p.text:
			t.Errorf("text part %s: stored %q, published %q", p.id, got.Text, p.text)
		case p.typ == "tool" && got.State.Status != p.status:
			t.Errorf("tool part %s: stored %s, published %s", p.id, got.State.Status, p.status)
		}
	}
	if ids := slices.Sorted(maps.Keys(running)); len(ids) > 0 {
		t.Logf("tool parts cut off: %v", ids)
	}
	return len(list), running
}

func integrity(t *testing.T, s *store.Store) string {
	t.Helper()
	var res string
	if err := s.DB().QueryRow("PRAGMA integrity_check").Scan(&res); err != nil {
		t.Fatal(err)
	}
	return res
}
