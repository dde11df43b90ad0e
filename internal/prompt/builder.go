// Package prompt assembles the system prompt: codeloop's own prompt texts
// (embedded from text/), the environment block, the instruction files
// (AGENTS.md, CLAUDE.md, the config's instructions), MCP server
// instructions and the list of skills. It also holds the other texts the
// loop sends (reminders, the compaction and title prompts) and the tracker
// that attaches nested AGENTS.md files when the read tool opens a file.
//
// It may import llm, paths, skill and tool; the session loop, the agents,
// the app and the CLI import it.
package prompt

import (
	"bytes"
	"context"
	"log/slog"
	"net/http"
	"runtime"
	"sort"
	"strings"
	"sync"
	"text/template"
	"time"

	"github.com/codeloop/codeloop/internal/llm"
	"github.com/codeloop/codeloop/internal/skill"
	"github.com/codeloop/codeloop/internal/tool"
)

// FetchTimeout is how long an instruction URL may take to fetch.
const FetchTimeout = 5 * time.Second

// Options are what a Builder needs to know about the project and the user;
// they are fixed for the Builder's life.
type Options struct {
	// Dir is the working directory and Worktree the project root (Dir
	// when empty). Git reports whether the project is a git repository.
	Dir, Worktree string
	Git           bool
	// Platform names the operating system; runtime.GOOS when empty.
	Platform string
	// Home is the user's home directory, for "~/" in instructions.
	Home string
	// GlobalFiles are the candidate global instruction files, the first
	// existing one used (see DefaultGlobalFiles).
	GlobalFiles []string
	// Instructions are the config's instructions: paths, globs, "~/"
	// paths and http(s) URLs.
	Instructions []string
	// NoClaude leaves out CLAUDE.md files.
	NoClaude bool
	// Untrusted says the project is not trusted: an instruction file of
	// the project that leads out of it (a symbolic link, a CLAUDE.md
	// @import) is left out, so that no file of the user's reaches the
	// model through the project's files.
	Untrusted bool
	// Secrets are the project's secret files: a CLAUDE.md never imports
	// one. Nil: none.
	Secrets *tool.SecretFiles
	// HTTPClient fetches instruction URLs; http.DefaultClient when nil.
	// FetchTimeout overrides the 5 second fetch timeout when set.
	HTTPClient   *http.Client
	FetchTimeout time.Duration
	// Log receives warnings about unreadable files and failed fetches.
	Log *slog.Logger
}

// Builder assembles system prompts for one project. Make one per app: it
// keeps the instruction URLs it fetched for its whole life, so the prompt
// stays the same from step to step. It is safe for concurrent use.
type Builder struct {
	opts  Options
	log   *slog.Logger
	fetch *fetcher
	env   *template.Template

	mu     sync.Mutex
	system map[string]bool // real paths of the latest prompt's local files; never mutated once set
}

// NewBuilder returns a Builder for the project opts describes.
func NewBuilder(opts Options) *Builder {
	if opts.Worktree == "" {
		opts.Worktree = opts.Dir
	}
	if opts.Platform == "" {
		opts.Platform = runtime.GOOS
	}
	if opts.Log == nil {
		opts.Log = slog.New(slog.DiscardHandler)
	}
	client := opts.HTTPClient
	if client == nil {
		client = http.DefaultClient
	}
	timeout := opts.FetchTimeout
	if timeout <= 0 {
		timeout = FetchTimeout
	}
	return &Builder{
		opts:  opts,
		log:   opts.Log,
		fetch: &fetcher{client: client, timeout: timeout, log: opts.Log, cache: map[string]*fetchEntry{}},
		env:   template.Must(template.New("env").Option("missingkey=error").Parse(envText)),
	}
}

// Input is what changes from one request to the next.
type Input struct {
	// Model is the model the request goes to; it picks the provider
	// prompt and is named in the environment block.
	Model llm.Model
	// AgentPrompt, when set, replaces the provider prompt.
	AgentPrompt string
	// Skills are the skills the agent may load (skill.Set.ForModel).
	Skills []skill.Skill
	// MCPInstructions maps an MCP server's name to the instructions it
	// sent when connecting; servers whose tools are all denied should be
	// left out.
	MCPInstructions map[string]string
	// Date is today's date for the environment block; the current time
	// when zero.
	Date time.Time
}

// Build returns the system prompt as blocks: the first holds the agent's
// or provider's prompt and the environment, the second (absent when
// empty) the instruction files, the MCP server instructions and the
// skills. Providers that cache prompts can mark both blocks; their text
// depends only on the inputs and the files read, never on map order or
// timing, so it is byte-identical from step to step.
func (b *Builder) Build(ctx context.Context, in Input) ([]string, error) {
	head := strings.TrimSpace(in.AgentPrompt)
	if head == "" {
		head = ProviderPrompt(in.Model)
	}
	env, err := b.Environment(in.Model, in.Date)
	if err != nil {
		return nil, err
	}
	blocks := []string{head + "\n\n" + env}

	instructions, err := b.Instructions(ctx)
	if err != nil {
		return nil, err
	}
	var parts []string
	for _, ins := range instructions {
		parts = append(parts, ins.Text())
	}
	if s := mcpBlock(in.MCPInstructions); s != "" {
		parts = append(parts, s)
	}
	if len(in.Skills) > 0 {
		parts = append(parts, trim(skillsText)+"\n\n"+skill.Listing(in.Skills))
	}
	if len(parts) > 0 {
		blocks = append(blocks, strings.Join(parts, "\n\n"))
	}
	return blocks, nil
}

// Environment returns the environment block: the model, the directories,
// whether the project is a git repository, the platform and the date.
func (b *Builder) Environment(m llm.Model, date time.Time) (string, error) {
	if date.IsZero() {
		date = time.Now()
	}
	name := m.Name
	if name == "" {
		name = m.ID
	}
	id := m.ID
	if m.ProviderID != "" {
		id = m.ProviderID + "/" + m.ID
	}
	git := "no"
	if b.opts.Git {
		git = "yes"
	}
	var buf bytes.Buffer
	err := b.env.Execute(&buf, map[string]string{
		"ModelName": name,
		"ModelID":   id,
		"Dir":       b.opts.Dir,
		"Worktree":  b.opts.Worktree,
		"Git":       git,
		"Platform":  b.opts.Platform,
		"Date":      date.Format("Monday, 2 January 2006"),
	})
	return strings.TrimSpace(buf.String()), err
}

// mcpBlock formats the MCP servers' instructions, sorted by server name.
func mcpBlock(byServer map[string]string) string {
	names := make([]string, 0, len(byServer))
	for name, text := range byServer {
		if strings.TrimSpace(text) != "" {
			names = append(names, name)
		}
	}
	if len(names) == 0 {
		return ""
	}
	sort.Strings(names)
	var b strings.Builder
	b.WriteString(trim(mcpText))
	b.WriteString("\n\n<mcp_instructions>\n")
	for _, name := range names {
		b.WriteString("<server name=\"" + xmlAttr(name) + "\">\n")
		b.WriteString(strings.TrimSpace(byServer[name]))
		b.WriteString("\n</server>\n")
	}
	b.WriteString("</mcp_instructions>")
	return b.String()
}

var attrReplacer = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;")

func xmlAttr(s string) string { return attrReplacer.Replace(s) }
