// Command serve-many measures one `codeloop serve` with many clients:
// N sessions prompted at once, each followed by K event streams
// (GET /event?sessionID=…), against a scripted model that streams an
// answer of uniquely numbered words, one every few milliseconds.
//
// It reports how long a word takes from the model's socket to each
// event stream (an upper bound of the time from the server's event bus
// to the stream's socket: it adds reading and parsing the model's
// stream and storing the delta), the server's open file descriptors,
// threads and memory before, during and after, and its memory per idle
// session.
//
//	go run ./bench/serve-many                    # 50 sessions, 2 streams each
//	go run ./bench/serve-many -sessions 20 -streams 3 -words 100
//
// Run it from the module root; it needs Go and git.
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/codeloop/codeloop/internal/fakellm"
	"github.com/codeloop/codeloop/internal/llm"
)

func main() {
	bin := flag.String("bin", "", "codeloop binary to measure (default: build ./cmd/codeloop)")
	sessions := flag.Int("sessions", 50, "sessions prompted at once")
	streams := flag.Int("streams", 2, "event streams per session")
	words := flag.Int("words", 60, "words in each answer")
	every := flag.Duration("every", 10*time.Millisecond, "time between two words of an answer")
	keep := flag.Bool("keep", false, "keep the scratch directory")
	flag.Parse()
	if err := run(context.Background(), *bin, *sessions, *streams, *words, *every, *keep); err != nil {
		fmt.Fprintln(os.Stderr, "serve-many:", err)
		os.Exit(1)
	}
}

// stamps records when the model wrote each numbered word.
type stamps struct {
	mu sync.Mutex
	at map[string]time.Time
}

func (s *stamps) record(b []byte, now time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, w := range wordsIn(string(b)) {
		if _, ok := s.at[w]; !ok {
			s.at[w] = now
		}
	}
}

func (s *stamps) when(w string) (time.Time, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, ok := s.at[w]
	return t, ok
}

// wordsIn finds the numbered words (q<step>w<n>) in b.
func wordsIn(s string) []string {
	var out []string
	for {
		i := strings.Index(s, "q")
		if i < 0 {
			return out
		}
		j := i + 1
		for j < len(s) && (s[j] >= '0' && s[j] <= '9' || s[j] == 'w') {
			j++
		}
		if w := s[i:j]; strings.Count(w, "w") == 1 && len(w) > 3 && !strings.HasSuffix(w, "w") && w[1] != 'w' {
			out = append(out, w)
		}
		s = s[j:]
	}
}

// stampWriter stamps the words of each write to the model's response.
type stampWriter struct {
	http.ResponseWriter
	st *stamps
}

func (w stampWriter) Write(b []byte) (int, error) {
	n, err := w.ResponseWriter.Write(b)
	w.st.record(b, time.Now())
	return n, err
}

func (w stampWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func run(ctx context.Context, bin string, nSessions, nStreams, nWords int, every time.Duration, keep bool) error {
	scratch, err := os.MkdirTemp("", "serve-many-")
	if err != nil {
		return err
	}
	if !keep {
		defer os.RemoveAll(scratch)
	}
	if bin == "" {
		bin = filepath.Join(scratch, "codeloop")
		if out, err := exec.CommandContext(ctx, "go", "build", "-o", bin, "./cmd/codeloop").CombinedOutput(); err != nil {
			return fmt.Errorf("building codeloop: %v\n%s", err, out)
		}
	}
	// One step per session: its words numbered by step, a pause between
	// two. Steps are served in the order the requests come.
	var steps []fakellm.Step
	for s := range 2 * nSessions {
		step := fakellm.Step{{Type: llm.EventTextStart, ID: "t"}}
		for w := range nWords {
			step = append(step, llm.Event{Type: llm.EventTextDelta, ID: "t", Text: fmt.Sprintf("q%dw%d ", s, w)},
				llm.Event{Type: fakellm.EventSleep, Text: every.String()})
		}
		step = append(step, llm.Event{Type: llm.EventTextEnd, ID: "t"})
		steps = append(steps, append(step, fakellm.Finish(llm.FinishStop, llm.Usage{Input: 900, Output: int64(nWords)})...))
	}
	st := &stamps{at: map[string]time.Time{}}
	fake := fakellm.NewServer(steps...)
	model := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fake.ServeHTTP(stampWriter{w, st}, r)
	}))
	defer model.Close()
	titleSteps := make([]fakellm.Step, 2*nSessions+1)
	for i := range titleSteps {
		titleSteps[i] = append(fakellm.Text("t", "Many clients"), fakellm.Finish(llm.FinishStop, llm.Usage{Input: 50, Output: 2})...)
	}
	titles := httptest.NewServer(fakellm.NewServer(titleSteps...))
	defer titles.Close()

	repo, home := filepath.Join(scratch, "repo"), filepath.Join(scratch, "home")
	for _, d := range []string{repo, home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	cfg := fmt.Sprintf(`{"model": "fake/model", "small_model": "titles/small", "autoupdate": false, "share": "disabled",
  "provider": {
    "fake": {"npm": "@ai-sdk/openai-compatible", "options": {"baseURL": "%s/v1", "apiKey": "bench"},
      "models": {"model": {"name": "Fake", "tool_call": true, "limit": {"context": 1000000, "output": 32000}}}},
    "titles": {"npm": "@ai-sdk/openai-compatible", "options": {"baseURL": "%s/v1", "apiKey": "bench"},
      "models": {"small": {"limit": {"context": 100000, "output": 1000}}}}}}`, model.URL, titles.URL)
	if err := os.WriteFile(filepath.Join(repo, "opencode.json"), []byte(cfg), 0o644); err != nil {
		return err
	}
	env := []string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "GIT_CONFIG_NOSYSTEM=1", "TERM=dumb",
		"XDG_CONFIG_HOME=" + filepath.Join(home, ".config"), "XDG_DATA_HOME=" + filepath.Join(home, ".local", "share"),
		"XDG_CACHE_HOME=" + filepath.Join(home, ".cache"), "XDG_STATE_HOME=" + filepath.Join(home, ".local", "state")}
	git := exec.CommandContext(ctx, "git", "init", "-q")
	git.Dir, git.Env = repo, env
	if out, err := git.CombinedOutput(); err != nil {
		return fmt.Errorf("git init: %v: %s", err, out)
	}

	const token = "serve-many-benchmark-token"
	srv := exec.CommandContext(ctx, bin, "serve", "--port", "0", "--token", token, "--trust-project")
	srv.Dir, srv.Env = repo, env
	out, err := srv.StdoutPipe()
	if err != nil {
		return err
	}
	srv.Stderr = os.Stderr
	if err := srv.Start(); err != nil {
		return err
	}
	defer func() {
		_ = srv.Process.Signal(os.Interrupt)
		_ = srv.Wait()
	}()
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		return fmt.Errorf("reading the server's address: %w", err)
	}
	base := strings.TrimSpace(line[strings.LastIndex(line, " ")+1:])
	pid := srv.Process.Pid
	c := &client{base: base, token: token, hc: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4}}}

	// A first session and prompt warm the server up (model catalog,
	// connections), then the idle server is measured.
	if _, err := c.session(ctx); err != nil {
		return err
	}
	time.Sleep(500 * time.Millisecond)
	before := sample(pid)
	var rounds []roundResult
	for range 2 {
		rr, err := round(ctx, c, st, pid, nSessions, nStreams)
		if err != nil {
			return err
		}
		rounds = append(rounds, rr)
	}
	r1, r2 := rounds[0], rounds[1]
	lat, words, elapsed := append(r1.lat, r2.lat...), r1.words+r2.words, r1.elapsed+r2.elapsed

	slices.Sort(lat)
	q := func(p float64) time.Duration {
		if len(lat) == 0 {
			return 0
		}
		return lat[min(int(p*float64(len(lat))), len(lat)-1)]
	}
	fmt.Printf("codeloop serve: %d sessions prompted at once, %d event streams each, %d words of answer %v apart\n\n",
		nSessions, nStreams, nWords, every)
	fmt.Printf("words delivered to streams: %d of %d in two rounds, in %v\n", words, 2*nSessions*nStreams*nWords, elapsed.Round(time.Millisecond))
	fmt.Printf("model socket → event stream: p50 %s, p95 %s, p99 %s, max %s\n\n", ms(q(0.5)), ms(q(0.95)), ms(q(0.99)), ms(q(1)))
	fmt.Println("| moment | fds | threads | RSS | RssAnon |")
	fmt.Println("| --- | --- | --- | --- | --- |")
	for _, r := range []struct {
		name string
		s    procSample
	}{{"idle, 1 session", before}, {fmt.Sprintf("%d more sessions, idle", nSessions), r1.created},
		{fmt.Sprintf("%d streams open", nSessions*nStreams), r1.open}, {"every answer streamed", r1.streamed}, {"streams closed, idle", r1.closed},
		{"round 2: streams closed, idle", r2.closed}} {
		fmt.Printf("| %s | %d | %d | %s | %s |\n", r.name, r.s.fds, r.s.threads, mb(r.s.rss), mb(r.s.anon))
	}
	fmt.Printf("\nper idle session (created, not prompted): %s RssAnon; per session after its answer, streams closed: %s RssAnon\n",
		kb((r1.created.anon-before.anon)/int64(nSessions)), kb((r1.closed.anon-before.anon)/int64(nSessions)))
	fmt.Println("\nfile descriptors open after round 1:", fdKinds(pid))
	if r2.closed.fds > r1.closed.fds || r2.closed.threads > r1.closed.threads+2 {
		return fmt.Errorf("the server grew from round 1 to round 2: %d to %d file descriptors, %d to %d threads",
			r1.closed.fds, r2.closed.fds, r1.closed.threads, r2.closed.threads)
	}
	return nil
}

// client speaks to the server.
type client struct {
	base, token string
	hc          *http.Client
}

func (c *client) do(ctx context.Context, method, path string, body any) (*http.Response, error) {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return nil, err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, rd)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode >= 300 {
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		return nil, fmt.Errorf("%s %s: %s: %s", method, path, resp.Status, b)
	}
	return resp, nil
}

func (c *client) session(ctx context.Context) (string, error) {
	resp, err := c.do(ctx, "POST", "/session", map[string]any{"title": "many clients"})
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	var s struct {
		ID string `json:"id"`
	}
	return s.ID, json.NewDecoder(resp.Body).Decode(&s)
}

func (c *client) prompt(ctx context.Context, id string) error {
	resp, err := c.do(ctx, "POST", "/session/"+id+"/prompt_async", map[string]any{
		"parts": []map[string]any{{"type": "text", "text": "answer at length"}}})
	if err != nil {
		return err
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	return resp.Body.Close()
}

// stream opens an event stream of one session on its own connection.
func (c *client) stream(ctx context.Context, id string) (io.ReadCloser, error) {
	req, err := http.NewRequestWithContext(ctx, "GET", c.base+"/event?sessionID="+id, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	hc := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	resp, err := hc.Do(req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		resp.Body.Close()
		return nil, fmt.Errorf("GET /event: %s", resp.Status)
	}
	return resp.Body, nil
}

// procSample is what /proc says of the server at one moment.
type procSample struct {
	fds, threads int
	rss, anon    int64
}

func sample(pid int) procSample {
	var s procSample
	if ents, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid)); err == nil {
		s.fds = len(ents)
	}
	b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	for _, l := range strings.Split(string(b), "\n") {
		k, v, ok := strings.Cut(l, ":")
		if !ok {
			continue
		}
		f := strings.Fields(v)
		if len(f) == 0 {
			continue
		}
		n, _ := strconv.ParseInt(f[0], 10, 64)
		switch k {
		case "Threads":
			s.threads = int(n)
		case "VmRSS":
			s.rss = n * 1024
		case "RssAnon":
			s.anon = n * 1024
		}
	}
	return s
}

// fdKinds counts the server's open file descriptors by what they are.
func fdKinds(pid int) map[string]int {
	out := map[string]int{}
	ents, _ := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	for _, e := range ents {
		t, err := os.Readlink(fmt.Sprintf("/proc/%d/fd/%s", pid, e.Name()))
		if err != nil {
			continue
		}
		if i := strings.IndexAny(t, ":["); i > 0 && !strings.HasPrefix(t, "/") {
			t = t[:i]
		}
		out[t]++
	}
	return out
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d)/float64(time.Millisecond)) }
func mb(b int64) string         { return fmt.Sprintf("%.1f MB", float64(b)/(1<<20)) }
func kb(b int64) string         { return fmt.Sprintf("%.0f KB", float64(b)/1024) }

// roundResult is what one round measured.
type roundResult struct {
	lat                             []time.Duration
	words                           int
	elapsed                         time.Duration
	created, open, streamed, closed procSample
}

// round creates nSessions sessions, opens nStreams event streams on each,
// prompts them all at once and waits for every stream to see its session
// go idle, then closes the streams.
func round(ctx context.Context, c *client, st *stamps, pid, nSessions, nStreams int) (roundResult, error) {
	var rr roundResult
	var err error
	ids := make([]string, nSessions)
	for i := range ids {
		if ids[i], err = c.session(ctx); err != nil {
			return rr, err
		}
	}
	rr.created = sample(pid)
	type streamResult struct {
		lat   []time.Duration
		words int
		err   error
	}
	results := make(chan streamResult, nSessions*nStreams)
	var ready sync.WaitGroup
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var bodies []io.Closer
	var bmu sync.Mutex
	for _, id := range ids {
		for range nStreams {
			ready.Add(1)
			go func() {
				var res streamResult
				defer func() { results <- res }()
				body, err := c.stream(cctx, id)
				if err != nil {
					res.err = err
					ready.Done()
					return
				}
				bmu.Lock()
				bodies = append(bodies, body)
				bmu.Unlock()
				rd := bufio.NewReader(body)
				if l, err := rd.ReadString('\n'); err != nil || !strings.Contains(l, "server.connected") {
					res.err = fmt.Errorf("no server.connected: %q %v", l, err)
					ready.Done()
					return
				}
				ready.Done()
				busy := false
				for {
					l, err := rd.ReadString('\n')
					if err != nil {
						res.err = err
						return
					}
					now := time.Now()
					data, ok := strings.CutPrefix(strings.TrimSpace(l), "data: ")
					if !ok {
						continue
					}
					var ev struct {
						Type       string `json:"type"`
						Properties struct {
							Delta  string `json:"delta"`
							Status struct {
								Type string `json:"type"`
							} `json:"status"`
						} `json:"properties"`
					}
					if json.Unmarshal([]byte(data), &ev) != nil {
						continue
					}
					switch ev.Type {
					case "message.part.delta":
						for _, w := range wordsIn(ev.Properties.Delta) {
							if t, ok := st.when(w); ok {
								res.lat = append(res.lat, now.Sub(t))
								res.words++
							}
						}
					case "session.status":
						if ev.Properties.Status.Type == "busy" {
							busy = true
						} else if ev.Properties.Status.Type == "idle" && busy {
							return
						}
					case "events.dropped":
						res.err = errors.New("events were dropped")
						return
					}
				}
			}()
		}
	}
	ready.Wait()
	rr.open = sample(pid)
	t0 := time.Now()
	var pw sync.WaitGroup
	for _, id := range ids {
		pw.Go(func() {
			if err := c.prompt(ctx, id); err != nil {
				fmt.Fprintln(os.Stderr, "prompt:", err)
			}
		})
	}
	pw.Wait()

	for range nSessions * nStreams {
		r := <-results
		if r.err != nil {
			return rr, fmt.Errorf("a stream: %w", r.err)
		}
		rr.lat = append(rr.lat, r.lat...)
		rr.words += r.words
	}
	rr.elapsed = time.Since(t0)
	rr.streamed = sample(pid)
	cancel()
	for _, b := range bodies {
		b.Close()
	}
	c.hc.CloseIdleConnections()
	time.Sleep(time.Second)
	rr.closed = sample(pid)
	return rr, nil
}
