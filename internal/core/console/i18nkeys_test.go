package console

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"strconv"
	"strings"
	"testing"
	"text/template/parse"
)

// Every key a page's template or the console's Go code names for its
// words (t, tf and tn in a template; tr and trCount in Go) is in both
// catalogues: tr gives "" for a key no language has, which a page would
// show as nothing. A key built as the page runs (a warning's code, an
// event's name) is checked by the pages that ask for it (missingKey).
func TestEveryKeyThePagesAndTheCodeNameIsInBothLanguages(t *testing.T) {
	t.Parallel()
	named := map[string]string{}
	for page, tmpl := range parseTemplates("ql", "") {
		for _, one := range tmpl.Templates() {
			if one.Tree != nil {
				templateKeys(one.Tree.Root, page+".html", named)
			}
		}
	}
	if err := goKeys(named); err != nil {
		t.Fatal(err)
	}
	if len(named) < 500 {
		t.Fatalf("found %d keys named by the templates and the code; the search missed their calls", len(named))
	}
	for key, where := range named {
		for _, l := range []string{"en", "zh"} {
			if _, ok := messages[l][key]; !ok {
				t.Errorf("%s names %q, which the %s catalogue lacks", where, key, l)
			}
		}
	}
}

// templateKeys adds to keys the key of each call of t, tf and tn under n
// whose key is written out in the template.
func templateKeys(n parse.Node, where string, keys map[string]string) {
	switch n := n.(type) {
	case *parse.ListNode:
		if n == nil {
			return
		}
		for _, c := range n.Nodes {
			templateKeys(c, where, keys)
		}
	case *parse.ActionNode:
		templateKeys(n.Pipe, where, keys)
	case *parse.IfNode:
		templateKeys(&n.BranchNode, where, keys)
	case *parse.RangeNode:
		templateKeys(&n.BranchNode, where, keys)
	case *parse.WithNode:
		templateKeys(&n.BranchNode, where, keys)
	case *parse.BranchNode:
		templateKeys(n.Pipe, where, keys)
		templateKeys(n.List, where, keys)
		templateKeys(n.ElseList, where, keys)
	case *parse.TemplateNode:
		templateKeys(n.Pipe, where, keys)
	case *parse.PipeNode:
		if n == nil {
			return
		}
		for _, c := range n.Cmds {
			templateKeys(c, where, keys)
		}
	case *parse.CommandNode:
		if len(n.Args) >= 3 {
			if f, ok := n.Args[0].(*parse.IdentifierNode); ok && (f.Ident == "t" || f.Ident == "tf" || f.Ident == "tn") {
				if s, ok := n.Args[2].(*parse.StringNode); ok {
					keys[s.Text] = where
				}
			}
		}
		for _, a := range n.Args {
			templateKeys(a, where, keys)
		}
	}
}

// goKeys adds to keys the key of each call of tr and trCount in the
// package's Go files (its tests aside) whose key is a string literal.
func goKeys(keys map[string]string) error {
	fset := token.NewFileSet()
	entries, err := os.ReadDir(".")
	if err != nil {
		return err
	}
	for _, e := range entries {
		name := e.Name()
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			return err
		}
		ast.Inspect(file, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok || len(call.Args) < 2 {
				return true
			}
			if f, ok := call.Fun.(*ast.Ident); !ok || (f.Name != "tr" && f.Name != "trCount") {
				return true
			}
			if lit, ok := call.Args[1].(*ast.BasicLit); ok && lit.Kind == token.STRING {
				if key, err := strconv.Unquote(lit.Value); err == nil {
					keys[key] = fset.Position(lit.Pos()).String()
				}
			}
			return true
		})
	}
	return nil
}

// Under any package's test, a key no language has fails the page that
// asks for it (tr panics naming it), so that a key built as a page runs
// is caught by whichever test shows that page.
func TestAKeyNoLanguageHasFailsThePageUnderATest(t *testing.T) {
	t.Parallel()
	defer func() {
		if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), "no.such.words.test") {
			t.Errorf("tr of a key no language has gave %v, want a panic naming the key", r)
		}
	}()
	t.Errorf("tr gave %q for a key no language has", tr("zh", "no.such.words.test"))
}
