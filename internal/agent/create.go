package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/codeloop/codeloop/internal/frontmatter"
	"github.com/codeloop/codeloop/internal/llm"
)

// CreatableTools are the tools an agent file written by Create may allow or
// deny by name.
var CreatableTools = []string{"bash", "read", "edit", "glob", "grep", "webfetch", "task", "todowrite", "websearch", "lsp", "skill"}

// Draft is a drafted agent: its name, when to use it, and its prompt.
type Draft struct {
	Name        string `json:"identifier"`
	Description string `json:"whenToUse"`
	Prompt      string `json:"systemPrompt"`
}

// DraftRequest asks for a draft of an agent that does what Request says,
// named none of Taken.
type DraftRequest struct {
	Request string
	Taken   []string
	// Model is "provider/model" when the user chose one.
	Model string
}

// Drafter drafts an agent, usually by asking a model.
type Drafter func(ctx context.Context, req DraftRequest) (Draft, error)

// CreateOptions describe the agent file Create writes.
type CreateOptions struct {
	// Dir is the directory the file is written to (created if needed).
	Dir string
	// Name is the agent's name; empty takes the draft's, or one made from
	// Description.
	Name string
	// Description says what the agent does; it is the request given to
	// Draft, and the agent's description when there is no draft.
	Description string
	Mode        Mode
	// Model is "provider/model", written into the file when set.
	Model string
	// Tools, when not nil, are the only tools of CreatableTools the agent
	// may use; the others are denied.
	Tools []string
	// Taken are the names already in use.
	Taken []string
	// Draft, when set, drafts the description and prompt.
	Draft Drafter
}

var nameRE = regexp.MustCompile(`^[a-z0-9][a-z0-9-]*$`)

// Create writes a new agent file and returns its path. It refuses names
// already taken and files that exist.
func Create(ctx context.Context, o CreateOptions) (string, error) {
	if strings.TrimSpace(o.Description) == "" {
		return "", errors.New("describe what the agent should do")
	}
	if o.Mode == "" {
		o.Mode = ModeAll
	}
	if !o.Mode.Valid() {
		return "", fmt.Errorf("mode %q is not one of primary, subagent, all", o.Mode)
	}
	for _, t := range o.Tools {
		if !slices.Contains(CreatableTools, t) {
			return "", fmt.Errorf("unknown tool %q; choose from %s", t, strings.Join(CreatableTools, ", "))
		}
	}
	d := Draft{Description: strings.TrimSpace(o.Description)}
	if o.Draft != nil {
		got, err := o.Draft(ctx, DraftRequest{Request: o.Description, Taken: o.Taken, Model: o.Model})
		if err != nil {
			return "", fmt.Errorf("drafting the agent: %w", err)
		}
		d = got
		if d.Description == "" {
			d.Description = strings.TrimSpace(o.Description)
		}
	}
	name := o.Name
	if name == "" {
		name = d.Name
	}
	if name == "" {
		name = slug(o.Description)
	}
	if !nameRE.MatchString(name) {
		return "", fmt.Errorf("agent name %q: use lowercase letters, digits and hyphens", name)
	}
	if slices.Contains(o.Taken, name) {
		return "", fmt.Errorf("an agent called %q already exists", name)
	}
	if d.Prompt == "" {
		d.Prompt = fmt.Sprintf("You are %s, an agent working in this project.\n\n%s\n\n"+
			"Work carefully and check your results before you report them. When the request is unclear, say what is missing instead of guessing.",
			name, strings.TrimSpace(o.Description))
	}

	front := struct {
		Description string            `yaml:"description"`
		Mode        Mode              `yaml:"mode"`
		Model       string            `yaml:"model,omitempty"`
		Permission  map[string]string `yaml:"permission,omitempty"`
	}{Description: d.Description, Mode: o.Mode, Model: o.Model}
	if o.Tools != nil {
		front.Permission = map[string]string{}
		for _, t := range CreatableTools {
			if !slices.Contains(o.Tools, t) {
				front.Permission[t] = "deny"
			}
		}
	}
	fm, err := yaml.Marshal(front)
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(o.Dir, 0o755); err != nil {
		return "", err
	}
	p := filepath.Join(o.Dir, name+".md")
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		if errors.Is(err, os.ErrExist) {
			return "", fmt.Errorf("%s already exists", p)
		}
		return "", err
	}
	_, err = f.Write(frontmatter.Join(fm, []byte(strings.TrimSpace(d.Prompt)+"\n")))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return "", err
	}
	return p, nil
}

// slug makes an agent name from the first words of a description.
func slug(s string) string {
	var words []string
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9')
	}) {
		words = append(words, w)
		if len(words) == 3 {
			break
		}
	}
	return strings.Join(words, "-")
}

// ModelDrafter returns a Drafter that asks the model modelID of provider p
// to draft the agent, with PromptGenerate as its system prompt.
func ModelDrafter(p llm.Provider, modelID string) Drafter {
	return func(ctx context.Context, req DraftRequest) (Draft, error) {
		taken := "none"
		if len(req.Taken) > 0 {
			taken = strings.Join(req.Taken, ", ")
		}
		temp := 0.3
		r := &llm.Request{
			Model:  modelID,
			System: []string{strings.TrimSpace(PromptGenerate)},
			Messages: []llm.Message{{Role: llm.RoleUser, Parts: []llm.Part{{Type: llm.PartText, Text: fmt.Sprintf(
				"Create an agent configuration for this request: %q.\n\nThese identifiers are taken and must not be used: %s.\n\nReply with the JSON object only.",
				req.Request, taken)}}}},
			Options: llm.Options{Temperature: &temp},
		}
		var b strings.Builder
		for ev := range p.Stream(ctx, r) {
			switch ev.Type {
			case llm.EventTextDelta:
				b.WriteString(ev.Text)
			case llm.EventError:
				if ev.Err != nil {
					return Draft{}, ev.Err
				}
				return Draft{}, errors.New("the model failed without saying why")
			}
		}
		if err := ctx.Err(); err != nil {
			return Draft{}, err
		}
		return parseDraft(b.String())
	}
}

// parseDraft reads the model's JSON answer, tolerating a code fence or prose
// around the object.
func parseDraft(s string) (Draft, error) {
	start, end := strings.Index(s, "{"), strings.LastIndex(s, "}")
	if start < 0 || end < start {
		return Draft{}, fmt.Errorf("the model's answer holds no JSON object: %.200q", s)
	}
	var raw map[string]any
	if err := json.Unmarshal([]byte(s[start:end+1]), &raw); err != nil {
		return Draft{}, fmt.Errorf("the model's answer is not valid JSON: %w", err)
	}
	str := func(k string) string { v, _ := raw[k].(string); return strings.TrimSpace(v) }
	d := Draft{Name: str("identifier"), Description: str("whenToUse"), Prompt: str("systemPrompt")}
	if d.Prompt == "" {
		return Draft{}, fmt.Errorf("the model's answer has no systemPrompt (keys: %s)", strings.Join(slices.Sorted(maps.Keys(raw)), ", "))
	}
	return d, nil
}
