package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/codeloop/codeloop/bench/internal/seed"
	"github.com/codeloop/codeloop/internal/fakellm"
	"github.com/codeloop/codeloop/internal/id"
)

// result is what one run measured.
type result struct {
	wall, cpu   time.Duration
	maxRSS      int64
	maxAnon     int64 // peak RssAnon of codeloop itself, as sampled
	requests    int   // model requests of the measured run
	titles      int   // title requests
	system      int   // median bytes of system prompt per model request
	tools       int   // median bytes of tool definitions per model request
	body        int   // largest request body
	firstReq    time.Duration
	gap, gapRaw time.Duration // largest agent time between an answer and the next request, without and with tool time
	// cacheShare is the share of input tokens read from the prompt cache
	// in the requests from the second on (-1 with a single request);
	// inputCost is the run's input tokens weighted as the providers bill
	// them: cache reads at 0.1, cache writes at 1.25, the rest at 1.
	cacheShare float64
	inputCost  float64
	shares     []float64 // each request's cache-read share, for -v
	hasServer  bool
}

func (r result) String() string {
	s := fmt.Sprintf("wall %v cpu %v rss %.1f MB anon %.1f MB", r.wall.Round(time.Microsecond), r.cpu.Round(time.Microsecond), float64(r.maxRSS)/1e6, float64(r.maxAnon)/1e6)
	if r.hasServer {
		s += fmt.Sprintf(" requests %d+%d system %d B tools %d B first %v gap %v (raw %v) cache read %.1f%% input cost %.0f",
			r.requests, r.titles, r.system, r.tools, r.firstReq.Round(time.Microsecond), r.gap.Round(time.Microsecond), r.gapRaw.Round(time.Microsecond),
			100*r.cacheShare, r.inputCost)
		for i, sh := range r.shares {
			if i == 0 {
				s += " per request"
			}
			s += fmt.Sprintf(" %.0f%%", 100*sh)
		}
	}
	return s
}

// runOnce sets up a fresh project for sc, runs the measured command and
// reads the measurements.
func runOnce(ctx context.Context, sc *scenario, cfg runConfig) (result, error) {
	if sc.args == nil { // --version: no project, no server
		p := &project{cfg: cfg, repo: cfg.dir, home: filepath.Join(cfg.dir, "home"), close: func() {}}
		if err := os.MkdirAll(p.home, 0o755); err != nil {
			return result{}, err
		}
		ex, err := p.run(ctx, "--version")
		if err != nil {
			return result{}, err
		}
		if ex.code != 0 || len(ex.stdout) == 0 {
			return result{}, fmt.Errorf("--version: exit status %d: %s", ex.code, ex.stderr)
		}
		return result{wall: ex.wall, cpu: ex.cpu, maxRSS: ex.maxRSS, maxAnon: ex.maxAnon}, nil
	}

	steps, err := sc.modelSteps()
	if err != nil {
		return result{}, err
	}
	p, err := newProject(ctx, cfg, sc.files, steps)
	if err != nil {
		return result{}, err
	}
	defer p.close()
	// Measure a installed codeloop: the database exists and is migrated.
	if ex, err := p.run(ctx, "session", "list"); err != nil || ex.code != 0 {
		return result{}, fmt.Errorf("warm-up: exit status %d: %v %s", ex.code, err, ex.stderr)
	}
	if sc.setup != nil {
		if err := sc.setup(ctx, p); err != nil {
			return result{}, fmt.Errorf("setup: %w", err)
		}
	}
	ex, err := p.run(ctx, sc.args...)
	if err != nil {
		return result{}, err
	}
	if ex.code != 0 {
		return result{}, fmt.Errorf("exit status %d\nstdout:\n%s\nstderr:\n%s", ex.code, tail(ex.stdout), tail(ex.stderr))
	}
	if sc.check != nil {
		if problem := sc.check(p, ex); problem != "" {
			return result{}, fmt.Errorf("%s\nstdout:\n%s\nstderr:\n%s", problem, tail(ex.stdout), tail(ex.stderr))
		}
	}

	r := result{wall: ex.wall, cpu: ex.cpu, maxRSS: ex.maxRSS, maxAnon: ex.maxAnon, hasServer: true}
	var reqs []request
	for _, rq := range p.model.requests() {
		if !rq.arrived.Before(ex.start) { // leave out the setup's requests
			reqs = append(reqs, rq)
		}
	}
	for _, rq := range p.titles.requests() {
		if !rq.arrived.Before(ex.start) {
			r.titles++
		}
	}
	r.requests = len(reqs)
	if len(reqs) == 0 {
		return r, fmt.Errorf("no model request was made")
	}
	r.firstReq = reqs[0].arrived.Sub(ex.start)
	var sys, tools []float64
	for _, rq := range reqs {
		sys = append(sys, float64(rq.system))
		tools = append(tools, float64(rq.tools))
		r.body = max(r.body, rq.body)
	}
	r.system, r.tools = int(median(sys)), int(median(tools))
	r.cacheShare, r.inputCost = cacheFigures(reqs)
	for _, rq := range reqs {
		u := rq.prompt
		if all := u.Input + u.CacheRead + u.CacheWrite; all > 0 {
			r.shares = append(r.shares, float64(u.CacheRead)/float64(all))
		}
	}
	spans := toolSpans(ex.stdout)
	for i := 1; i < len(reqs); i++ {
		raw := reqs[i].arrived.Sub(reqs[i-1].done)
		own := raw - overlap(spans, reqs[i-1].done, reqs[i].arrived)
		r.gapRaw = max(r.gapRaw, raw)
		r.gap = max(r.gap, own)
	}
	return r, nil
}

// cacheFigures returns the cache-read share of the input tokens of every
// request but the first (-1 when there is only one) and the input cost
// of all of them, cache reads weighted 0.1 and writes 1.25.
func cacheFigures(reqs []request) (share, cost float64) {
	var read, all int64
	for i, rq := range reqs {
		u := rq.prompt
		cost += float64(u.Input) + 0.1*float64(u.CacheRead) + 1.25*float64(u.CacheWrite)
		if i > 0 {
			read += u.CacheRead
			all += u.Input + u.CacheRead + u.CacheWrite
		}
	}
	if all == 0 {
		return -1, cost
	}
	return float64(read) / float64(all), cost
}

func (sc *scenario) modelSteps() ([]fakellm.Step, error) {
	if sc.steps != nil {
		return sc.steps(), nil
	}
	return fakellm.Parse(sc.script)
}

func tail(b []byte) string {
	const n = 3000
	if len(b) > n {
		return "..." + string(b[len(b)-n:])
	}
	return string(b)
}

// seedSession makes the project's latest session hold n messages: it runs
// one real prompt (the model script's first step), exports that session,
// repeats its user and assistant messages under new ids until there are n,
// and imports the result over it. With compacted, the pair of messages
// compactedTail messages before the end is a completed compaction: a
// compaction request and its summary.
func seedSession(ctx context.Context, p *project, n int, compacted bool) error {
	ex, err := p.run(ctx, "run", "the first question")
	if err != nil || ex.code != 0 {
		return fmt.Errorf("first prompt: exit status %d: %v %s", ex.code, err, ex.stderr)
	}
	ex, err = p.run(ctx, "export")
	if err != nil || ex.code != 0 {
		return fmt.Errorf("export: exit status %d: %v %s", ex.code, err, ex.stderr)
	}
	var exp struct {
		Info     json.RawMessage  `json:"info"`
		Messages []map[string]any `json:"messages"`
	}
	if err := json.Unmarshal(ex.stdout, &exp); err != nil {
		return fmt.Errorf("reading the export: %w", err)
	}
	if len(exp.Messages) != 2 {
		return fmt.Errorf("the first session has %d messages, want 2", len(exp.Messages))
	}
	user, assistant := exp.Messages[0], exp.Messages[1]
	msgs := []map[string]any{user, assistant}
	var last string
	for i := 2; i+1 < n+1; i += 2 {
		u := seed.Clone(user, fmt.Sprintf("Question %d: please look at the code again and tell me what the function on line %d does, and whether it needs a test.", i/2, i))
		a := seed.Clone(assistant, fmt.Sprintf("Answer %d: the function on line %d parses its input, returns an error for empty text, and is already covered by the table test in parse_test.go.", i/2, i))
		a["info"].(map[string]any)["parentID"] = u["info"].(map[string]any)["id"]
		if compacted && i == n-compactedTail {
			markCompaction(u, a)
		}
		msgs = append(msgs, u, a)
		last = a["info"].(map[string]any)["id"].(string)
	}
	exp.Messages = msgs[:n]
	data, err := json.Marshal(exp)
	if err != nil {
		return err
	}
	file := filepath.Join(p.cfg.dir, "long-session.json")
	if err := os.WriteFile(file, data, 0o644); err != nil {
		return err
	}
	// Ids made here may run ahead of the clock; the measured run's ids
	// must sort after them.
	if t, ok := id.Time(last); ok {
		time.Sleep(time.Until(t) + 5*time.Millisecond)
	}
	ex, err = p.run(ctx, "import", file)
	if err != nil || ex.code != 0 {
		return fmt.Errorf("import: exit status %d: %v %s", ex.code, err, ex.stderr)
	}
	return nil
}

// compactedTail is how many messages follow the compaction in a compacted
// seeded session.
const compactedTail = 40

// markCompaction turns a cloned user and assistant message into a
// compaction request and its completed summary.
func markCompaction(user, assistant map[string]any) {
	for _, raw := range user["parts"].([]any) {
		part := raw.(map[string]any)
		if part["type"] == "text" {
			delete(part, "text")
			part["type"], part["auto"] = "compaction", true
		}
	}
	assistant["info"].(map[string]any)["summary"] = true
	assistant["info"].(map[string]any)["mode"] = "compaction"
	assistant["info"].(map[string]any)["agent"] = "compaction"
}
