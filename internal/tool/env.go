package tool

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/codeloop/codeloop/internal/bus"
)

// Env is what the built-in tools need from the application. Nothing in it is
// global: the application builds one per project and hands it to Builtins.
type Env struct {
	// Truncator cuts long outputs and saves them; nil leaves outputs whole.
	Truncator *Truncator
	// Bus receives todo.updated (and carries questions, see Questions).
	Bus *bus.Bus
	// Todos stores each session's todo list.
	Todos Todos
	// Questions asks the user the question tool's questions.
	Questions *Questions
	// Instructions returns texts (AGENTS.md files near filePath, say) that
	// read appends to its output inside <system-reminder> tags.
	Instructions func(ctx context.Context, call *Call, filePath string) []string
	// AnalyzeBash splits a shell command run in dir into the permission
	// patterns it needs; nil means shellscan.Analyze as bash.
	AnalyzeBash func(command, dir string) BashAnalysis

	// Shell runs bash commands; empty means bash, else sh: the shell
	// whose syntax the permission analysis reads.
	Shell string
	// Sandbox, when set, confines bash commands with the OS sandbox.
	Sandbox *Confinement
	// BashTimeout is a command's default timeout (2 minutes when zero) and
	// BashMaxTimeout the most a call may ask for (no bound when zero).
	BashTimeout    time.Duration
	BashMaxTimeout time.Duration
	// BashKillGrace is how long a command has between SIGTERM and SIGKILL
	// (3 seconds when zero).
	BashKillGrace time.Duration

	// Secrets are the secret files: read asks the user before reading one,
	// grep leaves their contents out. Nil means DefaultSecretFiles.
	Secrets *SecretFiles

	// Log receives the tools' diagnostics; nil discards them.
	Log *slog.Logger

	// HTTPClient fetches for webfetch; nil means a client of its own.
	HTTPClient *http.Client
	// Search is the web search service; websearch and codesearch are
	// offered only when it is set (see NewSearch).
	Search *Search
	// Ripgrep is the rg binary grep uses: empty means "rg" from PATH when
	// there is one, "-" means never (the Go search is used).
	Ripgrep string

	// BeforeChange, when set, is called with the absolute paths that write,
	// edit or apply_patch is about to change (create, replace, remove or
	// move), after permission is granted and before any of them changes.
	// Snapshots keep the files' pre-images this way. An error fails the
	// call with nothing changed.
	BeforeChange func(ctx context.Context, call *Call, paths []string) error
	// AfterChange, when set, is called with the paths once their new
	// content is in place. What it returns (formatter notes, language
	// server diagnostics) is appended to the call's output.
	AfterChange func(ctx context.Context, call *Call, paths []string) string
}

// log is env.Log, or a logger that discards.
func (env Env) log() *slog.Logger {
	if env.Log == nil {
		return slog.New(slog.DiscardHandler)
	}
	return env.Log
}

// beforeChange calls env.BeforeChange when it is set.
func (env Env) beforeChange(ctx context.Context, call *Call, paths []string) error {
	if env.BeforeChange == nil {
		return nil
	}
	if err := env.BeforeChange(ctx, call, paths); err != nil {
		return fmt.Errorf("keeping the previous content of %s: %w", strings.Join(paths, ", "), err)
	}
	return nil
}

// afterChange calls env.AfterChange when it is set and returns its text,
// starting on a new paragraph, or "".
func (env Env) afterChange(ctx context.Context, call *Call, paths []string) string {
	if env.AfterChange == nil {
		return ""
	}
	note := strings.TrimSpace(env.AfterChange(ctx, call, paths))
	if note == "" {
		return ""
	}
	return "\n\n" + note
}

// Builtins returns the built-in tools, configured from env: websearch and
// codesearch only with a search service.
func Builtins(env Env) []Tool {
	locks := newFileLocks()
	tools := []Tool{
		newInvalid(),
		newQuestion(env),
		newBash(env),
		newRead(env),
		newGlob(env),
		newGrep(env),
		newEdit(env, locks),
		newWrite(env, locks),
		newWebFetch(env),
		newTodoWrite(env),
		newApplyPatch(env, locks),
	}
	if env.Search != nil {
		tools = append(tools, newWebSearch(env), newCodeSearch(env))
	}
	return tools
}
