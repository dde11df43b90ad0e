package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/codeloop/codeloop/internal/acp"
	"github.com/codeloop/codeloop/internal/app"
	"github.com/codeloop/codeloop/internal/client"
	"github.com/codeloop/codeloop/internal/client/local"
	"github.com/codeloop/codeloop/internal/config"
	"github.com/codeloop/codeloop/internal/sandbox"
)

// acpOptions are the flags of codeloop acp.
type acpOptions struct {
	cwd          string
	sandbox      string
	trustProject bool
}

func newACPCmd(e *env) *cobra.Command {
	var o acpOptions
	cmd := &cobra.Command{
		Use:   "acp",
		Short: "Serve editors over the Agent Client Protocol on standard input and output",
		Long: "Serve editors over the Agent Client Protocol (ACP): JSON-RPC messages, one per line, on\n" +
			"standard input and output. Editors such as Zed, JetBrains IDEs, Neovim and Emacs start\n" +
			"codeloop acp themselves; see docs/acp.md for their settings.\n\n" +
			"Standard output carries protocol messages only; logs go to the log file (or to standard\n" +
			"error with --print-logs). Each session works in the directory the editor names.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return e.acp(cmd.Context(), o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.cwd, "cwd", "", "directory whose sessions session/list shows when the editor names none (default: the working directory)")
	f.BoolVar(&o.trustProject, "trust-project", false, "trust the projects of the sessions as their files are now (see codeloop trust)")
	f.StringVar(&o.sandbox, "sandbox", "", "confine shell commands: workspace-write, read-only or off (Linux; default: the config's sandbox.mode, off)")
	return cmd
}

// acp serves the protocol until the editor closes standard input or a
// signal arrives.
func (e *env) acp(ctx context.Context, o acpOptions) error {
	dir := o.cwd
	if dir == "" {
		wd, err := os.Getwd()
		if err != nil {
			return err
		}
		dir = wd
	}
	dir, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	if !isDir(dir) {
		return &exitCodeError{code: exitUsage, err: fmt.Errorf("--cwd %s is not a directory", o.cwd)}
	}
	if o.sandbox != "" {
		if _, err := sandbox.ParseMode(o.sandbox); err != nil {
			return &exitCodeError{code: exitUsage, err: fmt.Errorf("--sandbox: %w", err)}
		}
	}
	open := func(ctx context.Context, dir string, servers []acp.MCPServer) (client.Client, error) {
		// The app outlives a cancelled request; Serve closes it.
		a, err := app.Open(context.WithoutCancel(ctx), app.Options{
			Dir: dir, Dirs: e.dirs, Getenv: e.getenv, Log: e.log, Version: Version, Sandbox: o.sandbox,
			MCP: editorMCP(servers), TrustProject: o.trustProject,
		})
		if err != nil {
			return nil, err
		}
		return &appClient{Client: local.New(a), app: a}, nil
	}
	e.log.Info("acp: serving", "dir", dir)
	err = acp.Serve(ctx, e.stdin, e.stdout, acp.Options{Open: open, Dir: dir, Version: Version, Log: e.log})
	if err != nil {
		return err
	}
	if ctx.Err() != nil {
		return &exitCodeError{code: interruptedCode(ctx)}
	}
	return nil
}

// appClient is an in-process client that owns its app: closing it closes
// both.
type appClient struct {
	*local.Client
	app *app.App
}

// Close ends the client, then the app.
func (c *appClient) Close() error {
	return errors.Join(c.Client.Close(), c.app.Close())
}

// editorMCP turns the editor's MCP servers into config entries. Remote
// servers get no OAuth flow: the editor passes what they need in headers.
func editorMCP(servers []acp.MCPServer) map[string]config.MCP {
	if len(servers) == 0 {
		return nil
	}
	out := make(map[string]config.MCP, len(servers))
	for _, s := range servers {
		if s.Command != "" {
			out[s.Name] = config.MCP{Type: "local", Command: append([]string{s.Command}, s.Args...), Environment: s.Env}
			continue
		}
		out[s.Name] = config.MCP{Type: "remote", URL: s.URL, Headers: s.Headers, OAuth: &config.MCPOAuth{Disabled: true}}
	}
	return out
}
