package subscription

import (
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/apply"
	"github.com/qinglong/qinglong/internal/core/catalog"
	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/task"
	"github.com/qinglong/qinglong/internal/single/sqlitestore"
	"github.com/qinglong/qinglong/internal/testkit/sqlitetest"
)

// newStore is a migrated single-node store and the service publishing
// into it.
func newStore(t *testing.T) (*sqlitestore.Store, catalog.Service) {
	t.Helper()
	st := sqlitetest.Open(t)
	return st, catalog.Service{Store: st, Executor: task.LocalProcess, NowMs: func() int64 { return time.Now().UnixMilli() }}
}

// applyText applies a definitions file, as `ql apply` would.
func applyText(t *testing.T, svc catalog.Service, text []byte) {
	t.Helper()
	doc, err := apply.Parse("t.yaml", text)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := apply.Apply(t.Context(), svc, doc, ids.New); err != nil {
		t.Fatal(err)
	}
}

// taskOf is project p's task named name as the store has it now.
func taskOf(t *testing.T, st *sqlitestore.Store, p, name string) (task.Revision, catalog.Definitions) {
	t.Helper()
	d, err := st.ProjectDefinitions(t.Context(), p, 100)
	if err != nil {
		t.Fatal(err)
	}
	for _, tk := range d.Tasks {
		if tk.Spec.Name == name {
			return tk, d
		}
	}
	t.Fatalf("project %s has no task %s", p, name)
	return task.Revision{}, d
}
