package sqlitestore

import "testing"

// placeLater gives a file migrated only to an older migration the
// attempts' place column 0036 (cancel-previous-takes-place) adds and this
// build's admission writes, so that the test can admit through it as the
// older build did; the returned func takes it away again, before the file
// is migrated on and 0036 adds it for real.
func placeLater(t *testing.T, e *env) (undo func()) {
	t.Helper()
	if err := e.tamper(t.Context(), `ALTER TABLE attempts ADD COLUMN place_of TEXT`); err != nil {
		t.Fatal(err)
	}
	return func() {
		if err := e.tamper(t.Context(), `ALTER TABLE attempts DROP COLUMN place_of`); err != nil {
			t.Fatal(err)
		}
	}
}
