package sqlitestore

import (
	"testing"

	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/project"
)

// TestTheCommitWatchSeesEachCommitOfAnyOtherConnectionOnce: a commit by
// another store on the file (as another process's) and one by the
// watched store's own writer are each reported once; reads and a
// transaction rolled back are not reported at all, so a server woken by
// the watch and committing nothing comes to rest.
func TestTheCommitWatchSeesEachCommitOfAnyOtherConnectionOnce(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	w, err := e.store.WatchCommits(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	changed := func(step string, want bool) {
		t.Helper()
		got, err := w.Changed(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Fatalf("%s: the watch reports a change %v, want %v", step, got, want)
		}
	}
	changed("nothing committed since the watch opened", false)

	e.project(t, "own")
	changed("the watched store's own commit", true)
	changed("looked again", false)

	other := e.impatientStore(t)
	if _, err := other.ProjectSave(t.Context(), project.Project{ID: ids.New(), Name: "other", Status: project.Active}); err != nil {
		t.Fatal(err)
	}
	changed("another store's commit", true)
	changed("looked again", false)

	e.take(t, 16)
	var n int
	if err := e.raw.QueryRow(`SELECT count(*) FROM projects`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	changed("reads", false)

	conn, release := e.holdWriteLock(t)
	if _, err := conn.ExecContext(t.Context(), `DELETE FROM projects`); err != nil {
		t.Fatal(err)
	}
	release()
	conn.Close()
	changed("a transaction rolled back", false)
}
