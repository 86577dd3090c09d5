package sqlitestore

import "testing"

// projectCapLater gives a file migrated only to an older migration the
// projects' max_running column 0045 (project-max-running) adds and this
// build's project save and reads use, so that the test can publish through
// it as the older build did; the returned func takes it away again, before
// the file is migrated on and 0045 adds it for real.
func projectCapLater(t *testing.T, e *env) (undo func()) {
	t.Helper()
	if err := e.tamper(t.Context(), `ALTER TABLE projects ADD COLUMN max_running INTEGER NOT NULL DEFAULT 0`); err != nil {
		t.Fatal(err)
	}
	return func() {
		if err := e.tamper(t.Context(), `ALTER TABLE projects DROP COLUMN max_running`); err != nil {
			t.Fatal(err)
		}
	}
}
