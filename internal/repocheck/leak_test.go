package repocheck

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Every package whose test binary can start goroutines — its own code or
// tests start them, or its tests run a package of this module that does —
// runs its tests through leakcheck.Main (or pgtest.Main or pgtest.Run, which
// end with the same check), so a goroutine that outlives its owner's Stop fails the run.
func TestEveryPackageStartingGoroutinesChecksForLeaks(t *testing.T) {
	t.Parallel()
	pkgs := goList(t, "-test", "./...")
	plain := map[string]listed{}
	starts := map[string]bool{}
	for _, p := range pkgs {
		if _, ours := local(p.ImportPath); !ours || strings.ContainsAny(p.ImportPath, " ") || strings.HasSuffix(p.ImportPath, ".test") {
			continue
		}
		plain[p.ImportPath] = p
		starts[p.ImportPath] = startsGoroutines(t, p.Dir, p.GoFiles)
	}
	if !starts[module+"/internal/core/loop"] {
		t.Fatal("internal/core/loop was not found to start a goroutine; the scan would prove nothing")
	}
	checked := 0
	for _, bin := range pkgs {
		under, isTest := strings.CutSuffix(bin.ImportPath, ".test")
		if !isTest || bin.Name != "main" {
			continue
		}
		p := plain[under]
		testFiles := slices.Concat(p.TestGoFiles, p.XTestGoFiles)
		why := ""
		switch {
		case starts[under]:
			why = "it starts goroutines"
		case startsGoroutines(t, p.Dir, testFiles):
			why = "its tests start goroutines"
		default:
			for _, d := range bin.Deps {
				d, _, _ = strings.Cut(d, " ")
				if starts[d] {
					why = "its tests run " + d + ", which starts goroutines"
					break
				}
			}
		}
		if why == "" {
			continue
		}
		checked++
		if !runsLeakCheck(t, p.Dir, testFiles) {
			rel, _ := local(under)
			t.Errorf("%s: %s, but no TestMain runs leakcheck.Main, pgtest.Main or pgtest.Run; add func TestMain(m *testing.M) { leakcheck.Main(m) }", rel, why)
		}
	}
	if checked < 5 {
		t.Fatalf("only %d test binaries were found to need the leak check; the scan is broken", checked)
	}
}

// startsGoroutines reports whether any of files holds a go statement.
func startsGoroutines(t *testing.T, dir string, files []string) bool {
	t.Helper()
	found := false
	for _, f := range parseFiles(t, dir, files) {
		ast.Inspect(f, func(n ast.Node) bool {
			if _, ok := n.(*ast.GoStmt); ok {
				found = true
			}
			return !found
		})
	}
	return found
}

// runsLeakCheck reports whether one of files declares a TestMain that calls
// leakcheck.Main or pgtest.Main.
func runsLeakCheck(t *testing.T, dir string, files []string) bool {
	t.Helper()
	for _, f := range parseFiles(t, dir, files) {
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Recv != nil || fn.Name.Name != "TestMain" || fn.Body == nil {
				continue
			}
			found := false
			ast.Inspect(fn.Body, func(n ast.Node) bool {
				if sel, ok := n.(*ast.SelectorExpr); ok {
					if x, ok := sel.X.(*ast.Ident); ok && ((x.Name == "leakcheck" && sel.Sel.Name == "Main") ||
						(x.Name == "pgtest" && (sel.Sel.Name == "Main" || sel.Sel.Name == "Run"))) {
						found = true
					}
				}
				return !found
			})
			if found {
				return true
			}
		}
	}
	return false
}

func parseFiles(t *testing.T, dir string, files []string) []*ast.File {
	t.Helper()
	fset := token.NewFileSet()
	var parsed []*ast.File
	for _, name := range files {
		f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		parsed = append(parsed, f)
	}
	return parsed
}
