package session

import (
	"context"
	"fmt"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/codeloop/codeloop/internal/bus"
	"github.com/codeloop/codeloop/internal/fakellm"
	"github.com/codeloop/codeloop/internal/id"
	"github.com/codeloop/codeloop/internal/llm"
	"github.com/codeloop/codeloop/internal/message"
	"github.com/codeloop/codeloop/internal/store"
)

// BenchmarkProcessorDeltas measures the processor consuming a 1,000- and a
// 20,000-delta answer with persistence on (a SQLite file, the default
// flush interval) and a bus subscriber. It reports the cost per delta:
// equal figures at both lengths mean a delta costs the same however much
// was streamed before it.
func BenchmarkProcessorDeltas(b *testing.B) {
	for _, n := range []int{1_000, 20_000} {
		b.Run(fmt.Sprintf("deltas=%d", n), func(b *testing.B) { benchDeltas(b, n) })
	}
}

func benchDeltas(b *testing.B, deltas int) {
	step := fakellm.Step{{Type: llm.EventTextStart, ID: "t"}}
	for range deltas {
		step = append(step, llm.Event{Type: llm.EventTextDelta, ID: "t", Text: "word "})
	}
	step = append(step, llm.Event{Type: llm.EventTextEnd, ID: "t"},
		llm.Event{Type: llm.EventFinish, Reason: llm.FinishStop, Usage: llm.Usage{Input: 10, Output: int64(deltas)}})

	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(b.TempDir(), "bench.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	bs := bus.New(time.Second)
	sub := bs.Subscribe(bus.Filter{}, 64)
	drained := make(chan struct{})
	stop := make(chan struct{})
	go func() { // a front end reading every event
		defer close(drained)
		for {
			select {
			case <-sub.C:
			case <-stop:
				return
			}
		}
	}()
	defer func() {
		close(stop)
		<-drained
		sub.Close()
	}()
	sessions := NewSessions(st, bs, "bench")
	eng, err := New(Config{Sessions: sessions, Bus: bs, Models: &testModels{}, Agents: StaticAgents{BuildAgent()}})
	if err != nil {
		b.Fatal(err)
	}
	defer eng.Close()
	sess, err := sessions.Create(ctx, CreateInput{ProjectID: "p"})
	if err != nil {
		b.Fatal(err)
	}
	user := message.Info{ID: id.Ascending(id.Message), SessionID: sess.ID, Role: message.RoleUser}
	if err := sessions.PutMessage(ctx, user); err != nil {
		b.Fatal(err)
	}
	var last string
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	cpu0 := cpuTime()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		provider := fakellm.NewScripted("fake", step)
		info := &message.Info{ID: id.Ascending(id.Message), SessionID: sess.ID, Role: message.RoleAssistant, ParentID: user.ID}
		last = info.ID
		p := eng.newProcessor(ctx, info)
		retries := 0
		p.provider, p.agent, p.retries = provider, BuildAgent(), &retries
		if out, err := p.process(ctx, &llm.Request{}); out != outContinue || err != nil {
			b.Fatalf("outcome %v, %v", out, err)
		}
	}
	b.StopTimer()
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64((cpuTime()-cpu0).Nanoseconds())/float64(b.N*deltas), "cpu-ns/delta")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*deltas), "ns/delta")
	b.ReportMetric(float64(after.Mallocs-before.Mallocs)/float64(b.N*deltas), "allocs/delta")
	b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/float64(b.N*deltas), "B/delta")
	m, err := sessions.Message(ctx, last)
	if err != nil {
		b.Fatal(err)
	}
	if tp, ok := m.Parts[1].(*message.TextPart); !ok || len(tp.Text) != 5*deltas {
		b.Fatalf("the stored answer is incomplete: %T", m.Parts[1])
	}
}
