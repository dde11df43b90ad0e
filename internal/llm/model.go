package llm

// Model describes one model of a provider: what it costs, how much it holds
// and what it can do. The catalog (models.dev data) and the config fill it.
type Model struct {
	ID         string `json:"id"`
	ProviderID string `json:"providerID"`
	Name       string `json:"name"`
	Family     string `json:"family,omitempty"`

	Limit Limit `json:"limit"`
	Cost  Cost  `json:"cost"`

	Reasoning   bool `json:"reasoning"`
	ToolCall    bool `json:"toolCall"`
	Temperature bool `json:"temperature"`
	Attachment  bool `json:"attachment"`
	// Input and Output list modalities: "text", "image", "pdf", "audio",
	// "video".
	Input  []string `json:"input,omitempty"`
	Output []string `json:"output,omitempty"`

	ReleaseDate string `json:"releaseDate,omitempty"`
	Status      string `json:"status,omitempty"` // alpha, beta, deprecated or empty
}

// Limit holds a model's token limits; zero means unknown.
type Limit struct {
	Context int64 `json:"context"`
	Input   int64 `json:"input,omitempty"`
	Output  int64 `json:"output"`
}

// Cost holds prices in US dollars per million tokens.
type Cost struct {
	Input  float64 `json:"input"`
	Output float64 `json:"output"`
	// Reasoning is the price of reasoning tokens when it differs from
	// Output; zero means Output.
	Reasoning  float64 `json:"reasoning,omitempty"`
	CacheRead  float64 `json:"cacheRead,omitempty"`
	CacheWrite float64 `json:"cacheWrite,omitempty"`
	// Over200K holds the prices that apply when the prompt exceeds 200,000
	// tokens, where the provider charges more.
	Over200K *Cost `json:"over200k,omitempty"`
	// Tiers hold prices for prompts above other sizes (128k, 256k, 272k
	// ...); the largest tier the prompt exceeds applies, before Over200K.
	Tiers []CostTier `json:"tiers,omitempty"`
}

// CostTier holds the prices that apply when the prompt (input, cache read
// and cache write tokens) exceeds Above tokens. Zero prices fall back to
// the base prices.
type CostTier struct {
	Above      int64   `json:"above"`
	Input      float64 `json:"input"`
	Output     float64 `json:"output"`
	CacheRead  float64 `json:"cacheRead,omitempty"`
	CacheWrite float64 `json:"cacheWrite,omitempty"`
}

// Price returns the cost in US dollars of a step with usage u. Reasoning
// tokens are billed at the reasoning price, or the output price when there
// is none.
func (c Cost) Price(u Usage) float64 {
	prompt := u.Input + u.CacheRead + u.CacheWrite
	p := c
	var best *CostTier
	for i := range c.Tiers {
		t := &c.Tiers[i]
		if prompt > t.Above && (best == nil || t.Above > best.Above) {
			best = t
		}
	}
	switch {
	case best != nil:
		p = Cost{Input: best.Input, Output: best.Output, CacheRead: best.CacheRead, CacheWrite: best.CacheWrite, Reasoning: c.Reasoning}
		if p.CacheRead == 0 {
			p.CacheRead = c.CacheRead
		}
		if p.CacheWrite == 0 {
			p.CacheWrite = c.CacheWrite
		}
	case c.Over200K != nil && prompt > 200_000:
		p = *c.Over200K
	}
	reasoning := p.Reasoning
	if reasoning == 0 {
		reasoning = p.Output
	}
	const m = 1e6
	return (float64(u.Input)*p.Input + float64(u.Output)*p.Output + float64(u.Reasoning)*reasoning +
		float64(u.CacheRead)*p.CacheRead + float64(u.CacheWrite)*p.CacheWrite) / m
}
