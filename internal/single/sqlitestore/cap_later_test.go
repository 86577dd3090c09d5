package sqlitestore

import "testing"

// projectCapLater gives a file migrated only to an older migration the
// projects' max_running column 0045 (project-max-running) and env_json
// column 0047 (project-env) add and this build's project save and reads
// use, so that the test can publish through it as the older build did;
// the returned func takes them away again, before the file is migrated on
// and those migrations add them for real.
func projectCapLater(t *testing.T, e *env) (undo func()) {
	t.Helper()
	if err := e.tamper(t.Context(), `ALTER TABLE projects ADD COLUMN max_running INTEGER NOT NULL DEFAULT 0`); err != nil {
		t.Fatal(err)
	}
	if err := e.tamper(t.Context(), `ALTER TABLE projects ADD COLUMN env_json TEXT NOT NULL DEFAULT ''`); err != nil {
		t.Fatal(err)
	}
	return func() {
		for _, column := range []string{"max_running", "env_json"} {
			if err := e.tamper(t.Context(), `ALTER TABLE projects DROP COLUMN `+column); err != nil {
				t.Fatal(err)
			}
		}
	}
}
