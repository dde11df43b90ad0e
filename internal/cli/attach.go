package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/codeloop/codeloop/internal/app"
	"github.com/codeloop/codeloop/internal/client/remote"
)

// attachOptions are the flags of codeloop attach.
type attachOptions struct {
	tui   tuiOptions
	token string
}

func newAttachCmd(e *env) *cobra.Command {
	var o attachOptions
	cmd := &cobra.Command{
		Use:   "attach [url]",
		Short: "Open the interface on a running codeloop server",
		Long: "Open the interface on a running codeloop serve: http://host:port, or unix:///path for\n" +
			"a server on a Unix socket. Without a URL, the server serving the working directory\n" +
			"(or the only one running) is found from the state files codeloop serve writes. The\n" +
			"token is taken from --token, $" + tokenEnv + ", or that state file.",
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			url := ""
			if len(args) == 1 {
				url = args[0]
			}
			return e.attach(cmd, url, o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.token, "token", "", "the server's token (default: $"+tokenEnv+", else the server's state file)")
	f.BoolVarP(&o.tui.cont, "continue", "c", false, "continue the last session")
	f.StringVarP(&o.tui.session, "session", "s", "", "session id to open")
	f.StringVarP(&o.tui.model, "model", "m", "", "model to use, as provider/model")
	f.StringVar(&o.tui.agent, "agent", "", "agent to use")
	f.StringVar(&o.tui.prompt, "prompt", "", "prompt to send when the interface opens")
	return cmd
}

// openRemote finds the server (url, or the one the state files name),
// connects to it and checks that it accepts the token.
func (e *env) openRemote(ctx context.Context, url, token string) (*remote.Client, error) {
	cwd, err := os.Getwd()
	if err != nil {
		return nil, err
	}
	st, err := pickServer(runningServers(e.dirs.State), url, cwd)
	if err != nil {
		return nil, err
	}
	if token == "" {
		token = e.getenv(tokenEnv)
	}
	if token == "" {
		token = st.Token
	}
	if token == "" {
		return nil, fmt.Errorf("no token for %s: give --token or set %s (codeloop serve writes its token to a state file readable by its owner)", st.URL, tokenEnv)
	}
	c, err := remote.New(st.URL, remote.Options{Token: token})
	if err != nil {
		return nil, &exitCodeError{code: exitUsage, err: err}
	}
	cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if _, err := c.Path(cctx); err != nil {
		c.Close()
		var re *remote.Error
		if errors.As(err, &re) {
			return nil, fmt.Errorf("the server at %s refused the connection: %w", st.URL, err)
		}
		return nil, fmt.Errorf("no codeloop server answers at %s (%v); start one with codeloop serve", st.URL, err)
	}
	return c, nil
}

func (e *env) attach(cmd *cobra.Command, url string, o attachOptions) error {
	if !isTerminal(e.stdout) || !e.stdinTerminal() {
		return &exitCodeError{code: exitUsage, err: errors.New("codeloop attach opens the interface and needs a terminal; script the server over HTTP instead (docs/server.md)")}
	}
	if o.tui.cont && o.tui.session != "" {
		return &exitCodeError{code: exitUsage, err: errors.New("--continue and --session cannot be used together")}
	}
	if o.tui.model != "" {
		if _, ok := app.ParseModel(o.tui.model); !ok {
			return &exitCodeError{code: exitUsage, err: fmt.Errorf("--model %q: want provider/model", o.tui.model)}
		}
	}
	ctx := cmd.Context()
	c, err := e.openRemote(ctx, url, o.token)
	if err != nil {
		return err
	}
	defer c.Close()
	// The interface's settings are the local config's: they belong to
	// the terminal, not to the server's project.
	if wd, err := os.Getwd(); err == nil {
		if l, err := e.loadConfig(ctx, wd); err == nil {
			o.tui.settings = l.Config.Interface()
		} else {
			e.log.Warn("reading the local config for the interface's settings", "error", err)
		}
	}
	return e.openTUI(ctx, c, o.tui)
}
