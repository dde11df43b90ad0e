package agent

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/codeloop/codeloop/internal/permission"
)

var (
	// argRE splits command arguments: an "[Image N]" token, a quoted
	// string, or a run of characters without spaces or quotes.
	argRE = regexp.MustCompile(`(?i)\[Image\s+\d+\]|"[^"]*"|'[^']*'|[^\s"']+`)
	// placeholderRE finds OpenCode's positional placeholders. "$0" is not
	// one: OpenCode's arguments count from one.
	placeholderRE = regexp.MustCompile(`\$([1-9][0-9]*)`)
	// claudeRE finds Claude Code's substitutions: an escaped dollar,
	// $ARGUMENTS[N], $ARGUMENTS, $N (counting from zero), the project
	// directory, and $name.
	claudeRE = regexp.MustCompile(`\\\$|\$ARGUMENTS\[(\d+)\]|\$ARGUMENTS|\$(\d+)|\$\{CLAUDE_PROJECT_DIR\}|\$([A-Za-z_][A-Za-z0-9_]*)`)
	// shellRE finds `!` commands; claudeShellRE only those at the start of
	// a line or after white space, and claudeFenceRE the fenced form.
	shellRE       = regexp.MustCompile("!`([^`]+)`")
	claudeShellRE = regexp.MustCompile("(?m)(^|[ \t])!`([^`]+)`")
	claudeFenceRE = regexp.MustCompile("(?ms)^```!\\s*\n(.*?)^```[ \t]*$")
	// mentionRE is the part of an @ mention after the @: an optional
	// leading dot, then dot-separated runs without white space, backticks,
	// commas or dots, so a trailing "." or "," ends it.
	mentionRE = regexp.MustCompile("^\\.?[^\\s`,.]*(?:\\.[^\\s`,.]+)*")
)

// SplitArguments splits a command's argument string into arguments:
// quoted strings ("two words" or 'two words') count as one argument, with
// their quotes removed, and so does an "[Image N]" token.
func SplitArguments(s string) []string {
	raw := argRE.FindAllString(s, -1)
	out := make([]string, len(raw))
	for i, a := range raw {
		if len(a) > 0 && (a[0] == '"' || a[0] == '\'') {
			a = a[1:]
		}
		if len(a) > 0 && (a[len(a)-1] == '"' || a[len(a)-1] == '\'') {
			a = a[:len(a)-1]
		}
		out[i] = a
	}
	return out
}

// Substitute fills the argument placeholders of an OpenCode-style template:
// $ARGUMENTS takes the whole argument string, $1 … $n the positional
// arguments, the highest-numbered placeholder also taking every argument
// after it, and a placeholder without an argument becomes empty. A
// template with no placeholder gets the arguments appended after a blank
// line.
func Substitute(template, args string) string {
	list := SplitArguments(args)
	last := 0
	matches := placeholderRE.FindAllStringSubmatch(template, -1)
	for _, m := range matches {
		if n, err := strconv.Atoi(m[1]); err == nil && n > last {
			last = n
		}
	}
	out := placeholderRE.ReplaceAllStringFunc(template, func(m string) string {
		n, err := strconv.Atoi(m[1:])
		if err != nil || n-1 >= len(list) {
			return ""
		}
		if n == last {
			return strings.Join(list[n-1:], " ")
		}
		return list[n-1]
	})
	uses := strings.Contains(template, "$ARGUMENTS")
	out = strings.ReplaceAll(out, "$ARGUMENTS", args)
	if len(matches) == 0 && !uses && strings.TrimSpace(args) != "" {
		out += "\n\n" + args
	}
	return out
}

// SubstituteClaude fills the placeholders of a Claude Code command:
// $ARGUMENTS takes the whole argument string, $ARGUMENTS[N] and $N the
// argument at N counting from zero (left as written when there is none),
// $name the argument at name's position in names (empty when missing),
// ${CLAUDE_PROJECT_DIR} the project directory, and \$ a literal dollar. A
// template that uses no argument gets "ARGUMENTS: <args>" appended.
func SubstituteClaude(template, args string, names []string, projectDir string) string {
	list := SplitArguments(args)
	used := false
	at := func(i int) (string, bool) {
		if i < 0 || i >= len(list) {
			return "", false
		}
		return list[i], true
	}
	out := claudeRE.ReplaceAllStringFunc(template, func(m string) string {
		sub := claudeRE.FindStringSubmatch(m)
		switch {
		case m == `\$`:
			return "$"
		case sub[1] != "":
			used = true
			n, _ := strconv.Atoi(sub[1])
			if v, ok := at(n); ok {
				return v
			}
			return m
		case m == "$ARGUMENTS":
			used = true
			return args
		case sub[2] != "":
			used = true
			n, _ := strconv.Atoi(sub[2])
			if v, ok := at(n); ok {
				return v
			}
			return m
		case m == "${CLAUDE_PROJECT_DIR}":
			return projectDir
		case sub[3] != "":
			for i, name := range names {
				if name == sub[3] {
					used = true
					v, _ := at(i)
					return v
				}
			}
		}
		return m
	})
	if !used && strings.TrimSpace(args) != "" {
		out += "\n\nARGUMENTS: " + args
	}
	return out
}

// ShellFunc runs a command line with the user's shell and returns its
// output. A command that runs and fails is not an error; its output says
// what happened.
type ShellFunc func(ctx context.Context, command string) (string, error)

// runShell replaces every `!` command of text by its output, in order.
func runShell(ctx context.Context, text string, claude bool, shell ShellFunc) (string, error) {
	run := func(cmd string) (string, error) {
		if shell == nil {
			return "", fmt.Errorf("the template runs !`%s` but shell commands are not available here", cmd)
		}
		out, err := shell(ctx, cmd)
		if err != nil {
			return "", fmt.Errorf("running !`%s`: %w", cmd, err)
		}
		return out, nil
	}
	var firstErr error
	replace := func(re *regexp.Regexp, text string, cmdGroup, keepGroup int) string {
		return re.ReplaceAllStringFunc(text, func(m string) string {
			if firstErr != nil {
				return m
			}
			sub := re.FindStringSubmatch(m)
			out, err := run(sub[cmdGroup])
			if err != nil {
				firstErr = err
				return m
			}
			if keepGroup > 0 {
				return sub[keepGroup] + out
			}
			return out
		})
	}
	if claude {
		text = replace(claudeFenceRE, text, 1, 0)
		text = replace(claudeShellRE, text, 2, 1)
	} else {
		text = replace(shellRE, text, 1, 0)
	}
	return text, firstErr
}

// Mention is an @ reference in a text: Name as written after the @, and
// the byte offsets of the whole "@name" in the text.
type Mention struct {
	Name       string
	Start, End int
}

// Mentions finds the @ references of a text, as OpenCode does: an @ not
// preceded by a letter, digit, underscore or backtick (so e-mail addresses
// and quoted names are skipped), followed by a path that may start with a
// dot or "~/" and ends before white space, a backtick, a comma, or a dot
// that does not continue the path.
func Mentions(text string) []Mention {
	var out []Mention
	for i := 0; i < len(text); i++ {
		if text[i] != '@' {
			continue
		}
		if i > 0 {
			if c := text[i-1]; c == '`' || c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' {
				continue
			}
		}
		name := mentionRE.FindString(text[i+1:])
		if name == "" {
			continue
		}
		out = append(out, Mention{Name: name, Start: i, End: i + 1 + len(name)})
		i += len(name)
	}
	return out
}

// FileRef is an @ mention that names an existing file or directory.
type FileRef struct {
	Mention
	// Path is the absolute path and URL its file: URL.
	Path string
	URL  string
	// Mime is "text/plain" for a file, "application/x-directory" for a
	// directory.
	Mime string
}

// AgentRef is an @ mention of an agent (no file of that name exists).
type AgentRef struct {
	Mention
}

// ResourceRef is an @<server>:<uri> mention of an MCP server's resource.
type ResourceRef struct {
	Mention
	Server, URI string
}

// MimeDirectory is the media type of a directory reference.
const MimeDirectory = "application/x-directory"

// Resolver turns the @ mentions of a text into file, resource and agent
// references.
type Resolver struct {
	// Worktree is where relative paths start; Home replaces a leading "~/".
	Worktree, Home string
	// Agents, when set, lets mentions that are not files name agents.
	Agents *Registry
	// Servers are the MCP servers whose resources may be mentioned as
	// @<server>:<uri>.
	Servers []string
}

// Resolve returns the files, agents and MCP resources the text mentions,
// each once, in order of first mention. A mention is an existing path, else
// a resource of one of Servers, else an agent; anything else is ignored.
func (r *Resolver) Resolve(text string) (files []FileRef, agents []AgentRef, resources []ResourceRef) {
	seen := map[string]bool{}
	for _, m := range Mentions(text) {
		if seen[m.Name] {
			continue
		}
		seen[m.Name] = true
		p := r.path(m.Name)
		fi, err := os.Stat(p)
		if err != nil {
			if server, uri, ok := r.resource(m.Name); ok {
				resources = append(resources, ResourceRef{Mention: m, Server: server, URI: uri})
				continue
			}
			if r.Agents != nil {
				if a, ok := r.Agents.Get(m.Name); ok {
					agents = append(agents, AgentRef{Mention{Name: a.Name, Start: m.Start, End: m.End}})
				}
			}
			continue
		}
		ref := FileRef{Mention: m, Path: p, URL: (&url.URL{Scheme: "file", Path: filepath.ToSlash(p)}).String(), Mime: "text/plain"}
		if fi.IsDir() {
			ref.Mime = MimeDirectory
		}
		files = append(files, ref)
	}
	return files, agents, resources
}

// resource splits a mention of the form <server>:<uri> naming one of the
// resolver's servers.
func (r *Resolver) resource(name string) (server, uri string, ok bool) {
	server, uri, found := strings.Cut(name, ":")
	if !found || uri == "" || !slices.Contains(r.Servers, server) {
		return "", "", false
	}
	return server, uri, true
}

// path turns a mentioned name into an absolute path.
func (r *Resolver) path(name string) string {
	if rest, ok := strings.CutPrefix(name, "~/"); ok && r.Home != "" {
		return filepath.Join(r.Home, rest)
	}
	if filepath.IsAbs(name) {
		return filepath.Clean(name)
	}
	return filepath.Join(r.Worktree, name)
}

// MentionInstruction is the synthetic text that follows an @agent mention in
// a user message, asking the model to hand the request to that sub-agent.
func MentionInstruction(agent string) string {
	return fmt.Sprintf("Use the message above and its context to write a prompt for the %s agent, "+
		"then call the task tool with subagent_type %q and that prompt.", agent, agent)
}

// Expansion is a command turned into the content of a user message. When
// Subtask is set the message holds only the subtask; otherwise it holds
// Text with a file part per Files and Resources and an agent part per
// Agents.
type Expansion struct {
	Command string
	// Agent and Model are for the user message: the command's agent and
	// model, or (for a subtask, and where the command sets none) empty for
	// the caller's.
	Agent     string
	Model     string
	Variant   string
	Text      string
	Files     []FileRef
	Agents    []AgentRef
	Resources []ResourceRef
	Subtask   *SubtaskSpec
	// Allow are rules pre-approving tools for the turn (Claude Code's
	// allowed-tools).
	Allow permission.Ruleset
}

// SubtaskSpec says which sub-agent runs a command and with what prompt;
// the session turns it into a subtask part that the loop runs through the
// task tool.
type SubtaskSpec struct {
	Agent       string
	Description string
	Prompt      string
	// Model is "provider/model", or empty for the caller's model.
	Model   string
	Command string
}
