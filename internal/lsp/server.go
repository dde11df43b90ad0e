package lsp

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Server describes a language server: the command that starts it (speaking
// LSP on its standard input and output), the files it serves and how the
// root of a file's project is found.
type Server struct {
	// Name identifies the server in the config, in logs and in reports.
	Name string
	// Command is the program and its arguments.
	Command []string
	// Extensions are the file name extensions served, with their dot
	// (".go").
	Extensions []string
	// RootMarkers name files or directories that mark a project root. They
	// are tried in order: the nearest directory above the file, up to the
	// worktree, that holds the first marker is the root; when none holds
	// it, the next marker is tried; when none is found the worktree is the
	// root.
	RootMarkers []string
	// Env is added to codeloop's environment for the server.
	Env map[string]string
	// Initialization is sent as the initialize request's
	// initializationOptions and answers workspace/configuration requests.
	Initialization json.RawMessage
	// Warnings includes the server's warnings in edit results, not only
	// its errors.
	Warnings bool
	// Group names servers that do the same job (pyright and
	// basedpyright): of those installed, only the first in the table runs.
	Group string
	// RunsProjectCode marks a server that runs code of the project's
	// (rust-analyzer's build scripts and procedural macros, tsserver's
	// plugins, pyright's interpreter of the project's environment): it
	// does not start in a project the user has not trusted.
	RunsProjectCode bool
}

// Builtins returns the built-in server table, in the order servers are
// preferred.
func Builtins() []Server {
	return []Server{
		{Name: "gopls", Command: []string{"gopls"}, Extensions: []string{".go"},
			RootMarkers: []string{"go.work", "go.mod"}},
		{Name: "typescript", Command: []string{"typescript-language-server", "--stdio"},
			Extensions:      []string{".ts", ".tsx", ".js", ".jsx", ".mjs", ".cjs", ".mts", ".cts"},
			RootMarkers:     []string{"package-lock.json", "pnpm-lock.yaml", "yarn.lock", "bun.lock", "bun.lockb", "package.json"},
			RunsProjectCode: true},
		{Name: "basedpyright", Command: []string{"basedpyright-langserver", "--stdio"}, Group: "python", RunsProjectCode: true,
			Extensions:  []string{".py", ".pyi"},
			RootMarkers: []string{"pyproject.toml", "setup.py", "setup.cfg", "requirements.txt", "Pipfile", "pyrightconfig.json"}},
		{Name: "pyright", Command: []string{"pyright-langserver", "--stdio"}, Group: "python", RunsProjectCode: true,
			Extensions:  []string{".py", ".pyi"},
			RootMarkers: []string{"pyproject.toml", "setup.py", "setup.cfg", "requirements.txt", "Pipfile", "pyrightconfig.json"}},
		{Name: "rust", Command: []string{"rust-analyzer"}, Extensions: []string{".rs"},
			RootMarkers: []string{"Cargo.toml"}, RunsProjectCode: true},
		{Name: "clangd", Command: []string{"clangd"},
			Extensions:  []string{".c", ".h", ".cc", ".cpp", ".cxx", ".c++", ".hh", ".hpp", ".hxx", ".h++"},
			RootMarkers: []string{"compile_commands.json", "compile_flags.txt", ".clangd", "CMakeLists.txt", "Makefile"}},
	}
}

// entry is one server of the lsp config key, in OpenCode's shape plus
// warnings.
type entry struct {
	Disabled       bool              `json:"disabled"`
	Command        []string          `json:"command"`
	Extensions     []string          `json:"extensions"`
	Env            map[string]string `json:"env"`
	Initialization json.RawMessage   `json:"initialization"`
	Warnings       *bool             `json:"warnings"`
}

// ConfigError is a problem with the lsp config key.
type ConfigError struct {
	Server string
	Msg    string
}

func (e *ConfigError) Error() string {
	if e.Server == "" {
		return "lsp config: " + e.Msg
	}
	return fmt.Sprintf("lsp config: server %q: %s", e.Server, e.Msg)
}

// Resolve applies the lsp config key (raw JSON: absent, true, false or an
// object mapping server names to entries) to the built-in table and returns
// the servers to use: none when raw is false. An entry named like a
// built-in server changes the fields it sets; "disabled": true removes it;
// any other name adds a server, which needs a command and extensions.
func Resolve(raw json.RawMessage) ([]Server, error) {
	servers := Builtins()
	s := strings.TrimSpace(string(raw))
	switch s {
	case "", "null", "true":
		return servers, nil
	case "false":
		return nil, nil
	}
	var entries map[string]entry
	if err := json.Unmarshal(raw, &entries); err != nil {
		return nil, &ConfigError{Msg: "want false, true or an object of servers: " + err.Error()}
	}
	names := slices.Sorted(maps.Keys(entries))
	for _, name := range names {
		e := entries[name]
		i := slices.IndexFunc(servers, func(s Server) bool { return s.Name == name })
		if e.Disabled {
			if i >= 0 {
				servers = slices.Delete(servers, i, i+1)
			}
			continue
		}
		var sv Server
		if i >= 0 {
			sv = servers[i]
		} else {
			sv = Server{Name: name}
			if len(e.Command) == 0 {
				return nil, &ConfigError{Server: name, Msg: `a server codeloop does not know needs "command": ["program", "args"...]`}
			}
			if len(e.Extensions) == 0 {
				return nil, &ConfigError{Server: name, Msg: `a server codeloop does not know needs "extensions": [".ext", ...]`}
			}
		}
		if len(e.Command) > 0 {
			sv.Command = e.Command
		}
		if len(e.Extensions) > 0 {
			sv.Extensions = normalExtensions(e.Extensions)
		}
		if e.Env != nil {
			sv.Env = e.Env
		}
		if len(e.Initialization) > 0 {
			sv.Initialization = e.Initialization
		}
		if e.Warnings != nil {
			sv.Warnings = *e.Warnings
		}
		if i >= 0 {
			servers[i] = sv
		} else {
			// Servers the user adds come first: they are what the user asked for.
			servers = append([]Server{sv}, servers...)
		}
	}
	return servers, nil
}

// normalExtensions lowers extensions and gives them a leading dot.
func normalExtensions(exts []string) []string {
	out := make([]string, 0, len(exts))
	for _, e := range exts {
		e = strings.ToLower(strings.TrimSpace(e))
		if e == "" {
			continue
		}
		if !strings.HasPrefix(e, ".") {
			e = "." + e
		}
		out = append(out, e)
	}
	return out
}

// serves reports whether s serves path by its extension.
func (s *Server) serves(path string) bool {
	return slices.Contains(s.Extensions, strings.ToLower(filepath.Ext(path)))
}

// findRoot returns the project root of file for s: see Server.RootMarkers.
// file must lie within worktree.
func (s *Server) findRoot(file, worktree string) string {
	for _, marker := range s.RootMarkers {
		for dir := filepath.Dir(file); ; dir = filepath.Dir(dir) {
			if _, err := os.Stat(filepath.Join(dir, marker)); err == nil {
				return dir
			}
			if dir == worktree || !within(dir, worktree) || dir == filepath.Dir(dir) {
				break
			}
		}
	}
	return worktree
}

// within reports whether path is dir or lies below it.
func within(path, dir string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// languageID is the LSP language identifier of a file.
func languageID(path string) string {
	switch ext := strings.ToLower(filepath.Ext(path)); ext {
	case ".go":
		return "go"
	case ".ts", ".mts", ".cts":
		return "typescript"
	case ".tsx":
		return "typescriptreact"
	case ".js", ".mjs", ".cjs":
		return "javascript"
	case ".jsx":
		return "javascriptreact"
	case ".py", ".pyi":
		return "python"
	case ".rs":
		return "rust"
	case ".c", ".h":
		return "c"
	case ".cc", ".cpp", ".cxx", ".c++", ".hh", ".hpp", ".hxx", ".h++":
		return "cpp"
	case ".sh", ".bash":
		return "shellscript"
	case ".rb":
		return "ruby"
	case ".java":
		return "java"
	case ".zig":
		return "zig"
	case ".lua":
		return "lua"
	case ".ex", ".exs":
		return "elixir"
	default:
		return strings.TrimPrefix(ext, ".")
	}
}
