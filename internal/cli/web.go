package cli

import (
	"context"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/codeloop/codeloop/internal/web"
)

// newWebCmd is `codeloop web`: codeloop serve with the browser front end,
// and a one-time login link printed (and opened unless --no-open).
func newWebCmd(e *env) *cobra.Command {
	o := serveOptions{grace: 10 * time.Second, abortWindow: 10 * time.Second, web: true}
	cmd := &cobra.Command{
		Use:   "web",
		Short: "Serve the project with a web interface and open it in the browser",
		Long: "Serve the project as codeloop serve does, with the web interface at /web/ (see docs/web.md).\n\n" +
			"It prints a login link that carries a one-time code and opens it in the browser unless\n" +
			"--no-open is given. Opening the link logs that browser in (an HttpOnly session cookie)\n" +
			"and spends the code; the next link is printed then, for another browser. The API's\n" +
			"token works as for codeloop serve. Only loopback addresses are served unless\n" +
			"--insecure-listen is given: reach the page from another machine through an SSH tunnel\n" +
			"or a VPN you control.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return e.serve(cmd, o)
		},
	}
	f := cmd.Flags()
	serverFlags(f, &o)
	f.BoolVar(&o.noOpen, "no-open", false, "print the login link without opening a browser")
	return cmd
}

// lockedWriter serialises writes from the server's handlers and the
// command.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// webFront makes the front end for the server at base; each time a login
// link is spent it prints the next one on out.
func webFront(out io.Writer, base string) *web.Front {
	var front *web.Front
	front = web.New(web.Options{Spent: func() {
		if next, err := front.LoginURL(base); err == nil {
			fmt.Fprintf(out, "a login link was used; the next one: %s\n", next)
		}
	}})
	return front
}

// printLogin prints a login link and opens it unless told not to.
func printLogin(ctx context.Context, out io.Writer, front *web.Front, base string, open bool) error {
	login, err := front.LoginURL(base)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "log in at %s\n", login)
	fmt.Fprintf(out, "(the link works once; it sets a cookie for %s%s)\n", base, web.Prefix)
	if open {
		go openBrowser(ctx, login)
	}
	return nil
}
