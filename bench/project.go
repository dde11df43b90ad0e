package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/codeloop/codeloop/internal/fakellm"
	"github.com/codeloop/codeloop/internal/llm"
)

// runConfig says how to run one scenario once.
type runConfig struct {
	bin      string
	launcher string      // bench/launch, which starts bin and reports its usage
	dir      string      // scratch directory of the run
	wire     string      // openai or anthropic
	model    string      // the model's id in the config
	profile  string      // CPU profile file, or empty
	peer     *configPeer // another agent to run instead of bin, or nil
	keep     bool        // keep the scratch directory, with every request body
}

// project is a scratch git repository with its own home directory and the
// fake model servers its config points at.
type project struct {
	cfg      runConfig
	repo     string
	home     string
	model    *recorder
	titles   *recorder
	modelURL string   // the model server's base URL
	extraEnv []string // added to the child's environment (a peer's settings)
	close    func()
}

// newProject creates the repository with files, starts a model server
// playing steps and a title server, and writes the config.
func newProject(ctx context.Context, cfg runConfig, files map[string]string, steps []fakellm.Step) (*project, error) {
	p := &project{cfg: cfg, repo: filepath.Join(cfg.dir, "repo"), home: filepath.Join(cfg.dir, "home")}
	p.model = newRecorder(fakellm.NewServer(steps...).AccountCache(nil))
	p.titles = newRecorder(fakellm.NewServer(fakellm.Text("t", "Benchmark run"), fakellm.Finish(llm.FinishStop, llm.Usage{Input: 50, Output: 3})))
	if cfg.keep {
		p.model.dir = filepath.Join(cfg.dir, "requests")
	}
	ms, ts := httptest.NewServer(p.model), httptest.NewServer(p.titles)
	p.modelURL = ms.URL
	p.close = func() {
		ms.CloseClientConnections()
		ts.CloseClientConnections()
		ms.Close()
		ts.Close()
	}
	for _, d := range []string{p.repo, p.home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			p.close()
			return nil, err
		}
	}
	for name, data := range files {
		path := filepath.Join(p.repo, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			p.close()
			return nil, err
		}
		if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
			p.close()
			return nil, err
		}
	}
	if err := os.WriteFile(filepath.Join(p.repo, "opencode.json"), []byte(configJSON(cfg.wire, cfg.model, ms.URL, ts.URL)), 0o644); err != nil {
		p.close()
		return nil, err
	}
	for _, args := range [][]string{
		{"init", "-q"}, {"add", "."},
		{"-c", "user.name=bench", "-c", "user.email=bench@example.com", "commit", "-qm", "start"},
	} {
		cmd := exec.CommandContext(ctx, "git", args...)
		cmd.Dir, cmd.Env = p.repo, p.env()
		if out, err := cmd.CombinedOutput(); err != nil {
			p.close()
			return nil, fmt.Errorf("git %v: %w\n%s", args, err, out)
		}
	}
	return p, nil
}

// configJSON points codeloop at the fake servers: the model through the
// chosen wire format, titles through Chat Completions. The model's id is
// model ("model" unless -model says otherwise; agents choose their prompt
// by it). The context limit is large so that no scenario compacts.
func configJSON(wire, model, modelURL, titleURL string) string {
	if model == "" {
		model = "model"
	}
	provider := fmt.Sprintf(`{"npm": "@ai-sdk/openai-compatible", "options": {"baseURL": "%s/v1", "apiKey": "bench"},`, modelURL)
	if wire == "anthropic" {
		provider = fmt.Sprintf(`{"npm": "@ai-sdk/anthropic", "options": {"baseURL": "%s/v1", "apiKey": "bench"},`, modelURL)
	}
	return fmt.Sprintf(`{
  "$schema": "https://opencode.ai/config.json",
  "model": "fake/%s",
  "small_model": "titles/small",
  "autoupdate": false,
  "share": "disabled",
  "provider": {
    "fake": %s
      "models": {%q: {"name": "Fake", "tool_call": true, "limit": {"context": 10000000, "output": 32000}}}},
    "titles": {"npm": "@ai-sdk/openai-compatible", "options": {"baseURL": "%s/v1", "apiKey": "bench"},
      "models": {"small": {"limit": {"context": 100000, "output": 1000}}}}
  }
}
`, model, provider, model, titleURL)
}

// env is the child's whole environment: an isolated home and XDG
// directories, and nothing from the caller but PATH.
func (p *project) env() []string {
	env := []string{
		"HOME=" + p.home,
		"PATH=" + os.Getenv("PATH"),
		"XDG_CONFIG_HOME=" + filepath.Join(p.home, ".config"),
		"XDG_DATA_HOME=" + filepath.Join(p.home, ".local", "share"),
		"XDG_CACHE_HOME=" + filepath.Join(p.home, ".cache"),
		"XDG_STATE_HOME=" + filepath.Join(p.home, ".local", "state"),
		"GIT_CONFIG_NOSYSTEM=1",
		"TERM=dumb",
	}
	env = append(env, p.extraEnv...)
	if p.cfg.profile != "" {
		base := strings.TrimSuffix(p.cfg.profile, ".pprof")
		env = append(env, "CODELOOP_CPUPROFILE="+p.cfg.profile, "CODELOOP_TRACE="+base+".trace", "CODELOOP_MEMPROFILE="+base+".allocs.pprof")
	}
	return env
}

// execution is what one run of the binary cost.
type execution struct {
	start  time.Time // just before exec
	wall   time.Duration
	cpu    time.Duration // user+sys of the process and its waited-for children
	maxRSS int64         // bytes: the largest of the process and its children
	// maxAnon is codeloop's own largest RssAnon as sampled (bytes): its
	// heap, stacks and runtime, without the executable's shared pages.
	maxAnon int64
	stdout  []byte
	stderr  []byte
	code    int
}

// run executes the binary in the repository with args, through the
// launcher, and waits for it.
func (p *project) run(ctx context.Context, args ...string) (execution, error) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	rd, wr, err := os.Pipe()
	if err != nil {
		return execution{}, err
	}
	defer rd.Close()
	bin, env := p.cfg.bin, p.env()
	if p.cfg.peer != nil {
		bin, env = p.cfg.peer.bin, append(env, p.cfg.peer.env...)
	}
	cmd := exec.CommandContext(ctx, p.cfg.launcher, append([]string{bin}, args...)...)
	cmd.Dir, cmd.Env = p.repo, env
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	cmd.ExtraFiles = []*os.File{wr}
	err = cmd.Start()
	wr.Close()
	if err != nil {
		return execution{}, err
	}
	data, _ := io.ReadAll(rd)
	err = cmd.Wait()
	var ex execution
	ex.stdout, ex.stderr = out.Bytes(), errb.Bytes()
	if ctx.Err() != nil {
		return ex, fmt.Errorf("codeloop %v did not finish within 5 minutes", args)
	}
	var rep struct {
		Start, End, CPU, MaxRSS, MaxAnon int64
		Code                             int
		Signal                           string
	}
	if jerr := json.Unmarshal(data, &rep); jerr != nil {
		return ex, fmt.Errorf("launcher: %v (%w): %s", jerr, err, ex.stderr)
	}
	ex.start = time.Unix(0, rep.Start)
	ex.wall = time.Duration(rep.End - rep.Start)
	ex.cpu = time.Duration(rep.CPU)
	ex.maxRSS = rep.MaxRSS
	ex.maxAnon = rep.MaxAnon
	ex.code = rep.Code
	if rep.Signal != "" {
		return ex, fmt.Errorf("codeloop %v: killed by %s", args, rep.Signal)
	}
	return ex, nil
}
