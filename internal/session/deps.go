package session

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/codeloop/codeloop/internal/bus"
	"github.com/codeloop/codeloop/internal/hook"
	"github.com/codeloop/codeloop/internal/llm"
	"github.com/codeloop/codeloop/internal/message"
	"github.com/codeloop/codeloop/internal/permission"
	"github.com/codeloop/codeloop/internal/snapshot"
	"github.com/codeloop/codeloop/internal/tool"
)

// Agent is what the loop needs to know about the agent answering a prompt.
type Agent struct {
	Name        string
	Mode        string // primary, subagent or all
	Prompt      string // replaces the model family's prompt when set
	Model       *message.ModelRef
	Variant     string
	Steps       int // the most model steps per prompt; 0 for no limit
	Temperature *float64
	TopP        *float64
	Permission  permission.Ruleset
	Options     map[string]any
	Hidden      bool
}

// Agents finds agents by name.
type Agents interface {
	// Agent returns the agent called name, or the default agent when name
	// is empty.
	Agent(ctx context.Context, name string) (*Agent, error)
}

// Models resolves model references to a provider and the model's
// description.
type Models interface {
	// Model returns the provider serving ref and ref's description.
	Model(ctx context.Context, ref message.ModelRef) (llm.Provider, llm.Model, error)
	// Default returns the model used when neither the prompt nor the agent
	// names one.
	Default(ctx context.Context) (message.ModelRef, error)
	// Small returns the model for titles and other small tasks for a
	// session using providerID, or false when there is none (the session's
	// own model is used then).
	Small(ctx context.Context, providerID string) (message.ModelRef, bool)
}

// ModelParams is implemented by Models that know a model's request
// defaults (sampling values, output limit, reasoning settings) for a
// variant.
type ModelParams interface {
	Params(ctx context.Context, ref message.ModelRef) (llm.Options, error)
}

// ToolQuery says for whom tools are listed.
type ToolQuery struct {
	SessionID string
	Agent     *Agent
	Model     llm.Model
	// Rules are the permission rules in force (the agent's, then the
	// session's); tools whose permission they deny outright are left out.
	Rules permission.Ruleset
}

// Tools lists the tools the model may call. Returned tools validate their
// arguments and truncate their output themselves.
type Tools interface {
	Tools(ctx context.Context, q ToolQuery) ([]tool.Tool, error)
}

// Permissions checks a request against rules and, where they say ask, asks
// the user. It returns nil, or a *permission.DeniedError,
// *permission.RejectedError or *permission.CorrectedError.
type Permissions interface {
	Ask(ctx context.Context, rules permission.Ruleset, req permission.Request) error
}

// SystemInput is what the system prompt is built from.
type SystemInput struct {
	SessionID string
	Agent     *Agent
	Model     llm.Model
	Directory string
	Worktree  string
	// Tools are the ids of the tools the model is given.
	Tools []string
}

// SystemPrompt builds the system prompt of a step. It must return the same
// text for the same input, so providers can cache it.
type SystemPrompt interface {
	System(ctx context.Context, in SystemInput) ([]string, error)
}

// Reminders add in-memory reminders to a history before it is sent (the
// plan-mode reminder, the plan-to-build switch). They must not change the
// messages they are given; they return a new slice.
type Reminders interface {
	Remind(agent *Agent, history []message.Message) []message.Message
}

// Snapshots records what each step does to the files of the project, so
// the step can be reverted. *snapshot.Store implements it.
type Snapshots interface {
	// Begin opens a checkpoint for a step of the session's message and
	// returns its id.
	Begin(ctx context.Context, worktree, sessionID, messageID string) (string, error)
	// BeforeTool is called before each tool call of the step.
	BeforeTool(ctx context.Context, checkpoint string) error
	// Finish closes the checkpoint and returns what the step changed.
	Finish(ctx context.Context, checkpoint string) (snapshot.Patch, error)
	// Recover closes the checkpoint of a step a killed process left open
	// and returns what its tools changed (the patch again for a step that
	// was closed).
	Recover(ctx context.Context, checkpoint string) (snapshot.Patch, error)
	// Revert restores the files the checkpoints (oldest first) changed.
	Revert(ctx context.Context, sessionID string, checkpoints []string, force bool) (*snapshot.Reverted, error)
	// Unrevert takes back a revert.
	Unrevert(ctx context.Context, sessionID, checkpoint string, force bool) (*snapshot.Reverted, error)
	// Diff returns what the checkpoints changed.
	Diff(ctx context.Context, checkpoints []string) ([]snapshot.FileDiff, error)
}

// Resources reads MCP resources for the user messages that attach them.
type Resources interface {
	// ReadResource reads uri from the MCP server: its text contents,
	// joined, and its binary contents as data: URL attachments.
	ReadResource(ctx context.Context, server, uri string) (text string, blobs []tool.Attachment, err error)
}

// Hooks runs the user's hooks at points of the loop: before and after
// each tool call, when a prompt from the user is submitted, when a turn is
// about to end, before a compaction, when a session starts and ends, and
// when a permission is asked. Run must return once ctx ends, and must not
// fail: a hook that cannot run is reported by Hooks itself and decides
// nothing. *hook.Runner implements it.
type Hooks interface {
	// Has reports whether any hook is defined for event.
	Has(event string) bool
	// Run runs the hooks that match in and combines their decisions.
	Run(ctx context.Context, in hook.Input) hook.Result
}

// Texts the loop sends to models. Their defaults are in DefaultTexts.
type Texts struct {
	// MaxSteps is the assistant-role note added to the last step an agent
	// may take.
	MaxSteps string
	// Title is the system prompt of title generation.
	Title string
	// Compaction is the system prompt of the compaction agent when it has
	// none.
	Compaction string
	// CompactionPrompt is the request that ends the summariser's history:
	// write a summary, or update previous when it is not empty.
	CompactionPrompt func(previous string) string
	// Continue is the message that resumes work after an automatic
	// compaction.
	Continue string
	// Mention is the synthetic text that follows an agent the user
	// mentioned (an agent part), asking the model to hand the request to
	// that sub-agent through the task tool.
	Mention func(agent string) string
}

// DefaultTexts returns the built-in texts.
func DefaultTexts() Texts {
	return Texts{
		MaxSteps: "I have used every step this task allows, so I will not call any more tools. " +
			"I will now reply with text only: a summary of what I did, what is left to do, " +
			"and what I would do next.",
		Title: "You write a title for a conversation between a user and a coding assistant. " +
			"Reply with the title only: one line, at most 50 characters, in the language of the user's " +
			"message, naming the task rather than describing the conversation. No quotes, no trailing period.",
		Compaction: "You condense a coding session into a summary another assistant will continue from. " +
			"Write in the language of the conversation. Keep every fact needed to carry on: exact file paths, " +
			"names, commands, error messages and decisions. Leave out pleasantries and anything already undone.",
		CompactionPrompt: defaultCompactionPrompt,
		Mention: func(agent string) string {
			return "Write a prompt for the " + agent + " agent from the message above and its context, " +
				"then call the task tool with subagent_type " + agent + " and that prompt."
		},
		Continue: "Continue if you have next steps, or stop and ask for clarification if you are unsure how to proceed.",
	}
}

// Config holds the engine's dependencies and settings. Store-backed Sessions,
// Models and Agents are required; the rest have defaults.
type Config struct {
	Sessions *Sessions
	Bus      *bus.Bus
	Models   Models
	Agents   Agents
	Tools    Tools // nil: no tools

	Permissions Permissions  // nil: rules are evaluated and asks rejected
	System      SystemPrompt // nil: the agent's prompt only
	Reminders   Reminders    // nil: none
	Snapshots   Snapshots    // nil: no snapshots
	// Read is the read tool, run on the text files and directories a user
	// message attaches (file: URLs) so the model sees their content; nil
	// stores such file parts as they are.
	Read tool.Tool
	// Secrets are the secret files, whose content a user message's @file
	// or attached file does not send: a note says how to have it read.
	// Nil means tool.DefaultSecretFiles.
	Secrets *tool.SecretFiles
	// Resources reads the MCP resources a user message attaches
	// (@<server>:<uri>); nil leaves a note that they cannot be read.
	Resources Resources
	// Hooks runs the user's hooks; nil runs none.
	Hooks Hooks
	Texts Texts // zero fields take DefaultTexts

	ProjectID string
	Directory string
	Worktree  string

	// Compaction settings; nil pointers take the defaults.
	Compaction Compaction

	// MaxRetries bounds the attempts at one request (default 8).
	MaxRetries int
	// StallTimeout returns how long a provider's stream may send nothing
	// before it is cut and retried: DefaultStallTimeout when nil or when it
	// returns zero, never when it returns a negative duration.
	StallTimeout func(providerID string) time.Duration
	// RetryBase and RetryCap shape the retry delays (2 s doubling, capped
	// at 30 s when the provider gives no delay).
	RetryBase time.Duration
	RetryCap  time.Duration
	// MaxRetryWait is the longest delay a provider may ask a retry to wait
	// (default 5 minutes); when it asks for more, the turn ends with an
	// error that says so.
	MaxRetryWait time.Duration
	// FlushInterval is how long streamed text may stay unsaved (default
	// 50 ms).
	FlushInterval time.Duration
	// ToolResultMedia reports whether a provider accepts media inside tool
	// results; nil means no provider does.
	ToolResultMedia func(providerID string) bool
	// ContinueOnReject keeps the loop going after the user rejects a
	// permission.
	ContinueOnReject bool
	// UserInitiated marks the context of a subtask the user started (a
	// slash command), which the task tool runs without asking; nil leaves
	// the context as it is.
	UserInitiated func(context.Context) context.Context

	Log *slog.Logger
	Now func() time.Time
}

// Compaction are the context-management settings.
type Compaction struct {
	Auto                 *bool
	Prune                *bool
	TailTurns            *int
	PreserveRecentTokens *int
	Reserved             *int
}

func (c *Config) check() error {
	switch {
	case c.Sessions == nil:
		return fmt.Errorf("session engine: no session store")
	case c.Models == nil:
		return fmt.Errorf("session engine: no model resolver")
	case c.Agents == nil:
		return fmt.Errorf("session engine: no agents")
	}
	def := DefaultTexts()
	if c.Texts.MaxSteps == "" {
		c.Texts.MaxSteps = def.MaxSteps
	}
	for _, f := range []struct {
		v *string
		d string
	}{
		{&c.Texts.Title, def.Title}, {&c.Texts.Compaction, def.Compaction},
		{&c.Texts.Continue, def.Continue},
	} {
		if *f.v == "" {
			*f.v = f.d
		}
	}
	if c.Texts.CompactionPrompt == nil {
		c.Texts.CompactionPrompt = def.CompactionPrompt
	}
	if c.Texts.Mention == nil {
		c.Texts.Mention = def.Mention
	}
	if c.MaxRetries <= 0 {
		c.MaxRetries = 8
	}
	if c.RetryBase <= 0 {
		c.RetryBase = 2 * time.Second
	}
	if c.RetryCap <= 0 {
		c.RetryCap = 30 * time.Second
	}
	if c.MaxRetryWait <= 0 {
		c.MaxRetryWait = 5 * time.Minute
	}
	if c.FlushInterval <= 0 {
		c.FlushInterval = 50 * time.Millisecond
	}
	if c.Log == nil {
		c.Log = slog.New(slog.DiscardHandler)
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	if c.Permissions == nil {
		c.Permissions = rulesOnly{}
	}
	return nil
}

// rulesOnly evaluates rules and rejects every ask: there is nobody to ask.
type rulesOnly struct{}

func (rulesOnly) Ask(_ context.Context, rules permission.Ruleset, req permission.Request) error {
	for _, p := range req.Patterns {
		r, ok := permission.Evaluate(req.Permission, p, rules)
		if !ok || r.Action == permission.Ask {
			return &permission.RejectedError{Permission: req.Permission}
		}
		if r.Action == permission.Deny {
			return &permission.DeniedError{Permission: req.Permission, Pattern: p, Rule: r}
		}
	}
	if req.Protected || req.Confirm {
		return &permission.RejectedError{Permission: req.Permission, Reason: "it needs the user's approval: " + req.Reason}
	}
	return nil
}

// StaticAgents serves a fixed set of agents; the first is the default.
type StaticAgents []*Agent

// Agent returns the agent called name, or the first when name is empty.
func (s StaticAgents) Agent(_ context.Context, name string) (*Agent, error) {
	if len(s) == 0 {
		return nil, fmt.Errorf("no agents are defined")
	}
	if name == "" {
		return s[0], nil
	}
	for _, a := range s {
		if a.Name == name {
			return a, nil
		}
	}
	return nil, fmt.Errorf("agent %q is not defined", name)
}

// BuildAgent is the default agent until the agent registry provides one:
// everything allowed except repeated identical calls, which are asked about.
func BuildAgent() *Agent {
	return &Agent{
		Name: "build",
		Mode: "primary",
		Permission: permission.Ruleset{
			{Permission: "*", Pattern: "*", Action: permission.Allow},
			{Permission: "doom_loop", Pattern: "*", Action: permission.Ask},
		},
	}
}

// defaultCompactionPrompt asks for a summary in a fixed outline, or for the
// previous summary to be brought up to date.
func defaultCompactionPrompt(previous string) string {
	const outline = "## Goal\n<what the user wants, in one or two sentences>\n\n" +
		"## Key facts\n<constraints, preferences, decisions and discoveries, one bullet each>\n\n" +
		"## Progress\n### Done\n<bullets>\n### In progress\n<bullets>\n### Blocked\n<bullets, or none>\n\n" +
		"## Next step\n<the single most useful thing to do next>\n\n" +
		"## Files\n<paths that matter, each with why>\n\n" +
		"Rules: keep every heading; use short bullets; copy identifiers, paths and commands exactly; " +
		"do not mention that this is a summary."
	if previous == "" {
		return "Write a summary of the conversation so far, following this outline.\n\n" + outline
	}
	return "Bring the summary below up to date with the conversation since it was written, following " +
		"the same outline. Keep what still holds, change what changed, drop what no longer matters.\n\n" +
		"<previous-summary>\n" + previous + "\n</previous-summary>\n\n" + outline
}

// DefaultStallTimeout is how long a model's stream may stay silent before
// the session cuts it and retries. It is long, because a reasoning model
// may think for minutes before its first token.
const DefaultStallTimeout = 5 * time.Minute

func (e *Engine) stallTimeout(providerID string) time.Duration {
	var d time.Duration
	if e.cfg.StallTimeout != nil {
		d = e.cfg.StallTimeout(providerID)
	}
	switch {
	case d < 0:
		return 0
	case d == 0:
		return DefaultStallTimeout
	}
	return d
}
