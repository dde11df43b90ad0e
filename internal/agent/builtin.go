package agent

import (
	"embed"
	"path/filepath"

	"github.com/codeloop/codeloop/internal/permission"
	"github.com/codeloop/codeloop/internal/prompt"
)

//go:embed text/*.txt
var texts embed.FS

// text returns an embedded text by base name.
func text(name string) string {
	b, err := texts.ReadFile("text/" + name + ".txt")
	if err != nil {
		panic("agent: missing embedded text " + name)
	}
	return string(b)
}

// Prompts of the built-in agents that have their own (the texts shared
// with the session loop live in the prompt package), and of agent
// generation.
var (
	PromptExplore    = prompt.ExploreSystem()
	PromptCompaction = prompt.CompactionSystem()
	PromptTitle      = prompt.TitleSystem()
	PromptSummary    = text("summary")
	PromptGenerate   = text("generate")
)

// Names of the built-in agents.
const (
	Build      = "build"
	Plan       = "plan"
	General    = "general"
	Explore    = "explore"
	Compaction = "compaction"
	Title      = "title"
	Summary    = "summary"
)

// PlanDirs are the project directories, relative to the worktree, where the
// plan agent may write Markdown plans.
var PlanDirs = []string{filepath.Join(".codeloop", "plans"), filepath.Join(".opencode", "plans")}

// rules builds a ruleset from (permission, pattern, action) triples.
func rules(triples ...string) permission.Ruleset {
	rs := make(permission.Ruleset, 0, len(triples)/3)
	for i := 0; i+2 < len(triples); i += 3 {
		rs = append(rs, permission.Rule{Permission: triples[i], Pattern: triples[i+1], Action: permission.Action(triples[i+2])})
	}
	return rs
}

// builtin describes one built-in agent: its fixed settings, the rules it
// adds on top of the defaults (before the user's rules, which may relax
// them), and the rules it enforces after the user's rules (which only its
// own agent config can relax).
type builtin struct {
	agent Agent
	rules permission.Ruleset
	lock  permission.Ruleset
}

// builtins returns the built-in agents in their canonical order. worktree
// is the project root and plansData the directory outside the project where
// plans may also be kept; external lists the directories outside the
// project the defaults already allow (tool output, skills), which explore
// keeps allowed.
func builtins(worktree, plansData string, external []string) []builtin {
	planEdit := rules("edit", "*", "deny")
	for _, d := range PlanDirs {
		planEdit = append(planEdit, rules("edit", filepath.Join(d, "*.md"), "allow")...)
	}
	if plansData != "" {
		if rel, err := filepath.Rel(worktree, filepath.Join(plansData, "*.md")); err == nil && worktree != "" {
			planEdit = append(planEdit, rules("edit", rel, "allow")...)
		}
		planEdit = append(planEdit, rules("edit", filepath.Join(plansData, "*.md"), "allow")...)
	}
	plan := rules("question", "*", "allow", "plan_exit", "*", "allow", "task", General, "deny")
	if plansData != "" {
		plan = append(plan, rules("external_directory", filepath.Join(plansData, "*"), "allow")...)
	}
	plan = append(plan, planEdit...)

	explore := rules(
		"*", "*", "deny",
		"grep", "*", "allow",
		"glob", "*", "allow",
		"list", "*", "allow",
		"bash", "*", "allow",
		"webfetch", "*", "allow",
		"websearch", "*", "allow",
		"codesearch", "*", "allow",
		"lsp", "*", "allow", // read-only code navigation
		"read", "*", "allow",
		"read", "*.env", "ask",
		"read", "*.env.*", "ask",
		"read", "*.env.example", "allow",
		"doom_loop", "*", "ask",
		"external_directory", "*", "ask",
	)
	for _, d := range external {
		explore = append(explore, rules("external_directory", filepath.Join(d, "*"), "allow")...)
	}
	denyAll := rules("*", "*", "deny")

	return []builtin{
		{
			agent: Agent{Name: Build, Mode: ModePrimary,
				Description: "The default agent. Reads, writes and runs commands as far as the configured permissions allow."},
			rules: rules("question", "*", "allow", "plan_enter", "*", "allow"),
		},
		{
			agent: Agent{Name: Plan, Mode: ModePrimary,
				Description: "Plan mode. Investigates and plans without changing the project; it may only write Markdown plans under .codeloop/plans/."},
			rules: plan,
			lock:  planEdit,
		},
		{
			agent: Agent{Name: General, Mode: ModeSubagent, Description: prompt.GeneralDescription()},
			rules: rules("todowrite", "*", "deny"),
		},
		{
			agent: Agent{Name: Explore, Mode: ModeSubagent, Prompt: PromptExplore, Description: prompt.ExploreDescription()},
			rules: explore,
			lock:  rules("edit", "*", "deny", "todowrite", "*", "deny"),
		},
		{
			agent: Agent{Name: Compaction, Mode: ModePrimary, Hidden: true, Prompt: PromptCompaction,
				Description: "Summarises the conversation when the context window fills up."},
			rules: denyAll,
			lock:  denyAll,
		},
		{
			agent: Agent{Name: Title, Mode: ModePrimary, Hidden: true, Prompt: PromptTitle, Temperature: ptr(0.5),
				Description: "Writes a short title for a new session."},
			rules: denyAll,
			lock:  denyAll,
		},
		{
			agent: Agent{Name: Summary, Mode: ModePrimary, Hidden: true, Prompt: PromptSummary,
				Description: "Summarises the changes made in a session."},
			rules: denyAll,
			lock:  denyAll,
		},
	}
}

func ptr[T any](v T) *T { return &v }
