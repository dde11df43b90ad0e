//go:build unix

package main

import (
	"os"
	"runtime"
	"testing"
)

func TestRssAnon(t *testing.T) {
	tests := []struct {
		name   string
		status string
		want   int64
	}{
		{"present", "Name:\tx\nVmRSS:\t  50000 kB\nRssAnon:\t   12345 kB\nRssFile:\t 30000 kB\n", 12345 * 1024},
		{"last line", "Name:\tx\nRssAnon:\t7 kB", 7 * 1024},
		{"zombie", "Name:\tx\nState:\tZ (zombie)\n", 0},
		{"garbled", "Name:\tx\nRssAnon:\tlots\n", 0},
	}
	for _, tt := range tests {
		if got := rssAnon([]byte(tt.status)); got != tt.want {
			t.Errorf("%s: rssAnon = %d, want %d", tt.name, got, tt.want)
		}
	}
}

func TestSampleAnonOwnProcess(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("no /proc/<pid>/status")
	}
	done := make(chan struct{})
	close(done)
	if got := sampleAnon(os.Getpid(), done); got <= 0 {
		t.Fatalf("sampleAnon of the test process = %d, want > 0", got)
	}
}
