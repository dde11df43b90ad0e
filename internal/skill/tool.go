package skill

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"path/filepath"
	"sort"
	"strings"

	"github.com/codeloop/codeloop/internal/permission"
	"github.com/codeloop/codeloop/internal/tool"
)

// ToolID is the id of the skill tool, and the permission it asks for.
const ToolID = "skill"

// maxFiles is how many files of a skill's directory the tool lists.
const maxFiles = 10

//go:embed tool.txt
var toolDescription string

// Tool is the skill tool: it loads a skill's instructions into the
// conversation.
type Tool struct {
	set *Set
}

// NewTool returns the skill tool over set.
func NewTool(set *Set) *Tool { return &Tool{set: set} }

// ID returns "skill".
func (t *Tool) ID() string { return ToolID }

// Traits say the skill tool reads a skill's instructions and changes
// nothing.
func (t *Tool) Traits() tool.Traits { return tool.Traits{Kind: tool.KindRead, Contained: true} }

// Touches returns nil: a skill is named, not a path.
func (t *Tool) Touches(json.RawMessage, string) []tool.Touch { return nil }

// Summary is the name of the skill a call loads.
func (t *Tool) Summary(input json.RawMessage, _ string) string {
	var in struct {
		Name string `json:"name"`
	}
	_ = json.Unmarshal(input, &in)
	return in.Name
}

// Description explains the tool and lists the skills the model may load.
func (t *Tool) Description() string {
	skills := t.set.ForModel(nil)
	if len(skills) == 0 {
		return "Loads a skill, a set of instructions for one kind of task. No skills are installed, so there is nothing to load."
	}
	var b strings.Builder
	b.WriteString(strings.TrimSpace(toolDescription))
	b.WriteString("\n\n")
	b.WriteString(Listing(skills))
	return b.String()
}

// Listing formats skills as the <available_skills> list the model reads,
// with each skill's name, description and location.
func Listing(skills []Skill) string {
	var b strings.Builder
	b.WriteString("<available_skills>\n")
	for _, sk := range skills {
		b.WriteString("  <skill>\n")
		fmt.Fprintf(&b, "    <name>%s</name>\n", xmlEscape(sk.Name))
		fmt.Fprintf(&b, "    <description>%s</description>\n", xmlEscape(sk.Description))
		fmt.Fprintf(&b, "    <location>%s</location>\n", xmlEscape(fileURL(sk.Location)))
		b.WriteString("  </skill>\n")
	}
	b.WriteString("</available_skills>")
	return b.String()
}

const schema = `{
  "type": "object",
  "properties": {
    "name": {
      "type": "string",
      "description": "The name of the skill to load, exactly as listed in <available_skills>."
    }
  },
  "required": ["name"],
  "additionalProperties": false
}`

// Schema returns the JSON Schema of the tool's single argument, name.
func (t *Tool) Schema() json.RawMessage { return json.RawMessage(schema) }

// NotFoundError reports a request for a skill that does not exist or that
// the model may not load.
type NotFoundError struct {
	Name      string
	Available []string
}

func (e *NotFoundError) Error() string {
	if len(e.Available) == 0 {
		return fmt.Sprintf("there is no skill named %q, and no skills are available", e.Name)
	}
	return fmt.Sprintf("there is no skill named %q; available skills: %s", e.Name, strings.Join(e.Available, ", "))
}

// Run loads the named skill after asking permission "skill" for its name.
func (t *Tool) Run(ctx context.Context, call *tool.Call) (*tool.Result, error) {
	var args struct {
		Name string `json:"name"`
	}
	if err := json.Unmarshal(call.Input, &args); err != nil {
		return nil, fmt.Errorf("the skill tool's arguments are not a JSON object with a name: %w", err)
	}
	name := strings.TrimSpace(args.Name)
	sk, ok := t.set.Get(name)
	if !ok || !sk.ModelInvocable {
		var avail []string
		for _, s := range t.set.ForModel(nil) {
			avail = append(avail, s.Name)
		}
		return nil, &NotFoundError{Name: name, Available: avail}
	}
	err := call.Ask(ctx, permission.Request{
		Permission: ToolID,
		Patterns:   []string{sk.Name},
		Always:     []string{sk.Name},
		Metadata:   map[string]any{"name": sk.Name, "location": sk.Location},
	})
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	files := siblingFiles(sk.Dir, sk.Location, maxFiles)
	return &tool.Result{
		Title:  "Loaded skill " + sk.Name,
		Output: Content(sk, files),
		Metadata: map[string]any{
			"name": sk.Name,
			"dir":  sk.Dir,
		},
	}, nil
}

// Content formats a loaded skill for the model: its body, its base
// directory and files, in a <skill_content> block.
func Content(sk Skill, files []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "<skill_content name=%q>\n", sk.Name)
	fmt.Fprintf(&b, "# Skill: %s\n\n", sk.Name)
	b.WriteString(sk.Content)
	b.WriteString("\n\n")
	fmt.Fprintf(&b, "Base directory of this skill: %s\n", fileURL(sk.Dir))
	b.WriteString("Paths the skill mentions (scripts/, references/ and the like) are relative to that directory.\n")
	if len(files) > 0 {
		if len(files) >= maxFiles {
			b.WriteString("The list below is a sample of the directory's files, not all of them.\n")
		}
		b.WriteString("\n<skill_files>\n")
		for _, f := range files {
			fmt.Fprintf(&b, "<file>%s</file>\n", xmlEscape(f))
		}
		b.WriteString("</skill_files>\n")
	}
	b.WriteString("</skill_content>")
	return b.String()
}

// siblingFiles returns up to limit files under dir other than skip, as
// absolute paths in lexical walk order; hidden files and directories are
// left out.
func siblingFiles(dir, skip string, limit int) []string {
	var out []string
	stop := errors.New("enough files")
	_ = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if path != dir && strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() || path == skip {
			return nil
		}
		out = append(out, path)
		if len(out) >= limit {
			return stop
		}
		return nil
	})
	sort.Strings(out)
	return out
}

func fileURL(path string) string {
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(path)}).String()
}

var xmlReplacer = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;")

func xmlEscape(s string) string { return xmlReplacer.Replace(s) }
