package cli

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/mattn/go-isatty"
	"github.com/spf13/cobra"

	"github.com/codeloop/codeloop/internal/llm/auth"
	"github.com/codeloop/codeloop/internal/llm/catalog"
)

// authStore is <data>/auth.json, with OpenCode's auth.json read as well.
func (e *env) authStore() *auth.Store {
	s := &auth.Store{Path: e.dirs.Auth()}
	if c := e.getenv("CODELOOP_AUTH_CONTENT"); c != "" {
		s.Content = c
	} else if c := e.getenv("OPENCODE_AUTH_CONTENT"); c != "" {
		s.Content = c
	}
	data := e.getenv("XDG_DATA_HOME")
	if data == "" || !filepath.IsAbs(data) {
		data = filepath.Join(e.dirs.Home, ".local", "share")
	}
	s.Fallbacks = []string{filepath.Join(data, "opencode", "auth.json")}
	return s
}

// terminal reports whether the command reads from an interactive terminal.
func (e *env) terminal() (*os.File, bool) {
	f, ok := e.stdin.(*os.File)
	if !ok {
		return nil, false
	}
	return f, isatty.IsTerminal(f.Fd())
}

func newAuthCmd(e *env) *cobra.Command {
	cmd := &cobra.Command{Use: "auth", Short: "Manage provider credentials (stored in auth.json)"}
	cmd.AddCommand(newAuthLoginCmd(e), newAuthListCmd(e), newAuthLogoutCmd(e))
	return cmd
}

func newAuthLoginCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:   "login [provider]",
		Short: "Store an API key for a provider",
		Long: "Store an API key for a provider in auth.json (mode 0600). The key is read from the terminal without\n" +
			"echo, or from standard input when it is not a terminal:\n\n  echo \"$KEY\" | codeloop auth login anthropic",
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			in := bufio.NewReader(e.stdin)
			tty, interactive := e.terminal()
			src := catalog.NewSource(catalog.OptionsFromEnv(e.getenv, e.dirs.Cache))
			cat, err := src.Catalog()
			if err != nil {
				return err
			}
			var id string
			if len(args) == 1 {
				id = args[0]
			} else {
				if !interactive {
					return &exitCodeError{code: exitUsage, err: errors.New("name the provider: codeloop auth login <provider>")}
				}
				fmt.Fprintln(e.stderr, "Popular providers: anthropic, openai, google, openrouter, groq, deepseek, xai, mistral")
				fmt.Fprint(e.stderr, "Provider: ")
				line, err := in.ReadString('\n')
				if err != nil && line == "" {
					return errors.New("no provider given")
				}
				id = strings.TrimSpace(line)
			}
			id = auth.Normalize(id)
			if id == "" {
				return &exitCodeError{code: exitUsage, err: errors.New("no provider given")}
			}
			name := id
			if p, ok := cat.Provider(id); ok {
				name = p.Name
				if len(p.Env) > 0 {
					fmt.Fprintf(e.stderr, "(%s also reads the key from %s.)\n", p.Name, strings.Join(p.Env, " or "))
				}
			} else {
				fmt.Fprintf(e.stderr, "%s is not in the model catalog; the key is stored for a provider of that id in your config.\n", id)
			}
			key, err := readSecret(in, tty, interactive, e.stderr, "API key for "+name+": ")
			if err != nil {
				return err
			}
			if key == "" {
				return &exitCodeError{code: exitUsage, err: errors.New("no key given")}
			}
			store := e.authStore()
			if store.Content != "" {
				return errors.New("credentials come from CODELOOP_AUTH_CONTENT; unset it to store a key")
			}
			if err := store.Set(id, auth.Info{Type: "api", Key: key}); err != nil {
				return err
			}
			fmt.Fprintf(e.stdout, "Saved the key for %s (%s) in %s\n", id, auth.Mask(key), store.Path)
			return nil
		},
	}
}

// readSecret reads one line: from the terminal with echo off when there is
// one, else from standard input.
func readSecret(in *bufio.Reader, tty *os.File, interactive bool, prompt io.Writer, label string) (string, error) {
	if interactive {
		fmt.Fprint(prompt, label)
		if echo(tty, false) == nil {
			defer func() {
				_ = echo(tty, true)
				fmt.Fprintln(prompt)
			}()
		}
	}
	line, err := in.ReadString('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return "", fmt.Errorf("reading the key: %w", err)
	}
	return strings.TrimSpace(line), nil
}

// echo turns terminal echo on or off with stty, where there is one.
func echo(tty *os.File, on bool) error {
	arg := "-echo"
	if on {
		arg = "echo"
	}
	c := exec.Command("stty", arg)
	c.Stdin = tty
	return c.Run()
}

func newAuthListCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:     "list",
		Aliases: []string{"ls"},
		Short:   "List stored credentials and API keys found in the environment (masked)",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			store := e.authStore()
			creds, err := store.All()
			if err != nil {
				return err
			}
			w := tabwriter.NewWriter(e.stdout, 0, 0, 2, ' ', 0)
			fmt.Fprintf(w, "PROVIDER\tSOURCE\tTYPE\tKEY\n")
			ids := make([]string, 0, len(creds))
			for id := range creds {
				ids = append(ids, id)
			}
			slices.Sort(ids)
			for _, id := range ids {
				c := creds[id]
				fmt.Fprintf(w, "%s\t%s\t%s\t%s\n", id, "auth.json", c.Type, auth.Mask(c.Secret()))
			}
			src := catalog.NewSource(catalog.OptionsFromEnv(e.getenv, e.dirs.Cache))
			if cat, err := src.Catalog(); err == nil {
				for _, p := range cat.Providers() {
					for _, name := range p.Env {
						if v := e.getenv(name); v != "" && (strings.Contains(name, "KEY") || strings.Contains(name, "TOKEN")) {
							fmt.Fprintf(w, "%s\t%s\t%s\t%s\n", p.ID, "$"+name, "env", auth.Mask(v))
						}
					}
				}
			}
			if err := w.Flush(); err != nil {
				return err
			}
			if len(ids) == 0 {
				fmt.Fprintf(e.stderr, "No stored credentials in %s\n", store.Path)
			}
			return nil
		},
	}
}

func newAuthLogoutCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:   "logout [provider]",
		Short: "Remove a provider's stored credential",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			store := e.authStore()
			var id string
			if len(args) == 1 {
				id = args[0]
			} else {
				if _, interactive := e.terminal(); !interactive {
					return &exitCodeError{code: exitUsage, err: errors.New("name the provider: codeloop auth logout <provider>")}
				}
				creds, err := (&auth.Store{Path: store.Path}).All()
				if err != nil {
					return err
				}
				if len(creds) == 0 {
					fmt.Fprintf(e.stdout, "No stored credentials in %s\n", store.Path)
					return nil
				}
				var ids []string
				for k := range creds {
					ids = append(ids, k)
				}
				slices.Sort(ids)
				fmt.Fprintf(e.stderr, "Stored: %s\nProvider: ", strings.Join(ids, ", "))
				line, _ := bufio.NewReader(e.stdin).ReadString('\n')
				id = strings.TrimSpace(line)
			}
			found, err := store.Remove(id)
			if err != nil {
				return err
			}
			if !found {
				return fmt.Errorf("no stored credential for %s", id)
			}
			fmt.Fprintf(e.stdout, "Removed the credential for %s\n", auth.Normalize(id))
			return nil
		},
	}
}
