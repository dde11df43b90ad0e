package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	"github.com/tailscale/hujson"

	"github.com/codeloop/codeloop/internal/app"
	"github.com/codeloop/codeloop/internal/config"
	"github.com/codeloop/codeloop/internal/mcp"
	"github.com/codeloop/codeloop/internal/trust"
)

// mcpAuthTimeout bounds `codeloop mcp auth`: the time the user has to
// finish the authorisation in the browser.
const mcpAuthTimeout = 5 * time.Minute

func newMCPCmd(e *env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "mcp",
		Short: "Manage MCP (Model Context Protocol) servers",
	}
	cmd.AddCommand(mcpListCmd(e), mcpAddCmd(e), mcpAuthCmd(e), mcpLogoutCmd(e), mcpDebugCmd(e))
	return cmd
}

// loadMCP reads the config of the working directory and returns its MCP
// servers.
func loadMCP(ctx context.Context, e *env) (*config.Loaded, string, error) {
	loaded, _, cwd, err := loadMCPTrust(ctx, e)
	return loaded, cwd, err
}

// loadMCPTrust is loadMCP with the project's trust.
func loadMCPTrust(ctx context.Context, e *env) (*config.Loaded, *app.Trust, string, error) {
	cwd, err := os.Getwd()
	if err != nil {
		return nil, nil, "", err
	}
	loaded, tr, err := app.LoadConfig(ctx, app.Options{Dir: cwd, Dirs: e.dirs, Getenv: e.getenv, Log: e.log})
	if err != nil {
		return nil, nil, "", err
	}
	return loaded, tr, cwd, nil
}

// heldServers lists the MCP servers of the project's own files held back
// for want of trust.
func heldServers(tr *app.Trust) []trust.Item {
	if !tr.Held() {
		return nil
	}
	var out []trust.Item
	for _, it := range tr.Items {
		if it.Kind == trust.KindMCP {
			out = append(out, it)
		}
	}
	return out
}

// startMCP connects servers and waits until each has settled.
func startMCP(ctx context.Context, e *env, servers map[string]config.MCP, cwd string, cfg *config.Config) *mcp.Manager {
	opts := mcp.Options{Dir: cwd, Logger: e.log, Auth: mcp.NewAuthStore(e.dirs.MCPAuth()), ClientVersion: Version}
	if t := cfg.Experimental.MCPTimeout; t != nil && *t > 0 {
		opts.CallTimeout = time.Duration(*t) * time.Millisecond
	}
	m := mcp.Start(servers, opts)
	// Every server has its own connect timeout; this only bounds a hang.
	m.WaitReady(ctx, 10*time.Minute)
	return m
}

func mcpListCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:     "list",
		Aliases: []string{"ls"},
		Short:   "List the configured MCP servers with their status and tool count",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			loaded, tr, cwd, err := loadMCPTrust(cmd.Context(), e)
			if err != nil {
				return err
			}
			held := heldServers(tr)
			if len(loaded.Config.MCP) == 0 && len(held) == 0 {
				fmt.Fprintln(e.stdout, "No MCP servers are configured. Add one with: codeloop mcp add")
				return nil
			}
			m := startMCP(cmd.Context(), e, loaded.Config.MCP, cwd, loaded.Config)
			defer m.Close()
			w := tabwriter.NewWriter(e.stdout, 0, 0, 2, ' ', 0)
			fmt.Fprintln(w, "NAME\tTYPE\tSTATUS\tTOOLS\tDETAIL")
			for _, it := range held {
				fmt.Fprintf(w, "%s\t-\theld-back\t-\t%s\n", it.Name,
					shortLine("the project is not trusted (codeloop trust): "+maskLine(it.Detail)))
			}
			for _, s := range m.Servers() {
				cfg := loaded.Config.MCP[s.Name]
				detail := cfg.URL
				if cfg.Type == "local" {
					detail = strings.Join(cfg.Command, " ")
				}
				switch s.Status.State {
				case mcp.StateFailed:
					detail = s.Status.Error
				case mcp.StateNeedsAuth:
					detail = "run: codeloop mcp auth " + s.Name
				}
				tools := "-"
				if s.Status.State == mcp.StateConnected {
					tools = fmt.Sprint(s.Tools)
				}
				fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\n", s.Name, cfg.Type, s.Status.State, tools, shortLine(detail))
			}
			return w.Flush()
		},
	}
}

func shortLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 120 {
		s = s[:117] + "..."
	}
	return s
}

func mcpAddCmd(e *env) *cobra.Command {
	var (
		url, cwd             string
		headers, environment []string
		global, disabled     bool
		noOAuth, force       bool
		timeout              int
	)
	cmd := &cobra.Command{
		Use:   "add <name> [--url URL | -- command [args...]]",
		Short: "Add an MCP server to the project's codeloop.json (or the global one)",
		Example: `  codeloop mcp add github --url https://api.githubcopilot.com/mcp/ --header "Authorization=Bearer {env:GITHUB_TOKEN}"
  codeloop mcp add files --env ROOT=/srv -- npx -y @modelcontextprotocol/server-filesystem .`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			name := args[0]
			var command []string
			if dash := cmd.ArgsLenAtDash(); dash >= 0 {
				if dash != 1 {
					return errors.New("give the server's name before --")
				}
				command = args[1:]
			} else if len(args) > 1 {
				return errors.New("put the server's command after --, as in: codeloop mcp add <name> -- <command> [args...]")
			}
			entry := mcpEntry{Timeout: timeout}
			switch {
			case url != "" && len(command) > 0:
				return errors.New("give either --url or a command, not both")
			case url != "":
				if len(environment) > 0 || cwd != "" {
					return errors.New("--env and --cwd apply to local servers; a remote server takes --header")
				}
				entry.Type, entry.URL = "remote", url
				h, err := keyValues(headers, "--header")
				if err != nil {
					return err
				}
				entry.Headers = h
				if noOAuth {
					entry.OAuth = new(bool)
				}
			case len(command) > 0:
				if len(headers) > 0 || noOAuth {
					return errors.New("--header and --no-oauth apply to remote servers")
				}
				entry.Type, entry.Command, entry.Cwd = "local", command, cwd
				env, err := keyValues(environment, "--env")
				if err != nil {
					return err
				}
				entry.Environment = env
			default:
				return errors.New("give --url for a remote server or a command after -- for a local one")
			}
			if disabled {
				entry.Enabled = new(bool)
			}
			file, err := e.mcpConfigFile(global)
			if err != nil {
				return err
			}
			if err := addMCPEntry(file, name, entry, force); err != nil {
				return err
			}
			fmt.Fprintf(e.stdout, "Added MCP server %q to %s\n", name, file)
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&url, "url", "", "URL of a remote server (streamable HTTP or SSE)")
	f.StringArrayVar(&headers, "header", nil, "HTTP header for a remote server, as Key=Value (repeatable)")
	f.StringArrayVar(&environment, "env", nil, "environment variable for a local server, as KEY=VALUE (repeatable)")
	f.StringVar(&cwd, "cwd", "", "working directory of a local server (relative to the project)")
	f.IntVar(&timeout, "timeout", 0, "timeout in milliseconds for connecting and for each request")
	f.BoolVar(&global, "global", false, "write to the global config instead of the project's")
	f.BoolVar(&disabled, "disabled", false, "add the server disabled")
	f.BoolVar(&noOAuth, "no-oauth", false, "never use OAuth with this remote server")
	f.BoolVar(&force, "force", false, "replace an existing entry of the same name")
	return cmd
}

// mcpEntry is a config entry as `mcp add` writes it, its keys in this
// order.
type mcpEntry struct {
	Type        string            `json:"type"`
	URL         string            `json:"url,omitempty"`
	Command     []string          `json:"command,omitempty"`
	Cwd         string            `json:"cwd,omitempty"`
	Environment map[string]string `json:"environment,omitempty"`
	Headers     map[string]string `json:"headers,omitempty"`
	OAuth       *bool             `json:"oauth,omitempty"`
	Enabled     *bool             `json:"enabled,omitempty"`
	Timeout     int               `json:"timeout,omitempty"`
}

func keyValues(pairs []string, flag string) (map[string]string, error) {
	if len(pairs) == 0 {
		return nil, nil
	}
	out := map[string]string{}
	for _, p := range pairs {
		k, v, ok := strings.Cut(p, "=")
		if !ok || k == "" {
			return nil, fmt.Errorf("%s %q: want KEY=VALUE", flag, p)
		}
		out[k] = v
	}
	return out, nil
}

// mcpConfigFile is the file `mcp add` writes: codeloop.jsonc or
// codeloop.json, whichever exists, at the project's root (the git worktree,
// else the working directory) or in the global config directory.
func (e *env) mcpConfigFile(global bool) (string, error) {
	dir := e.dirs.Config
	if !global {
		cwd, err := os.Getwd()
		if err != nil {
			return "", err
		}
		dir = projectRoot(cwd)
	}
	for _, name := range []string{"codeloop.jsonc", "codeloop.json"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
			return filepath.Join(dir, name), nil
		}
	}
	return filepath.Join(dir, "codeloop.json"), nil
}

// projectRoot is the nearest ancestor of dir holding .git, or dir.
func projectRoot(dir string) string {
	for d := dir; ; {
		if _, err := os.Stat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		parent := filepath.Dir(d)
		if parent == d {
			return dir
		}
		d = parent
	}
}

// addMCPEntry sets mcp.<name> in the JSONC file, keeping its comments.
func addMCPEntry(file, name string, entry mcpEntry, force bool) error {
	data, err := os.ReadFile(file)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	fresh := len(strings.TrimSpace(string(data))) == 0
	if fresh {
		data = []byte("{}\n")
	}
	v, err := hujson.Parse(data)
	if err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	if _, ok := v.Value.(*hujson.Object); !ok {
		return fmt.Errorf("%s: the file is not a JSON object", file)
	}
	ptr := "/mcp/" + strings.NewReplacer("~", "~0", "/", "~1").Replace(name)
	if v.Find(ptr) != nil && !force {
		return fmt.Errorf("%s already has an MCP server named %q (use --force to replace it)", file, name)
	}
	var ops []map[string]any
	if v.Find("/mcp") == nil {
		ops = append(ops, map[string]any{"op": "add", "path": "/mcp", "value": map[string]any{}})
	}
	ops = append(ops, map[string]any{"op": "add", "path": ptr, "value": entry})
	patch, err := json.Marshal(ops)
	if err != nil {
		return err
	}
	if err := v.Patch(patch); err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	// One member a line for the mcp object and the new entry; the
	// values inside the entry stay on one line each.
	if fresh {
		expandObject(&v)
	}
	expandObject(v.Find("/mcp"))
	expandObject(v.Find(ptr))
	v.Format()
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		return err
	}
	return os.WriteFile(file, v.Pack(), 0o644)
}

// expandObject has Format write the members of the object v one a line,
// by starting each with a newline unless it already has a comment or
// newline before it.
func expandObject(v *hujson.Value) {
	if v == nil {
		return
	}
	obj, ok := v.Value.(*hujson.Object)
	if !ok {
		return
	}
	for i := range obj.Members {
		if len(obj.Members[i].Name.BeforeExtra) == 0 {
			obj.Members[i].Name.BeforeExtra = hujson.Extra("\n")
		}
	}
	if len(obj.Members) > 0 && len(obj.AfterExtra) == 0 {
		obj.AfterExtra = hujson.Extra("\n")
	}
}

func mcpAuthCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:   "auth <name>",
		Short: "Authorise codeloop with a remote MCP server (OAuth)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			loaded, cwd, err := loadMCP(cmd.Context(), e)
			if err != nil {
				return err
			}
			cfg, err := mcpServer(loaded, args[0])
			if err != nil {
				return err
			}
			m := mcp.Start(map[string]config.MCP{args[0]: withEnabled(cfg)}, mcp.Options{
				Dir: cwd, Logger: e.log, Auth: mcp.NewAuthStore(e.dirs.MCPAuth()), ClientVersion: Version,
			})
			defer m.Close()
			m.WaitReady(cmd.Context(), 10*time.Minute)
			if m.Status()[args[0]].State == mcp.StateConnected {
				fmt.Fprintf(e.stdout, "MCP server %q is connected; no authorisation is needed (run codeloop mcp logout %s to start over).\n", args[0], args[0])
				return nil
			}
			ctx, cancel := context.WithTimeout(cmd.Context(), mcpAuthTimeout)
			defer cancel()
			open := func(url string) error {
				fmt.Fprintf(e.stdout, "Open this URL in your browser to authorise codeloop:\n\n  %s\n\nWaiting for the authorisation...\n", url)
				openBrowser(ctx, url)
				return nil
			}
			if err := m.Authenticate(ctx, args[0], open); err != nil {
				return err
			}
			fmt.Fprintf(e.stdout, "Authorised. MCP server %q is connected.\n", args[0])
			return nil
		},
	}
}

// openBrowser tries to show url in the user's browser; the URL is printed
// anyway, so failure is silent.
func openBrowser(ctx context.Context, url string) {
	var name string
	var args []string
	switch runtime.GOOS {
	case "darwin":
		name = "open"
	case "windows":
		name, args = "rundll32", []string{"url.dll,FileProtocolHandler"}
	default:
		name = "xdg-open"
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	_ = exec.CommandContext(ctx, name, append(args, url)...).Run()
}

func mcpLogoutCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:   "logout <name>",
		Short: "Forget the OAuth tokens of an MCP server",
		Args:  cobra.ExactArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			ok, err := mcp.NewAuthStore(e.dirs.MCPAuth()).Delete(args[0])
			if err != nil {
				return err
			}
			if !ok {
				fmt.Fprintf(e.stdout, "No credentials are stored for MCP server %q.\n", args[0])
				return nil
			}
			fmt.Fprintf(e.stdout, "Removed the credentials of MCP server %q.\n", args[0])
			return nil
		},
	}
}

// mcpServer finds name among the configured servers.
func mcpServer(loaded *config.Loaded, name string) (config.MCP, error) {
	cfg, ok := loaded.Config.MCP[name]
	if !ok {
		names := make([]string, 0, len(loaded.Config.MCP))
		for n := range loaded.Config.MCP {
			names = append(names, n)
		}
		slices.Sort(names)
		if len(names) == 0 {
			return cfg, fmt.Errorf("no MCP server is named %q; none is configured", name)
		}
		return cfg, fmt.Errorf("no MCP server is named %q; configured: %s", name, strings.Join(names, ", "))
	}
	return cfg, nil
}

// withEnabled returns cfg enabled, for commands that name a server
// explicitly.
func withEnabled(cfg config.MCP) config.MCP {
	on := true
	cfg.Enabled = &on
	return cfg
}

func mcpDebugCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:   "debug <name>",
		Short: "Connect to an MCP server and print its capabilities, tools, prompts and resources",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			name := args[0]
			loaded, cwd, err := loadMCP(cmd.Context(), e)
			if err != nil {
				return err
			}
			cfg, err := mcpServer(loaded, name)
			if err != nil {
				return err
			}
			m := startMCP(cmd.Context(), e, map[string]config.MCP{name: withEnabled(cfg)}, cwd, loaded.Config)
			defer m.Close()
			return printMCPDebug(cmd.Context(), e, m, name)
		},
	}
}

func printMCPDebug(ctx context.Context, e *env, m *mcp.Manager, name string) error {
	info := m.Servers()[0]
	out := e.stdout
	fmt.Fprintf(out, "server:    %s (%s)\n", name, info.Type)
	fmt.Fprintf(out, "status:    %s\n", info.Status.State)
	switch info.Status.State {
	case mcp.StateConnected:
	case mcp.StateNeedsAuth:
		return &exitCodeError{code: exitError, err: fmt.Errorf("MCP server %q needs authorisation: run codeloop mcp auth %s", name, name)}
	default:
		return &exitCodeError{code: exitError, err: fmt.Errorf("MCP server %q: %s", name, info.Status.Error)}
	}
	fmt.Fprintf(out, "transport: %s\n", info.Transport)
	fmt.Fprintf(out, "version:   %s\n", info.Version)
	caps, _ := json.Marshal(info.Capabilities)
	fmt.Fprintf(out, "capabilities: %s\n", caps)
	if info.Instructions != "" {
		fmt.Fprintf(out, "\ninstructions:\n%s\n", indent(info.Instructions))
	}
	tools := m.Tools()
	fmt.Fprintf(out, "\ntools (%d):\n", len(tools))
	for _, t := range tools {
		fmt.Fprintf(out, "  %s\n", t.ID())
		if d := t.Description(); d != "" {
			fmt.Fprintf(out, "    %s\n", shortLine(d))
		}
		fmt.Fprintf(out, "    schema: %s\n", t.Schema())
	}
	prompts := m.Prompts()
	fmt.Fprintf(out, "\nprompts (%d):\n", len(prompts))
	for _, p := range prompts {
		fmt.Fprintf(out, "  /%s", p.Command())
		for i, a := range p.Arguments {
			opt := ""
			if !a.Required {
				opt = "?"
			}
			fmt.Fprintf(out, " $%d=%s%s", i+1, a.Name, opt)
		}
		fmt.Fprintln(out)
		if p.Description != "" {
			fmt.Fprintf(out, "    %s\n", shortLine(p.Description))
		}
	}
	if info.Capabilities != nil && info.Capabilities.Resources != nil {
		rs, err := m.Resources(ctx, name)
		fmt.Fprintf(out, "\nresources (%d):\n", len(rs))
		for _, r := range rs {
			fmt.Fprintf(out, "  @%s:%s\t%s\t%s\n", name, r.URI, r.Name, r.MIMEType)
		}
		if err != nil {
			fmt.Fprintf(out, "  (listing failed: %v)\n", err)
		}
	}
	return nil
}

func indent(s string) string {
	return "  " + strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n  ")
}
