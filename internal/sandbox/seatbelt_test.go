package sandbox

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var updateGolden = flag.Bool("update", false, "rewrite the golden files in testdata")

func TestSeatbeltProfile(t *testing.T) {
	tests := []struct {
		name string
		p    Policy
	}{
		{"read-only", Policy{Mode: ModeReadOnly, Project: "/Users/ann/src/app", TempDir: "/var/folders/xy/T/codeloop-1"}},
		{"workspace-write", Policy{Mode: ModeWorkspaceWrite, Project: "/Users/ann/src/app", TempDir: "/tmp/codeloop-1"}},
		{"workspace-write-network", Policy{Mode: ModeWorkspaceWrite, Network: true, Project: "/Users/ann/src/app",
			TempDir: "/tmp/codeloop-1", Writable: []string{"/Users/ann/.cache/go-build", "/Users/ann/src/app/build"},
			Protected: []string{".env", "deploy/keys"}}},
		{"quoted-paths", Policy{Mode: ModeWorkspaceWrite, Project: `/Users/ann/my "odd" \ dir`, TempDir: "/tmp/t",
			Protected: []string{}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := SeatbeltProfile(tt.p)
			if err != nil {
				t.Fatal(err)
			}
			golden := filepath.Join("testdata", "seatbelt", tt.name+".sb")
			if *updateGolden {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -run TestSeatbeltProfile -update to create it)", err)
			}
			if got != string(want) {
				t.Errorf("profile differs from %s:\n%s", golden, got)
			}
			if open, closed := strings.Count(got, "("), strings.Count(got, ")"); open != closed {
				t.Errorf("profile has %d ( and %d )", open, closed)
			}
		})
	}
}

func TestSeatbeltProfileRules(t *testing.T) {
	p := Policy{Mode: ModeWorkspaceWrite, Project: "/Users/ann/app", TempDir: "/tmp/x"}
	got, err := SeatbeltProfile(p)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		rule string
		want bool
	}{
		{`(subpath "/Users/ann/app")`, true},
		{`(require-not (subpath "/Users/ann/app/.git"))`, true}, // no repository yet: none may be made
		{`(require-not (subpath "/Users/ann/app/codeloop.json"))`, true},
		{`(subpath "/private/tmp/x")`, true},
		{"(deny network*)", true},
		{`(literal "/dev/null")`, true},
	}
	for _, tt := range tests {
		if strings.Contains(got, tt.rule) != tt.want {
			t.Errorf("profile has %s: %v; want %v", tt.rule, !tt.want, tt.want)
		}
	}
	ro, err := SeatbeltProfile(Policy{Mode: ModeReadOnly, Project: "/Users/ann/app", TempDir: "/tmp/x"})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(ro, `"/Users/ann/app"`) {
		t.Errorf("read-only profile lets the project be written:\n%s", ro)
	}
	net, err := SeatbeltProfile(Policy{Mode: ModeReadOnly, Network: true, Project: "/a", TempDir: "/b"})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(net, "deny network") {
		t.Errorf("profile with the network on denies it:\n%s", net)
	}
	for _, bad := range []Policy{
		{Mode: ModeOff},
		{Mode: ModeWorkspaceWrite, Project: "relative", TempDir: "/tmp"},
		{Mode: ModeWorkspaceWrite, Project: "/a", TempDir: "/tmp", Protected: []string{"../out"}},
	} {
		if _, err := SeatbeltProfile(bad); err == nil {
			t.Errorf("SeatbeltProfile(%+v) succeeded; want an error", bad)
		}
	}
}
