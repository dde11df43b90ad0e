package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/codeloop/codeloop/internal/llm"
	"github.com/codeloop/codeloop/internal/llm/catalog"
	"github.com/codeloop/codeloop/internal/provider"
)

// registry builds the provider registry for the working directory's
// config, with the catalog source it reads.
func (e *env) registry(ctx context.Context) (*provider.Registry, *catalog.Source, error) {
	cwd, err := os.Getwd()
	if err != nil {
		return nil, nil, err
	}
	loaded, err := e.loadConfig(ctx, cwd)
	if err != nil {
		return nil, nil, err
	}
	src := catalog.NewSource(catalog.OptionsFromEnv(e.getenv, e.dirs.Cache))
	reg := provider.New(provider.Options{Config: loaded.Config, Dirs: e.dirs, Getenv: e.getenv, Catalog: src,
		UserAgent: "codeloop/" + Version, Log: e.log})
	return reg, src, nil
}

func newModelsCmd(e *env) *cobra.Command {
	var verbose, refresh, all bool
	cmd := &cobra.Command{
		Use:   "models [provider]",
		Short: "List the models of the providers you can use",
		Long: "List the models of the usable providers (a key in the environment, in auth.json, or a config entry)\n" +
			"as provider/model, one per line. With --all, or when no provider is usable, list the whole catalog.",
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			reg, src, err := e.registry(ctx)
			if err != nil {
				return err
			}
			if refresh {
				fmt.Fprintln(e.stderr, "Refreshing the model catalog from models.dev...")
				if err := src.Refresh(ctx); err != nil {
					fmt.Fprintf(e.stderr, "Could not refresh the catalog (%v); using the %s copy.\n", err, originName(src))
				}
			}
			var only string
			if len(args) == 1 {
				only = args[0]
			}
			if !all {
				infos, err := reg.Providers(ctx)
				if err != nil {
					return err
				}
				var shown int
				for _, p := range infos {
					if only != "" && p.ID != only {
						continue
					}
					for _, m := range p.Models() {
						shown++
						if err := e.printModel(p.ID, m.Key, m.Model, verbose, func() []string {
							vs, _ := reg.Variants(ctx, p.ID+"/"+m.Key)
							return vs
						}); err != nil {
							return err
						}
					}
				}
				if shown > 0 {
					return nil
				}
				if only != "" {
					if cat, err := src.Catalog(); err == nil {
						if _, ok := cat.Provider(only); !ok {
							return fmt.Errorf("unknown provider %q", only)
						}
					}
					fmt.Fprintf(e.stderr, "Provider %s is not usable yet (see codeloop auth login %s); its catalog models:\n", only, only)
				} else {
					fmt.Fprintln(e.stderr, "No provider is usable yet: set an API key or run codeloop auth login. The catalog:")
				}
			}
			return e.printCatalog(src, only, verbose)
		},
	}
	cmd.Flags().BoolVar(&verbose, "verbose", false, "show each model's limits, costs and capabilities as JSON")
	cmd.Flags().BoolVar(&refresh, "refresh", false, "fetch the latest catalog from models.dev first")
	cmd.Flags().BoolVar(&all, "all", false, "list every provider of the catalog, usable or not")
	return cmd
}

func originName(src *catalog.Source) string {
	if o := src.Origin(); o != "" {
		return o
	}
	return "embedded"
}

func (e *env) printCatalog(src *catalog.Source, only string, verbose bool) error {
	cat, err := src.Catalog()
	if err != nil {
		return err
	}
	found := false
	for _, p := range cat.Providers() {
		if only != "" && p.ID != only {
			continue
		}
		found = true
		for _, id := range p.ModelIDs() {
			m, _ := p.Model(id)
			if err := e.printModel(p.ID, id, m.LLM(p.ID), verbose, func() []string { return catalogVariants(m) }); err != nil {
				return err
			}
		}
	}
	if !found && only != "" {
		return fmt.Errorf("unknown provider %q", only)
	}
	return nil
}

func catalogVariants(m *catalog.Model) []string {
	var out []string
	for _, o := range m.ReasoningOptions {
		switch o.Type {
		case "effort":
			out = append(out, o.Values...)
		case "budget_tokens":
			out = append(out, "low", "medium", "high", "max")
		}
	}
	return out
}

// modelDetails is what --verbose prints for a model.
type modelDetails struct {
	Name        string    `json:"name"`
	Family      string    `json:"family,omitempty"`
	Release     string    `json:"releaseDate,omitempty"`
	Status      string    `json:"status,omitempty"`
	Limit       llm.Limit `json:"limit"`
	Cost        llm.Cost  `json:"cost"`
	Reasoning   bool      `json:"reasoning"`
	ToolCall    bool      `json:"toolCall"`
	Temperature bool      `json:"temperature"`
	Attachment  bool      `json:"attachment"`
	Input       []string  `json:"input,omitempty"`
	Output      []string  `json:"output,omitempty"`
	Variants    []string  `json:"variants,omitempty"`
}

func (e *env) printModel(providerID, key string, m llm.Model, verbose bool, variants func() []string) error {
	fmt.Fprintf(e.stdout, "%s/%s\n", providerID, key)
	if !verbose {
		return nil
	}
	d := modelDetails{Name: m.Name, Family: m.Family, Release: m.ReleaseDate, Status: m.Status, Limit: m.Limit, Cost: m.Cost,
		Reasoning: m.Reasoning, ToolCall: m.ToolCall, Temperature: m.Temperature, Attachment: m.Attachment,
		Input: m.Input, Output: m.Output, Variants: variants()}
	b, err := json.MarshalIndent(d, "", "  ")
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "%s\n", b)
	return nil
}
