// Package skill finds skills — SKILL.md files holding instructions the model
// loads on demand — and provides the skill tool that loads them.
//
// It may import frontmatter, tool and permission; the prompt builder, the
// agents, the commands and the app import it.
package skill

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/codeloop/codeloop/internal/frontmatter"
	"github.com/codeloop/codeloop/internal/paths"
)

// FileName is the name of the file that defines a skill.
const FileName = "SKILL.md"

// maxDescription caps a description in listings, as Claude Code does.
const maxDescription = 1536

// Skill is one skill.
type Skill struct {
	// Name is how the model and the user invoke the skill: the frontmatter
	// name, or the directory name when the frontmatter has none.
	Name        string
	Description string
	// Location is the absolute path of the SKILL.md file and Dir the
	// directory holding it, the base of the skill's relative paths.
	Location string
	Dir      string
	// Content is the body of SKILL.md, without the frontmatter.
	Content string
	// ArgumentHint describes the arguments when the skill is run as a
	// slash command.
	ArgumentHint string
	// ModelInvocable is false when the frontmatter sets
	// disable-model-invocation: the skill is then only a slash command.
	ModelInvocable bool
	// UserInvocable is false when the frontmatter sets user-invocable:
	// false: the skill is then not a slash command.
	UserInvocable bool
}

// meta is the frontmatter of a SKILL.md. Fields beyond name and description
// are Claude Code's; the rest of its fields are accepted and ignored.
type meta struct {
	Name                   string `yaml:"name"`
	Description            string `yaml:"description"`
	WhenToUse              string `yaml:"when_to_use"`
	ArgumentHint           string `yaml:"argument-hint"`
	DisableModelInvocation bool   `yaml:"disable-model-invocation"`
	UserInvocable          *bool  `yaml:"user-invocable"`
}

// Warning reports a SKILL.md that was skipped or that overrides another.
type Warning struct {
	Path string
	Err  error
}

func (w *Warning) Error() string { return w.Path + ": " + w.Err.Error() }
func (w *Warning) Unwrap() error { return w.Err }

// ErrOverridden is the error of a Warning about a skill that replaces an
// earlier one of the same name.
var ErrOverridden = errors.New("overrides an earlier skill of the same name")

// Load reads one SKILL.md.
func Load(path string) (Skill, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return Skill{}, err
	}
	var m meta
	body, err := frontmatter.Parse(src, &m)
	if err != nil {
		return Skill{}, err
	}
	dir := filepath.Dir(path)
	s := Skill{
		Name:           strings.TrimSpace(m.Name),
		Description:    strings.TrimSpace(m.Description),
		Location:       path,
		Dir:            dir,
		Content:        strings.TrimSpace(string(body)),
		ArgumentHint:   m.ArgumentHint,
		ModelInvocable: !m.DisableModelInvocation,
		UserInvocable:  m.UserInvocable == nil || *m.UserInvocable,
	}
	if s.Name == "" {
		s.Name = filepath.Base(dir)
	}
	if err := validName(s.Name); err != nil {
		return Skill{}, err
	}
	if s.Description == "" {
		s.Description = firstParagraph(s.Content)
	}
	if w := strings.TrimSpace(m.WhenToUse); w != "" {
		s.Description = strings.TrimSpace(s.Description + " " + w)
	}
	s.Description = truncate(collapseSpace(s.Description), maxDescription)
	return s, nil
}

// validName accepts names a slash command and an XML listing can carry.
func validName(name string) error {
	if utf8.RuneCountInString(name) > 64 {
		return fmt.Errorf("skill name %q is longer than 64 characters", name)
	}
	for _, r := range name {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) && !strings.ContainsRune("-_.:", r) {
			return fmt.Errorf("skill name %q may hold only letters, digits, hyphens, underscores, dots and colons", name)
		}
	}
	return nil
}

// firstParagraph returns the first paragraph of Markdown text that is not a
// heading.
func firstParagraph(text string) string {
	for para := range strings.SplitSeq(text, "\n\n") {
		para = strings.TrimSpace(para)
		if para != "" && !strings.HasPrefix(para, "#") {
			return para
		}
	}
	return ""
}

func collapseSpace(s string) string { return strings.Join(strings.Fields(s), " ") }

func truncate(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

// Options says where to look for skills.
type Options struct {
	// Home is the user's home directory; ~/.claude/skills and
	// ~/.agents/skills are read from it.
	Home string
	// GlobalConfigDirs are codeloop's and OpenCode's global config
	// directories, in that order of increasing precedence.
	GlobalConfigDirs []string
	// ConfigDirs, when not nil, are the exact config directories to search
	// (config.Loaded.Dirs), in order of increasing precedence; they replace
	// GlobalConfigDirs and the .opencode and .codeloop directories found
	// between Worktree and Dir.
	ConfigDirs []string
	// Dir is the working directory and Worktree the project root; the
	// directories from Worktree down to Dir are searched.
	Dir, Worktree string
	// Paths are the config's skills.paths: directories (or SKILL.md files)
	// relative to Dir, absolute, or starting with ~/.
	Paths []string
	// NoClaude skips ~/.claude/skills and the project's .claude/skills;
	// NoExternal skips every .claude and .agents location.
	NoClaude, NoExternal bool
	// Log receives a warning for every skipped or overriding SKILL.md.
	Log *slog.Logger
}

// Roots lists the directories searched, in order of increasing precedence.
// A later skill replaces an earlier one of the same name.
//
//  1. ~/.claude/skills, ~/.agents/skills
//  2. .claude/skills and .agents/skills of each directory from the worktree
//     root down to the working directory
//  3. skill/ and skills/ of each config directory: ConfigDirs when set,
//     else the global ones, then .opencode and .codeloop of each directory
//     from the worktree root down to the working directory
//  4. the config's skills.paths
func (o Options) Roots() []string {
	var roots []string
	levels := paths.Down(o.Dir, o.Worktree)
	if !o.NoExternal {
		var external []string
		if !o.NoClaude {
			external = append(external, ".claude")
		}
		external = append(external, ".agents")
		if o.Home != "" {
			for _, e := range external {
				roots = append(roots, filepath.Join(o.Home, e, "skills"))
			}
		}
		for _, dir := range levels {
			for _, e := range external {
				roots = append(roots, filepath.Join(dir, e, "skills"))
			}
		}
	}
	configDirs := o.ConfigDirs
	if configDirs == nil {
		configDirs = append(configDirs, o.GlobalConfigDirs...)
		for _, dir := range levels {
			configDirs = append(configDirs, filepath.Join(dir, ".opencode"), filepath.Join(dir, ".codeloop"))
		}
	}
	for _, dir := range configDirs {
		roots = append(roots, filepath.Join(dir, "skill"), filepath.Join(dir, "skills"))
	}
	for _, p := range o.Paths {
		roots = append(roots, o.resolve(p))
	}
	return roots
}

func (o Options) resolve(p string) string {
	if rest, ok := strings.CutPrefix(p, "~/"); ok && o.Home != "" {
		return filepath.Join(o.Home, rest)
	}
	if p == "~" && o.Home != "" {
		return o.Home
	}
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(o.Dir, p)
}

// Set is the skills found, by name.
type Set struct {
	byName map[string]Skill
	// Warnings lists the files skipped and the overrides, in the order
	// they were found.
	Warnings []*Warning
}

// Discover finds every SKILL.md under the roots of o. A file that cannot be
// read or parsed is skipped with a warning; the others still load.
func Discover(o Options) *Set {
	log := o.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := &Set{byName: map[string]Skill{}}
	seen := map[string]bool{}
	warn := func(path string, err error) {
		w := &Warning{Path: path, Err: err}
		s.Warnings = append(s.Warnings, w)
		log.Warn("skill", "path", path, "err", err)
	}
	for _, root := range o.Roots() {
		for _, path := range findFiles(root) {
			key := path
			if real, err := filepath.EvalSymlinks(path); err == nil {
				key = real
			}
			if seen[key] {
				continue
			}
			seen[key] = true
			sk, err := Load(path)
			if err != nil {
				warn(path, err)
				continue
			}
			if prev, ok := s.byName[sk.Name]; ok {
				warn(path, fmt.Errorf("skill %q %w (%s)", sk.Name, ErrOverridden, prev.Location))
			}
			s.byName[sk.Name] = sk
		}
	}
	return s
}

// findFiles returns the SKILL.md files under root (or root itself when it
// is one), sorted.
func findFiles(root string) []string {
	info, err := os.Stat(root)
	if err != nil {
		return nil
	}
	if !info.IsDir() {
		if filepath.Base(root) == FileName {
			return []string{root}
		}
		return nil
	}
	matches, err := doublestar.Glob(os.DirFS(root), "**/"+FileName, doublestar.WithFilesOnly())
	if err != nil {
		return nil
	}
	sort.Strings(matches)
	out := make([]string, len(matches))
	for i, m := range matches {
		out[i] = filepath.Join(root, filepath.FromSlash(m))
	}
	return out
}

// NewSet returns a set holding skills; a later skill replaces an earlier
// one of the same name.
func NewSet(skills ...Skill) *Set {
	s := &Set{byName: make(map[string]Skill, len(skills))}
	for _, sk := range skills {
		s.byName[sk.Name] = sk
	}
	return s
}

// Get returns the skill called name.
func (s *Set) Get(name string) (Skill, bool) {
	if s == nil {
		return Skill{}, false
	}
	sk, ok := s.byName[name]
	return sk, ok
}

// All returns every skill, sorted by name.
func (s *Set) All() []Skill {
	if s == nil {
		return nil
	}
	out := make([]Skill, 0, len(s.byName))
	for _, sk := range s.byName {
		out = append(out, sk)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// ForModel returns the skills the model may load, sorted by name: those
// with a description, not restricted to the user, and allowed by allow
// (nil allows all). allow is given the skill's name; agents pass their
// permission check for "skill" here.
func (s *Set) ForModel(allow func(name string) bool) []Skill {
	var out []Skill
	for _, sk := range s.All() {
		if sk.ModelInvocable && sk.Description != "" && (allow == nil || allow(sk.Name)) {
			out = append(out, sk)
		}
	}
	return out
}

// Command is a skill seen as a slash command: running it sends Template
// (the skill's body) as the prompt.
type Command struct {
	Name         string
	Description  string
	ArgumentHint string
	Template     string
	// Location is the SKILL.md the command came from.
	Location string
}

// Commands returns a slash command for each skill the user may invoke,
// sorted by name.
func (s *Set) Commands() []Command {
	var out []Command
	for _, sk := range s.All() {
		if !sk.UserInvocable {
			continue
		}
		out = append(out, Command{
			Name:         sk.Name,
			Description:  sk.Description,
			ArgumentHint: sk.ArgumentHint,
			Template:     sk.Content,
			Location:     sk.Location,
		})
	}
	return out
}
