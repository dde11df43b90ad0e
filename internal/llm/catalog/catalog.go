// Package catalog is codeloop's model catalog: which providers exist, how
// to reach them (AI SDK package name, base URL, key variables) and what
// their models cost, hold and can do. The data is models.dev's
// (https://models.dev, MIT licence, see source/LICENSE).
//
// A snapshot is embedded in a packed form (an index of providers, then each
// provider's models), and decoded only as far as asked for. It is stored
// uncompressed: inflating it cost every start 5 ms and 5 MB, while the
// bytes of providers nobody asks for are never even paged in. At
// run time a copy fetched from https://models.dev/api.json in the
// background takes its place (<cache>/models.json, with a packed copy
// beside it); nothing ever waits on the network, and an offline machine
// uses the embedded copy.
//
// Regenerate the embedded copy from a newer snapshot in source/ with
// go generate. Any package may import this one.
package catalog

//go:generate go run ./internal/gen -src source/models-dev-2026-07-02.tar.gz -out catalog.pack

import (
	"bytes"
	"compress/gzip"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"sync"

	"github.com/codeloop/codeloop/internal/llm"
	"github.com/codeloop/codeloop/internal/llm/catalog/internal/pack"
)

//go:embed catalog.pack
var embedded []byte

// Catalog is the set of known providers, by id. Providers, and each
// provider's models, are decoded from the JSON only when first asked for:
// decoding all of models.dev at once would cost every start-up tens of
// milliseconds. It is safe for concurrent use.
type Catalog struct {
	mu        sync.Mutex
	raw       map[string]json.RawMessage
	providers map[string]*Provider
}

// Provider is one provider of the catalog.
type Provider struct {
	ID   string   `json:"id"`
	Name string   `json:"name"`
	Env  []string `json:"env"`
	NPM  string   `json:"npm"`
	API  string   `json:"api,omitempty"`
	Doc  string   `json:"doc,omitempty"`

	once      sync.Once
	rawModels json.RawMessage
	models    map[string]*Model
}

// NewProvider builds a provider entry from values, for catalogs made in
// code (custom providers, tests).
func NewProvider(id, name, npm, api string, env []string, models ...*Model) *Provider {
	p := &Provider{ID: id, Name: name, NPM: npm, API: api, Env: env, models: map[string]*Model{}}
	for _, m := range models {
		p.models[m.ID] = m
	}
	return p
}

// New builds a catalog from provider entries.
func New(providers ...*Provider) *Catalog {
	c := &Catalog{raw: map[string]json.RawMessage{}, providers: map[string]*Provider{}}
	for _, p := range providers {
		c.providers[p.ID] = p
	}
	return c
}

// Model is one model of a provider, as models.dev describes it.
type Model struct {
	ID               string            `json:"id"`
	Name             string            `json:"name"`
	Family           string            `json:"family,omitempty"`
	ReleaseDate      string            `json:"release_date,omitempty"`
	LastUpdated      string            `json:"last_updated,omitempty"`
	Attachment       bool              `json:"attachment"`
	Reasoning        bool              `json:"reasoning"`
	Temperature      *bool             `json:"temperature,omitempty"`
	ToolCall         Flag              `json:"tool_call"`
	Interleaved      *Interleaved      `json:"interleaved,omitempty"`
	Modalities       Modalities        `json:"modalities"`
	OpenWeights      bool              `json:"open_weights,omitempty"`
	Cost             *Cost             `json:"cost,omitempty"`
	Limit            Limit             `json:"limit"`
	Status           string            `json:"status,omitempty"`
	Provider         *ModelProvider    `json:"provider,omitempty"`
	ReasoningOptions []ReasoningOption `json:"reasoning_options,omitempty"`
}

// Modalities lists what a model takes and produces: text, image, pdf,
// audio, video.
type Modalities struct {
	Input  []string `json:"input"`
	Output []string `json:"output"`
}

// Limit holds token limits; zero is unknown.
type Limit struct {
	Context int64 `json:"context"`
	Input   int64 `json:"input,omitempty"`
	Output  int64 `json:"output"`
}

// Cost holds prices in US dollars per million tokens.
type Cost struct {
	Input           float64    `json:"input"`
	Output          float64    `json:"output"`
	Reasoning       float64    `json:"reasoning,omitempty"`
	CacheRead       float64    `json:"cache_read,omitempty"`
	CacheWrite      float64    `json:"cache_write,omitempty"`
	ContextOver200K *Cost      `json:"context_over_200k,omitempty"`
	Tiers           []CostTier `json:"tiers,omitempty"`
}

// CostTier holds the prices above a prompt size.
type CostTier struct {
	Size       int64   `json:"size"`
	Input      float64 `json:"input"`
	Output     float64 `json:"output"`
	CacheRead  float64 `json:"cache_read,omitempty"`
	CacheWrite float64 `json:"cache_write,omitempty"`
}

// ModelProvider overrides, for one model, the package and base URL of its
// provider; Shape is "responses" or "completions" when the API differs.
type ModelProvider struct {
	NPM   string `json:"npm,omitempty"`
	API   string `json:"api,omitempty"`
	Shape string `json:"shape,omitempty"`
}

// ReasoningOption says how a model's thinking is controlled: Type
// "effort" (Values lists the efforts), "budget_tokens" (Min, Max) or
// "toggle".
type ReasoningOption struct {
	Type   string   `json:"type"`
	Values []string `json:"values,omitempty"`
	Min    int64    `json:"min,omitempty"`
	Max    int64    `json:"max,omitempty"`
}

// Interleaved says a model interleaves reasoning with its output; Field
// names the message field reasoning travels back in, when there is one.
// In the data it is true or {"field": name}.
type Interleaved struct {
	Field string
}

// UnmarshalJSON accepts true, false and {"field": name}.
func (i *Interleaved) UnmarshalJSON(b []byte) error {
	var on bool
	if json.Unmarshal(b, &on) == nil {
		return nil
	}
	var o struct {
		Field string `json:"field"`
	}
	if err := json.Unmarshal(b, &o); err != nil {
		return err
	}
	i.Field = o.Field
	return nil
}

// MarshalJSON writes true or {"field": name}.
func (i Interleaved) MarshalJSON() ([]byte, error) {
	if i.Field == "" {
		return []byte("true"), nil
	}
	return json.Marshal(map[string]string{"field": i.Field})
}

// Flag is a capability that is a boolean in the data, or an object with a
// "supported" member.
type Flag bool

// UnmarshalJSON accepts a boolean or {"supported": bool, ...}.
func (f *Flag) UnmarshalJSON(b []byte) error {
	var v bool
	if json.Unmarshal(b, &v) == nil {
		*f = Flag(v)
		return nil
	}
	var o struct {
		Supported bool `json:"supported"`
	}
	if err := json.Unmarshal(b, &o); err != nil {
		return err
	}
	*f = Flag(o.Supported)
	return nil
}

// Parse reads a catalog: codeloop's packed form (what is embedded and
// cached), or models.dev's api.json, gzip'd or not. Providers and their
// models are decoded when first used; entries that do not decode are
// skipped then, so one bad model in a fetched copy does not cost the whole
// catalog.
func Parse(data []byte) (*Catalog, error) {
	if len(data) > 2 && data[0] == 0x1f && data[1] == 0x8b {
		zr, err := gzip.NewReader(bytes.NewReader(data))
		if err != nil {
			return nil, fmt.Errorf("catalog: %w", err)
		}
		if data, err = io.ReadAll(zr); err != nil {
			return nil, fmt.Errorf("catalog: %w", err)
		}
	}
	if pack.Is(data) {
		index, err := pack.Decode(data)
		if err != nil {
			return nil, fmt.Errorf("catalog: %w", err)
		}
		if len(index) == 0 {
			return nil, errors.New("catalog: no providers")
		}
		c := &Catalog{raw: map[string]json.RawMessage{}, providers: make(map[string]*Provider, len(index))}
		for _, e := range index {
			c.providers[e.ID] = &Provider{ID: e.ID, Name: e.Name, Env: e.Env, NPM: e.NPM, API: e.API, Doc: e.Doc, rawModels: e.Models}
		}
		return c, nil
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, fmt.Errorf("catalog: %w", err)
	}
	if len(raw) == 0 {
		return nil, errors.New("catalog: no providers")
	}
	return &Catalog{raw: raw, providers: map[string]*Provider{}}, nil
}

// Pack encodes the catalog in the packed form; every provider and model is
// decoded on the way.
func (c *Catalog) Pack() ([]byte, error) {
	var ps []pack.Provider
	for _, p := range c.Providers() {
		models, err := json.Marshal(p.Models())
		if err != nil {
			return nil, err
		}
		ps = append(ps, pack.Provider{ID: p.ID, Name: p.Name, Env: p.Env, NPM: p.NPM, API: p.API, Doc: p.Doc, Models: models})
	}
	if len(ps) == 0 {
		return nil, errors.New("catalog: no providers")
	}
	return pack.Encode(ps)
}

// Embedded splits the catalog compiled into the binary. Each call starts
// afresh; callers keep the result (Source does).
func Embedded() (*Catalog, error) { return Parse(embedded) }

// Provider returns one provider, decoding it on first use.
func (c *Catalog) Provider(id string) (*Provider, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if p, ok := c.providers[id]; ok {
		return p, true
	}
	r, ok := c.raw[id]
	if !ok {
		return nil, false
	}
	delete(c.raw, id)
	var p struct {
		*Provider
		Models json.RawMessage `json:"models"`
	}
	p.Provider = &Provider{}
	if err := json.Unmarshal(r, &p); err != nil || p.Provider.Name == "" && p.Provider.NPM == "" && len(p.Models) == 0 {
		return nil, false
	}
	prov := p.Provider
	prov.ID = id
	prov.rawModels = p.Models
	c.providers[id] = prov
	return prov, true
}

// Providers returns every provider that decodes, sorted by id.
func (c *Catalog) Providers() []*Provider {
	var out []*Provider
	for _, id := range c.ProviderIDs() {
		if p, ok := c.Provider(id); ok {
			out = append(out, p)
		}
	}
	return out
}

// ProviderIDs returns the ids of the providers, sorted.
func (c *Catalog) ProviderIDs() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	ids := slices.Collect(maps.Keys(c.raw))
	ids = slices.AppendSeq(ids, maps.Keys(c.providers))
	slices.Sort(ids)
	return ids
}

// Model returns one model of one provider.
func (c *Catalog) Model(providerID, modelID string) (*Model, bool) {
	p, ok := c.Provider(providerID)
	if !ok {
		return nil, false
	}
	return p.Model(modelID)
}

// Models returns the provider's models by id, decoding them on first use.
// The map must not be modified.
func (p *Provider) Models() map[string]*Model {
	p.once.Do(func() {
		if p.models == nil {
			p.models = map[string]*Model{}
		}
		if len(p.rawModels) == 0 {
			return
		}
		var raw map[string]json.RawMessage
		if json.Unmarshal(p.rawModels, &raw) != nil {
			return
		}
		for id, r := range raw {
			m := &Model{}
			if json.Unmarshal(r, m) != nil {
				continue
			}
			m.ID = id
			p.models[id] = m
		}
		p.rawModels = nil
	})
	return p.models
}

// Model returns one of the provider's models.
func (p *Provider) Model(id string) (*Model, bool) {
	m, ok := p.Models()[id]
	return m, ok
}

// ModelIDs returns the provider's model ids, sorted.
func (p *Provider) ModelIDs() []string { return slices.Sorted(maps.Keys(p.Models())) }

// SupportsTemperature reports whether the model takes a temperature; the
// data leaves it out for models that do.
func (m *Model) SupportsTemperature() bool { return m.Temperature == nil || *m.Temperature }

// LLM converts the entry to the provider-neutral model description.
func (m *Model) LLM(providerID string) llm.Model {
	out := llm.Model{
		ID: m.ID, ProviderID: providerID, Name: m.Name, Family: m.Family,
		Limit:       llm.Limit{Context: m.Limit.Context, Input: m.Limit.Input, Output: m.Limit.Output},
		Reasoning:   m.Reasoning,
		ToolCall:    bool(m.ToolCall),
		Temperature: m.SupportsTemperature(),
		Attachment:  m.Attachment,
		Input:       slices.Clone(m.Modalities.Input),
		Output:      slices.Clone(m.Modalities.Output),
		ReleaseDate: m.ReleaseDate,
		Status:      m.Status,
	}
	if m.Cost != nil {
		out.Cost = m.Cost.LLM()
	}
	return out
}

// LLM converts catalog prices to llm.Cost.
func (c *Cost) LLM() llm.Cost {
	out := llm.Cost{Input: c.Input, Output: c.Output, Reasoning: c.Reasoning, CacheRead: c.CacheRead, CacheWrite: c.CacheWrite}
	if c.ContextOver200K != nil {
		o := c.ContextOver200K.LLM()
		out.Over200K = &o
	}
	for _, t := range c.Tiers {
		out.Tiers = append(out.Tiers, llm.CostTier{Above: t.Size, Input: t.Input, Output: t.Output, CacheRead: t.CacheRead, CacheWrite: t.CacheWrite})
	}
	return out
}
