package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/codeloop/codeloop/internal/fakellm"
	"github.com/codeloop/codeloop/internal/llm"
)

// peer is another coding agent measured on the same scenarios as codeloop,
// against the same fake model server, in pairs of runs alternated with
// codeloop's so that both see the same machine load.
type peer struct {
	name string
	bin  string
	// scenarios are the peer's versions of codeloop's scenarios, by name.
	scenarios map[string]peerScenario
	// prepare configures the peer in a fresh project before its runs.
	prepare func(p *project) error
	// warmUp is the untimed command run first, which answers warmUpStep.
	warmUp []string
}

// peerScenario is how a peer plays one scenario: the model's turns,
// scripted for the peer's tools, the measured arguments and the check.
type peerScenario struct {
	steps func() []fakellm.Step
	args  []string
	check func(p *project, ex execution) string
}

// warmUpStep answers the peer's untimed first command.
func warmUpStep() fakellm.Step {
	return append(fakellm.Text("w", "Ready."), fakellm.Finish(llm.FinishStop, llm.Usage{Input: 10, Output: 1})...)
}

// peerKinds makes a peer from the path given on the command line ("" for
// the default location).
var peerKinds = map[string]func(path string) (*peer, error){
	"codex": newCodexPeer,
}

// parsePeer reads one -peer value, name or name=path.
func parsePeer(v string) (name, path string, err error) {
	name, path, _ = strings.Cut(v, "=")
	if _, ok := peerKinds[name]; !ok {
		known := make([]string, 0, len(peerKinds))
		for k := range peerKinds {
			known = append(known, k)
		}
		slices.Sort(known)
		return "", "", fmt.Errorf("unknown peer %q (have %s)", name, strings.Join(known, ", "))
	}
	return name, path, nil
}

// peerRuns pairs codeloop's runs with the peers' and keeps both.
type peerRuns struct {
	peers  []*peer
	cfg    runConfig // launcher and scratch directory
	work   string
	keep   bool
	stderr io.Writer
	// runs[peer][scenario] are the pairs, codeloop's run first.
	runs map[string]map[string][][2]result
}

// newPeerRuns resolves the -peer values; a peer whose binary is missing is
// left out with a note on stderr.
func newPeerRuns(values []string, cfg runConfig, work string, keep bool, stderr io.Writer) (*peerRuns, error) {
	pr := &peerRuns{cfg: cfg, work: work, keep: keep, stderr: stderr, runs: map[string]map[string][][2]result{}}
	for _, v := range values {
		name, path, err := parsePeer(v)
		if err != nil {
			return nil, err
		}
		p, err := peerKinds[name](path)
		if err != nil {
			fmt.Fprintf(stderr, "bench: skipping peer %s: %v\n", name, err)
			continue
		}
		pr.peers = append(pr.peers, p)
		pr.runs[p.name] = map[string][][2]result{}
	}
	return pr, nil
}

// around runs measure (codeloop's run i of scenario) and each peer's run
// of the same scenario, the peers first on odd i, and records the pairs.
func (pr *peerRuns) around(ctx context.Context, scenario string, i int, measure func() (result, error)) (result, error) {
	var pending []*peer
	for _, p := range pr.peers {
		if _, ok := p.scenarios[scenario]; ok {
			pending = append(pending, p)
		}
	}
	peerResults := make([]result, len(pending))
	runPeers := func() error {
		for k, p := range pending {
			dir := filepath.Join(pr.work, fmt.Sprintf("%s-%s-%d", p.name, scenario, i))
			r, err := runPeerOnce(ctx, p, scenario, pr.cfg.launcher, dir)
			if err != nil {
				return fmt.Errorf("%s %s run %d: %w", p.name, scenario, i+1, err)
			}
			if !pr.keep {
				_ = os.RemoveAll(dir)
			}
			peerResults[k] = r
		}
		return nil
	}
	if i%2 == 1 {
		if err := runPeers(); err != nil {
			return result{}, err
		}
	}
	r, err := measure()
	if err != nil {
		return r, err
	}
	if i%2 == 0 {
		if err := runPeers(); err != nil {
			return result{}, err
		}
	}
	for k, p := range pending {
		pr.runs[p.name][scenario] = append(pr.runs[p.name][scenario], [2]result{r, peerResults[k]})
	}
	return r, nil
}

// runPeerOnce sets up a fresh project for the peer's version of scenario,
// warms the peer up and measures its run.
func runPeerOnce(ctx context.Context, pe *peer, scenario, launcher, dir string) (result, error) {
	ps := pe.scenarios[scenario]
	sc := scenarioByName(scenario)
	steps := append([]fakellm.Step{warmUpStep()}, ps.steps()...)
	p, err := newProject(ctx, runConfig{bin: pe.bin, launcher: launcher, dir: dir}, sc.files, steps)
	if err != nil {
		return result{}, err
	}
	defer p.close()
	if err := pe.prepare(p); err != nil {
		return result{}, err
	}
	if ex, err := p.run(ctx, pe.warmUp...); err != nil || ex.code != 0 {
		return result{}, fmt.Errorf("warm-up: exit status %d: %v %s", ex.code, err, tail(ex.stderr))
	}
	ex, err := p.run(ctx, ps.args...)
	if err != nil {
		return result{}, err
	}
	if ex.code != 0 {
		return result{}, fmt.Errorf("exit status %d\nstdout:\n%s\nstderr:\n%s", ex.code, tail(ex.stdout), tail(ex.stderr))
	}
	if problem := ps.check(p, ex); problem != "" {
		return result{}, fmt.Errorf("%s\nstdout:\n%s\nstderr:\n%s", problem, tail(ex.stdout), tail(ex.stderr))
	}
	r := result{wall: ex.wall, cpu: ex.cpu, maxRSS: ex.maxRSS, maxAnon: ex.maxAnon, hasServer: true}
	var reqs []request
	for _, rq := range p.model.requests() {
		if !rq.arrived.Before(ex.start) {
			reqs = append(reqs, rq)
		}
	}
	if len(reqs) == 0 {
		return r, fmt.Errorf("no model request was made")
	}
	r.requests = len(reqs)
	r.firstReq = reqs[0].arrived.Sub(ex.start)
	var sys, tools []float64
	for i, rq := range reqs {
		sys = append(sys, float64(rq.system))
		tools = append(tools, float64(rq.tools))
		r.body = max(r.body, rq.body)
		if i > 0 {
			r.gapRaw = max(r.gapRaw, rq.arrived.Sub(reqs[i-1].done))
		}
	}
	r.system, r.tools = int(median(sys)), int(median(tools))
	r.cacheShare, r.inputCost = cacheFigures(reqs)
	return r, nil
}

// print writes each peer's own table and the codeloop/peer ratios.
func (pr *peerRuns) print(w io.Writer, order []string) {
	for _, p := range pr.peers {
		var sums []summary
		var ratios []ratioRow
		for _, name := range order {
			pairs := pr.runs[p.name][name]
			if len(pairs) == 0 {
				continue
			}
			theirs := make([]result, len(pairs))
			for i, pair := range pairs {
				theirs[i] = pair[1]
			}
			sums = append(sums, withoutAgentGap(summarize(p.name+"/"+name, theirs)))
			ratios = append(ratios, pairRatios(name, pairs))
		}
		if len(sums) == 0 {
			continue
		}
		fmt.Fprintf(w, "\n%s (%s), the same scenarios against the same fake server, runs alternated with codeloop's:\n", p.name, p.bin)
		printTable(w, sums)
		fmt.Fprintf(w, "\ncodeloop / %s, per pair of runs: median [min–max]; below 1 means codeloop uses less\n", p.name)
		printRatios(w, ratios)
	}
}

// withoutAgentGap drops the columns a peer's output cannot fill: the agent
// gap needs the tools' times and titles are codeloop's own requests.
func withoutAgentGap(s summary) summary {
	s.metrics = slices.DeleteFunc(slices.Clone(s.metrics), func(m metric) bool {
		return m.name == "agent gap" || m.name == "titles"
	})
	return s
}

// ratioRow is one scenario's codeloop/peer ratios.
type ratioRow struct {
	scenario string
	pairs    int
	metrics  []metric
}

// pairRatios divides codeloop's figure by the peer's in each pair.
func pairRatios(scenario string, pairs [][2]result) ratioRow {
	ratio := func(f func(result) float64) []float64 {
		var out []float64
		for _, pair := range pairs {
			if d := f(pair[1]); d > 0 {
				out = append(out, f(pair[0])/d)
			}
		}
		if len(out) == 0 {
			return []float64{0}
		}
		return out
	}
	fmtRatio := func(v float64) string { return fmt.Sprintf("%.2f×", v) }
	return ratioRow{scenario: scenario, pairs: len(pairs), metrics: []metric{
		newMetric("cpu", ratio(func(r result) float64 { return float64(r.cpu) }), fmtRatio),
		newMetric("rss", ratio(func(r result) float64 { return float64(r.maxRSS) }), fmtRatio),
		newMetric("anon", ratio(func(r result) float64 { return float64(r.maxAnon) }), fmtRatio),
		newMetric("wall", ratio(func(r result) float64 { return float64(r.wall) }), fmtRatio),
		newMetric("start→1st req", ratio(func(r result) float64 { return float64(r.firstReq) }), fmtRatio),
	}}
}

func printRatios(w io.Writer, rows []ratioRow) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	names := []string{"scenario", "pairs"}
	for _, m := range rows[0].metrics {
		names = append(names, m.name)
	}
	fmt.Fprintln(tw, strings.Join(names, "\t"))
	for _, r := range rows {
		cells := []string{r.scenario, fmt.Sprint(r.pairs)}
		for _, m := range r.metrics {
			cells = append(cells, m.String())
		}
		fmt.Fprintln(tw, strings.Join(cells, "\t"))
	}
	_ = tw.Flush()
}
