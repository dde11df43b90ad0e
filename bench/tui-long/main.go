// Command tui-long measures codeloop's terminal interface on long
// sessions, through the real binary in a real terminal (tmux on a private
// socket): the time from start to the first full frame of a session of N
// messages, the time from a PgUp key to its frame while paging from the
// end of the session to its start, then from a PgDn key to its frame
// while paging back to the end, and the memory the process holds.
//
//	go run ./bench/tui-long                       # 1,000 and 10,000 messages
//	go run ./bench/tui-long -sizes 10000 -runs 3
//
//	go run ./bench/tui-long -typing               # keys typed while an answer streams, 10,000 messages
//	go run ./bench/tui-long -search -sizes 100000 # a search of the whole session
//
// Run it from the module root; it needs Go, git and tmux.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/codeloop/codeloop/bench/internal/seed"
	"github.com/codeloop/codeloop/internal/fakellm"
	"github.com/codeloop/codeloop/internal/id"
	"github.com/codeloop/codeloop/internal/llm"
)

func main() {
	bin := flag.String("bin", "", "codeloop binary to measure (default: build ./cmd/codeloop)")
	sizes := flag.String("sizes", "1000,10000", "session lengths in messages, comma-separated")
	runs := flag.Int("runs", 1, "runs per size")
	width := flag.Int("w", 120, "terminal width")
	height := flag.Int("h", 40, "terminal height")
	keep := flag.Bool("keep", false, "keep the scratch directories")
	searchOnly := flag.Bool("search", false, "time a search of the whole session: its keys, its count of every match, and the jumps round the ends")
	typingOnly := flag.Bool("typing", false, "time keys typed while an answer streams at 200 tokens/s, in a session of the last of -sizes (10,000 when -sizes is not given)")
	flag.Parse()
	if *typingOnly {
		if !isFlagSet("sizes") {
			*sizes = "10000"
		}
		*sizes = (*sizes)[strings.LastIndex(*sizes, ",")+1:]
	}
	if err := run(context.Background(), *bin, *sizes, *runs, *width, *height, *keep, *typingOnly, *searchOnly); err != nil {
		fmt.Fprintln(os.Stderr, "tui-long:", err)
		os.Exit(1)
	}
}

// keyWait is how long a key may take to change the screen before the
// view is taken to be at its end; on a loaded machine reading a page of
// older messages can take over a second.
const keyWait = 5 * time.Second

// result is what one run measured.
type result struct {
	messages  int
	open      time.Duration   // start to the first full frame
	pages     []time.Duration // PgUp, key to frame
	downs     []time.Duration // PgDn, key to frame
	rssOpen   int64           // bytes resident after the first frame
	rssPaged  int64           // bytes resident after paging to the first message
	anonPaged int64           // anonymous bytes resident (RssAnon) by then
	peakPaged int64           // peak resident bytes (VmHWM) by then
}

// isFlagSet reports whether the command line set the flag name.
func isFlagSet(name string) bool {
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

func run(ctx context.Context, bin, sizes string, runs, w, h int, keep, typingOnly, searchOnly bool) error {
	if _, err := exec.LookPath("tmux"); err != nil {
		return errors.New("tmux is not installed; install it to measure the interface")
	}
	scratch, err := os.MkdirTemp("", "tui-long-")
	if err != nil {
		return err
	}
	if !keep {
		defer os.RemoveAll(scratch)
	}
	if bin == "" {
		bin = filepath.Join(scratch, "codeloop")
		build := exec.CommandContext(ctx, "go", "build", "-o", bin, "./cmd/codeloop")
		if out, err := build.CombinedOutput(); err != nil {
			return fmt.Errorf("building codeloop: %v\n%s", err, out)
		}
	}
	if typingOnly {
		n, err := strconv.Atoi(strings.TrimSpace(sizes))
		if err != nil || n < 2 {
			return fmt.Errorf("bad size %q", sizes)
		}
		base, err := catBaseline(w, h)
		if err != nil {
			return fmt.Errorf("timing cat's echo: %w", err)
		}
		var idle, keys []time.Duration
		for r := range runs {
			i, k, err := typing(ctx, bin, filepath.Join(scratch, fmt.Sprintf("typing-%d", r)), n, w, h)
			if err != nil {
				return fmt.Errorf("typing, %d messages: %w", n, err)
			}
			idle, keys = append(idle, i...), append(keys, k...)
		}
		reportTyping(n, idle, keys, base, w, h)
		if quantile(keys, 0.95) > typingBudget {
			return fmt.Errorf("p95 key to frame %s is over the %s budget", ms(quantile(keys, 0.95)), ms(typingBudget))
		}
		return nil
	}
	if searchOnly {
		var results []searchResult
		err := eachSize(sizes, runs, func(n, r int) error {
			res, err := searching(ctx, bin, filepath.Join(scratch, fmt.Sprintf("search-%d-%d", n, r)), n, w, h)
			if err != nil {
				return fmt.Errorf("searching, %d messages: %w", n, err)
			}
			results = append(results, res)
			return nil
		})
		if err != nil {
			return err
		}
		reportSearch(results, w, h)
		return nil
	}
	base, err := baseline(w, h)
	if err != nil {
		return fmt.Errorf("measuring the terminal's own latency: %w", err)
	}
	var results []result
	err = eachSize(sizes, runs, func(n, r int) error {
		res, err := measure(ctx, bin, filepath.Join(scratch, fmt.Sprintf("%d-%d", n, r)), n, w, h)
		if err != nil {
			return fmt.Errorf("%d messages: %w", n, err)
		}
		results = append(results, res)
		fmt.Fprintf(os.Stderr, "%d messages, run %d: open %v, %d pages, PgUp p50 %s p95 %s, PgDn p50 %s p95 %s\n", n, r+1,
			res.open.Round(time.Millisecond), len(res.pages), ms(quantile(res.pages, 0.5)), ms(quantile(res.pages, 0.95)),
			ms(quantile(res.downs, 0.5)), ms(quantile(res.downs, 0.95)))
		return nil
	})
	if err != nil {
		return err
	}
	report(results, base, w, h)
	return nil
}

// eachSize calls f for each session length of sizes (comma-separated) and
// each of runs runs of it, stopping at the first error.
func eachSize(sizes string, runs int, f func(n, run int) error) error {
	for _, s := range strings.Split(sizes, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 2 {
			return fmt.Errorf("bad size %q", s)
		}
		for r := range runs {
			if err := f(n, r); err != nil {
				return err
			}
		}
	}
	return nil
}

// opened is a fresh project seeded with a session, open with codeloop -c
// in a tmux pane "v" on a private socket.
type opened struct {
	p          *project
	tm         *tmux
	screen     string        // the first screen that showed the session
	lastAnswer string        // the start of the session's last answer
	open       time.Duration // from the pane's start to that screen
}

// openSeeded seeds a session of n messages in a fresh project in dir
// (its fake model answering more, in order), and opens it in a w×h pane
// on a socket named after name. Close ends both.
func openSeeded(ctx context.Context, bin, dir, name string, n, w, h int, more ...fakellm.Step) (*opened, error) {
	p, err := newProject(ctx, bin, dir, more...)
	if err != nil {
		return nil, err
	}
	o := &opened{p: p, tm: &tmux{socket: fmt.Sprintf("%s-%d-%d", name, os.Getpid(), time.Now().UnixNano())},
		lastAnswer: fmt.Sprintf("Answer %d:", n/2-1)}
	if err := p.seed(ctx, n); err != nil {
		p.close()
		return nil, err
	}
	start := time.Now()
	if _, err := o.tm.cmd("-f", "/dev/null", "new-session", "-d", "-s", "v", "-x", strconv.Itoa(w), "-y", strconv.Itoa(h),
		"-c", p.repo, p.commandLine("-c")); err != nil {
		o.close()
		return nil, err
	}
	o.screen, err = o.tm.waitFor(30*time.Second, func(s string) bool {
		return strings.Contains(s, o.lastAnswer) && strings.Contains(s, "fake/model")
	})
	if err != nil {
		o.close()
		return nil, fmt.Errorf("the session never showed: %w\n%s", err, o.screen)
	}
	o.open = time.Since(start)
	return o, nil
}

// close ends the pane's tmux server and removes the project.
func (o *opened) close() {
	_, _ = o.tm.cmd("kill-server")
	o.p.close()
}

// baseline times the same path for a program that only echoes (cat):
// a key sent through tmux to its character captured on screen. It is
// what every key-to-frame figure includes beside codeloop's own work.
func baseline(w, h int) ([]time.Duration, error) {
	tm := &tmux{socket: fmt.Sprintf("tui-long-base-%d", os.Getpid())}
	defer tm.cmd("kill-server")
	if _, err := tm.cmd("-f", "/dev/null", "new-session", "-d", "-s", "v", "-x", strconv.Itoa(w), "-y", strconv.Itoa(h), "exec cat"); err != nil {
		return nil, err
	}
	var out []time.Duration
	screen, _ := tm.cmd("capture-pane", "-p", "-t", "v")
	for range 100 {
		before := screen
		t0 := time.Now()
		if _, err := tm.cmd("send-keys", "-t", "v", "x"); err != nil {
			return nil, err
		}
		var err error
		if screen, err = tm.waitFor(keyWait, func(s string) bool { return s != before }); err != nil {
			return nil, err
		}
		out = append(out, time.Since(t0))
	}
	return out, nil
}

// measure seeds a session of n messages in a fresh project, opens it
// with codeloop -c in a w×h terminal and pages to its first message.
func measure(ctx context.Context, bin, dir string, n, w, h int) (result, error) {
	res := result{messages: n}
	o, err := openSeeded(ctx, bin, dir, "tui-long", n, w, h)
	if err != nil {
		return res, err
	}
	defer o.close()
	tm, screen, lastAnswer := o.tm, o.screen, o.lastAnswer
	res.open = o.open
	pid, err := tm.childPID()
	if err != nil {
		return res, err
	}
	time.Sleep(300 * time.Millisecond) // let start-up work settle
	res.rssOpen, _ = procStatus(pid, "VmRSS")

	// Page up to the first message, timing each key to its frame.
	for len(res.pages) < 100000 {
		before := screen
		t0 := time.Now()
		if _, err := tm.cmd("send-keys", "-t", "v", "PPage"); err != nil {
			return res, err
		}
		screen, err = tm.waitFor(keyWait, func(s string) bool { return s != before })
		if err != nil {
			if strings.Contains(screen, "Question 0:") {
				break // the top: the key changed nothing
			}
			return res, fmt.Errorf("PgUp changed nothing before the first message:\n%s", screen)
		}
		res.pages = append(res.pages, time.Since(t0))
	}
	res.rssPaged, _ = procStatus(pid, "VmRSS")
	res.anonPaged, _ = procStatus(pid, "RssAnon")
	res.peakPaged, _ = procStatus(pid, "VmHWM")

	// Page back down to the end.
	for len(res.downs) < 100000 {
		before := screen
		t0 := time.Now()
		if _, err := tm.cmd("send-keys", "-t", "v", "NPage"); err != nil {
			return res, err
		}
		screen, err = tm.waitFor(keyWait, func(s string) bool { return s != before })
		if err != nil {
			if strings.Contains(screen, lastAnswer) {
				break // the end: the key changed nothing
			}
			return res, fmt.Errorf("PgDn changed nothing before the last message:\n%s", screen)
		}
		res.downs = append(res.downs, time.Since(t0))
	}
	_, _ = tm.cmd("send-keys", "-t", "v", "C-c")
	return res, nil
}

// report prints a table of the medians per size and the memory growth
// between the smallest and the largest size.
func report(results []result, base []time.Duration, w, h int) {
	bySize := map[int][]result{}
	var sizes []int
	for _, r := range results {
		if _, ok := bySize[r.messages]; !ok {
			sizes = append(sizes, r.messages)
		}
		bySize[r.messages] = append(bySize[r.messages], r)
	}
	slices.Sort(sizes)
	fmt.Printf("codeloop interface, %d×%d terminal (tmux), median of runs\n\n", w, h)
	fmt.Println("| messages | open to first frame | PgUp to frame p50 | p95 | PgDn to frame p50 | p95 | pages | RSS after open | RSS after paging to the top | RssAnon by then | peak RSS |")
	fmt.Println("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
	medRSS := map[int]int64{}
	for _, n := range sizes {
		rs := bySize[n]
		var opens []time.Duration
		var pages, downs []time.Duration
		var open, paged, anon, peak []int64
		for _, r := range rs {
			opens = append(opens, r.open)
			pages = append(pages, r.pages...)
			downs = append(downs, r.downs...)
			open, paged, peak = append(open, r.rssOpen), append(paged, r.rssPaged), append(peak, r.peakPaged)
			anon = append(anon, r.anonPaged)
		}
		medRSS[n] = median(paged)
		fmt.Printf("| %d | %s | %s | %s | %s | %s | %d | %s | %s | %s | %s |\n", n, ms(median(opens)), ms(quantile(pages, 0.5)), ms(quantile(pages, 0.95)),
			ms(quantile(downs, 0.5)), ms(quantile(downs, 0.95)), len(rs[0].pages), mb(median(open)), mb(median(paged)), mb(median(anon)), mb(median(peak)))
	}
	fmt.Printf("\nThe same key to screen path with cat instead of codeloop (tmux and polling alone): p50 %s, p95 %s\n",
		ms(quantile(base, 0.5)), ms(quantile(base, 0.95)))
	if len(sizes) > 1 {
		lo, hi := sizes[0], sizes[len(sizes)-1]
		fmt.Printf("\nRSS growth from %d to %d messages (after paging to the top): %s\n", lo, hi, mb(medRSS[hi]-medRSS[lo]))
	}
}

func median[T time.Duration | int64](v []T) T { return quantile(v, 0.5) }

func quantile[T time.Duration | int64](v []T, q float64) T {
	if len(v) == 0 {
		return 0
	}
	s := slices.Clone(v)
	slices.Sort(s)
	return s[min(int(q*float64(len(s))), len(s)-1)]
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d)/float64(time.Millisecond)) }
func mb(b int64) string         { return fmt.Sprintf("%.1f MB", float64(b)/(1<<20)) }

// procStatus reads a field of /proc/pid/status in bytes.
func procStatus(pid int, field string) (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, field+":"); ok {
			f := strings.Fields(v)
			if len(f) == 0 {
				break
			}
			kb, err := strconv.ParseInt(f[0], 10, 64)
			return kb * 1024, err
		}
	}
	return 0, fmt.Errorf("no %s in /proc/%d/status", field, pid)
}

// tmux drives a tmux server on a private socket.
type tmux struct{ socket string }

func (t *tmux) cmd(args ...string) (string, error) {
	out, err := exec.Command("tmux", append([]string{"-L", t.socket}, args...)...).CombinedOutput()
	if err != nil {
		return string(out), fmt.Errorf("tmux %v: %v: %s", args, err, out)
	}
	return string(out), nil
}

// waitFor polls the screen until ok holds or d passes; it returns the
// last screen seen.
func (t *tmux) waitFor(d time.Duration, ok func(string) bool) (string, error) {
	deadline := time.Now().Add(d)
	for {
		s, err := t.cmd("capture-pane", "-p", "-t", "v")
		if err == nil && ok(s) {
			return s, nil
		}
		if time.Now().After(deadline) {
			return s, errors.New("timed out")
		}
		time.Sleep(time.Millisecond)
	}
}

// childPID is the pid of codeloop, the child of the pane's shell.
func (t *tmux) childPID() (int, error) {
	out, err := t.cmd("display-message", "-p", "-t", "v", "#{pane_pid}")
	if err != nil {
		return 0, err
	}
	shell := strings.TrimSpace(out)
	for range 100 {
		b, _ := os.ReadFile("/proc/" + shell + "/task/" + shell + "/children")
		if f := strings.Fields(string(b)); len(f) > 0 {
			return strconv.Atoi(f[0])
		}
		// The shell may have exec'd codeloop itself.
		if c, _ := os.ReadFile("/proc/" + shell + "/comm"); strings.TrimSpace(string(c)) == "codeloop" {
			return strconv.Atoi(shell)
		}
		time.Sleep(10 * time.Millisecond)
	}
	return 0, fmt.Errorf("no codeloop process under the pane's shell %s", shell)
}

// project is a scratch repository with its own home and a fake model.
type project struct {
	bin, repo, home string
	close           func()
}

// newProject makes the project; its model answers the seed's question,
// then plays more.
func newProject(ctx context.Context, bin, dir string, more ...fakellm.Step) (*project, error) {
	p := &project{bin: bin, repo: filepath.Join(dir, "repo"), home: filepath.Join(dir, "home")}
	answer := func(text string, u llm.Usage) fakellm.Step {
		return append(fakellm.Text("t", text), fakellm.Finish(llm.FinishStop, u)...)
	}
	model := httptest.NewServer(fakellm.NewServer(append([]fakellm.Step{answer("The first answer.", llm.Usage{Input: 900, Output: 5})}, more...)...))
	titles := httptest.NewServer(fakellm.NewServer(answer("A long session", llm.Usage{Input: 50, Output: 3})))
	p.close = func() {
		model.Close()
		titles.Close()
	}
	for _, d := range []string{p.repo, p.home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			p.close()
			return nil, err
		}
	}
	config := fmt.Sprintf(`{
  "model": "fake/model",
  "small_model": "titles/small",
  "autoupdate": false,
  "share": "disabled",
  "provider": {
    "fake": {"npm": "@ai-sdk/openai-compatible", "options": {"baseURL": "%s/v1", "apiKey": "bench"},
      "models": {"model": {"name": "Fake", "tool_call": true, "limit": {"context": 1000000, "output": 32000}}}},
    "titles": {"npm": "@ai-sdk/openai-compatible", "options": {"baseURL": "%s/v1", "apiKey": "bench"},
      "models": {"small": {"limit": {"context": 100000, "output": 1000}}}}
  }
}
`, model.URL, titles.URL)
	if err := os.WriteFile(filepath.Join(p.repo, "opencode.json"), []byte(config), 0o644); err != nil {
		p.close()
		return nil, err
	}
	git := exec.CommandContext(ctx, "git", "init", "-q")
	git.Dir, git.Env = p.repo, p.env()
	if out, err := git.CombinedOutput(); err != nil {
		p.close()
		return nil, fmt.Errorf("git init: %v: %s", err, out)
	}
	return p, nil
}

func (p *project) env() []string {
	env := []string{
		"HOME=" + p.home, "PATH=" + os.Getenv("PATH"),
		"XDG_CONFIG_HOME=" + filepath.Join(p.home, ".config"),
		"XDG_DATA_HOME=" + filepath.Join(p.home, ".local", "share"),
		"XDG_CACHE_HOME=" + filepath.Join(p.home, ".cache"),
		"XDG_STATE_HOME=" + filepath.Join(p.home, ".local", "state"),
		"GIT_CONFIG_NOSYSTEM=1",
	}
	// A binary built from ./bench/profiled profiles itself when asked.
	for _, k := range []string{"CODELOOP_CPUPROFILE", "CODELOOP_TRACE", "CODELOOP_MEMPROFILE"} {
		if v := os.Getenv(k); v != "" {
			env = append(env, k+"="+v)
		}
	}
	return env
}

func (p *project) exec(ctx context.Context, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, p.bin, args...)
	cmd.Dir, cmd.Env = p.repo, append(p.env(), "TERM=dumb")
	out, err := cmd.Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return out, fmt.Errorf("codeloop %v: %v: %s", args, err, ee.Stderr)
		}
		return out, fmt.Errorf("codeloop %v: %w", args, err)
	}
	return out, nil
}

// commandLine runs codeloop with args in the project's environment, in
// a terminal that speaks colour.
func (p *project) commandLine(args ...string) string {
	quote := func(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
	parts := []string{"exec", "env", "-i"}
	for _, kv := range append(p.env(), "TERM=xterm-256color", "LANG=C.UTF-8") {
		parts = append(parts, quote(kv))
	}
	parts = append(parts, quote(p.bin))
	for _, a := range args {
		parts = append(parts, quote(a))
	}
	return strings.Join(parts, " ")
}

// seed makes a session of n messages: one real turn, exported, its two
// messages repeated under new ids with Markdown answers, a tool call in
// every other answer, and imported.
func (p *project) seed(ctx context.Context, n int) error {
	if _, err := p.exec(ctx, "run", "the first question"); err != nil {
		return err
	}
	out, err := p.exec(ctx, "export")
	if err != nil {
		return err
	}
	var exp struct {
		Info     json.RawMessage  `json:"info"`
		Messages []map[string]any `json:"messages"`
	}
	if err := json.Unmarshal(out, &exp); err != nil {
		return fmt.Errorf("reading the export: %w", err)
	}
	if len(exp.Messages) != 2 {
		return fmt.Errorf("the first session has %d messages, want 2", len(exp.Messages))
	}
	user, assistant := exp.Messages[0], exp.Messages[1]
	var msgs []map[string]any
	last := ""
	for i := 0; i < n; i += 2 {
		u := seed.Clone(user, fmt.Sprintf("Question %d: what does the function on line %d do, and does it need a test?", i/2, i))
		a := seed.Clone(assistant, fmt.Sprintf("Answer %d: the function on line %d **parses** its input:\n\n"+
			"- it returns an error for empty text\n- the table test in `parse_test.go` covers it\n\n"+
			"```go\nfunc parse(s string) (int, error) {\n\treturn strconv.Atoi(s) // line %d\n}\n```\n\nNo new test is needed.", i/2, i, i))
		if i%4 == 0 {
			addToolCall(a)
		}
		a["info"].(map[string]any)["parentID"] = u["info"].(map[string]any)["id"]
		msgs = append(msgs, u, a)
		last = a["info"].(map[string]any)["id"].(string)
	}
	exp.Messages = msgs[:n]
	data, err := json.Marshal(exp)
	if err != nil {
		return err
	}
	file := filepath.Join(filepath.Dir(p.repo), "session.json")
	if err := os.WriteFile(file, data, 0o644); err != nil {
		return err
	}
	// Ids made here may run ahead of the clock; later ids must sort after.
	if t, ok := id.Time(last); ok {
		time.Sleep(time.Until(t) + 5*time.Millisecond)
	}
	_, err = p.exec(ctx, "import", file)
	return err
}

// addToolCall appends a completed bash call to an exported answer.
func addToolCall(m map[string]any) {
	info := m["info"].(map[string]any)
	parts, _ := m["parts"].([]any)
	now := time.Now().UnixMilli()
	parts = append(parts, map[string]any{
		"id": id.Ascending(id.Part), "sessionID": info["sessionID"], "messageID": info["id"], "type": "tool",
		"callID": "call_" + id.Ascending(id.Part)[4:], "tool": "bash",
		"state": map[string]any{"status": "completed", "input": map[string]any{"command": "go test ./..."},
			"output": "ok  \texample.com/parse\t0.01s", "title": "go test ./...", "metadata": map[string]any{},
			"time": map[string]any{"start": now, "end": now}},
	})
	m["parts"] = parts
}
