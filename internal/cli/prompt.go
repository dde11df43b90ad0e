package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/codeloop/codeloop/internal/app"
	"github.com/codeloop/codeloop/internal/config"
	"github.com/codeloop/codeloop/internal/llm"
	"github.com/codeloop/codeloop/internal/prompt"
	"github.com/codeloop/codeloop/internal/skill"
)

// debugPromptBuiltins returns the prompts of the built-in agents: empty for
// those that run on the provider prompt.
func debugPromptBuiltins() map[string]string {
	return map[string]string{
		"build":      "",
		"plan":       "",
		"general":    "",
		"explore":    prompt.ExploreSystem(),
		"compaction": prompt.CompactionSystem(),
		"title":      prompt.TitleSystem(),
	}
}

// newDebugPromptCmd prints the system prompt a request would carry.
func newDebugPromptCmd(e *env) *cobra.Command {
	var agentName, modelRef string
	cmd := &cobra.Command{
		Use:   "prompt",
		Short: "Print the system prompt codeloop would send",
		Long: "Print the system prompt codeloop would send for an agent and a model in this directory:\n" +
			"the provider or agent prompt, the environment, the instruction files, and the skills.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			cwd, err := os.Getwd()
			if err != nil {
				return err
			}
			loaded, tr, err := app.LoadConfig(ctx, app.Options{Dir: cwd, Dirs: e.dirs, Getenv: e.getenv, Log: e.log})
			if err != nil {
				return err
			}
			cfg := loaded.Config
			// What the model is sent leaves secret files and, in an
			// untrusted project, files outside it out of the instructions.
			secrets, err := app.SecretFiles(cfg.SecretFiles)
			if err != nil {
				fmt.Fprintf(e.stderr, "warning: %v\n", err)
			}
			if modelRef == "" {
				modelRef = cfg.Model
			}
			model, err := debugPromptModel(modelRef)
			if err != nil {
				return err
			}

			agentPrompt, withSkills, err := debugPromptAgent(agentName, cfg)
			if err != nil {
				return err
			}
			in := prompt.Input{Model: model, AgentPrompt: agentPrompt, Date: time.Now()}
			if withSkills {
				set := skill.Discover(skill.Options{
					Home:       e.dirs.Home,
					ConfigDirs: loaded.Dirs,
					Dir:        cwd,
					Worktree:   loaded.Worktree,
					Paths:      cfg.Skills.Paths,
					NoClaude:   debugPromptEnv(e.getenv, "DISABLE_CLAUDE_CODE") || debugPromptEnv(e.getenv, "DISABLE_CLAUDE_CODE_SKILLS"),
					NoExternal: debugPromptEnv(e.getenv, "DISABLE_EXTERNAL_SKILLS"),
					Log:        e.log,
				})
				for _, w := range set.Warnings {
					fmt.Fprintf(e.stderr, "warning: %v\n", w)
				}
				in.Skills = set.ForModel(nil)
			}

			b := prompt.NewBuilder(prompt.Options{
				Dir:          cwd,
				Worktree:     loaded.Worktree,
				Git:          debugPromptExists(filepath.Join(loaded.Worktree, ".git")),
				Home:         e.dirs.Home,
				GlobalFiles:  prompt.DefaultGlobalFiles(e.dirs, e.getenv),
				Instructions: cfg.Instructions,
				NoClaude:     debugPromptEnv(e.getenv, "DISABLE_CLAUDE_CODE") || debugPromptEnv(e.getenv, "DISABLE_CLAUDE_CODE_PROMPT"),
				Log:          e.log,
				Untrusted:    !tr.Verdict.Trusted(),
				Secrets:      secrets,
			})
			blocks, err := b.Build(ctx, in)
			if err != nil {
				return err
			}
			for i, block := range blocks {
				fmt.Fprintf(e.stdout, "-- system[%d]: %d characters, about %d tokens --\n%s\n\n", i, len(block), len(block)/4, block)
			}
			if agentName == "plan" {
				fmt.Fprintf(e.stdout, "-- reminder added to the last user message --\n%s\n", prompt.PlanReminder())
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&agentName, "agent", "build", "agent whose prompt to show")
	cmd.Flags().StringVarP(&modelRef, "model", "m", "", "model as provider/model (default: the config's model)")
	return cmd
}

// debugPromptAgent returns the prompt of the named agent (empty for the
// provider prompt) and whether the agent may load skills.
func debugPromptAgent(name string, cfg *config.Config) (string, bool, error) {
	builtins := debugPromptBuiltins()
	text, builtin := builtins[name]
	withSkills := name != "explore" && name != "compaction" && name != "title"
	if a, ok := cfg.Agent[name]; ok {
		if a.Prompt != "" {
			text = a.Prompt
		}
		return text, withSkills, nil
	}
	if a, ok := cfg.Mode[name]; ok {
		if a.Prompt != "" {
			text = a.Prompt
		}
		return text, withSkills, nil
	}
	if builtin {
		return text, withSkills, nil
	}
	names := make([]string, 0, len(builtins)+len(cfg.Agent))
	for n := range builtins {
		names = append(names, n)
	}
	for n := range cfg.Agent {
		names = append(names, n)
	}
	slices.Sort(names)
	return "", false, fmt.Errorf("no agent named %q; agents: %s", name, strings.Join(slices.Compact(names), ", "))
}

// debugPromptModel splits "provider/model" at the first slash.
func debugPromptModel(ref string) (llm.Model, error) {
	if ref == "" {
		return llm.Model{}, fmt.Errorf("no model: pass --model provider/model or set \"model\" in the config")
	}
	provider, id, ok := strings.Cut(ref, "/")
	if !ok || provider == "" || id == "" {
		return llm.Model{}, fmt.Errorf("model %q: want provider/model, such as anthropic/claude-sonnet-4-5", ref)
	}
	return llm.Model{ProviderID: provider, ID: id, Name: id}, nil
}

// debugPromptEnv reports whether CODELOOP_<name> or OPENCODE_<name> is set
// to a true value.
func debugPromptEnv(getenv func(string) string, name string) bool {
	for _, prefix := range []string{"CODELOOP_", "OPENCODE_"} {
		switch strings.ToLower(getenv(prefix + name)) {
		case "1", "true", "yes", "on":
			return true
		}
	}
	return false
}

func debugPromptExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
