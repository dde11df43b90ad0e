package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/codeloop/codeloop/internal/fakellm"
	"github.com/codeloop/codeloop/internal/llm"
	"github.com/codeloop/codeloop/internal/waitfor"
)

// binary is the codeloop binary built once for the package's tests.
var binary string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "codeloop-e2e")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binary = filepath.Join(dir, "codeloop")
	build := exec.Command("go", "build", "-o", binary, "github.com/codeloop/codeloop/cmd/codeloop")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building codeloop:", err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// project is a temporary git repository with its own home directory, and
// fake model servers configured as OpenAI-compatible providers.
type project struct {
	t          *testing.T
	dir, home  string
	model      *fakellm.Server
	titles     *fakellm.Server
	modelURL   string
	closeFakes func()
}

func newProject(t *testing.T, script string, files map[string]string) *project {
	t.Helper()
	steps, err := fakellm.Parse(script)
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	p := &project{t: t, dir: filepath.Join(root, "repo"), home: filepath.Join(root, "home")}
	p.model = fakellm.NewServer(steps...)
	p.titles = fakellm.NewServer(append(fakellm.Text("t", "Greeting change"), fakellm.Finish("stop", fakellmUsage())...))
	ms, ts := httptest.NewServer(p.model), httptest.NewServer(p.titles)
	p.modelURL = ms.URL
	p.closeFakes = func() { ms.Close(); ts.Close() }
	t.Cleanup(p.closeFakes)

	for _, d := range []string{p.dir, p.home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(p.dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cfg := fmt.Sprintf(`{
  // an OpenCode-style config
  "model": "fake/model",
  "small_model": "titles/small",
  "provider": {
    "fake": {"npm": "@ai-sdk/openai-compatible", "options": {"baseURL": "%s/v1", "apiKey": "test"},
             "models": {"model": {"name": "Fake", "limit": {"context": 100000, "output": 4000}}}},
    "titles": {"npm": "@ai-sdk/openai-compatible", "options": {"baseURL": "%s/v1", "apiKey": "test"},
               "models": {"small": {}}}
  }
}`, ms.URL, ts.URL)
	if err := os.WriteFile(filepath.Join(p.dir, "opencode.jsonc"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	p.git("init", "-q")
	p.git("add", ".")
	p.git("-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "start")
	return p
}

func (p *project) git(args ...string) {
	p.t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = p.dir
	cmd.Env = p.env()
	if out, err := cmd.CombinedOutput(); err != nil {
		p.t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

func (p *project) env() []string {
	return []string{
		"HOME=" + p.home,
		"PATH=" + os.Getenv("PATH"),
		"OLLAMA_HOST=127.0.0.1:1", // no local model server
		"XDG_CONFIG_HOME=" + filepath.Join(p.home, ".config"),
		"XDG_DATA_HOME=" + filepath.Join(p.home, ".local/share"),
		"XDG_CACHE_HOME=" + filepath.Join(p.home, ".cache"),
		"XDG_STATE_HOME=" + filepath.Join(p.home, ".local/state"),
		"GIT_CONFIG_NOSYSTEM=1",
		"CODELOOP_DISABLE_MODELS_FETCH=1",
		"CODELOOP_DISABLE_AUTOUPDATE=1", // no release lookup from the tests
	}
}

func (p *project) command(ctx context.Context, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, binary, args...)
	cmd.Dir = p.dir
	cmd.Env = p.env()
	return cmd
}

// run runs codeloop to the end and returns its output and exit status.
func (p *project) run(args ...string) (stdout, stderr string, code int) {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := p.command(ctx, args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code = cmd.ProcessState.ExitCode()
	if err != nil && code < 0 {
		p.t.Fatalf("codeloop %v: %v\n%s", args, err, errb.String())
	}
	return out.String(), errb.String(), code
}

// waitStored waits until the latest session, as exported, holds every one
// of want: codeloop saves what streams in while it streams.
func (p *project) waitStored(want ...string) {
	p.t.Helper()
	var out string
	if !waitfor.Within(waitfor.Deadline, func() bool {
		o, _, code := p.run("export")
		out = o
		for _, w := range want {
			if !strings.Contains(out, w) {
				return false
			}
		}
		return code == 0
	}) {
		p.t.Fatalf("the session never held %q:\n%s", want, out)
	}
}

func (p *project) read(name string) string {
	p.t.Helper()
	b, err := os.ReadFile(filepath.Join(p.dir, name))
	if err != nil {
		p.t.Fatal(err)
	}
	return string(b)
}

const editScript = `
step
text I will look at the file first.
call call_1 read {"filePath":"a.txt"}
finish tool-calls input=500 output=20
step
call call_2 edit {"filePath":"a.txt","oldString":"hello","newString":"goodbye"}
finish tool-calls input=700 output=30
step
call call_3 bash {"command":"cat a.txt"}
finish tool-calls input=800 output=10
step
text a.txt now says goodbye world.
finish stop input=900 output=12
`

func TestRunEditsAFileJSON(t *testing.T) {
	p := newProject(t, editScript, map[string]string{"a.txt": "hello world\n"})
	stdout, stderr, code := p.run("run", "--format", "json", "change hello to goodbye in a.txt")
	if code != 0 {
		t.Fatalf("exit status %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	if got := p.read("a.txt"); got != "goodbye world\n" {
		t.Errorf("a.txt = %q", got)
	}
	types := map[string]int{}
	var session string
	sc := bufio.NewScanner(strings.NewReader(stdout))
	for sc.Scan() {
		var ev struct {
			Type      string          `json:"type"`
			Timestamp int64           `json:"timestamp"`
			SessionID string          `json:"sessionID"`
			Part      json.RawMessage `json:"part"`
		}
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			t.Fatalf("line %q is not JSON: %v", sc.Text(), err)
		}
		if ev.Timestamp == 0 || ev.SessionID == "" || (session != "" && ev.SessionID != session) {
			t.Errorf("line without timestamp or session: %s", sc.Text())
		}
		session = ev.SessionID
		types[ev.Type]++
		if ev.Type == "tool_use" && !strings.Contains(string(ev.Part), `"status":"completed"`) {
			t.Errorf("tool failed: %s", ev.Part)
		}
	}
	want := map[string]int{"step_start": 4, "step_finish": 4, "tool_use": 3, "text": 2}
	for k, n := range want {
		if types[k] != n {
			t.Errorf("%d %s lines, want %d (all: %v)", types[k], k, n, types)
		}
	}
	if p.model.Remaining() != 0 {
		t.Errorf("%d model steps left", p.model.Remaining())
	}
	// The shell command's output went back to the model.
	reqs := p.model.Requests()
	if !strings.Contains(string(reqs[3].Body), "goodbye world") {
		t.Errorf("the last request lacks the bash output: %s", reqs[3].Body)
	}
}

func TestRunDefaultOutput(t *testing.T) {
	p := newProject(t, editScript, map[string]string{"a.txt": "hello world\n"})
	stdout, stderr, code := p.run("run", "change hello to goodbye in a.txt")
	if code != 0 {
		t.Fatalf("exit status %d\n%s\n%s", code, stdout, stderr)
	}
	for _, want := range []string{"I will look at the file first.", "→ read", "→ edit", "→ bash", "a.txt now says goodbye world."} {
		if !strings.Contains(stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, stdout)
		}
	}
	// The session is listed and exports in OpenCode's shape.
	list, _, code := p.run("session", "list", "--format", "json")
	var sessions []struct {
		ID    string `json:"id"`
		Title string `json:"title"`
	}
	if err := json.Unmarshal([]byte(list), &sessions); err != nil || code != 0 || len(sessions) != 1 {
		t.Fatalf("session list: %v %d %s", err, code, list)
	}
	exp, _, code := p.run("export", sessions[0].ID)
	var e struct {
		Info     map[string]any `json:"info"`
		Messages []struct {
			Info  map[string]any   `json:"info"`
			Parts []map[string]any `json:"parts"`
		} `json:"messages"`
	}
	if err := json.Unmarshal([]byte(exp), &e); err != nil || code != 0 {
		t.Fatalf("export: %v %d", err, code)
	}
	if len(e.Messages) != 5 || e.Info["id"] != sessions[0].ID {
		t.Errorf("export has %d messages", len(e.Messages))
	}
}

func TestRunErrorExitStatus(t *testing.T) {
	p := newProject(t, "step\nerror auth status=401 invalid api key\n", nil)
	stdout, stderr, code := p.run("run", "hi")
	if code != 1 {
		t.Fatalf("exit status %d, want 1\n%s\n%s", code, stdout, stderr)
	}
	if !strings.Contains(stderr, "invalid api key") {
		t.Errorf("stderr lacks the error: %s", stderr)
	}
}

// TestKillMidStreamThenContinue kills run while the model streams and a
// tool runs, then continues the session: the interrupted parts are marked
// and the transcript sent to the model is well formed.
func TestKillMidStreamThenContinue(t *testing.T) {
	script := `
step
text Starting a long answer
call call_1 bash {"command":"sleep 5"}
hang
step
text Continuing from where we stopped.
finish stop
`
	p := newProject(t, script, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := p.command(ctx, "run", "write a long answer")
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-p.model.Hung():
	case <-time.After(30 * time.Second):
		t.Fatalf("the model was never reached: %s", errb.String())
	}
	p.waitStored("Starting a long answer", `"callID": "call_1"`)
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()

	stdout, stderr, code := p.run("run", "-c", "continue")
	if code != 0 {
		t.Fatalf("continuing: exit status %d\n%s\n%s", code, stdout, stderr)
	}
	if !strings.Contains(stdout, "Continuing from where we stopped.") {
		t.Errorf("output: %s", stdout)
	}

	// The request after the kill holds the partial answer, the interrupted
	// call with an error result, and the new prompt, in a valid order.
	reqs := p.model.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests", len(reqs))
	}
	var body struct {
		Messages []struct {
			Role       string `json:"role"`
			Content    any    `json:"content"`
			ToolCallID string `json:"tool_call_id"`
			ToolCalls  []struct {
				ID string `json:"id"`
			} `json:"tool_calls"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(reqs[1].Body, &body); err != nil {
		t.Fatal(err)
	}
	var roles []string
	pending := map[string]bool{}
	for _, m := range body.Messages {
		roles = append(roles, m.Role)
		for _, c := range m.ToolCalls {
			pending[c.ID] = true
		}
		if m.Role == "tool" {
			if !pending[m.ToolCallID] {
				t.Errorf("a tool result answers no call: %s", m.ToolCallID)
			}
			delete(pending, m.ToolCallID)
		}
	}
	if len(pending) != 0 {
		t.Errorf("calls without results: %v", pending)
	}
	if got := strings.Join(roles, ","); got != "system,user,assistant,tool,user" {
		t.Errorf("roles %s", got)
	}
	raw := string(reqs[1].Body)
	for _, want := range []string{"Starting a long answer", "Tool execution aborted", "continue"} {
		if !strings.Contains(raw, want) {
			t.Errorf("the request lacks %q", want)
		}
	}

	// The stored session marks what the kill interrupted.
	exp, _, _ := p.run("export")
	var e struct {
		Messages []struct {
			Info struct {
				Role  string `json:"role"`
				Error *struct {
					Name string `json:"name"`
				} `json:"error"`
			} `json:"info"`
			Parts []struct {
				Type  string `json:"type"`
				State struct {
					Status   string         `json:"status"`
					Metadata map[string]any `json:"metadata"`
				} `json:"state"`
			} `json:"parts"`
		} `json:"messages"`
	}
	if err := json.Unmarshal([]byte(exp), &e); err != nil {
		t.Fatal(err)
	}
	first := e.Messages[1]
	if first.Info.Role != "assistant" || first.Info.Error == nil || first.Info.Error.Name != "MessageAbortedError" {
		t.Errorf("the killed answer is not marked aborted: %+v", first.Info)
	}
	marked := false
	for _, part := range first.Parts {
		if part.Type == "tool" {
			marked = part.State.Status == "error" && part.State.Metadata["interrupted"] == true
		}
	}
	if !marked {
		t.Errorf("the interrupted call is not marked: %+v", first.Parts)
	}
}

func fakellmUsage() llm.Usage { return llm.Usage{} }

// TestInterruptSavesAndExits130 sends Ctrl-C while the model streams: run
// saves what arrived, marks the answer aborted and exits with 130.
func TestInterruptSavesAndExits130(t *testing.T) {
	p := newProject(t, "step\ntext Half of an answer\nhang\n", nil)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := p.command(ctx, "run", "--title", "Interrupted", "tell me everything")
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
	p.waitStored("Half of an answer")
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	if code := cmd.ProcessState.ExitCode(); code != 130 {
		t.Fatalf("exit status %d, want 130", code)
	}
	exp, _, _ := p.run("export")
	var e struct {
		Info struct {
			Title string `json:"title"`
		} `json:"info"`
		Messages []struct {
			Info struct {
				Error *struct {
					Name string `json:"name"`
				} `json:"error"`
			} `json:"info"`
			Parts []struct {
				Type string `json:"type"`
				Text string `json:"text"`
			} `json:"parts"`
		} `json:"messages"`
	}
	if err := json.Unmarshal([]byte(exp), &e); err != nil {
		t.Fatal(err)
	}
	if e.Info.Title != "Interrupted" || len(e.Messages) != 2 {
		t.Fatalf("session %q with %d messages", e.Info.Title, len(e.Messages))
	}
	a := e.Messages[1]
	if a.Info.Error == nil || a.Info.Error.Name != "MessageAbortedError" {
		t.Errorf("answer not marked aborted: %+v", a.Info)
	}
	text := ""
	for _, part := range a.Parts {
		if part.Type == "text" {
			text += part.Text
		}
	}
	if text != "Half of an answer" {
		t.Errorf("saved text %q\nstdout: %s\nstderr: %s\nexport: %s", text, outb.String(), errb.String(), exp)
	}
}

// TestRunAttachesFilesAndStdin checks -f and piped input reach the model.
func TestRunAttachesFilesAndStdin(t *testing.T) {
	p := newProject(t, "step\ntext Noted.\nfinish stop\n", map[string]string{"notes.md": "remember the milk\n"})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := p.command(ctx, "run", "-f", "notes.md", "summarise")
	cmd.Stdin = strings.NewReader("piped context line\n")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	body := string(p.model.Requests()[0].Body)
	for _, want := range []string{"summarise\\npiped context line", "remember the milk"} {
		if !strings.Contains(body, want) {
			t.Errorf("the request lacks %q: %s", want, body)
		}
	}
}

// TestRunPermissions reads a file outside the project: run rejects the
// ask and says so; with --auto the read goes through.
func TestRunPermissions(t *testing.T) {
	script := `
step
call call_1 read {"filePath":"../outside.txt"}
finish tool-calls
step
text Done.
finish stop
`
	for _, auto := range []bool{false, true} {
		p := newProject(t, script, nil)
		if err := os.WriteFile(filepath.Join(p.dir, "..", "outside.txt"), []byte("secret plans\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		args := []string{"run", "read the outside file"}
		if auto {
			args = append(args, "--auto")
		}
		stdout, stderr, code := p.run(args...)
		// A turn that ended on a rejected ask exits 1, and says why.
		if want := map[bool]int{true: 0, false: 1}[auto]; code != want ||
			!auto && !strings.Contains(stderr, "the turn ended after a permission request was rejected") {
			t.Fatalf("auto=%v: exit status %d, want %d\n%s\n%s", auto, code, want, stdout, stderr)
		}
		asked := strings.Contains(stderr, "permission requested: external_directory")
		read := strings.Contains(string(p.model.Requests()[len(p.model.Requests())-1].Body), "secret plans")
		if auto && (asked || !read || !strings.Contains(stdout, "Done.")) {
			t.Errorf("--auto: asked=%v read=%v\n%s\n%s", asked, read, stdout, stderr)
		}
		if !auto && (!asked || read || len(p.model.Requests()) != 1) {
			t.Errorf("without --auto: asked=%v read=%v requests=%d\n%s\n%s", asked, read, len(p.model.Requests()), stdout, stderr)
		}
	}
}

// TestRunCommandCompact compacts the last session by hand.
func TestRunCommandCompact(t *testing.T) {
	script := `
step
text The project is small.
finish stop input=100 output=5
step
text SUMMARY: the user asked about the project.
finish stop input=120 output=10
`
	p := newProject(t, script, nil)
	if _, stderr, code := p.run("run", "describe the project"); code != 0 {
		t.Fatalf("first run: %d %s", code, stderr)
	}
	stdout, stderr, code := p.run("run", "-c", "--command", "compact")
	// The summary is stored for the model, not printed as an answer.
	if code != 0 || strings.Contains(stdout, "SUMMARY:") || !strings.Contains(stderr, "compacting the conversation") {
		t.Fatalf("compact: %d\n%s\n%s", code, stdout, stderr)
	}
	if exp, _, _ := p.run("export"); !strings.Contains(exp, "SUMMARY: the user asked about the project.") {
		t.Errorf("the summary was not stored:\n%s", exp)
	}
	last := string(p.model.Requests()[1].Body)
	if !strings.Contains(last, "The project is small.") {
		t.Errorf("the summary request lacks the history: %s", last)
	}
}
