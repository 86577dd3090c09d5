package repocheck

import (
	"encoding/json"
	"errors"
	"io"
	"os/exec"
	"strings"
	"testing"
)

// module is this repository's module path.
const module = "github.com/qinglong/qinglong"

// listed is the part of `go list -json` the boundary tests read.
type listed struct {
	ImportPath   string
	Name         string
	Dir          string
	Standard     bool
	Module       *struct{ Path string }
	GoFiles      []string
	TestGoFiles  []string
	XTestGoFiles []string
	Deps         []string
}

// goList runs `go list -json` with args in the repository root and returns
// every package it prints.
func goList(t *testing.T, args ...string) []listed {
	t.Helper()
	cmd := exec.Command("go", append([]string{"list", "-json=ImportPath,Name,Dir,Standard,Module,GoFiles,TestGoFiles,XTestGoFiles,Deps"}, args...)...)
	cmd.Dir = repoRoot
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	var pkgs []listed
	for dec := json.NewDecoder(strings.NewReader(string(out))); ; {
		var p listed
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatalf("go list %s: decoding its output: %v", strings.Join(args, " "), err)
		}
		pkgs = append(pkgs, p)
	}
	if len(pkgs) == 0 {
		t.Fatalf("go list %s printed no package; the check would prove nothing", strings.Join(args, " "))
	}
	return pkgs
}

// local returns the path of a package of this module relative to the
// module root ("internal/core/loop", "cmd/ql-edge"), and whether it is one.
func local(importPath string) (string, bool) {
	return strings.CutPrefix(importPath, module+"/")
}
