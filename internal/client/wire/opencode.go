package wire

import (
	"encoding/json"
	"maps"
	"slices"
	"strings"

	"github.com/codeloop/codeloop/internal/client"
)

// Provider is a provider as OpenCode's API describes it: its models in a
// map keyed by model id.
type Provider struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	// Source is OpenCode's: env, config, custom or api.
	Source string `json:"source"`
	// Env are the environment variables that can hold its key.
	Env []string `json:"env"`
	// Options are the provider's options the clients may see; never a
	// credential.
	Options map[string]any   `json:"options"`
	Models  map[string]Model `json:"models"`
	// CodeloopSource is where codeloop found the provider usable: config,
	// auth, env or local (codeloop's addition).
	CodeloopSource string `json:"codeloopSource,omitempty"`
}

// Model is a model as OpenCode's API describes it.
type Model struct {
	ID           string                    `json:"id"`
	ProviderID   string                    `json:"providerID"`
	API          ModelAPI                  `json:"api"`
	Name         string                    `json:"name"`
	Family       string                    `json:"family,omitempty"`
	Capabilities ModelCapabilities         `json:"capabilities"`
	Cost         ModelCost                 `json:"cost"`
	Limit        ModelLimit                `json:"limit"`
	Status       string                    `json:"status"`
	Options      map[string]any            `json:"options"`
	Headers      map[string]string         `json:"headers"`
	ReleaseDate  string                    `json:"release_date"`
	Variants     map[string]map[string]any `json:"variants,omitempty"`

	// The capabilities again, as the SDK's v1 model type names them.
	V1Temperature bool `json:"temperature"`
	V1Reasoning   bool `json:"reasoning"`
	V1Attachment  bool `json:"attachment"`
	V1ToolCall    bool `json:"tool_call"`
}

// ModelAPI is the API a model is called through: its id there, its
// endpoint (empty for the package's default) and the AI SDK package.
type ModelAPI struct {
	ID  string `json:"id"`
	URL string `json:"url"`
	NPM string `json:"npm"`
}

// ModelCapabilities says what a model can do and read.
type ModelCapabilities struct {
	Temperature bool       `json:"temperature"`
	Reasoning   bool       `json:"reasoning"`
	Attachment  bool       `json:"attachment"`
	ToolCall    bool       `json:"toolcall"`
	Input       Modalities `json:"input"`
	Output      Modalities `json:"output"`
	Interleaved bool       `json:"interleaved"`
}

// Modalities flags the kinds of content a model reads or writes.
type Modalities struct {
	Text  bool `json:"text"`
	Audio bool `json:"audio"`
	Image bool `json:"image"`
	Video bool `json:"video"`
	PDF   bool `json:"pdf"`
}

// ModelCost holds prices in US dollars per million tokens.
type ModelCost struct {
	Input  float64        `json:"input"`
	Output float64        `json:"output"`
	Cache  ModelCostCache `json:"cache"`
}

// ModelCostCache holds the prices of cached prompt tokens read and written.
type ModelCostCache struct {
	Read  float64 `json:"read"`
	Write float64 `json:"write"`
}

// ModelLimit holds a model's token limits; zero is unknown.
type ModelLimit struct {
	Context int64 `json:"context"`
	Input   int64 `json:"input,omitempty"`
	Output  int64 `json:"output"`
}

// openCodeSource maps codeloop's provider sources to OpenCode's.
var openCodeSource = map[string]string{"config": "config", "auth": "api", "env": "env", "local": "custom"}

// ToProvider returns p in OpenCode's shape.
func ToProvider(p client.Provider) Provider {
	out := Provider{
		ID: p.ID, Name: p.Name, Source: openCodeSource[p.Source], Env: p.Env,
		Options: map[string]any{}, Models: make(map[string]Model, len(p.Models)), CodeloopSource: p.Source,
	}
	if out.Source == "" {
		out.Source = "custom"
	}
	if out.Env == nil {
		out.Env = []string{}
	}
	for _, m := range p.Models {
		out.Models[m.ID] = ToModel(m)
	}
	return out
}

// ToModel returns m in OpenCode's shape.
func ToModel(m client.Model) Model {
	out := Model{
		ID: m.ID, ProviderID: m.ProviderID, Name: m.Name, Family: m.Family,
		API: ModelAPI{ID: m.ID, URL: m.APIURL, NPM: m.NPM},
		Capabilities: ModelCapabilities{
			Temperature: m.Temperature, Reasoning: m.Reasoning, Attachment: m.Attachment, ToolCall: m.ToolCall,
			Input: Modalities{Text: true}, Output: Modalities{Text: true},
		},
		Cost:        ModelCost{Input: m.Cost.Input, Output: m.Cost.Output, Cache: ModelCostCache{Read: m.Cost.CacheRead, Write: m.Cost.CacheWrite}},
		Limit:       ModelLimit{Context: m.Limit.Context, Input: m.Limit.Input, Output: m.Limit.Output},
		Status:      m.Status,
		Options:     map[string]any{},
		Headers:     map[string]string{},
		ReleaseDate: m.ReleaseDate,

		V1Temperature: m.Temperature, V1Reasoning: m.Reasoning, V1Attachment: m.Attachment, V1ToolCall: m.ToolCall,
	}
	if out.Status == "" {
		out.Status = "active"
	}
	if m.Modalities != nil {
		out.Capabilities.Input, out.Capabilities.Output = modalities(m.Modalities.Input), modalities(m.Modalities.Output)
	}
	if len(m.Variants) > 0 {
		out.Variants = make(map[string]map[string]any, len(m.Variants))
		for _, v := range m.Variants {
			out.Variants[v] = map[string]any{}
		}
	}
	return out
}

// Client returns the provider as codeloop's clients know it, its models
// sorted by id.
func (p Provider) Client() client.Provider {
	out := client.Provider{ID: p.ID, Name: p.Name, Source: p.CodeloopSource, Env: p.Env}
	for _, id := range slices.Sorted(maps.Keys(p.Models)) {
		out.Models = append(out.Models, p.Models[id].Client())
	}
	return out
}

// Client returns the model as codeloop's clients know it.
func (m Model) Client() client.Model {
	out := client.Model{
		ID: m.ID, ProviderID: m.ProviderID, Name: m.Name, Family: m.Family,
		Limit:     client.ModelLimit{Context: m.Limit.Context, Input: m.Limit.Input, Output: m.Limit.Output},
		Cost:      client.ModelCost{Input: m.Cost.Input, Output: m.Cost.Output, CacheRead: m.Cost.Cache.Read, CacheWrite: m.Cost.Cache.Write},
		Reasoning: m.Capabilities.Reasoning, ToolCall: m.Capabilities.ToolCall, Attachment: m.Capabilities.Attachment,
		Temperature: m.Capabilities.Temperature, ReleaseDate: m.ReleaseDate, NPM: m.API.NPM, APIURL: m.API.URL,
	}
	if m.Status != "active" {
		out.Status = m.Status
	}
	// Text in and out is what a model without listed modalities is
	// described with.
	if in, o := m.Capabilities.Input.names(), m.Capabilities.Output.names(); !(slices.Equal(in, []string{"text"}) && slices.Equal(o, []string{"text"})) && (len(in) > 0 || len(o) > 0) {
		out.Modalities = &client.Modalities{Input: in, Output: o}
	}
	if len(m.Variants) > 0 {
		out.Variants = slices.Sorted(maps.Keys(m.Variants))
	}
	return out
}

func modalities(names []string) Modalities {
	var m Modalities
	for _, n := range names {
		switch strings.ToLower(n) {
		case "text":
			m.Text = true
		case "audio":
			m.Audio = true
		case "image":
			m.Image = true
		case "video":
			m.Video = true
		case "pdf":
			m.PDF = true
		}
	}
	return m
}

func (m Modalities) names() []string {
	var out []string
	for _, x := range []struct {
		on   bool
		name string
	}{{m.Text, "text"}, {m.Image, "image"}, {m.PDF, "pdf"}, {m.Audio, "audio"}, {m.Video, "video"}} {
		if x.on {
			out = append(out, x.name)
		}
	}
	return out
}

// Agent is an agent as OpenCode's API describes it.
type Agent struct {
	Name        string                  `json:"name"`
	Description string                  `json:"description,omitempty"`
	Mode        string                  `json:"mode"`
	Native      bool                    `json:"native,omitempty"`
	Hidden      bool                    `json:"hidden,omitempty"`
	TopP        *float64                `json:"topP,omitempty"`
	Temperature *float64                `json:"temperature,omitempty"`
	Color       string                  `json:"color,omitempty"`
	Permission  []client.PermissionRule `json:"permission"`
	Model       *AgentModel             `json:"model,omitempty"`
	Variant     string                  `json:"variant,omitempty"`
	Options     map[string]any          `json:"options"`
	Steps       int                     `json:"steps,omitempty"`
	// BuiltIn repeats Native and Tools is empty (the rules say which
	// tools an agent may use), for OpenCode's older clients.
	BuiltIn bool            `json:"builtIn"`
	Tools   map[string]bool `json:"tools"`
}

// AgentModel is the model an agent answers with.
type AgentModel struct {
	ModelID    string `json:"modelID"`
	ProviderID string `json:"providerID"`
}

// ToAgent returns a in OpenCode's shape.
func ToAgent(a client.Agent) Agent {
	out := Agent{
		Name: a.Name, Description: a.Description, Mode: a.Mode, Native: a.Native, Hidden: a.Hidden,
		TopP: a.TopP, Temperature: a.Temperature, Color: a.Color, Permission: a.Permission,
		Variant: a.Variant, Options: a.Options, Steps: a.Steps, BuiltIn: a.Native, Tools: map[string]bool{},
	}
	if out.Permission == nil {
		out.Permission = []client.PermissionRule{}
	}
	if out.Options == nil {
		out.Options = map[string]any{}
	}
	if p, m, ok := strings.Cut(a.Model, "/"); ok {
		out.Model = &AgentModel{ModelID: m, ProviderID: p}
	}
	return out
}

// Client returns the agent as codeloop's clients know it.
func (a Agent) Client() client.Agent {
	out := client.Agent{
		Name: a.Name, Description: a.Description, Mode: a.Mode, Native: a.Native, Hidden: a.Hidden,
		Variant: a.Variant, Color: a.Color, Steps: a.Steps, Temperature: a.Temperature, TopP: a.TopP,
		Permission: a.Permission, Options: a.Options,
	}
	if len(out.Options) == 0 {
		out.Options = nil
	}
	if len(out.Permission) == 0 {
		out.Permission = nil
	}
	if a.Model != nil {
		out.Model = a.Model.ProviderID + "/" + a.Model.ModelID
	}
	return out
}

// ShellResponse is the answer of POST /session/{sessionID}/shell: the
// message that records the command with its parts, as OpenCode's v2 API
// has it. It is encoded with the message's fields at the top level too,
// as OpenCode's v1 API has them.
type ShellResponse struct {
	Info  client.MessageInfo `json:"info"`
	Parts []client.Part      `json:"parts"`
}

// MarshalJSON encodes r as {info, parts} beside the fields of info.
func (r ShellResponse) MarshalJSON() ([]byte, error) {
	info, err := json.Marshal(r.Info)
	if err != nil {
		return nil, err
	}
	var out map[string]json.RawMessage
	if err := json.Unmarshal(info, &out); err != nil {
		return nil, err
	}
	parts := r.Parts
	if parts == nil {
		parts = []client.Part{}
	}
	if out["parts"], err = json.Marshal(parts); err != nil {
		return nil, err
	}
	out["info"] = info
	return json.Marshal(out)
}
