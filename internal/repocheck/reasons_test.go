package repocheck

import (
	"go/constant"
	"go/types"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// reasonsDoc is the page whose "Refusal reasons" section lists every
// reason a refusal can carry, and reasonsHeading that section's heading.
const (
	reasonsDoc     = "docs/operations.md"
	reasonsHeading = "## Refusal reasons"
)

// A script automating QingLong matches a refusal's reason (an API error
// body's, a `-o json` error line's), never its message: it can only
// handle what it can know it may receive. So every qlerror.Reason the code
// can refuse with has a row in the reference, and every row names a
// reason the code still has.
func TestEveryRefusalReasonIsDocumentedAndEveryDocumentedOneExists(t *testing.T) {
	t.Parallel()
	code := refusalReasons(t)
	if len(code) < 150 {
		t.Fatalf("only %d refusal reasons were found in the code; the scan is broken", len(code))
	}
	documented := documentedReasons(t)
	var missing []string
	for r := range code {
		if !documented[r] {
			missing = append(missing, r)
		}
	}
	sort.Strings(missing)
	for _, r := range missing {
		t.Errorf("reason %q (%s) is not in %s, %q: add a row for it in its area's table, saying its HTTP status and code, "+
			"the exit code of ql, what it means and what to do, and its params", r, strings.Join(code[r], ", "), reasonsDoc, reasonsHeading)
	}
	var gone []string
	for r := range documented {
		if code[r] == nil {
			gone = append(gone, r)
		}
	}
	sort.Strings(gone)
	for _, r := range gone {
		t.Errorf("%s, %q, lists reason %q, which no code gives any more: remove its row, or give the reason back to "+
			"the refusal that lost it if clients still need it", reasonsDoc, reasonsHeading, r)
	}
	if len(missing) > 0 {
		t.Logf("%d of the code's %d reasons are not documented", len(missing), len(code))
	}
}

// refusalReasons maps each reason the code can refuse with to where it
// is declared: every constant of type qlerror.Reason, and every other
// constant expression of that type (a literal given to Because), so a
// reason cannot escape the reference by never being named.
func refusalReasons(t *testing.T) map[string][]string {
	t.Helper()
	isReason := func(typ types.Type) bool {
		n, ok := typ.(*types.Named)
		return ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == module+"/internal/core/qlerror" && n.Obj().Name() == "Reason"
	}
	found := map[string][]string{}
	for _, p := range typedPackages(t) {
		for id, obj := range p.info.Defs {
			if c, ok := obj.(*types.Const); ok && isReason(c.Type()) {
				r := constant.StringVal(c.Val())
				found[r] = append(found[r], p.where(id.Pos()))
			}
		}
		for e, tv := range p.info.Types {
			if tv.Value == nil || !isReason(tv.Type) || tv.Value.Kind() != constant.String {
				continue
			}
			// "" is no reason: it is what a caller compares ReasonOf with to
			// ask whether an error has one.
			if r := constant.StringVal(tv.Value); r != "" && found[r] == nil {
				found[r] = []string{p.where(e.Pos())}
			}
		}
	}
	for _, where := range found {
		sort.Strings(where)
	}
	return found
}

// documentedReasons returns the reasons the first cell of each table row
// of the reference names, one reason a row.
func documentedReasons(t *testing.T) map[string]bool {
	t.Helper()
	page, err := os.ReadFile(filepath.Join(repoRoot, reasonsDoc))
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(page), "\n"+reasonsHeading+"\n")
	if !ok {
		// Every reason is then undocumented: say so, and name each.
		t.Errorf("%s has no section %q: write it, one table row a reason, grouped by area", reasonsDoc, reasonsHeading)
		return map[string]bool{}
	}
	if end := strings.Index(section, "\n## "); end >= 0 {
		section = section[:end]
	}
	row := regexp.MustCompile("(?m)^\\| `([a-z0-9_]+)` \\|")
	documented := map[string]bool{}
	for _, m := range row.FindAllStringSubmatch(section, -1) {
		if documented[m[1]] {
			t.Errorf("%s, %q, has two rows for reason %q: keep one", reasonsDoc, reasonsHeading, m[1])
		}
		documented[m[1]] = true
	}
	return documented
}
