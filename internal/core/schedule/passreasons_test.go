package schedule

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/notify"
)

// TestPassReasonsListsEveryReasonTheLedgerCanWrite: PassReasons is what
// the metrics pre-register, so it must hold every PassReason declared here
// and every reason the occurrence ledger of either adapter accepts (the
// CHECK of the last migration that sets it), and nothing else.
func TestPassReasonsListsEveryReasonTheLedgerCanWrite(t *testing.T) {
	t.Parallel()
	listed := map[string]bool{}
	for _, r := range PassReasons {
		if listed[string(r)] {
			t.Errorf("PassReasons lists %s twice", r)
		}
		listed[string(r)] = true
	}
	want := func(where string, reasons []string) {
		t.Helper()
		if len(reasons) == 0 {
			t.Fatalf("%s names no pass reason", where)
		}
		for _, r := range reasons {
			if !listed[r] {
				t.Errorf("%s has the pass reason %s, which PassReasons leaves out", where, r)
			}
		}
		if len(reasons) != len(listed) {
			t.Errorf("%s has %d pass reasons %v, PassReasons %d", where, len(reasons), reasons, len(listed))
		}
	}
	want("passed.go", declaredPassReasons(t))
	check := regexp.MustCompile(`CHECK \(reason IN \(([^)]*)\)\)`)
	quoted := regexp.MustCompile(`'([a-z_]+)'`)
	for _, dir := range []string{"../../single/sqlitestore/migrations", "../../cluster/pgstore/migrations"} {
		if strings.Contains(dir, "pgstore") {
			// The cluster's ledger never holds a restore's entries
			// (PassRestored): its CHECK lists every other reason.
			delete(listed, string(PassRestored))
		}
		files, err := filepath.Glob(filepath.Join(dir, "*.sql"))
		if err != nil || len(files) == 0 {
			t.Fatalf("migrations in %s: %v", dir, err)
		}
		sort.Strings(files)
		var last string
		var reasons []string
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			if m := check.FindAllSubmatch(b, -1); m != nil {
				last, reasons = f, nil
				for _, q := range quoted.FindAllSubmatch(m[len(m)-1][1], -1) {
					reasons = append(reasons, string(q[1]))
				}
			}
		}
		want(last, reasons)
	}
}

// declaredPassReasons reads the values of the PassReason constants
// declared in passed.go.
func declaredPassReasons(t *testing.T) []string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), "passed.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	ast.Inspect(f, func(n ast.Node) bool {
		spec, ok := n.(*ast.ValueSpec)
		if !ok {
			return true
		}
		if typ, ok := spec.Type.(*ast.Ident); !ok || typ.Name != "PassReason" {
			return true
		}
		for _, v := range spec.Values {
			if lit, ok := v.(*ast.BasicLit); ok {
				s, err := strconv.Unquote(lit.Value)
				if err != nil {
					t.Fatal(err)
				}
				out = append(out, s)
			}
		}
		return true
	})
	return slices.Compact(out)
}

// A skipped notification rule may name every reason the ledger records:
// a rule without reasons is told of each of them (an overlap included), so
// each must be one a rule can keep alone.
func TestASkippedRuleMayNameEveryReasonTheLedgerRecords(t *testing.T) {
	t.Parallel()
	for _, r := range PassReasons {
		s := notify.Spec{Channels: []notify.Channel{{Name: "ops", Kind: notify.Webhook, URL: "https://hooks.example.com/ql"}},
			Rules: []notify.Rule{{On: notify.OnSkipped, Channel: "ops", Reasons: []string{string(r)}}}}
		if err := s.Validate(); err != nil {
			t.Errorf("a skipped rule keeping only %s: %v", r, err)
		}
	}
}
