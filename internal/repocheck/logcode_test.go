package repocheck

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// logMethods are the methods of *slog.Logger that write a line.
var logMethods = map[string]bool{
	"Debug": true, "Info": true, "Warn": true, "Error": true,
	"DebugContext": true, "InfoContext": true, "WarnContext": true, "ErrorContext": true,
	"Log": true, "LogAttrs": true,
}

// loggerNames are the names this repository gives a *slog.Logger, as a
// variable or a field: a call on anything else is not a log line.
var loggerNames = map[string]bool{"log": true, "Log": true, "logger": true, "Logger": true, "slog": true}

// Every line the code logs carries a code attribute (docs/operations.md:
// operators match lines on it, never on msg): each call of a logger's
// line-writing methods passes the key "code", a Code… constant, or
// attributes the same function built with one.
func TestEveryLogLineHasACode(t *testing.T) {
	t.Parallel()
	calls := 0
	for _, p := range goList(t, "./...") {
		rel, ours := local(p.ImportPath)
		if !ours {
			continue
		}
		for _, name := range p.GoFiles {
			fset := token.NewFileSet()
			f, err := parser.ParseFile(fset, filepath.Join(p.Dir, name), nil, parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			ast.Inspect(f, func(n ast.Node) bool {
				var body *ast.BlockStmt
				switch fn := n.(type) {
				case *ast.FuncDecl:
					body = fn.Body
				case *ast.FuncLit:
					body = fn.Body
				}
				if body == nil {
					return true
				}
				for _, call := range uncodedLogCalls(body, &calls) {
					t.Errorf("%s/%s:%d: a log line without a code: pass \"code\", CodeSomething after its message",
						rel, name, fset.Position(call.Pos()).Line)
				}
				return false
			})
		}
	}
	if calls < 80 {
		t.Fatalf("only %d log calls were found; the scan is broken", calls)
	}
}

// uncodedLogCalls returns the log calls in body, closures included, that
// name no code, and counts every log call it finds.
func uncodedLogCalls(body *ast.BlockStmt, calls *int) []*ast.CallExpr {
	coded := map[string]bool{}
	ast.Inspect(body, func(n ast.Node) bool {
		if as, ok := n.(*ast.AssignStmt); ok {
			for i, lhs := range as.Lhs {
				if id, ok := lhs.(*ast.Ident); ok && i < len(as.Rhs) && namesCode(as.Rhs[i], coded) {
					coded[id.Name] = true
				}
			}
		}
		return true
	})
	var uncoded []*ast.CallExpr
	ast.Inspect(body, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok || !isLogCall(call) {
			return true
		}
		*calls++
		for _, arg := range call.Args {
			if namesCode(arg, coded) {
				return true
			}
		}
		uncoded = append(uncoded, call)
		return true
	})
	return uncoded
}

// isLogCall reports whether call is a line-writing method called on
// something named as a logger is.
func isLogCall(call *ast.CallExpr) bool {
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok || !logMethods[sel.Sel.Name] {
		return false
	}
	switch x := sel.X.(type) {
	case *ast.Ident:
		return loggerNames[x.Name]
	case *ast.SelectorExpr:
		return loggerNames[x.Sel.Name]
	}
	return false
}

// namesCode reports whether e holds the key "code", a Code… identifier, or
// a variable assigned one.
func namesCode(e ast.Expr, coded map[string]bool) bool {
	found := false
	ast.Inspect(e, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.BasicLit:
			if s, err := strconv.Unquote(x.Value); err == nil && x.Kind == token.STRING && s == "code" {
				found = true
			}
		case *ast.Ident:
			if strings.HasPrefix(x.Name, "Code") || coded[x.Name] {
				found = true
			}
		}
		return !found
	})
	return found
}
