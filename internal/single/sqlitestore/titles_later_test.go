package sqlitestore

import "testing"

// titlesLater gives a file migrated only to an older migration the title
// columns 0030 (display titles) adds and this build's publish and reads
// use, so that the test can publish and read through it as the older
// build did; the returned func takes them away again, before the file is
// migrated on and 0030 adds them for real.
func titlesLater(t *testing.T, e *env) (undo func()) {
	t.Helper()
	tables := []string{"projects", "tasks", "triggers"}
	for _, table := range tables {
		if err := e.tamper(t.Context(), `ALTER TABLE `+table+` ADD COLUMN title TEXT NOT NULL DEFAULT ''`); err != nil {
			t.Fatal(err)
		}
	}
	return func() {
		for _, table := range tables {
			if err := e.tamper(t.Context(), `ALTER TABLE `+table+` DROP COLUMN title`); err != nil {
				t.Fatal(err)
			}
		}
	}
}
