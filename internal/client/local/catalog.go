package local

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/codeloop/codeloop/internal/agent"
	"github.com/codeloop/codeloop/internal/app"
	"github.com/codeloop/codeloop/internal/client"
)

// Models returns the usable providers with their models, the recent
// models and the default one (app.ModelCatalog).
func (c *Client) Models(ctx context.Context) (client.ModelCatalog, error) {
	return result(toCatalog)(c.app.ModelCatalog(ctx))
}

func toCatalog(cat app.ModelCatalog) client.ModelCatalog {
	var out client.ModelCatalog
	for _, p := range cat.Providers {
		cp := client.Provider{ID: p.ID, Name: p.Name, Source: string(p.Source), Env: p.Env}
		for _, m := range p.Models() {
			cm := client.Model{
				ID: m.Key, ProviderID: p.ID, Name: m.Name, Family: m.Family,
				Limit:     client.ModelLimit{Context: m.Limit.Context, Input: m.Limit.Input, Output: m.Limit.Output},
				Cost:      client.ModelCost{Input: m.Cost.Input, Output: m.Cost.Output, CacheRead: m.Cost.CacheRead, CacheWrite: m.Cost.CacheWrite},
				Reasoning: m.Reasoning, ToolCall: m.ToolCall, Attachment: m.Attachment, Temperature: m.Temperature,
				Status: m.Status, ReleaseDate: m.ReleaseDate, Variants: cat.Variants[p.ID+"/"+m.Key],
			}
			cm.NPM, cm.APIURL = p.API(m)
			if cm.Name == "" {
				cm.Name = m.Key
			}
			if len(m.Input) > 0 || len(m.Output) > 0 {
				cm.Modalities = &client.Modalities{Input: m.Input, Output: m.Output}
			}
			cp.Models = append(cp.Models, cm)
		}
		out.Providers = append(out.Providers, cp)
	}
	if d := cat.Default; d != nil {
		out.Default = &client.ModelRef{ProviderID: d.ProviderID, ModelID: d.ModelID}
	}
	for _, r := range cat.Recent {
		out.Recent = append(out.Recent, client.ModelRef{ProviderID: r.ProviderID, ModelID: r.ModelID})
	}
	return out
}

// Agents lists the agents.
func (c *Client) Agents(context.Context) ([]client.Agent, error) {
	return each(func(a *agent.Agent) client.Agent {
		ag := client.Agent{
			Name: a.Name, Description: a.Description, Mode: string(a.Mode), Native: a.Native, Hidden: a.Hidden,
			Model: a.Model, Variant: a.Variant, Color: a.Color, Permission: toRules(a.Permission),
			Temperature: a.Temperature, TopP: a.TopP, Options: a.Options,
		}
		if a.Steps != nil {
			ag.Steps = *a.Steps
		}
		return ag
	})(c.app.Agents.List()), nil
}

// Commands lists the project's slash commands.
func (c *Client) Commands(ctx context.Context) ([]client.Command, error) {
	return each(func(cmd *agent.Command) client.Command {
		source := "command"
		if cmd.Source == "mcp" || cmd.Source == "skill" {
			source = cmd.Source
		}
		hints := cmd.Hints()
		if hints == nil {
			hints = []string{}
		}
		return client.Command{
			Name: cmd.Name, Description: cmd.Description, Agent: cmd.Agent, Model: cmd.Model,
			Subtask: cmd.Subtask != nil && *cmd.Subtask, Source: source, Origin: cmd.Source, Template: cmd.Template,
			ArgumentHint: cmd.ArgumentHint, Hints: hints,
		}
	})(c.app.Commands(ctx).List()), nil
}

// Config returns the project's resolved config.
func (c *Client) Config(context.Context) (json.RawMessage, error) {
	b, err := json.Marshal(c.app.Config.Config)
	if err != nil {
		return nil, fmt.Errorf("encoding the config: %w", err)
	}
	return b, nil
}
