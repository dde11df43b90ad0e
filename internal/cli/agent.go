package cli

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/codeloop/codeloop/internal/agent"
	"github.com/codeloop/codeloop/internal/config"
	"github.com/codeloop/codeloop/internal/llm"
	"github.com/codeloop/codeloop/internal/provider"
)

// drafterFor returns the drafter "agent create" uses with the model
// "provider/model" (empty: the default model) and the model it drafts
// with, or a nil drafter when no model can be used.
type drafterFor func(ctx context.Context, cfg *config.Config, model string) (agent.Drafter, string, error)

// newAgentCmd is "codeloop agent": list and create agents.
func newAgentCmd(e *env) *cobra.Command { return agentCmd(e, e.modelDrafter) }

// modelDrafter drafts agents with a model of the provider registry: model,
// or the default model when model is empty. It returns a nil drafter and
// the reason when the model cannot be used.
func (e *env) modelDrafter(ctx context.Context, cfg *config.Config, model string) (agent.Drafter, string, error) {
	reg := provider.New(provider.Options{Config: cfg, Dirs: e.dirs, Getenv: e.getenv, UserAgent: "codeloop/" + Version, Log: e.log})
	if model == "" {
		def, err := reg.Default(ctx)
		if err != nil {
			return nil, "", err
		}
		model = def
	}
	p, m, err := reg.Resolve(ctx, model)
	if err != nil {
		return nil, model, err
	}
	params, err := reg.Params(ctx, model, "")
	if err != nil {
		return nil, model, err
	}
	return agent.ModelDrafter(withParams{Provider: p, params: params}, m.ID), model, nil
}

// withParams fills in the model's request defaults (output limit, provider
// options, headers) that a request leaves unset.
type withParams struct {
	llm.Provider
	params llm.Options
}

func (w withParams) Stream(ctx context.Context, req *llm.Request) iter.Seq[llm.Event] {
	r := *req
	if r.Options.MaxOutputTokens == 0 {
		r.Options.MaxOutputTokens = w.params.MaxOutputTokens
	}
	if r.Options.ProviderOptions == nil {
		r.Options.ProviderOptions = w.params.ProviderOptions
	}
	if r.Options.Headers == nil {
		r.Options.Headers = w.params.Headers
	}
	return w.Provider.Stream(ctx, &r)
}

func agentCmd(e *env, draft drafterFor) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "agent",
		Short: "List and create agents",
		Args:  cobra.NoArgs,
	}
	cmd.AddCommand(agentListCmd(e), agentCreateCmd(e, draft))
	return cmd
}

// loadAgents reads the config of the working directory and builds its
// agents; problems that did not stop the loading go to standard error.
func loadAgents(ctx context.Context, e *env) (*config.Loaded, *agent.Registry, string, error) {
	cwd, err := os.Getwd()
	if err != nil {
		return nil, nil, "", err
	}
	loaded, err := e.loadConfig(ctx, cwd)
	if err != nil {
		return nil, nil, "", err
	}
	reg, err := agent.Load(ctx, agent.Options{
		Config: loaded.Config, ConfigDirs: loaded.Dirs, Worktree: loaded.Worktree, Cwd: cwd,
		Dirs: e.dirs, NoClaudeCode: claudeCodeDisabled(e.getenv),
	})
	if err != nil {
		return nil, nil, "", err
	}
	for _, w := range reg.Warnings() {
		fmt.Fprintf(e.stderr, "warning: %v\n", w)
	}
	return loaded, reg, cwd, nil
}

// claudeCodeDisabled reports whether CODELOOP_DISABLE_CLAUDE_CODE or
// OPENCODE_DISABLE_CLAUDE_CODE is set to a true value.
func claudeCodeDisabled(getenv func(string) string) bool {
	for _, name := range []string{"CODELOOP_DISABLE_CLAUDE_CODE", "OPENCODE_DISABLE_CLAUDE_CODE"} {
		switch strings.ToLower(getenv(name)) {
		case "1", "true", "yes", "on":
			return true
		}
	}
	return false
}

func agentListCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:   "list",
		Short: "List the agents, the default first",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			_, reg, _, err := loadAgents(cmd.Context(), e)
			if err != nil {
				return err
			}
			w := tabwriter.NewWriter(e.stdout, 0, 0, 2, ' ', 0)
			fmt.Fprintln(w, "NAME\tMODE\tDESCRIPTION")
			def := reg.Default().Name
			for _, a := range reg.List() {
				mode := string(a.Mode)
				if a.Name == def {
					mode += ", default"
				}
				if a.Hidden {
					mode += ", hidden"
				}
				fmt.Fprintf(w, "%s\t%s\t%s\n", a.Name, mode, agentSummary(a.Description, 100))
			}
			return w.Flush()
		},
	}
}

// agentSummary returns the first line of s, cut to n characters.
func agentSummary(s string, n int) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

func agentCreateCmd(e *env, draft drafterFor) *cobra.Command {
	var (
		dir, description, mode, tools, model, name string
		global                                     bool
	)
	cmd := &cobra.Command{
		Use:   "create",
		Short: "Write a new agent file",
		Long: "Write a new Markdown agent file. The description says what the agent should do; when a model is\n" +
			"configured, the model drafts the agent's name, description and prompt from it.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			// Bad flags are refused before anything is loaded or drafted.
			if strings.TrimSpace(description) == "" {
				return &exitCodeError{code: exitUsage, err: errors.New("--description: say what the agent should do")}
			}
			if !agent.Mode(mode).Valid() {
				return &exitCodeError{code: exitUsage, err: fmt.Errorf("--mode %q: want all, primary or subagent", mode)}
			}
			var toolList []string
			if tools != "" {
				toolList = []string{}
				for _, t := range strings.Split(tools, ",") {
					if t = strings.ToLower(strings.TrimSpace(t)); t == "" {
						continue
					}
					if !slices.Contains(agent.CreatableTools, t) {
						return &exitCodeError{code: exitUsage, err: fmt.Errorf("--tools: unknown tool %q; choose from %s",
							t, strings.Join(agent.CreatableTools, ", "))}
					}
					toolList = append(toolList, t)
				}
			}
			loaded, reg, _, err := loadAgents(cmd.Context(), e)
			if err != nil {
				return err
			}
			if dir == "" {
				dir = filepath.Join(loaded.Worktree, ".codeloop", "agents")
				if global {
					dir = filepath.Join(e.dirs.Config, "agents")
				}
			}
			o := agent.CreateOptions{Dir: dir, Name: name, Description: description, Mode: agent.Mode(mode), Model: model, Tools: toolList}
			for _, a := range reg.List() {
				o.Taken = append(o.Taken, a.Name)
			}
			if draft != nil {
				// The model drafts the prompt when one can be used; otherwise
				// the file gets a template prompt to edit.
				d, used, err := draft(cmd.Context(), loaded.Config, model)
				switch {
				case err != nil && used != "":
					fmt.Fprintf(e.stderr, "Not drafting with %s (%v); writing a template prompt.\n", used, err)
				case err != nil || d == nil:
					fmt.Fprintln(e.stderr, "No model is available to draft the agent; writing a template prompt (see codeloop models).")
				default:
					fmt.Fprintf(e.stderr, "Drafting the agent with %s…\n", used)
					o.Draft = d
				}
			}
			p, err := agent.Create(cmd.Context(), o)
			if err != nil {
				return err
			}
			fmt.Fprintf(e.stdout, "Created %s\n", p)
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&dir, "path", "", "directory to write the agent file in (default: .codeloop/agents in the project)")
	f.BoolVar(&global, "global", false, "write the agent into the global config directory")
	f.StringVar(&description, "description", "", "what the agent should do (required)")
	f.StringVar(&mode, "mode", string(agent.ModeAll), "where the agent runs: all, primary or subagent")
	f.StringVar(&tools, "tools", "", "comma-separated tools the agent may use, from: "+strings.Join(agent.CreatableTools, ", ")+" (default: all)")
	f.StringVarP(&model, "model", "m", "", "the agent's model as provider/model (also drafts its prompt)")
	f.StringVar(&name, "name", "", "the agent's name (default: drafted, or made from the description)")
	_ = cmd.MarkFlagRequired("description")
	return cmd
}
