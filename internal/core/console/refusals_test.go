package console

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/qlerror"
)

// Every refusal reason declared by the console and by the core packages
// whose refusals it shows has a sentence in every language but English (an
// English page shows the error's own words), so a Chinese page shows no
// English sentence of theirs.
func TestEveryRefusalReasonHasASentenceInEveryOtherLanguage(t *testing.T) {
	declared := 0
	for _, dir := range []string{".", "../schedule", "../run", "../catalog", "../apitoken", "../validate"} {
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		for _, path := range files {
			if strings.HasSuffix(path, "_test.go") {
				continue
			}
			f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			for _, reason := range reasonsDeclared(f) {
				declared++
				for l, table := range refusals {
					if table[reason] == "" {
						t.Errorf("%s: reason %q has no sentence in %s", path, reason, l)
					}
				}
			}
		}
	}
	if declared < 10 {
		t.Fatalf("only %d reasons were found declared; the scan is broken", declared)
	}
}

// reasonsDeclared are the values of the constants f declares of type
// qlerror.Reason.
func reasonsDeclared(f *ast.File) []qlerror.Reason {
	var out []qlerror.Reason
	ast.Inspect(f, func(n ast.Node) bool {
		spec, ok := n.(*ast.ValueSpec)
		if !ok || spec.Type == nil {
			return true
		}
		if sel, ok := spec.Type.(*ast.SelectorExpr); !ok || sel.Sel.Name != "Reason" {
			return true
		}
		for _, v := range spec.Values {
			if lit, ok := v.(*ast.BasicLit); ok {
				if s, err := strconv.Unquote(lit.Value); err == nil {
					out = append(out, qlerror.Reason(s))
				}
			}
		}
		return true
	})
	return out
}
