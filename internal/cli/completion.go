package cli

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// newCompletionCmd prints a shell's completion script. Defined here, it
// takes the place of cobra's default completion command.
func newCompletionCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:   "completion bash|zsh|fish|powershell",
		Short: "Print the shell completion script for bash, zsh, fish or PowerShell",
		Long: "Print the shell completion script for bash, zsh, fish or PowerShell.\n\n" +
			"  bash:        source <(codeloop completion bash)       (bash-completion is needed)\n" +
			"  zsh:         codeloop completion zsh > \"${fpath[1]}/_codeloop\"\n" +
			"  fish:        codeloop completion fish > ~/.config/fish/completions/codeloop.fish\n" +
			"  PowerShell:  codeloop completion powershell | Out-String | Invoke-Expression",
		ValidArgs:             []string{"bash", "zsh", "fish", "powershell"},
		Args:                  cobra.MatchAll(cobra.ExactArgs(1), cobra.OnlyValidArgs),
		DisableFlagsInUseLine: true,
		// The script needs no directories or log.
		PersistentPreRunE: func(*cobra.Command, []string) error { return nil },
		RunE: func(cmd *cobra.Command, args []string) error {
			root := cmd.Root()
			switch args[0] {
			case "bash":
				return root.GenBashCompletionV2(e.stdout, true)
			case "zsh":
				return root.GenZshCompletion(e.stdout)
			case "fish":
				return root.GenFishCompletion(e.stdout, true)
			default:
				return root.GenPowerShellCompletionWithDesc(e.stdout)
			}
		},
	}
}

// newManCmd writes a manual page for every command into a directory; the
// release build runs it.
func newManCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:               "man DIR",
		Short:             "Write the manual pages into DIR",
		Hidden:            true,
		Args:              cobra.ExactArgs(1),
		PersistentPreRunE: func(*cobra.Command, []string) error { return nil },
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := os.MkdirAll(args[0], 0o755); err != nil {
				return err
			}
			n, err := writeManPages(cmd.Root(), args[0])
			if err != nil {
				return err
			}
			fmt.Fprintf(e.stderr, "wrote %d manual pages to %s\n", n, args[0])
			return nil
		},
	}
}

// writeManPages writes cmd's page and its visible subcommands' pages into
// dir and returns how many it wrote.
func writeManPages(cmd *cobra.Command, dir string) (int, error) {
	name := strings.ReplaceAll(cmd.CommandPath(), " ", "-")
	f, err := os.Create(filepath.Join(dir, name+".1"))
	if err != nil {
		return 0, err
	}
	writeManPage(f, cmd)
	if err := f.Close(); err != nil {
		return 0, err
	}
	n := 1
	for _, c := range cmd.Commands() {
		if !c.IsAvailableCommand() || c.IsAdditionalHelpTopicCommand() {
			continue
		}
		m, err := writeManPages(c, dir)
		n += m
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

// writeManPage writes cmd's manual page in roff. It carries no date, so
// the same commands give the same bytes.
func writeManPage(w io.Writer, cmd *cobra.Command) {
	name := strings.ReplaceAll(cmd.CommandPath(), " ", "-")
	fmt.Fprintf(w, ".TH %s 1 \"\" \"codeloop %s\" \"codeloop manual\"\n", strings.ToUpper(roff(name)), roff(Version))
	fmt.Fprintf(w, ".SH NAME\n%s \\- %s\n", roff(name), roff(cmd.Short))
	fmt.Fprintf(w, ".SH SYNOPSIS\n.B %s\n", roff(cmd.UseLine()))
	desc := cmd.Long
	if desc == "" {
		desc = cmd.Short
	}
	fmt.Fprintf(w, ".SH DESCRIPTION\n.nf\n%s\n.fi\n", roffLines(desc))
	if cmd.Example != "" {
		fmt.Fprintf(w, ".SH EXAMPLES\n.nf\n%s\n.fi\n", roffLines(cmd.Example))
	}
	writeFlags(w, "OPTIONS", cmd.NonInheritedFlags())
	writeFlags(w, "GLOBAL OPTIONS", cmd.InheritedFlags())
	var see []string
	if cmd.HasParent() {
		see = append(see, strings.ReplaceAll(cmd.Parent().CommandPath(), " ", "-"))
	}
	for _, c := range cmd.Commands() {
		if c.IsAvailableCommand() && !c.IsAdditionalHelpTopicCommand() {
			see = append(see, strings.ReplaceAll(c.CommandPath(), " ", "-"))
		}
	}
	if len(see) > 0 {
		for i, s := range see {
			see[i] = "\\fB" + roff(s) + "\\fR(1)"
		}
		fmt.Fprintf(w, ".SH SEE ALSO\n%s\n", strings.Join(see, ", "))
	}
}

func writeFlags(w io.Writer, title string, fs *pflag.FlagSet) {
	if !fs.HasAvailableFlags() {
		return
	}
	fmt.Fprintf(w, ".SH %s\n", title)
	fs.VisitAll(func(f *pflag.Flag) {
		if f.Hidden {
			return
		}
		head := "\\-\\-" + roff(f.Name)
		if f.Shorthand != "" {
			head = "\\-" + roff(f.Shorthand) + ", " + head
		}
		if f.Value.Type() != "bool" {
			head += " " + roff(f.Value.Type())
		}
		usage := f.Usage
		if f.DefValue != "" && f.DefValue != "false" && f.DefValue != "[]" {
			usage += " (default " + f.DefValue + ")"
		}
		fmt.Fprintf(w, ".TP\n\\fB%s\\fR\n%s\n", head, roff(usage))
	})
}

// roff escapes s for one line of roff text.
func roff(s string) string {
	s = strings.ReplaceAll(s, "\\", "\\e")
	s = strings.ReplaceAll(s, "-", "\\-")
	return s
}

// roffLines escapes a block of lines, keeping a line that starts with a
// dot or a quote from reading as a request.
func roffLines(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	for i, l := range lines {
		l = roff(l)
		if strings.HasPrefix(l, ".") || strings.HasPrefix(l, "'") {
			l = "\\&" + l
		}
		lines[i] = l
	}
	return strings.Join(lines, "\n")
}
