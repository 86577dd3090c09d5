package sqlitestore

import "testing"

// projectPauseLater gives a file migrated only to an older migration what
// 0028 (project pauses) adds and this build's publish reads, so that the
// test can publish through it as the older build did; the returned func
// takes them away again, before the file is migrated on and 0028 adds
// them for real.
func projectPauseLater(t *testing.T, e *env) (undo func()) {
	t.Helper()
	for _, q := range []string{
		`CREATE TABLE project_pauses (project_id TEXT PRIMARY KEY, paused INTEGER NOT NULL, note TEXT, actor TEXT NOT NULL, at_ms INTEGER NOT NULL) STRICT`,
		`ALTER TABLE trigger_schedules ADD COLUMN paused_with_project INTEGER NOT NULL DEFAULT 0`,
	} {
		if err := e.tamper(t.Context(), q); err != nil {
			t.Fatal(err)
		}
	}
	return func() {
		for _, q := range []string{`DROP TABLE project_pauses`, `ALTER TABLE trigger_schedules DROP COLUMN paused_with_project`} {
			if err := e.tamper(t.Context(), q); err != nil {
				t.Fatal(err)
			}
		}
	}
}
