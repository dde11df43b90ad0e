// Package trust decides what a project's own files may make codeloop do
// before the user trusts the project. A repository the user clones can
// name commands (MCP servers, language servers, formatters, hooks, custom
// tools, a shell, the shell snippets of its command templates) and
// settings that loosen a protection (permission rules, the sandbox, the
// server's exposure, a provider's address). Until the user trusts the
// project, every one of them is held back: the user's own configuration
// wins, and only what makes codeloop stricter is applied.
//
// Trust is recorded per project directory with a fingerprint of the files
// that can name such items (Surface); when any of them changes, the
// project is no longer trusted and the change is reported, so the user is
// asked again. The store is a JSON file in codeloop's state directory; a
// store that cannot be read trusts nothing.
//
// The package is a leaf: config, agent, app and the front ends ask it, and
// it imports nothing of codeloop's.
package trust

import (
	"fmt"
	"slices"
	"strings"
)

// Kind names what a held-back item would do.
type Kind string

// The kinds of held-back items.
const (
	KindMCP        Kind = "mcp"        // an MCP server the project would start or connect to
	KindLSP        Kind = "lsp"        // a language server command
	KindFormatter  Kind = "formatter"  // a formatter command
	KindHook       Kind = "hook"       // a hook command
	KindTool       Kind = "tool"       // a custom tool executable
	KindCommand    Kind = "command"    // a command template's shell snippet or pre-approved tools
	KindShell      Kind = "shell"      // the shell that runs every command
	KindPermission Kind = "permission" // a permission rule looser than the user's
	KindAgent      Kind = "agent"      // an agent's permission or tools looser than the user's
	KindSandbox    Kind = "sandbox"    // a sandbox setting weaker than the user's
	KindServer     Kind = "server"     // the server's exposure (hostname, CORS, mDNS)
	KindProvider   Kind = "provider"   // a provider's address, key or headers
	KindSearch     Kind = "search"     // the web search service's address or key
	KindRetention  Kind = "retention"  // deleting this project's stored sessions
	// KindInstructions is an instruction file outside the project or a URL,
	// which would send its content to the model.
	KindInstructions Kind = "instructions"
)

// Item is one thing a project's files would make codeloop do, held back
// while the project is not trusted.
type Item struct {
	Kind Kind `json:"kind"`
	// Name is the server, tool, command, agent or key it concerns.
	Name string `json:"name"`
	// Detail is the command line, the rule or the value.
	Detail string `json:"detail,omitempty"`
	// File and Line say where the project defines it; Line is 0 when
	// unknown.
	File string `json:"file"`
	Line int    `json:"line,omitempty"`
}

// String describes the item in one line: kind, name, detail and place.
func (i Item) String() string {
	var b strings.Builder
	b.WriteString(string(i.Kind))
	if i.Name != "" {
		b.WriteString(" " + i.Name)
	}
	if i.Detail != "" {
		b.WriteString(": " + i.Detail)
	}
	if i.File != "" {
		b.WriteString(" (" + i.File)
		if i.Line > 0 {
			fmt.Fprintf(&b, ":%d", i.Line)
		}
		b.WriteString(")")
	}
	return b.String()
}

// Sort orders items by file, line, kind and name, and drops duplicates.
func Sort(items []Item) []Item {
	slices.SortStableFunc(items, func(a, b Item) int {
		if c := strings.Compare(a.File, b.File); c != 0 {
			return c
		}
		if a.Line != b.Line {
			return a.Line - b.Line
		}
		if c := strings.Compare(string(a.Kind), string(b.Kind)); c != 0 {
			return c
		}
		return strings.Compare(a.Name, b.Name)
	})
	return slices.Compact(items)
}

// Summary counts items by kind in a short phrase: "2 MCP servers, 1 hook".
func Summary(items []Item) string {
	counts := map[Kind]int{}
	var order []Kind
	for _, it := range items {
		if counts[it.Kind] == 0 {
			order = append(order, it.Kind)
		}
		counts[it.Kind]++
	}
	parts := make([]string, 0, len(order))
	for _, k := range order {
		parts = append(parts, countOf(counts[k], kindNoun[k]))
	}
	return strings.Join(parts, ", ")
}

var kindNoun = map[Kind]string{
	KindMCP: "MCP server", KindLSP: "language server", KindFormatter: "formatter", KindHook: "hook",
	KindTool: "custom tool", KindCommand: "command snippet", KindShell: "shell setting",
	KindPermission: "permission rule", KindAgent: "agent setting", KindSandbox: "sandbox setting",
	KindServer: "server setting", KindProvider: "provider setting", KindSearch: "search setting",
	KindRetention: "retention setting", KindInstructions: "instruction source",
}

func countOf(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// State is what the store says about a project.
type State int

// The states of a project.
const (
	Untrusted State = iota // never trusted, or the store cannot be read
	Trusted                // trusted, and its files unchanged since
	Changed                // trusted, but some of its files changed since
)

// String names the state for people.
func (s State) String() string {
	switch s {
	case Trusted:
		return "trusted"
	case Changed:
		return "changed since it was trusted"
	}
	return "not trusted"
}

// Verdict is the store's answer for one project.
type Verdict struct {
	State State `json:"state"`
	// Changes lists what changed since the project was trusted, one line
	// a file ("added .mcp.json", "changed opencode.json").
	Changes []string `json:"changes,omitempty"`
	// Warning is set when the store could not be read: the project is then
	// not trusted.
	Warning string `json:"warning,omitempty"`
}

// Trusted reports whether the project's own commands and settings apply.
func (v Verdict) Trusted() bool { return v.State == Trusted }
