package prompt

import (
	_ "embed"
	"strings"

	"github.com/codeloop/codeloop/internal/llm"
)

// The prompt texts, one file each under text/.
var (
	//go:embed text/anthropic.txt
	anthropicText string
	//go:embed text/openai.txt
	openaiText string
	//go:embed text/openai_classic.txt
	openaiClassicText string
	//go:embed text/gemini.txt
	geminiText string
	//go:embed text/default.txt
	defaultText string

	//go:embed text/plan.txt
	planText string
	//go:embed text/build_switch.txt
	buildSwitchText string
	//go:embed text/max_steps.txt
	maxStepsText string

	//go:embed text/compaction.txt
	compactionText string
	//go:embed text/compaction_create.txt
	compactionCreateText string
	//go:embed text/compaction_update.txt
	compactionUpdateText string
	//go:embed text/compaction_template.txt
	compactionTemplateText string
	//go:embed text/compaction_continue.txt
	compactionContinueText string

	//go:embed text/title.txt
	titleText string
	//go:embed text/explore.txt
	exploreText string
	//go:embed text/explore_description.txt
	exploreDescriptionText string
	//go:embed text/general_description.txt
	generalDescriptionText string

	//go:embed text/skills.txt
	skillsText string
	//go:embed text/mcp.txt
	mcpText string
	//go:embed text/env.txt
	envText string
)

func trim(s string) string { return strings.TrimSpace(s) }

// Family is a group of models that share a provider prompt.
type Family string

// The model families with a provider prompt of their own.
const (
	Anthropic Family = "anthropic"
	// OpenAI is GPT-5 and later, and the Codex models.
	OpenAI Family = "openai"
	// OpenAIClassic is the GPT models before GPT-5 (GPT-4o, GPT-4.1, ...),
	// the o-series reasoning models and gpt-oss.
	OpenAIClassic Family = "openai-classic"
	Gemini        Family = "gemini"
	Default       Family = "default"
)

// FamilyOf picks the provider prompt for a model from its id, compared
// without regard to case; when the id says nothing, the model's family
// from the catalog is tried the same way:
//
//   - "claude" anywhere: Anthropic
//   - "gemini" anywhere: Gemini
//   - "codex" anywhere, or "gpt" followed by a version of 5 or more
//     (gpt-5, gpt-5.1-mini, openai/gpt-6): OpenAI
//   - any other "gpt" (gpt-4o, gpt-4.1, gpt-oss-120b), or a last path
//     segment that starts with "o" and a digit (o1, o3-mini,
//     openai/o4-mini): OpenAIClassic
//   - anything else: Default
//
// Ids are matched rather than provider ids, so a Claude model reached
// through OpenRouter or Bedrock gets the Anthropic prompt.
func FamilyOf(m llm.Model) Family {
	for _, s := range []string{m.ID, m.Family} {
		id := strings.ToLower(s)
		last := id[strings.LastIndexByte(id, '/')+1:]
		switch {
		case strings.Contains(id, "claude"):
			return Anthropic
		case strings.Contains(id, "gemini"):
			return Gemini
		case strings.Contains(id, "codex"), gptVersion(id) >= 5:
			return OpenAI
		case strings.Contains(id, "gpt"),
			len(last) >= 2 && last[0] == 'o' && last[1] >= '0' && last[1] <= '9':
			return OpenAIClassic
		}
	}
	return Default
}

// gptVersion returns the major version in the first "gpt-N", "gpt_N" or
// "gptN" of id, or -1 when there is none.
func gptVersion(id string) int {
	for rest := id; ; {
		i := strings.Index(rest, "gpt")
		if i < 0 {
			return -1
		}
		rest = rest[i+len("gpt"):]
		digits := strings.TrimLeft(rest, "-_")
		n, ok := 0, false
		for len(digits) > 0 && digits[0] >= '0' && digits[0] <= '9' && n < 1000 {
			n, ok = n*10+int(digits[0]-'0'), true
			digits = digits[1:]
		}
		if ok {
			return n
		}
	}
}

// ProviderPrompt returns the provider prompt for the model: the main
// instructions an agent without a prompt of its own runs with.
func ProviderPrompt(m llm.Model) string {
	switch FamilyOf(m) {
	case Anthropic:
		return trim(anthropicText)
	case OpenAI:
		return trim(openaiText)
	case OpenAIClassic:
		return trim(openaiClassicText)
	case Gemini:
		return trim(geminiText)
	}
	return trim(defaultText)
}

// PlanReminder is appended, in memory only, to the last user message while
// the plan agent runs: it keeps the model read-only and asks for a plan.
func PlanReminder() string { return trim(planText) }

// BuildSwitchReminder is appended, in memory only, to the last user message
// when the build agent runs in a session where the plan agent ran before.
func BuildSwitchReminder() string { return trim(buildSwitchText) }

// MaxSteps is sent on an agent's last allowed step, when tools are
// withdrawn, to make the model wrap up in text.
func MaxSteps() string { return trim(maxStepsText) }

// CompactionSystem is the system prompt of the hidden compaction agent.
func CompactionSystem() string { return trim(compactionText) }

// CompactionPrompt is the request that closes the messages sent to the
// compaction agent: write a summary into the fixed template (Objective,
// Important Details, Work State with Completed, Active and Blocked, Next
// Move, Relevant Files), or, when previous holds the summary of an earlier
// compaction, update that summary.
func CompactionPrompt(previous string) string {
	previous = strings.TrimSpace(previous)
	if previous == "" {
		return trim(compactionCreateText) + "\n\n" + trim(compactionTemplateText)
	}
	return trim(compactionUpdateText) + "\n\n<previous-summary>\n" + previous + "\n</previous-summary>\n\n" +
		trim(compactionTemplateText)
}

// CompactionTemplate is the bare summary template, for checking a
// summary's shape.
func CompactionTemplate() string { return trim(compactionTemplateText) }

// CompactionContinue is the synthetic user message that lets the loop go
// on by itself after an automatic compaction.
func CompactionContinue() string { return trim(compactionContinueText) }

// TitleSystem is the system prompt of the hidden title agent.
func TitleSystem() string { return trim(titleText) }

// ExploreSystem is the system prompt of the explore subagent.
func ExploreSystem() string { return trim(exploreText) }

// ExploreDescription tells a calling agent when to use the explore
// subagent.
func ExploreDescription() string { return trim(exploreDescriptionText) }

// GeneralDescription tells a calling agent when to use the general
// subagent.
func GeneralDescription() string { return trim(generalDescriptionText) }
