package server

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/codeloop/codeloop/internal/client"
	"github.com/codeloop/codeloop/internal/client/clienttest"
	"github.com/codeloop/codeloop/internal/waitfor"
)

// subscriber reads GET /event in a goroutine and keeps, per session, the
// events it saw, until it has seen every session of want go idle.
type subscriber struct {
	resp *http.Response
	seen map[string][]string
	err  error
	done chan struct{}
}

// subscribe opens a stream and returns once server.connected arrived.
func (r *rig) subscribe(t testing.TB, hc *http.Client) (*http.Response, *bufio.Reader) {
	t.Helper()
	resp, err := hc.Do(r.request("GET", "/event", ""))
	if err != nil {
		t.Fatal(err)
	}
	rd := bufio.NewReader(resp.Body)
	line, err := rd.ReadString('\n')
	if err != nil || !strings.Contains(line, TypeServerConnected) {
		t.Fatalf("first line %q: %v", line, err)
	}
	return resp, rd
}

// follow reads events until every session in want has gone idle after
// being busy.
func follow(s *subscriber, rd *bufio.Reader, want map[string]bool) {
	defer close(s.done)
	left := len(want)
	busy := map[string]bool{}
	for left > 0 {
		line, err := rd.ReadString('\n')
		if err != nil {
			s.err = err
			return
		}
		data, ok := strings.CutPrefix(strings.TrimSpace(line), "data: ")
		if !ok {
			continue
		}
		e, err := client.UnmarshalEvent([]byte(data))
		if err != nil || e == nil {
			continue
		}
		if e.Type() == client.TypeEventsDropped {
			s.err = fmt.Errorf("events were dropped: %s", data)
			return
		}
		id := e.Session()
		if !want[id] {
			continue
		}
		s.seen[id] = append(s.seen[id], describeEvent(e))
		if st, ok := e.(client.SessionStatusEvent); ok {
			switch {
			case st.Status.Type == client.StatusBusy:
				busy[id] = true
			case st.Status.Type == client.StatusIdle && busy[id]:
				left--
			}
		}
	}
}

// describeEvent is what the order of events is compared by.
func describeEvent(e client.Event) string {
	switch e := e.(type) {
	case client.PartDeltaEvent:
		return "delta " + e.PartID + " " + e.Delta
	case client.PartUpdatedEvent:
		return "part " + e.Part.ID + " " + e.Part.Type + " " + e.Part.Text
	case client.MessageUpdatedEvent:
		return fmt.Sprintf("message %s %s %d", e.Info.ID, e.Info.Role, e.Info.Time.Completed)
	case client.SessionStatusEvent:
		return "status " + e.Status.Type
	}
	return e.Type()
}

// TestLoad: 50 subscribers and 20 prompts on different sessions at once,
// with one more subscriber that never reads. Every reading subscriber
// gets every event of every session, in the same order; once they leave,
// no goroutine is left behind.
func TestLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("load")
	}
	const subscribers, prompts = 50, 20
	answer := strings.TrimSpace(strings.Repeat("a fairly long answer streamed word by word, ", 12))
	r := newRig(t, strings.Repeat("step\ntext "+answer+"\nfinish stop\n", prompts), Options{})
	// 50 streams of 20 sessions under -race on a busy machine take longer
	// than one client call may.
	ctx, cancel := context.WithTimeout(context.Background(), 3*clienttest.Timeout)
	defer cancel()
	want := map[string]bool{}
	var ids []string
	for range prompts {
		s, err := r.c.CreateSession(ctx, client.CreateSessionInput{Title: "load"})
		if err != nil {
			t.Fatal(err)
		}
		want[s.ID] = true
		ids = append(ids, s.ID)
	}
	// Streams get connections of their own, closed with them.
	hc := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	warm, _ := r.subscribe(t, hc)
	warm.Body.Close()
	handlers := func() int { return strings.Count(goroutines(), "internal/server.(*Server).events(") }
	waitfor.Until(t, "the warm-up stream's handler to end", func() bool { return handlers() == 0 })
	runtime.GC()
	before := runtime.NumGoroutine()

	slow, _ := r.subscribe(t, hc) // never read
	subs := make([]*subscriber, subscribers)
	for i := range subs {
		resp, rd := r.subscribe(t, hc)
		subs[i] = &subscriber{resp: resp, seen: map[string][]string{}, done: make(chan struct{})}
		go follow(subs[i], rd, want)
	}
	var wg sync.WaitGroup
	for _, id := range ids {
		wg.Go(func() {
			if _, err := r.c.Prompt(ctx, id, client.PromptInput{Parts: []client.PartInput{client.TextInput("go")}}); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	for i, s := range subs {
		select {
		case <-s.done:
		case <-ctx.Done():
			t.Fatalf("subscriber %d did not see every session finish", i)
		}
		if s.err != nil {
			t.Fatalf("subscriber %d: %v", i, s.err)
		}
	}
	for _, id := range ids {
		first := subs[0].seen[id]
		var text strings.Builder
		for _, e := range first {
			if d, ok := strings.CutPrefix(e, "delta "); ok {
				_, delta, _ := strings.Cut(d, " ")
				text.WriteString(delta)
			}
		}
		if text.String() != answer {
			t.Errorf("session %s streamed %q", id, text.String())
		}
		for i, s := range subs[1:] {
			if !slices.Equal(s.seen[id], first) {
				t.Errorf("subscriber %d saw session %s's %d events otherwise than subscriber 0's %d", i+1, id, len(s.seen[id]), len(first))
			}
		}
	}
	for _, s := range subs {
		s.resp.Body.Close()
	}
	slow.Body.Close()
	// The engine keeps its model connections; what the subscribers held
	// must be gone: the server's stream handlers and their connections.
	if !waitfor.Within(waitfor.Deadline, func() bool {
		runtime.GC()
		return handlers() == 0 && runtime.NumGoroutine() <= before+engineSlack
	}) {
		t.Fatalf("%d stream handlers and %d goroutines after the subscribers left, %d before\n%s", handlers(), runtime.NumGoroutine(), before, goroutines())
	}
}

// engineSlack is the goroutines the engine's idle connections to the
// fake model servers may add during a load: two per host on each side.
const engineSlack = 12

func goroutines() string {
	buf := make([]byte, 4<<20)
	return string(buf[:runtime.Stack(buf, true)])
}

// BenchmarkFanOut measures how long an event takes from its publication
// to reaching each of 50 subscribers over HTTP, and reports the 99th
// percentile.
func BenchmarkFanOut(b *testing.B) {
	const subscribers = 50
	r := newRig(b, "", Options{})
	ctx := context.Background()
	sess, err := r.c.CreateSession(ctx, client.CreateSessionInput{})
	if err != nil {
		b.Fatal(err)
	}
	hc := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	type arrival struct{ at time.Time }
	arrivals := make(chan arrival, subscribers*4)
	var readers []*bufio.Reader
	for range subscribers {
		resp, rd := r.subscribe(b, hc)
		defer resp.Body.Close()
		readers = append(readers, rd)
	}
	for _, rd := range readers {
		go func() {
			for {
				line, err := rd.ReadString('\n')
				if err != nil {
					return
				}
				if strings.Contains(line, client.TypeSessionUpdated) {
					arrivals <- arrival{time.Now()}
				}
			}
		}()
	}
	var lat []time.Duration
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		title := fmt.Sprint("t", i)
		start := time.Now()
		if _, err := r.c.UpdateSession(ctx, sess.ID, client.UpdateSessionInput{Title: &title}); err != nil {
			b.Fatal(err)
		}
		for range subscribers {
			a := <-arrivals
			lat = append(lat, a.at.Sub(start))
		}
	}
	b.StopTimer()
	slices.Sort(lat)
	if len(lat) > 0 {
		b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
		b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
	}
}
