package llm

import (
	"math"
	"testing"
)

func TestPrice(t *testing.T) {
	c := Cost{Input: 1, Output: 10, CacheRead: 0.1, CacheWrite: 1.25,
		Over200K: &Cost{Input: 2, Output: 15, CacheRead: 0.2, CacheWrite: 2.5}}
	tiered := Cost{Input: 1, Output: 10, CacheRead: 0.1, Reasoning: 20,
		Tiers: []CostTier{{Above: 128_000, Input: 1.5, Output: 12}, {Above: 272_000, Input: 3, Output: 20, CacheRead: 0.3}}}
	tests := []struct {
		name string
		c    Cost
		u    Usage
		want float64
	}{
		{"base", c, Usage{Input: 100_000, Output: 100_000, Reasoning: 100_000}, 0.1 + 1 + 1},
		{"cache", c, Usage{Input: 100_000, CacheRead: 50_000, CacheWrite: 40_000}, 0.1 + 0.005 + 0.05},
		{"over 200k", c, Usage{Input: 150_000, CacheRead: 60_000, Output: 1000}, 0.3 + 0.012 + 0.015},
		{"at 200k", c, Usage{Input: 200_000}, 0.2},
		{"below tiers", tiered, Usage{Input: 100_000, Output: 1000, Reasoning: 1000}, 0.1 + 0.01 + 0.02},
		{"first tier", tiered, Usage{Input: 150_000, CacheRead: 50_000}, 0.225 + 0.005},
		{"second tier", tiered, Usage{Input: 300_000, CacheRead: 100_000, Output: 1000, Reasoning: 1000}, 0.9 + 0.03 + 0.02 + 0.02},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.c.Price(tt.u); math.Abs(got-tt.want) > 1e-9 {
				t.Errorf("Price = %v, want %v", got, tt.want)
			}
		})
	}
}
