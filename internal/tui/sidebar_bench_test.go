package tui

import (
	"fmt"
	"testing"

	"github.com/codeloop/codeloop/internal/client"
)

// sidebarBenchSession is benchSession at 200×60, where the sidebar shows
// (its modified files come from the session's edits).
func sidebarBenchSession(b *testing.B, n int) *Model {
	m := testModel(b, 200, 60)
	m.Update(sessionMsg{sess: goldenSession(), msgs: benchMessages(n)})
	if !m.sidebarShown() {
		b.Fatal("no sidebar")
	}
	return m
}

// BenchmarkPageUp10kSidebar is BenchmarkPageUp10k with the sidebar on.
func BenchmarkPageUp10kSidebar(b *testing.B) { benchPageUp(b, sidebarBenchSession(b, 10000)) }

// BenchmarkStreamDelta10kSidebar is BenchmarkStreamDelta10k with the
// sidebar on.
func BenchmarkStreamDelta10kSidebar(b *testing.B) { benchStreamDelta(b, sidebarBenchSession(b, 10000)) }

// BenchmarkPaletteFilter1k types into a command palette of 1,000
// entries (the actions and 1,000 project commands) and draws each frame;
// the query is typed, then erased, over and over.
func BenchmarkPaletteFilter1k(b *testing.B) {
	m := testModel(b, 120, 40)
	for i := range 1000 - len(m.keys.acts) {
		m.commands = append(m.commands, client.Command{Name: fmt.Sprintf("project-command-%04d", i),
			Description: fmt.Sprintf("run the project's task number %d on the module", i)})
	}
	m.Update(keyPress("ctrl+p"))
	query := []string{"p", "r", "o", "j", "4", "2"}
	i := 0
	ft := newFrameTimes(b)
	for b.Loop() {
		k := keyPress(query[i%len(query)])
		if (i/len(query))%2 == 1 {
			k = keyPress("backspace")
		}
		i++
		ft.begin()
		m.Update(k)
		m.View()
		ft.end()
	}
	ft.report()
}
