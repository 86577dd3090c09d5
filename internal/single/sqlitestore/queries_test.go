package sqlitestore

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestEveryQueryIsListed: every file in queries/ is a statement the store
// knows where to run: prepared on the read pool, on the writer, or one of
// the statements that run before the schema is verified (never prepared).
// A statement over the schema left off both pool lists would silently be
// re-parsed on every call; a file on no list is dead SQL.
func TestEveryQueryIsListed(t *testing.T) {
	unprepared := []string{qPing, qSchemaObjects, qSchemaObjectCount, qMigrationsTableExists, qMigrationsHistory,
		qMigrationRecord, qCapabilityRead, qCapabilityAdvance, qSQLiteVersion, qPragmaJournalMode, qPragmaForeignKeys, qPragmaAutoVacuum, qPragmaDataVersion, qPragmaQuickCheck, qPragmaIntegrityCheck, qBackupReadBegin, qBackupPinSnapshot, qBackupReadEnd, qBackupRollbackMode, qBackupForgetProcesses, qBackupForgetSessions, qBackupForgetTwoStepPending, qBackupMarkSnapshot, qVacuumInto, qWALCheckpointTruncate, qJournalModeWAL, qRunsCount}
	files, err := fs.Glob(queryFS, "queries/*.sql")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 50 {
		t.Fatalf("only %d embedded query files", len(files))
	}
	for _, file := range files {
		q := query(strings.TrimSuffix(strings.TrimPrefix(file, "queries/"), ".sql"))
		read, write, before := slices.Contains(readQueries, q), slices.Contains(writeQueries, q), slices.Contains(unprepared, q)
		switch {
		case !read && !write && !before:
			t.Errorf("%s is on no list: add it to readQueries or writeQueries (or delete it)", file)
		case before && (read || write):
			t.Errorf("%s runs before readiness yet is prepared on a pool", file)
		}
	}
	for _, list := range [][]string{readQueries, writeQueries} {
		seen := map[string]bool{}
		for _, q := range list {
			if seen[q] {
				t.Errorf("listed twice on one pool: %s", q)
			}
			seen[q] = true
		}
	}
}

// TestQueryListsAreLiterals: the pool lists are written out as literals
// and nothing assigns or appends to them, so which statement is prepared
// where is read in one place instead of being assembled by package
// initialisation side effects spread over files.
func TestQueryListsAreLiterals(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	lists := map[string]bool{"readQueries": true, "writeQueries": true}
	fset := token.NewFileSet()
	literal := 0
	for _, file := range files {
		if strings.HasSuffix(file, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, file, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.ValueSpec:
				for i, name := range n.Names {
					if !lists[name.Name] {
						continue
					}
					if i < len(n.Values) {
						if _, ok := n.Values[i].(*ast.CompositeLit); ok {
							literal++
							continue
						}
					}
					t.Errorf("%s: %s is not declared as a slice literal", fset.Position(name.Pos()), name.Name)
				}
			case *ast.AssignStmt:
				for _, lhs := range n.Lhs {
					if id, ok := lhs.(*ast.Ident); ok && lists[id.Name] {
						t.Errorf("%s: %s is assigned outside its declaration", fset.Position(id.Pos()), id.Name)
					}
				}
			}
			return true
		})
	}
	if literal != len(lists) {
		t.Errorf("found %d of the %d pool lists declared as literals", literal, len(lists))
	}
}
