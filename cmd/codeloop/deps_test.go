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
	module + "/bench", // the benchmark harness drives the command line in-process
}

var uiModules = []string{"charm.land/", "github.com/charmbracelet/", "github.com/spf13/cobra"}

// leaves import nothing of codeloop's.
var leaves = []string{"internal/store", "internal/id", "internal/bus", "internal/paths"}

type pkg struct {
	ImportPath string
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

func hasPrefix(s string, prefixes []string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// TestLayers keeps the core free of UI code and the bottom packages free of
// codeloop imports.
func TestLayers(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	sawCobra := false
	for _, p := range listPackages(t) {
		if p.ImportPath == module+"/internal/cli" {
			for _, d := range p.Deps {
				sawCobra = sawCobra || d == "github.com/spf13/cobra"
			}
		}
		front := hasPrefix(p.ImportPath, frontEnds)
		for _, d := range p.Deps {
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
}
