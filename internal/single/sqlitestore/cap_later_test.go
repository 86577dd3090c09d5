package sqlitestore

import "testing"

// projectCapLater gives a file migrated only to an older migration the
// projects' max_running column 0045 (project-max-running) and env_json
// column 0047 (project-env) add and this build's project save and reads
// use, and what attemptsProjectLater gives, so that the test can publish,
// admit and dispatch through it as the older build did; the returned func
// takes them away again, before the file is migrated on and those
// migrations add them for real.
func projectCapLater(t *testing.T, e *env) (undo func()) {
	t.Helper()
	columns := []string{"max_running INTEGER NOT NULL DEFAULT 0", "env_json TEXT NOT NULL DEFAULT ''"}
	for _, c := range columns {
		if err := e.tamper(t.Context(), `ALTER TABLE projects ADD COLUMN `+c); err != nil {
			t.Fatal(err)
		}
	}
	unproject := attemptsProjectLater(t, e)
	return func() {
		unproject()
		for _, column := range []string{"max_running", "env_json"} {
			if err := e.tamper(t.Context(), `ALTER TABLE projects DROP COLUMN `+column); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// attemptsProjectLater gives a file migrated only to an older migration
// the attempts' project_id column 0048 (attempts-project) adds and this
// build's admissions write, and a stand-in, by name, of the index
// attempts_pending_project the dispatcher's queue names; the returned
// func takes both away again.
func attemptsProjectLater(t *testing.T, e *env) (undo func()) {
	t.Helper()
	for _, q := range []string{
		`ALTER TABLE attempts ADD COLUMN project_id TEXT NOT NULL DEFAULT ''`,
		`CREATE INDEX attempts_pending_project ON attempts (project_id) WHERE state = 'claimed' AND available_at_ms IS NULL`,
	} {
		if err := e.tamper(t.Context(), q); err != nil {
			t.Fatal(err)
		}
	}
	return func() {
		for _, q := range []string{`DROP INDEX attempts_pending_project`, `ALTER TABLE attempts DROP COLUMN project_id`} {
			if err := e.tamper(t.Context(), q); err != nil {
				t.Fatal(err)
			}
		}
	}
}
