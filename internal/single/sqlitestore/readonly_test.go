package sqlitestore

import (
	"testing"

	sqlite3 "modernc.org/sqlite/lib"

	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/project"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/core/schedule"
)

// A read-only store reads what a writable one wrote and can write nothing:
// not through its API, not through either pool, not even after switching
// query_only off.
func TestReadOnlyStoreReadsAndCannotWrite(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	d := e.defs(t, "ro", everyMinute)
	ro, err := OpenReadOnly(t.Context(), Config{Path: e.path, NowMs: e.clock.NowMs})
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	if err := ro.ReadyToRead(t.Context()); err != nil {
		t.Fatalf("ready: %v", err)
	}
	list, _, err := ro.TriggerList(t.Context(), schedule.TriggerListParams{Limit: 10})
	if err != nil || len(list) != 1 || list[0].TriggerID != d.Trigger.TriggerID {
		t.Fatalf("trigger list %v, %v", list, err)
	}
	if _, _, err := ro.RunList(t.Context(), run.ListParams{Limit: 10}); err != nil {
		t.Fatalf("run list: %v", err)
	}
	_, err = ro.ProjectSave(t.Context(), project.Project{ID: ids.New(), Name: "written", Status: project.Active})
	if !qlerror.Is(err, qlerror.Unavailable) {
		t.Fatalf("a project save through the read-only store: %v; want it refused", err)
	}
	for _, pool := range []string{"reader", "writer"} {
		db := ro.reader
		if pool == "writer" {
			db = ro.writer
		}
		conn, err := db.Conn(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		if _, err := conn.ExecContext(t.Context(), `PRAGMA query_only = 0`); err != nil {
			t.Fatal(err)
		}
		_, err = conn.ExecContext(t.Context(), `DELETE FROM projects`)
		conn.Close()
		if err == nil || primaryCode(err) != sqlite3.SQLITE_READONLY {
			t.Fatalf("%s pool wrote with query_only off: %v; want SQLITE_READONLY", pool, err)
		}
	}
	var n int
	if err := e.raw.QueryRow(`SELECT count(*) FROM projects`).Scan(&n); err != nil || n != 1 {
		t.Fatalf("projects %d, %v; want the one project untouched", n, err)
	}
}
