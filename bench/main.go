// Command bench measures the real codeloop binary against a local scripted
// model server (internal/fakellm) that answers instantly, in scratch git
// repositories with their own home directories. For each scenario it runs
// the binary N times and prints, per metric, the median and the range:
// wall time, user+sys CPU (the process and every process it waited for),
// peak RSS, requests sent, bytes of system prompt and tool schemas per
// request, time from exec to the first model request, and the agent's own
// time between a model answer and its next request.
//
// Run it from the module root:
//
//	go run ./bench                      # every scenario, 5 runs each
//	go run ./bench -n 10 -scenario chatty,edit-and-test -wire anthropic
//
// It is a program, not a library: nothing imports it.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"strings"
	"time"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

// options are the command-line settings.
type options struct {
	n         int
	scenarios []string
	wire      string
	binary    string
	keep      bool
	profile   string
	verbose   bool
	peers     []string // -peer values: name or name=path
	opencode  string   // -opencode: the OpenCode binary, or auto
	model     string
}

func parseFlags(args []string, stderr io.Writer) (options, error) {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var o options
	var scen string
	fs.IntVar(&o.n, "n", 5, "runs per scenario")
	fs.StringVar(&scen, "scenario", "all", "comma-separated scenarios, or all: "+strings.Join(scenarioNames(), ", "))
	fs.StringVar(&o.wire, "wire", "openai", "wire format of the fake model: openai (Chat Completions) or anthropic (Messages)")
	fs.StringVar(&o.binary, "bin", "", "use this codeloop binary instead of building one")
	fs.BoolVar(&o.keep, "keep", false, "keep the scratch directories, with every model request body in requests/")
	fs.StringVar(&o.profile, "cpuprofile", "", "write a CPU profile of every run into this directory (builds a profiling binary)")
	fs.BoolVar(&o.verbose, "v", false, "print each run")
	fs.Func("peer", "also measure another agent on the scenarios it has, runs alternated with codeloop's: codex or codex=PATH (repeatable)", func(v string) error {
		if _, _, err := parsePeer(v); err != nil {
			return err
		}
		o.peers = append(o.peers, v)
		return nil
	})
	fs.StringVar(&o.model, "model", "model", "the fake model's id, which agents choose their system prompt by (e.g. claude-sonnet-4-5)")
	fs.StringVar(&o.opencode, "opencode", "", "also run OpenCode on the scenarios it can run, with the same config and command: its binary's path, or auto for the one .ci/run installs; skipped when absent")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if o.n < 1 {
		return o, fmt.Errorf("-n must be at least 1")
	}
	if o.wire != "openai" && o.wire != "anthropic" {
		return o, fmt.Errorf("-wire must be openai or anthropic, not %q", o.wire)
	}
	if scen == "all" {
		o.scenarios = scenarioNames()
	} else {
		for _, s := range strings.Split(scen, ",") {
			s = strings.TrimSpace(s)
			if scenarioByName(s) == nil {
				return o, fmt.Errorf("unknown scenario %q (have %s)", s, strings.Join(scenarioNames(), ", "))
			}
			o.scenarios = append(o.scenarios, s)
		}
	}
	return o, nil
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	o, err := parseFlags(args, stderr)
	if err != nil {
		return err
	}
	pr, skip, err := parseConfigPeer(o.opencode)
	if err != nil {
		return err
	}
	if skip != "" {
		fmt.Fprintln(stderr, "bench: skipping the peer:", skip)
	}
	work, err := os.MkdirTemp("", "codeloop-bench")
	if err != nil {
		return err
	}
	if o.keep {
		fmt.Fprintln(stderr, "scratch directories in", work)
	} else {
		defer os.RemoveAll(work)
	}
	bin := filepath.Join(work, "codeloop")
	if o.binary == "" {
		pkg := "./cmd/codeloop"
		if o.profile != "" {
			pkg = "./bench/profiled"
		}
		fmt.Fprintf(stderr, "building %s ...\n", pkg)
		built := filepath.Join(work, "codeloop.linked")
		if err := build(ctx, pkg, built); err != nil {
			return err
		}
		if err := install(built, bin); err != nil {
			return err
		}
		os.Remove(built)
	} else if err := install(o.binary, bin); err != nil {
		return err
	}
	launcher := filepath.Join(work, "launch")
	if err := build(ctx, "./bench/launch", launcher); err != nil {
		return err
	}
	if o.profile != "" {
		if err := os.MkdirAll(o.profile, 0o755); err != nil {
			return err
		}
	}

	fmt.Fprintf(stdout, "codeloop bench: %s, %s/%s, %d CPUs, %s wire, model %q, %d runs per scenario, %s\n",
		machine(), runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), o.wire, o.model, o.n, time.Now().UTC().Format("2006-01-02 15:04 MST"))
	peers, err := newPeerRuns(o.peers, runConfig{launcher: launcher}, work, o.keep, stderr)
	if err != nil {
		return err
	}
	var results []summary
	var ratios []string
	for _, name := range o.scenarios {
		sc := scenarioByName(name)
		agents := []*configPeer{nil}
		if pr != nil && sc.runsPeer() {
			agents = append(agents, pr)
		}
		// The agents alternate run by run, so that a change in the
		// machine's load falls on both.
		runs := make([][]result, len(agents))
		for i := range o.n {
			for a, ag := range agents {
				if ctx.Err() != nil {
					return ctx.Err()
				}
				label, rc := name, runConfig{bin: bin, launcher: launcher, wire: o.wire, model: o.model, keep: o.keep, profile: profilePath(o.profile, name, i)}
				if ag != nil {
					label, rc.peer, rc.profile = name+" "+ag.name, ag, ""
				}
				rc.dir = filepath.Join(work, fmt.Sprintf("%s-%d", strings.ReplaceAll(label, " ", "-"), i))
				var r result
				var err error
				if ag == nil {
					r, err = peers.around(ctx, name, i, func() (result, error) { return runOnce(ctx, sc, rc) })
				} else {
					r, err = runOnce(ctx, sc, rc)
				}
				if err != nil {
					return fmt.Errorf("%s run %d: %w", label, i+1, err)
				}
				if o.verbose {
					fmt.Fprintf(stderr, "%s #%d: %s\n", label, i+1, r)
				}
				runs[a] = append(runs[a], r)
				if !o.keep {
					_ = os.RemoveAll(rc.dir)
				}
			}
		}
		for a, ag := range agents {
			label := name
			if ag != nil {
				label += " " + ag.name
			}
			results = append(results, summarize(label, runs[a]))
		}
		if len(agents) > 1 {
			ratios = append(ratios, costRatio(name, agents[1].name, runs[0], runs[1]))
		}
	}
	printTable(stdout, results)
	peers.print(stdout, o.scenarios)
	for _, line := range ratios {
		fmt.Fprintln(stdout, line)
	}
	return nil
}

func profilePath(dir, scenario string, i int) string {
	if dir == "" {
		return ""
	}
	abs, err := filepath.Abs(filepath.Join(dir, fmt.Sprintf("%s-%d.pprof", scenario, i+1)))
	if err != nil {
		return ""
	}
	return abs
}

// build compiles pkg of the module in the current directory into out.
func build(ctx context.Context, pkg, out string) error {
	cmd := exec.CommandContext(ctx, "go", "build", "-o", out, pkg)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("building %s (run bench from the module root): %w", pkg, err)
	}
	return nil
}

// install copies the binary at from to to with ordinary writes, as an
// installer or package manager would. The Go linker writes its output
// through a memory mapping, and on Linux a process started from those
// page-cache pages maps about 9 MB more of its executable than one started
// from a file written with write(2) or read back from disk: measured
// as built, every peak RSS would carry that artefact.
func install(from, to string) error {
	src, err := os.Open(from)
	if err != nil {
		return err
	}
	defer src.Close()
	dst, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o755)
	if err != nil {
		return err
	}
	if _, err := io.Copy(struct{ io.Writer }{dst}, src); err != nil {
		dst.Close()
		return fmt.Errorf("installing %s: %w", to, err)
	}
	return dst.Close()
}

// machine describes the CPU, from /proc/cpuinfo where there is one.
func machine() string {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return "unknown CPU"
	}
	for _, line := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return "unknown CPU"
}
