package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/codeloop/codeloop/internal/fakellm"
	"github.com/codeloop/codeloop/internal/llm"
)

// scenario is one benchmark: a repository, a model script and the command
// that is measured.
type scenario struct {
	name  string
	about string
	files map[string]string
	// script is the model's answers, in fakellm's line language; steps
	// builds them instead when set.
	script string
	steps  func() []fakellm.Step
	// args are the measured command's arguments; nil means no project
	// and no server (--version).
	args []string
	// setup prepares the project before the measured run (not timed).
	setup func(ctx context.Context, p *project) error
	// check says what is wrong with a finished run, or "".
	check func(p *project, ex execution) string
}

var scenarios = []*scenario{
	{
		name:   "edit-and-test",
		about:  "read a file, edit it, run its test with bash, answer (4 model requests)",
		files:  editAndTestFiles,
		script: editAndTestScript,
		args:   editAndTestArgs,
		check:  editAndTestCheck,
	},
	chatty("chatty", chattyTokens),
	chatty("chatty-80k", 4*chattyTokens),
	{
		name:  "long-session",
		about: fmt.Sprintf("continue a session of %d messages with one more prompt", longSessionMessages),
		script: `
step
text The first answer.
finish stop input=100 output=5
step
text One more answer at the end of a long session.
finish stop input=900 output=12
`,
		setup: func(ctx context.Context, p *project) error { return seedSession(ctx, p, longSessionMessages, false) },
		args:  longSessionArgs,
		check: longSessionCheck,
	},
	longSession("long-session-1k-compacted", 1000, true),
	longSession("long-session-10k", 10000, false),
	longSession("long-session-10k-compacted", 10000, true),
	longSession("long-session-20k", 20000, false),
	longSession("long-session-20k-compacted", 20000, true),
	{
		name:  "many-tools",
		about: "one step with 8 parallel tool calls (read, grep, glob), then an answer",
		files: manyFiles(),
		script: `
step
text Looking at everything at once.
call call_1 read {"filePath":"src/a.go"}
call call_2 read {"filePath":"src/b.go"}
call call_3 read {"filePath":"src/c.go"}
call call_4 read {"filePath":"README.md"}
call call_5 grep {"pattern":"func [A-Z]","include":"*.go"}
call call_6 grep {"pattern":"TODO"}
call call_7 glob {"pattern":"**/*.go"}
call call_8 glob {"pattern":"*.md"}
finish tool-calls input=2000 output=200
step
text Eight results read.
finish stop input=4000 output=10
`,
		args: []string{"run", "--auto", "--format", "json", "survey the project"},
		check: func(_ *project, ex execution) string {
			if n := strings.Count(string(ex.stdout), `"status":"completed"`); n != 8 {
				return fmt.Sprintf("%d of 8 tool calls completed", n)
			}
			return ""
		},
	},
	bigTree("big-tree", true),
	bigTree("big-tree-nosnap", false),
	{
		name:  "task-8",
		about: "an 8-step task: read, search, edit, test, answer (8 model requests)",
		files: map[string]string{
			"greet.sh":      "greet() {\n\tprintf 'helo, %s\\n' \"$1\"\n}\n",
			"greet_test.sh": ". ./greet.sh\nout=$(greet world)\nif [ \"$out\" = \"hello, world\" ]; then echo 'ok greet'; else echo \"FAIL greet: $out\"; exit 1; fi\n",
			"README.md":     "# greet\n\nPrints a greeting.\n",
		},
		script: `
step
text Looking around first.
call call_1 glob {"pattern":"*.sh"}
finish tool-calls input=1 output=20
step
call call_2 read {"filePath":"greet.sh"}
finish tool-calls input=1 output=20
step
call call_3 read {"filePath":"greet_test.sh"}
finish tool-calls input=1 output=20
step
call call_4 grep {"pattern":"helo"}
finish tool-calls input=1 output=20
step
call call_5 edit {"filePath":"greet.sh","oldString":"helo,","newString":"hello,"}
finish tool-calls input=1 output=30
step
call call_6 bash {"command":"sh greet_test.sh","description":"Run the greet test"}
finish tool-calls input=1 output=20
step
call call_7 read {"filePath":"README.md"}
finish tool-calls input=1 output=20
step
text Fixed the typo in greet.sh; the test passes.
finish stop input=1 output=12
`,
		args: []string{"run", "--auto", "--format", "json", "fix the greeting in greet.sh and run its test"},
		check: func(p *project, ex execution) string {
			b, _ := os.ReadFile(filepath.Join(p.repo, "greet.sh"))
			if !strings.Contains(string(b), "hello,") || !strings.Contains(string(ex.stdout), "ok greet") {
				return "greet.sh was not fixed and tested"
			}
			return ""
		},
	},
	{
		name:  "steps-50",
		about: "a 50-step session: 49 steps that each read a file, then an answer",
		files: manyFiles(),
		steps: func() []fakellm.Step {
			names := []string{"src/a.go", "src/b.go", "src/c.go", "src/d.go", "src/e.go"}
			var steps []fakellm.Step
			for i := range 49 {
				in := fmt.Sprintf(`{"filePath":%q,"offset":%d,"limit":12}`, names[i%len(names)], 1+(i/len(names))*12)
				steps = append(steps, append(fakellm.Call(fmt.Sprintf("call_%d", i+1), "read", in),
					fakellm.Finish(llm.FinishToolCalls, llm.Usage{Input: 1, Output: 20})...))
			}
			return append(steps, append(fakellm.Text("t", "Read everything."), fakellm.Finish(llm.FinishStop, llm.Usage{Input: 1, Output: 5})...))
		},
		args: []string{"run", "--auto", "--format", "json", "read the whole project, a little at a time"},
		check: func(_ *project, ex execution) string {
			if n := strings.Count(string(ex.stdout), `"status":"completed"`); n != 49 {
				return fmt.Sprintf("%d of 49 tool calls completed", n)
			}
			return ""
		},
	},
	{
		name:  "after-compaction",
		about: "a 10-step turn, a compaction, then a 3-step turn in the same session: the cache after the history was rewritten",
		files: manyFiles(),
		steps: func() []fakellm.Step {
			var steps []fakellm.Step
			for i := range 9 {
				in := fmt.Sprintf(`{"filePath":"src/%c.go","offset":%d,"limit":12}`, 'a'+i%5, 1+(i/5)*12)
				steps = append(steps, append(fakellm.Call(fmt.Sprintf("call_%d", i+1), "read", in),
					fakellm.Finish(llm.FinishToolCalls, llm.Usage{Input: 1, Output: 20})...))
			}
			answer := func(text string) fakellm.Step {
				return append(fakellm.Text("t", text), fakellm.Finish(llm.FinishStop, llm.Usage{Input: 1, Output: 5})...)
			}
			steps = append(steps, answer("Read them all."), answer("Summary: the project has five Go files of small functions; nothing is left to do."))
			for i := range 2 {
				steps = append(steps, append(fakellm.Call(fmt.Sprintf("call_c%d", i+1), "read", `{"filePath":"README.md"}`),
					fakellm.Finish(llm.FinishToolCalls, llm.Usage{Input: 1, Output: 20})...))
			}
			return append(steps, answer("Done after the compaction."))
		},
		setup: func(ctx context.Context, p *project) error {
			for _, args := range [][]string{
				{"run", "--auto", "read the Go files"},
				{"run", "-c", "--command", "compact"},
			} {
				if ex, err := p.run(ctx, args...); err != nil || ex.code != 0 {
					return fmt.Errorf("%v: exit status %d: %v %s", args, ex.code, err, ex.stderr)
				}
			}
			return nil
		},
		args: []string{"run", "--auto", "--format", "json", "-c", "read the README twice"},
		check: func(_ *project, ex execution) string {
			if !strings.Contains(string(ex.stdout), "Done after the compaction") {
				return "no answer"
			}
			return ""
		},
	},
	{
		name:  "version",
		about: "codeloop --version",
		args:  nil,
	},
}

// editAndTestFiles, editAndTestScript, editAndTestArgs and
// editAndTestCheck make the edit-and-test scenario, which the big-tree
// scenarios repeat in a larger project.
var editAndTestFiles = map[string]string{
	"greet.sh":      "greet() {\n\tprintf 'helo, %s\\n' \"$1\"\n}\n",
	"greet_test.sh": ". ./greet.sh\nout=$(greet world)\nif [ \"$out\" = \"hello, world\" ]; then echo 'ok greet'; else echo \"FAIL greet: $out\"; exit 1; fi\n",
}

const editAndTestScript = `
step
text I will read greet.sh first.
call call_1 read {"filePath":"greet.sh"}
finish tool-calls input=1200 output=20
step
call call_2 edit {"filePath":"greet.sh","oldString":"helo,","newString":"hello,"}
finish tool-calls input=1400 output=30
step
call call_3 bash {"command":"sh greet_test.sh","description":"Run the greet test"}
finish tool-calls input=1500 output=20
step
text Fixed the typo in greet.sh; the test passes.
finish stop input=1600 output=12
`

var editAndTestArgs = []string{"run", "--auto", "--format", "json", "fix the greeting in greet.sh and run its test"}

func editAndTestCheck(p *project, ex execution) string {
	b, _ := os.ReadFile(filepath.Join(p.repo, "greet.sh"))
	switch {
	case !strings.Contains(string(b), "hello,"):
		return "greet.sh was not edited"
	case !strings.Contains(string(ex.stdout), "ok greet"):
		return "the test did not pass"
	case strings.Contains(string(ex.stdout), `"status":"error"`):
		return "a tool failed"
	}
	return ""
}

var longSessionArgs = []string{"run", "--format", "json", "-c", "one more question"}

func longSessionCheck(_ *project, ex execution) string {
	if !strings.Contains(string(ex.stdout), "One more answer") {
		return "no answer"
	}
	return ""
}

// chatty is one answer of n tokens streamed in n deltas; its sizes show
// whether the cost per delta grows with the answer.
func chatty(name string, n int) *scenario {
	return &scenario{
		name:  name,
		about: fmt.Sprintf("one %d-token answer streamed in %d deltas", n, n),
		steps: func() []fakellm.Step {
			var sb strings.Builder
			for i := range n {
				fmt.Fprintf(&sb, "w%d ", i%1000)
			}
			text := fakellm.Text("t1", sb.String())
			return []fakellm.Step{append(text, fakellm.Finish(llm.FinishStop, llm.Usage{Input: 1000, Output: int64(n)})...)}
		},
		args: []string{"run", "write a very long answer"},
		check: func(_ *project, ex execution) string {
			if got := strings.Count(string(ex.stdout), " w"); got < n-1 {
				return fmt.Sprintf("printed %d words of %d", got+1, n)
			}
			return ""
		},
	}
}

// longSession is the long-session scenario at another size; compacted
// puts a completed compaction 40 messages before the end, so the model
// sees only those.
func longSession(name string, n int, compacted bool) *scenario {
	about := fmt.Sprintf("continue a session of %d messages with one more prompt", n)
	if compacted {
		about += fmt.Sprintf(", the last %d after a compaction", compactedTail)
	}
	return &scenario{
		name: name, about: about,
		script: `
step
text The first answer.
finish stop input=100 output=5
step
text One more answer at the end of a long session.
finish stop input=900 output=12
`,
		setup: func(ctx context.Context, p *project) error { return seedSession(ctx, p, n, compacted) },
		args:  longSessionArgs,
		check: longSessionCheck,
	}
}

const (
	chattyTokens        = 20000
	longSessionMessages = 5000
)

func manyFiles() map[string]string {
	files := map[string]string{"README.md": "# sample\n\nA sample project. TODO: more docs.\n"}
	for _, n := range []string{"a", "b", "c", "d", "e"} {
		var sb strings.Builder
		fmt.Fprintf(&sb, "package src\n\n// TODO: tidy %s.\n", n)
		for i := range 40 {
			fmt.Fprintf(&sb, "\n// F%s%d returns its argument.\nfunc F%s%d(x int) int { return x + %d }\n", n, i, n, i, i)
		}
		files["src/"+n+".go"] = sb.String()
	}
	return files
}

func scenarioNames() []string {
	names := make([]string, len(scenarios))
	for i, s := range scenarios {
		names[i] = s.name
	}
	return names
}

func scenarioByName(name string) *scenario {
	for _, s := range scenarios {
		if s.name == name {
			return s
		}
	}
	return nil
}
