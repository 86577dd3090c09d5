package console

import (
	"go/ast"
	"go/parser"
	"go/token"
	"iter"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/qlerror"
)

// refusingPackages are the directories of the packages whose refusals the
// console shows: its own, the stores' contract and the core packages, a
// definitions file's parse and validation among them.
var refusingPackages = []string{".", "../schedule", "../run", "../catalog", "../apitoken", "../validate",
	"../apply", "../cron", "../task", "../trigger", "../notify", "../project", "../hold"}

// Every refusal reason declared by the console and by the core packages
// whose refusals it shows has a sentence in every language but English (an
// English page shows the error's own words), so a Chinese page shows no
// English sentence of theirs.
func TestEveryRefusalReasonHasASentenceInEveryOtherLanguage(t *testing.T) {
	declared := 0
	for path, reason := range reasonsDeclaredInPackages(t, refusingPackages, "qlerror.Reason") {
		declared++
		for l, table := range refusals {
			if table[reason] == "" {
				t.Errorf("%s: reason %q has no sentence in %s", path, reason, l)
			}
		}
	}
	if declared < 10 {
		t.Fatalf("only %d reasons were found declared; the scan is broken", declared)
	}
}

// reasonsDeclaredInPackages yields each reason the non-test Go files of
// dirs declare as constants of the type typ, as the files write it
// ("qlerror.Reason"; "NoteReason" in apply itself), with the file that
// declares it.
func reasonsDeclaredInPackages(t *testing.T, dirs []string, typ string) iter.Seq2[string, qlerror.Reason] {
	return func(yield func(string, qlerror.Reason) bool) {
		for _, dir := range dirs {
			files, err := filepath.Glob(filepath.Join(dir, "*.go"))
			if err != nil {
				t.Fatal(err)
			}
			for _, path := range files {
				if strings.HasSuffix(path, "_test.go") {
					continue
				}
				for _, reason := range reasonsDeclaredIn(t, path, typ) {
					if !yield(path, reason) {
						return
					}
				}
			}
		}
	}
}

// reasonsDeclaredIn are the values of the constants the Go file at path
// declares of the type typ, as it writes it.
func reasonsDeclaredIn(t *testing.T, path, typ string) []qlerror.Reason {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	var out []qlerror.Reason
	ast.Inspect(f, func(n ast.Node) bool {
		spec, ok := n.(*ast.ValueSpec)
		if !ok || spec.Type == nil {
			return true
		}
		written := ""
		switch ty := spec.Type.(type) {
		case *ast.SelectorExpr:
			if x, ok := ty.X.(*ast.Ident); ok {
				written = x.Name + "." + ty.Sel.Name
			}
		case *ast.Ident:
			written = ty.Name
		}
		if written != typ {
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
