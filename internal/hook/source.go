package hook

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"time"
)

// Event names, as Claude Code spells them.
const (
	PreToolUse         = "PreToolUse"
	PostToolUse        = "PostToolUse"
	PostToolUseFailure = "PostToolUseFailure"
	UserPromptSubmit   = "UserPromptSubmit"
	Stop               = "Stop"
	SubagentStop       = "SubagentStop"
	SessionStart       = "SessionStart"
	SessionEnd         = "SessionEnd"
	PreCompact         = "PreCompact"
	Notification       = "Notification"
)

// events are the events codeloop runs hooks for.
var events = []string{PreToolUse, PostToolUse, PostToolUseFailure, UserPromptSubmit, Stop, SubagentStop,
	SessionStart, SessionEnd, PreCompact, Notification}

// DefaultTimeout is how long a hook may run when its definition gives no
// timeout.
const DefaultTimeout = 60 * time.Second

// Spec is a hooks object as settings and config files write it: groups of
// handlers by event name.
type Spec map[string][]GroupSpec

// GroupSpec is one entry of an event's list: a matcher and its handlers.
type GroupSpec struct {
	Matcher string        `json:"matcher,omitempty"`
	Hooks   []HandlerSpec `json:"hooks"`
}

// HandlerSpec is one handler as written in a file. Only command handlers
// run; the other types are reported and skipped.
type HandlerSpec struct {
	Type    string   `json:"type,omitempty"`
	Command string   `json:"command,omitempty"`
	Args    []string `json:"args,omitempty"`
	// Timeout is in seconds; zero takes DefaultTimeout.
	Timeout float64 `json:"timeout,omitempty"`
}

// Source is the hooks of one file.
type Source struct {
	// Origin is the file (or environment variable) the hooks come from.
	Origin string
	// Project marks a file of the project directory, whose hooks run only
	// once the user trusts the project.
	Project bool
	Hooks   Spec
	// DisableAll is Claude Code's disableAllHooks: no hook runs at all.
	DisableAll bool
}

// settingsFile is the part of a Claude Code settings file hooks use.
type settingsFile struct {
	Hooks           Spec `json:"hooks"`
	DisableAllHooks bool `json:"disableAllHooks"`
}

// ClaudeOptions say where Claude Code's settings files are.
type ClaudeOptions struct {
	// UserDir is Claude Code's user directory: $CLAUDE_CONFIG_DIR, else
	// ~/.claude.
	UserDir string
	// Dir is the directory the session starts in and Worktree the root of
	// its repository (Dir when there is none).
	Dir, Worktree string
}

// ClaudeSources reads the hooks of Claude Code's settings files, user
// first: <user>/settings.json, <dir>/.claude/settings.json, and
// .claude/settings.local.json at the repository root and in dir. A file
// that does not exist is skipped; one that cannot be read or parsed is
// reported in the errors and skipped.
func ClaudeSources(o ClaudeOptions) ([]Source, []error) {
	type file struct {
		path    string
		project bool
	}
	var files []file
	if o.UserDir != "" {
		files = append(files, file{filepath.Join(o.UserDir, "settings.json"), false})
	}
	if o.Dir != "" {
		files = append(files, file{filepath.Join(o.Dir, ".claude", "settings.json"), true})
		for _, d := range []string{o.Worktree, o.Dir} {
			if d == "" {
				continue
			}
			p := filepath.Join(d, ".claude", "settings.local.json")
			if !slices.ContainsFunc(files, func(f file) bool { return f.path == p }) {
				files = append(files, file{p, true})
			}
		}
	}
	var (
		out  []Source
		errs []error
	)
	for _, f := range files {
		data, err := os.ReadFile(f.path)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("reading hooks: %w", err))
			continue
		}
		var s settingsFile
		if err := json.Unmarshal(data, &s); err != nil {
			errs = append(errs, fmt.Errorf("reading hooks from %s: %w (fix the file; its hooks are not run)", f.path, err))
			continue
		}
		if len(s.Hooks) == 0 && !s.DisableAllHooks {
			continue
		}
		out = append(out, Source{Origin: f.path, Project: f.project, Hooks: s.Hooks, DisableAll: s.DisableAllHooks})
	}
	return out, errs
}

// Handler is one command hook ready to run.
type Handler struct {
	Event   string
	Matcher string
	// Command is run by the shell, unless Args is set: then Command is
	// the program and Args its arguments, with no shell.
	Command string
	Args    []string
	Timeout time.Duration
	Origin  string
	Project bool
}

// Label names the handler in notices: its command and where it is defined.
func (h Handler) Label() string {
	return fmt.Sprintf("%s hook %q (%s)", h.Event, h.Command, h.Origin)
}

type group struct {
	m        matcher
	handlers []Handler
}

// Set is the hooks in force, by event.
type Set struct {
	groups   map[string][]group
	skipped  []Handler
	warnings []string
}

// Build gathers the hooks of sources. Project sources count only when
// trusted; their handlers are listed by Skipped otherwise. Handlers of
// types other than command, events codeloop does not run and matchers
// that do not compile are left out and listed by Warnings.
func Build(sources []Source, trusted bool) *Set {
	s := &Set{groups: map[string][]group{}}
	for _, src := range sources {
		if src.DisableAll && (trusted || !src.Project) {
			s.warnings = append(s.warnings, fmt.Sprintf("%s sets disableAllHooks: no hook runs", src.Origin))
			s.groups = map[string][]group{}
			s.skipped = nil
			return s
		}
	}
	for _, src := range sources {
		for event, groups := range src.Hooks {
			if !slices.Contains(events, event) {
				s.warnings = append(s.warnings, fmt.Sprintf("%s: codeloop does not run %s hooks; they are ignored", src.Origin, event))
				continue
			}
			for _, g := range groups {
				m, err := compileMatcher(g.Matcher)
				if err != nil {
					s.warnings = append(s.warnings, fmt.Sprintf("%s: %s: %v", src.Origin, event, err))
					continue
				}
				var hs []Handler
				for _, h := range g.Hooks {
					if h.Type != "" && h.Type != "command" {
						s.warnings = append(s.warnings, fmt.Sprintf("%s: %s: hooks of type %q are not supported; only command hooks run",
							src.Origin, event, h.Type))
						continue
					}
					if h.Command == "" {
						s.warnings = append(s.warnings, fmt.Sprintf("%s: %s: a hook without a command is ignored", src.Origin, event))
						continue
					}
					t := DefaultTimeout
					if h.Timeout > 0 {
						t = time.Duration(h.Timeout * float64(time.Second))
					}
					hd := Handler{Event: event, Matcher: g.Matcher, Command: h.Command, Args: h.Args, Timeout: t,
						Origin: src.Origin, Project: src.Project}
					if src.Project && !trusted {
						s.skipped = append(s.skipped, hd)
						continue
					}
					hs = append(hs, hd)
				}
				if len(hs) > 0 {
					s.groups[event] = append(s.groups[event], group{m: m, handlers: hs})
				}
			}
		}
	}
	return s
}

// Skipped lists the project's hooks that do not run because the project
// is not trusted.
func (s *Set) Skipped() []Handler { return slices.Clone(s.skipped) }

// Warnings lists what was left out of the set and why.
func (s *Set) Warnings() []string { return slices.Clone(s.warnings) }

// Has reports whether any hook is defined for event.
func (s *Set) Has(event string) bool { return s != nil && len(s.groups[event]) > 0 }

// Len is the number of handlers that run.
func (s *Set) Len() int {
	n := 0
	for _, gs := range s.groups {
		for _, g := range gs {
			n += len(g.handlers)
		}
	}
	return n
}

// matching returns the handlers of event whose matcher matches any of
// names (every handler when names is empty), each distinct command once.
func (s *Set) matching(event string, names []string) []Handler {
	var out []Handler
	for _, g := range s.groups[event] {
		if len(names) > 0 && !g.m.match(names...) {
			continue
		}
		for _, h := range g.handlers {
			if !slices.ContainsFunc(out, func(o Handler) bool { return o.Command == h.Command && slices.Equal(o.Args, h.Args) }) {
				out = append(out, h)
			}
		}
	}
	return out
}
