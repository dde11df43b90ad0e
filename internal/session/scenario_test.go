package session

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/tools/txtar"

	"github.com/codeloop/codeloop/internal/approval"
	"github.com/codeloop/codeloop/internal/bus"
	"github.com/codeloop/codeloop/internal/fakellm"
	"github.com/codeloop/codeloop/internal/llm"
	"github.com/codeloop/codeloop/internal/message"
	"github.com/codeloop/codeloop/internal/permission"
	"github.com/codeloop/codeloop/internal/store"
	"github.com/codeloop/codeloop/internal/tool"
)

var update = flag.Bool("update", false, "rewrite the want sections of the scenarios")

// Scenario files (testdata/scenarios/*.txtar) hold:
//
//	test            directives, one per line (see scenario.directives)
//	model           the script of the main model (fakellm.Parse)
//	ws/<path>       workspace files before the run
//	want/messages   the stored messages and parts afterwards
//	want/requests   what the model was sent at each step
//	want/events     status, error and permission events, then the title
//	want/files/<p>  workspace files afterwards
func TestScenarios(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("testdata/scenarios/*.txtar")
	if err != nil || len(files) == 0 {
		t.Fatalf("no scenarios: %v", err)
	}
	for _, f := range files {
		t.Run(strings.TrimSuffix(filepath.Base(f), ".txtar"), func(t *testing.T) {
			runScenario(t, f)
		})
	}
}

// testModels serves the scripted providers: "fake/model" and the small
// model "fake/small" used for titles.
type testModels struct {
	main, small *fakellm.Scripted
	limit       llm.Limit
}

func (m *testModels) Model(_ context.Context, ref message.ModelRef) (llm.Provider, llm.Model, error) {
	model := llm.Model{ID: ref.ModelID, ProviderID: ref.ProviderID, Limit: m.limit, ToolCall: true,
		Cost: llm.Cost{Input: 3, Output: 15}}
	switch ref.String() {
	case "fake/model":
		return m.main, model, nil
	case "fake/small":
		return m.small, model, nil
	}
	return nil, llm.Model{}, fmt.Errorf("unknown model %s", ref)
}

func (m *testModels) Default(context.Context) (message.ModelRef, error) {
	return message.ModelRef{ProviderID: "fake", ModelID: "model"}, nil
}

func (m *testModels) Small(context.Context, string) (message.ModelRef, bool) {
	return message.ModelRef{ProviderID: "fake", ModelID: "small"}, true
}

// registryTools lists the built-in tools through the registry, as the
// application does.
type registryTools struct{ r *tool.Registry }

func (r registryTools) Tools(_ context.Context, q ToolQuery) ([]tool.Tool, error) {
	return r.r.For(tool.Filter{Model: q.Model.ID}), nil
}

type scenario struct {
	prompts     []string
	pausePrompt string
	pauseAbort  bool
	steps       int
	permission  string // allow or reject
	retries     int
	title       string
	limit       llm.Limit
	compactAuto *bool
	compactTail *int
	manualAfter bool // run a manual compaction after the prompts
	prune       *bool
}

func (s *scenario) directives(t *testing.T, src string) {
	s.permission, s.title = "reject", "Scripted title"
	for _, line := range strings.Split(src, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		verb, rest, _ := strings.Cut(line, " ")
		num := func() int {
			n, err := strconv.Atoi(rest)
			if err != nil {
				t.Fatalf("directive %q: %v", line, err)
			}
			return n
		}
		switch verb {
		case "prompt":
			s.prompts = append(s.prompts, rest)
		case "pause-prompt":
			s.pausePrompt = rest
		case "pause-abort":
			s.pauseAbort = true
		case "steps":
			s.steps = num()
		case "permission":
			s.permission = rest
		case "retries":
			s.retries = num()
		case "title":
			s.title = rest
		case "context":
			s.limit.Context = int64(num())
		case "output-limit":
			s.limit.Output = int64(num())
		case "auto-compaction":
			b := rest == "true"
			s.compactAuto = &b
		case "tail-turns":
			n := num()
			s.compactTail = &n
		case "compact":
			s.manualAfter = true
		case "prune":
			b := rest == "true"
			s.prune = &b
		default:
			t.Fatalf("unknown directive %q", line)
		}
	}
}

func runScenario(t *testing.T, path string) {
	ar, err := txtar.ParseFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sections := map[string]string{}
	for _, f := range ar.Files {
		sections[f.Name] = string(f.Data)
	}
	var sc scenario
	sc.directives(t, sections["test"])
	steps, err := fakellm.Parse(sections["model"])
	if err != nil {
		t.Fatalf("model script: %v", err)
	}

	work := t.TempDir()
	for name, data := range sections {
		if rel, ok := strings.CutPrefix(name, "ws/"); ok {
			p := filepath.Join(work, rel)
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}

	ctx := context.Background()
	st, err := store.Open(ctx, ":memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	b := bus.New(time.Second)
	events := b.Subscribe(bus.Filter{Types: []string{bus.SessionStatus, bus.SessionError, bus.PermissionAsked}}, 1000)
	defer events.Close()

	main := fakellm.NewScripted("fake", steps...)
	small := fakellm.NewScripted("fake", fakellm.Text("t1", sc.title), fakellm.Finish(llm.FinishStop, llm.Usage{}))
	models := &testModels{main: main, small: small, limit: sc.limit}
	perms := approval.NewService(b, nil, approval.Options{NonInteractive: sc.permission != "allow", AutoApprove: sc.permission == "allow"})
	agent := BuildAgent()
	agent.Steps = sc.steps
	sessions := NewSessions(st, b, "test")
	eng, err := New(Config{
		Sessions: sessions, Bus: b, Models: models, Agents: StaticAgents{agent},
		Tools:       registryTools{tool.NewRegistry(tool.Builtins(tool.Env{Ripgrep: "-"})...)},
		Permissions: perms, Directory: work, Worktree: work,
		MaxRetries: sc.retries, RetryBase: time.Millisecond, RetryCap: 5 * time.Millisecond,
		FlushInterval: 5 * time.Millisecond,
		Compaction:    Compaction{Auto: sc.compactAuto, TailTurns: sc.compactTail, Prune: sc.prune},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	sess, err := sessions.Create(ctx, CreateInput{ProjectID: "p", Directory: work})
	if err != nil {
		t.Fatal(err)
	}

	var once sync.Once
	main.OnPause = func(pctx context.Context, step int) {
		once.Do(func() {
			switch {
			case sc.pausePrompt != "":
				if _, err := eng.Send(pctx, PromptInput{SessionID: sess.ID, Parts: []message.Part{TextPart(sc.pausePrompt)}}); err != nil {
					t.Errorf("sending while busy: %v", err)
				}
			case sc.pauseAbort:
				eng.Cancel(sess.ID)
			}
		})
	}

	deadline, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	for _, p := range sc.prompts {
		if _, err := eng.Prompt(deadline, PromptInput{SessionID: sess.ID, Parts: []message.Part{TextPart(p)}}); err != nil {
			t.Fatalf("prompt %q: %v", p, err)
		}
	}
	if sc.manualAfter {
		if err := eng.Compact(deadline, sess.ID); err != nil {
			t.Fatalf("compacting: %v", err)
		}
	}
	eng.Close() // waits for the title too

	msgs, err := sessions.Messages(ctx, sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	final, err := sessions.Get(ctx, sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{
		"want/messages": renderMessages(msgs, work),
		"want/requests": renderRequests(main.Requests(), work),
		"want/events":   renderEvents(events, final, len(small.Requests())),
	}
	if main.Remaining() != 0 {
		t.Errorf("%d model steps were not played", main.Remaining())
	}
	for name := range sections {
		if rel, ok := strings.CutPrefix(name, "want/files/"); ok {
			data, err := os.ReadFile(filepath.Join(work, rel))
			if err != nil {
				data = []byte("(missing)\n")
			}
			got[name] = string(data)
		}
	}
	for name, text := range got {
		got[name] = largestPartSize.ReplaceAllString(text, "${1}N${2}")
	}
	compare(t, path, ar, got)
}

// largestPartSize matches the size an overflow error gives its history's
// largest part, which counts the work directory's path: its length
// differs between machines, so the scenarios show it as N.
var largestPartSize = regexp.MustCompile(`(the largest part is [^,]*, about )\d+( tokens)`)

func compare(t *testing.T, path string, ar *txtar.Archive, got map[string]string) {
	t.Helper()
	if *update {
		have := map[string]bool{}
		for i, f := range ar.Files {
			if g, ok := got[f.Name]; ok {
				ar.Files[i].Data = []byte(g)
				have[f.Name] = true
			}
		}
		var names []string
		for n := range got {
			if !have[n] {
				names = append(names, n)
			}
		}
		sort.Strings(names)
		for _, n := range names {
			ar.Files = append(ar.Files, txtar.File{Name: n, Data: []byte(got[n])})
		}
		if err := os.WriteFile(path, txtar.Format(ar), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	for _, f := range ar.Files {
		g, ok := got[f.Name]
		if ok && g != string(f.Data) {
			t.Errorf("%s differs:\n--- got\n%s--- want\n%s", f.Name, g, f.Data)
		}
	}
	for _, n := range []string{"want/messages", "want/requests", "want/events"} {
		found := false
		for _, f := range ar.Files {
			found = found || f.Name == n
		}
		if !found {
			t.Errorf("the scenario has no %s section; run with -update", n)
		}
	}
}

func clip(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}

func renderMessages(msgs []message.Message, work string) string {
	var b strings.Builder
	for _, m := range msgs {
		i := m.Info
		if i.Role == message.RoleUser {
			b.WriteString("user:")
		} else {
			fmt.Fprintf(&b, "assistant %s finish=%s", i.Agent, i.Finish)
			if i.Summary {
				b.WriteString(" summary")
			}
			if i.Error != nil {
				fmt.Fprintf(&b, " error=%s(%s)", i.Error.Name, i.Error.Error())
			}
			if i.Time.Completed == 0 {
				b.WriteString(" incomplete")
			}
			fmt.Fprintf(&b, " tokens=%d/%d:", i.Tokens.Input, i.Tokens.Output)
		}
		b.WriteString("\n")
		for _, p := range m.Parts {
			b.WriteString("  " + renderPart(p, work) + "\n")
		}
	}
	return b.String()
}

func renderPart(p message.Part, work string) string {
	switch p := p.(type) {
	case *message.TextPart:
		s := fmt.Sprintf("text %q", p.Text)
		if p.Synthetic {
			s += " synthetic"
		}
		return s
	case *message.ReasoningPart:
		return fmt.Sprintf("reasoning %q %v", p.Text, p.Metadata)
	case *message.ToolPart:
		st := p.State
		s := fmt.Sprintf("tool %s %s %s %s", p.Tool, p.CallID, st.Status, st.Input)
		switch st.Status {
		case message.ToolCompleted:
			s += fmt.Sprintf(" -> %q", clip(strings.ReplaceAll(st.Output, work, "$WORK"), 80))
		case message.ToolError:
			first, _, _ := strings.Cut(st.Error, "\n")
			s += fmt.Sprintf(" -> error %q", clip(strings.ReplaceAll(first, work, "$WORK"), 120))
		}
		if st.Metadata[message.MetadataInterrupted] == true {
			s += " interrupted"
		}
		return s
	case *message.StepStartPart:
		return "step-start"
	case *message.StepFinishPart:
		return fmt.Sprintf("step-finish %s cost=%.6f", p.Reason, p.Cost)
	case *message.RetryPart:
		return fmt.Sprintf("retry %d %s", p.Attempt, p.Error.Error())
	case *message.CompactionPart:
		return fmt.Sprintf("compaction auto=%v overflow=%v tail=%v", p.Auto, p.Overflow, p.TailStartID != "")
	}
	b, _ := json.Marshal(p)
	return string(b)
}

func renderRequests(reqs []llm.Request, work string) string {
	var b strings.Builder
	for n, r := range reqs {
		var tools []string
		for _, t := range r.Tools {
			tools = append(tools, t.Name)
		}
		fmt.Fprintf(&b, "request %d: %d tools", n+1, len(tools))
		if r.Options.ToolChoice != "" {
			fmt.Fprintf(&b, " choice=%s", r.Options.ToolChoice)
		}
		b.WriteString("\n")
		for _, m := range r.Messages {
			fmt.Fprintf(&b, "  %s:", m.Role)
			for _, p := range m.Parts {
				switch p.Type {
				case llm.PartText:
					fmt.Fprintf(&b, " text(%s)", clip(p.Text, 60))
					if _, prev, ok := strings.Cut(p.Text, "<previous-summary>\n"); ok {
						first, _, _ := strings.Cut(prev, "\n")
						fmt.Fprintf(&b, "+previous(%s)", first)
					}
				case llm.PartReasoning:
					fmt.Fprintf(&b, " reasoning(%s)", clip(p.Text, 40))
				case llm.PartToolCall:
					fmt.Fprintf(&b, " call(%s %s)", p.ToolCallID, p.ToolName)
				case llm.PartToolResult:
					first, _, _ := strings.Cut(p.Output, "\n")
					out := clip(strings.ReplaceAll(first, work, "$WORK"), 40)
					if p.IsError {
						fmt.Fprintf(&b, " error(%s %q)", p.ToolCallID, out)
					} else {
						fmt.Fprintf(&b, " result(%s %q)", p.ToolCallID, out)
					}
				default:
					fmt.Fprintf(&b, " %s", p.Type)
				}
			}
			b.WriteString("\n")
		}
	}
	return b.String()
}

func renderEvents(sub *bus.Subscription, final Info, titleRequests int) string {
	var b strings.Builder
	for {
		select {
		case e := <-sub.C:
			switch p := e.Properties.(type) {
			case StatusEvent:
				fmt.Fprintf(&b, "status %s", p.Status.Type)
				if p.Status.Type == StatusRetry {
					fmt.Fprintf(&b, " attempt=%d %s next=%v", p.Status.Attempt, p.Status.Message, p.Status.Next > 0)
				}
				b.WriteString("\n")
			case ErrorEvent:
				fmt.Fprintf(&b, "error %s: %s\n", p.Error.Name, p.Error.Error())
			case permission.Request:
				fmt.Fprintf(&b, "ask %s %v\n", p.Permission, p.Patterns)
			default:
				fmt.Fprintf(&b, "%s %T\n", e.Type, e.Properties)
			}
			continue
		default:
		}
		break
	}
	title := final.Title
	if IsDefaultTitle(title) {
		title = "(default)"
	}
	fmt.Fprintf(&b, "title %s (%d requests)\n", title, titleRequests)
	return b.String()
}
