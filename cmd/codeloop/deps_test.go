package main

import (
	"encoding/json"
	"errors"
	"io"
	"os/exec"
	"strings"
	"testing"
)

const module = "github.com/codeloop/codeloop"

// front ends may use UI libraries; nothing else may.
var frontEnds = []string{
	module + "/cmd/",
	module + "/internal/cli",
	module + "/internal/tui",
	module + "/internal/server",
	module + "/internal/acp",
	module + "/bench", // the benchmark harness drives the command line in-process
}

// clientOnly are the front ends that reach the engine through
// internal/client alone: they may not depend on the engine's packages.
var clientOnly = []string{
	module + "/internal/tui",
	module + "/internal/server",
	module + "/internal/acp",
	module + "/internal/github",
}

// engine are the packages clientOnly front ends may not depend on.
var engine = []string{
	module + "/internal/session",
	module + "/internal/store",
	module + "/internal/tool",
	module + "/internal/app",
}

// commandLine is the front end that opens the engine itself (through
// internal/app and client/local) but may not use the engine's packages
// directly: its use cases are app's and the client's.
var commandLine = module + "/internal/cli"

// notImportedByCommandLine are the packages internal/cli may not import.
var notImportedByCommandLine = []string{
	module + "/internal/session",
	module + "/internal/store",
	module + "/internal/tool",
	module + "/internal/bus",
}

var uiModules = []string{"charm.land/", "github.com/charmbracelet/", "github.com/spf13/cobra"}

// leaves import nothing of codeloop's.
// internal/client is one too, so that its users depend on nothing of the
// engine.
var leaves = []string{"internal/store", "internal/id", "internal/bus", "internal/paths", "internal/client", "internal/trust", "internal/sse", "internal/shellscan", "internal/permission"}

type pkg struct {
	ImportPath string
	Imports    []string
	Deps       []string
}

func listPackages(t *testing.T) []pkg {
	t.Helper()
	out, err := exec.Command("go", "list", "-deps=false", "-json", module+"/...").Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			t.Fatalf("go list: %v\n%s", err, ee.Stderr)
		}
		t.Fatalf("go list: %v", err)
	}
	var pkgs []pkg
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for {
		var p pkg
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		pkgs = append(pkgs, p)
	}
	if len(pkgs) < 5 {
		t.Fatalf("go list found only %d packages", len(pkgs))
	}
	return pkgs
}

// hasPrefix reports whether s is one of prefixes or lies below one: a
// prefix ending in "/" matches what starts with it, any other matches
// itself and the paths below it ("internal/cli" does not match
// "internal/client").
func hasPrefix(s string, prefixes []string) bool {
	for _, p := range prefixes {
		if strings.HasSuffix(p, "/") && strings.HasPrefix(s, p) || s == p || strings.HasPrefix(s, p+"/") {
			return true
		}
	}
	return false
}

// TestLayers keeps the core free of UI code, the front ends that use
// internal/client free of the engine's packages, and the bottom packages
// free of codeloop imports.
func TestLayers(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	sawCobra, sawTUI := false, false
	for _, p := range listPackages(t) {
		if p.ImportPath == module+"/internal/cli" {
			for _, d := range p.Deps {
				sawCobra = sawCobra || d == "github.com/spf13/cobra"
			}
		}
		if p.ImportPath == module+"/internal/tui" {
			for _, d := range p.Deps {
				sawTUI = sawTUI || d == module+"/internal/client"
			}
		}
		if p.ImportPath == commandLine {
			for _, d := range p.Imports {
				if hasPrefix(d, notImportedByCommandLine) {
					t.Errorf("%s imports %s; the command line reaches the engine through internal/app's use cases and internal/client", p.ImportPath, d)
				}
			}
		}
		front := hasPrefix(p.ImportPath, frontEnds)
		viaClient := hasPrefix(p.ImportPath, clientOnly)
		for _, d := range p.Deps {
			if viaClient && hasPrefix(d, engine) {
				t.Errorf("front end %s depends on %s; it must reach the engine through internal/client only", p.ImportPath, d)
			}
			if !front && (hasPrefix(d, uiModules) || hasPrefix(d, frontEnds)) {
				t.Errorf("core package %s depends on %s; only %v may", p.ImportPath, d, frontEnds)
			}
			for _, leaf := range leaves {
				if p.ImportPath == module+"/"+leaf && strings.HasPrefix(d, module+"/") {
					t.Errorf("%s depends on %s; it must import nothing of codeloop's", p.ImportPath, d)
				}
			}
		}
	}
	if !sawCobra {
		t.Fatal("internal/cli does not list cobra among its dependencies: the check sees nothing")
	}
	if !sawTUI {
		t.Fatal("internal/tui does not list internal/client among its dependencies: the check sees nothing")
	}
}
