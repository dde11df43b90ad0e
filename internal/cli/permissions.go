package cli

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/codeloop/codeloop/internal/app"

	"github.com/codeloop/codeloop/internal/permission"
)

// approvalScope turns the scope flags of the permissions commands into a
// store scope and scope id ("" and "" for every approval).
func approvalScope(project, global bool, session, projectID string) (scope, scopeID, what string, err error) {
	n := 0
	for _, set := range []bool{project, global, session != ""} {
		if set {
			n++
		}
	}
	switch {
	case n > 1:
		return "", "", "", &exitCodeError{code: exitUsage, err: errors.New("give at most one of --project, --global and --session")}
	case project:
		return string(permission.ScopeProject), projectID, "this project's saved approvals", nil
	case global:
		return string(permission.ScopeGlobal), "", "the approvals saved for everywhere", nil
	case session != "":
		return string(permission.ScopeSession), session, "the approvals saved for session " + session, nil
	}
	return "", "", "every saved approval (all projects, all sessions, everywhere)", nil
}

func newPermissionsCmd(e *env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "permissions",
		Short: "List and remove saved permission approvals",
		Long: `When you answer a permission prompt with "always", codeloop saves the
approval for the session, the project or everywhere, as you chose. These
commands show and remove what was saved; the rules of your config files are
not affected.`,
	}
	var project, global bool
	var session, format string
	list := &cobra.Command{
		Use:   "list",
		Short: "List saved approvals (all, or those of one scope)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			a, err := e.openListing(cmd.Context(), format)
			if err != nil {
				return err
			}
			defer a.Close()
			scope, scopeID, _, err := approvalScope(project, global, session, a.ProjectID)
			if err != nil {
				return err
			}
			saved, err := a.Records().Approvals(cmd.Context(), scope, scopeID)
			if err != nil {
				return err
			}
			if format == "json" {
				if saved == nil {
					saved = []app.Approval{}
				}
				enc := json.NewEncoder(e.stdout)
				enc.SetIndent("", "  ")
				return enc.Encode(saved)
			}
			if len(saved) == 0 {
				fmt.Fprintln(e.stdout, "No saved approvals.")
				return nil
			}
			w := tabwriter.NewWriter(e.stdout, 0, 0, 2, ' ', 0)
			fmt.Fprintln(w, "SCOPE\tSCOPE ID\tPERMISSION\tPATTERN\tORIGIN\tCREATED")
			for _, ap := range saved {
				scopeID := ap.ScopeID
				if ap.Scope == string(permission.ScopeProject) && scopeID == a.ProjectID {
					scopeID += " (this project)"
				}
				fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\n", ap.Scope, orDash(scopeID), ap.Permission, ap.Pattern,
					orDash(oneLine(ap.Origin, 60)), time.UnixMilli(ap.TimeCreated).Format("2006-01-02 15:04"))
			}
			return w.Flush()
		},
	}
	list.Flags().BoolVar(&project, "project", false, "only this project's approvals")
	list.Flags().BoolVar(&global, "global", false, "only approvals saved for everywhere")
	list.Flags().StringVar(&session, "session", "", "only the approvals of this session id")
	list.Flags().StringVar(&format, "format", "table", "output format: table or json")

	var rProject, rGlobal, yes bool
	var rSession string
	reset := &cobra.Command{
		Use:   "reset",
		Short: "Remove saved approvals (all, or those of one scope)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			a, err := e.openData(cmd.Context())
			if err != nil {
				return err
			}
			defer a.Close()
			scope, scopeID, what, err := approvalScope(rProject, rGlobal, rSession, a.ProjectID)
			if err != nil {
				return err
			}
			saved, err := a.Records().Approvals(cmd.Context(), scope, scopeID)
			if err != nil {
				return err
			}
			if len(saved) == 0 {
				fmt.Fprintln(e.stdout, "No saved approvals to remove.")
				return nil
			}
			if !yes {
				f, ok := e.stdin.(*os.File)
				if !ok || !isTerminal(f) {
					return &exitCodeError{code: exitUsage, err: errors.New("not a terminal: pass --yes to remove without asking")}
				}
				fmt.Fprintf(e.stdout, "Remove %s (%d)? [y/N] ", what, len(saved))
				line, _ := bufio.NewReader(e.stdin).ReadString('\n')
				if ans := strings.ToLower(strings.TrimSpace(line)); ans != "y" && ans != "yes" {
					fmt.Fprintln(e.stdout, "Nothing removed.")
					return nil
				}
			}
			n, err := a.Records().DeleteApprovals(cmd.Context(), scope, scopeID)
			if err != nil {
				return err
			}
			fmt.Fprintf(e.stdout, "Removed %d saved approval%s.\n", n, plural(n))
			return nil
		},
	}
	reset.Flags().BoolVar(&rProject, "project", false, "remove only this project's approvals")
	reset.Flags().BoolVar(&rGlobal, "global", false, "remove only approvals saved for everywhere")
	reset.Flags().StringVar(&rSession, "session", "", "remove only the approvals of this session id")
	reset.Flags().BoolVarP(&yes, "yes", "y", false, "remove without asking")
	cmd.AddCommand(list, reset)
	return cmd
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// oneLine shortens s to one line of at most n characters.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
