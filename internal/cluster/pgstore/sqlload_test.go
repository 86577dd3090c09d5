package pgstore

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/jackc/pgx/v5"
)

// TestEverySQLBlockIsBound: every block of sql/*.sql is bound by exactly
// one stmt or namedStmt call of the package's non-test code, and every
// name bound there has a block (an unknown one would already have stopped
// the package from initialising). A block nothing binds is dead SQL that a
// reader would take for a live statement.
func TestEverySQLBlockIsBound(t *testing.T) {
	bound := map[string]int{}
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, file := range files {
		if strings.HasSuffix(file, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, file, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok || len(call.Args) != 1 {
				return true
			}
			fn, ok := call.Fun.(*ast.Ident)
			if !ok || (fn.Name != "stmt" && fn.Name != "namedStmt") {
				return true
			}
			lit, ok := call.Args[0].(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				t.Errorf("%s: %s must be called with a literal name, so this test can see it", fset.Position(call.Pos()), fn.Name)
				return true
			}
			name, err := strconv.Unquote(lit.Value)
			if err != nil {
				t.Fatal(err)
			}
			bound[name]++
			return true
		})
	}
	for _, name := range slices.Sorted(maps.Keys(statements)) {
		switch bound[name] {
		case 0:
			t.Errorf("SQL block %s is bound by nothing: bind it in sql.go or delete it", name)
		case 1:
		default:
			t.Errorf("SQL block %s is bound %d times; bind it once and share the variable", name, bound[name])
		}
	}
	for name := range bound {
		if _, ok := statements[name]; !ok {
			t.Errorf("%s is bound but sql/*.sql has no block of that name", name)
		}
	}
	if len(statements) < 50 {
		t.Fatalf("only %d SQL blocks were loaded; the loader lost some", len(statements))
	}
}

// TestClockExpressionWrittenOnce: the database clock expression appears in
// the repository's code only as ClockMsSQL (and once in faults, which
// pgstore's own tests import, so it cannot import pgstore, and once in
// the migration creating the first-owner function, whose body runs in the
// database and cannot take a template); every block writes it as
// {{now_ms}}. The clock every fence compares against is defined in one
// place.
func TestClockExpressionWrittenOnce(t *testing.T) {
	// Split so this file does not count itself.
	expr := "clock_timestamp()" + ") * 1000"
	allowed := map[string]int{"internal/cluster/pgstore/sqlload.go": 1, "internal/testkit/faults/standby.go": 1,
		"internal/cluster/pgstore/migrations/pg-0035-console-account-functions.sql": 1}
	root := filepath.Join("..", "..", "..")
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && strings.HasPrefix(d.Name(), ".") && path != root {
			return filepath.SkipDir
		}
		if d.IsDir() || (!strings.HasSuffix(path, ".go") && !strings.HasSuffix(path, ".sql")) {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		if n := strings.Count(string(b), expr); n != allowed[filepath.ToSlash(rel)] {
			t.Errorf("%s writes the clock expression out %d times; use {{now_ms}} in SQL or pgstore.ClockMsSQL in Go", rel, n)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// The template really was expanded: the lock statement samples it.
	if !strings.Contains(sqlCommitLock, ClockMsSQL) || strings.Contains(sqlCommitLock, "{{") {
		t.Errorf("CommitLock does not carry the expanded clock expression:\n%s", sqlCommitLock)
	}
}

// TestSQLBlockFormatErrors: a malformed file fails loading with a message
// that names the file and line, instead of yielding a silently wrong set.
func TestSQLBlockFormatErrors(t *testing.T) {
	for _, tc := range []struct{ name, text, want string }{
		{"undocumented", "-- name: A\nSELECT 1\n", "sql/x.sql:1: statement A has no comment"},
		{"empty", "-- name: A\n-- says nothing\n", "statement A has no SQL"},
		{"duplicate", "-- name: A\n-- one\nSELECT 1\n-- name: A\n-- two\nSELECT 2\n", "sql/x.sql:4: statement A is defined twice"},
		{"outside", "SELECT 1\n", "sql/x.sql:1: SQL outside a named block"},
		{"malformed name", "-- name: lower\n-- doc\nSELECT 1\n", "malformed block name"},
		{"unknown template", "-- name: A\n-- doc\nSELECT {{today}}\n", "unknown template"},
		{"unused fragment", "-- fragment: F\n-- doc\nx AS (SELECT 1),\n-- name: A\n-- doc\nSELECT 1\n", "sql/x.sql:1: fragment F is included by no statement"},
		{"fragment in a fragment", "-- fragment: F\n-- doc\n{{G}}\n-- fragment: G\n-- doc\nSELECT 1\n", "fragments may use templates only"},
		{"statement included", "-- name: B\n-- doc\nSELECT 1\n-- name: A\n-- doc\n{{B}}\n", "unknown template or fragment"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := loadStatements(fstest.MapFS{"sql/x.sql": {Data: []byte(tc.text)}})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("loading %q: %v; want an error containing %q", tc.text, err, tc.want)
			}
		})
	}
	got, err := loadStatements(fstest.MapFS{"sql/x.sql": {Data: []byte(
		"-- file header\n\n-- name: A\n-- doc\n\nSELECT {{now_ms}}\n  FROM t -- inner comment stays\n\n-- name: B\n-- doc\nCOMMIT\n")}})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"A": "SELECT " + ClockMsSQL + "\n  FROM t -- inner comment stays", "B": "COMMIT"}
	if !maps.Equal(got, want) {
		t.Fatalf("loaded %q, want %q", got, want)
	}
	got, err = loadStatements(fstest.MapFS{
		"sql/a.sql": {Data: []byte("-- name: A\n-- doc\nWITH {{Shared}}\nb AS (SELECT 2) SELECT * FROM s, b\n")},
		"sql/b.sql": {Data: []byte("-- fragment: Shared\n-- doc\ns AS (SELECT {{now_ms}}),\n")},
	})
	if err != nil {
		t.Fatal(err)
	}
	want = map[string]string{"A": "WITH s AS (SELECT " + ClockMsSQL + "),\nb AS (SELECT 2) SELECT * FROM s, b"}
	if !maps.Equal(got, want) {
		t.Fatalf("loaded %q, want %q (a fragment from another file, its template expanded)", got, want)
	}
}

// TestNamedStatementArgs: a named statement's arguments are ordered as
// pgx itself numbers them, and a missing or unknown name is refused
// rather than sent as NULL.
func TestNamedStatementArgs(t *testing.T) {
	statement := "SELECT @b::int, @a::int -- not @c\n, @b::int"
	sql, _, err := pgx.NamedArgs{"a": 1, "b": 2}.RewriteQuery(t.Context(), nil, statement, nil)
	if err != nil {
		t.Fatal(err)
	}
	gotSQL, params, err := positional(statement)
	if err != nil || gotSQL != sql || !slices.Equal(params, sqlParams{"b", "a"}) {
		t.Fatalf("positional: %q %v %v; want %q [b a]", gotSQL, params, err, sql)
	}
	args, err := params.args(pgx.StrictNamedArgs{"a": 1, "b": 2})
	if err != nil || !slices.Equal(args, []any{2, 1}) {
		t.Fatalf("args: %v, %v; want [2 1]", args, err)
	}
	if _, err := params.args(pgx.StrictNamedArgs{"a": 1}); err == nil || !strings.Contains(err.Error(), "@b") {
		t.Fatalf("a missing argument: %v; want it refused", err)
	}
	if _, err := params.args(pgx.StrictNamedArgs{"a": 1, "b": 2, "c": 3}); err == nil || !strings.Contains(err.Error(), "@c") {
		t.Fatalf("an unknown argument: %v; want it refused", err)
	}
	if _, _, err := positional("SELECT $1"); err == nil {
		t.Fatal("a statement without @name parameters was accepted as a named one")
	}
	// The statements that take many parameters take them by name.
	for name, p := range map[string]sqlParams{"CommitWrite": commitWriteParams, "TaskRevisionsInsert": taskRevisionsInsertParams,
		"ExecutionsInsert": executionsInsertParams, "TriggerRevisionsInsert": triggerRevisionsInsertParams} {
		if len(p) < 6 {
			t.Errorf("%s takes %d named parameters: %v", name, len(p), p)
		}
	}
	if len(commitWriteParams) != 37 || strings.Contains(sqlCommitWrite, "@") {
		t.Errorf("CommitWrite: %d parameters, wire text with @: %v", len(commitWriteParams), strings.Contains(sqlCommitWrite, "@"))
	}
}
