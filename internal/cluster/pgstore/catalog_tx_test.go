package pgstore

import (
	"fmt"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/catalog"
	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/project"
	"github.com/qinglong/qinglong/internal/core/task"
)

// TestPublishRetriesTheWholeTransaction: a publishing transaction that
// loses a serialization race is re-run from the start — its function is
// called again and reads again — and then commits. A reads "b" and creates
// "a"; between its read and its write, B reads "a" and creates "b" and
// commits: each read what the other wrote, so A must fail and retry.
func TestPublishRetriesTheWholeTransaction(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	ctx := t.Context()
	svc := catalog.Service{Store: s.admin, Executor: task.RemoteWorker, NowMs: func() int64 { return time.Now().UnixMilli() }}
	p := project.Project{ID: ids.New(), Name: "alpha", Status: project.Active}
	if _, err := s.admin.ProjectSave(ctx, p); err != nil {
		t.Fatal(err)
	}
	publish := func(tx catalog.Tx, read, create string) (int, error) {
		seen, err := tx.TasksByName(ctx, p.ID, []string{read})
		if err != nil {
			return 0, err
		}
		spec := task.Spec{Name: create, Enabled: true, Command: task.Command{Mode: task.ModeArgv, Path: "/usr/bin/env", TimeoutMs: 1000}}
		params, err := svc.TaskParams(p.ID, ids.New(), 0, ids.New(), spec)
		if err != nil {
			return 0, err
		}
		_, err = tx.TasksPublish(ctx, []catalog.TaskPublishParams{params})
		return len(seen), err
	}
	aRead, bDone := make(chan struct{}), make(chan error, 1)
	go func() {
		<-aRead
		bDone <- s.admin.Publish(ctx, func(tx catalog.Tx) error {
			_, err := publish(tx, "a", "b")
			return err
		})
	}()
	var runs []int
	err := s.admin.Publish(ctx, func(tx catalog.Tx) error {
		seen, err := tx.TasksByName(ctx, p.ID, []string{"b"})
		if err != nil {
			return err
		}
		runs = append(runs, len(seen))
		if len(runs) == 1 {
			close(aRead)
			if err := <-bDone; err != nil {
				return fmt.Errorf("the concurrent publish failed: %w", err)
			}
		}
		_, err = publish(tx, "b", "a")
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 2 || runs[0] != 0 || runs[1] != 1 {
		t.Fatalf("A's function ran %d times seeing %v tasks named b; want twice, first none, then B's", len(runs), runs)
	}
	got, err := s.admin.TasksByName(ctx, p.ID, []string{"a", "b"})
	if err != nil || len(got) != 2 || got["a"].Revision != 1 {
		t.Fatalf("after the retry: %v, %v; want a and b, each once", got, err)
	}
}
