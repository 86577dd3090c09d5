package storetest

import (
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/apply"
	"github.com/qinglong/qinglong/internal/core/catalog"
	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/qlerror"
)

// revisionOf reads the revision of project alpha as the project read
// answers it.
func revisionOf(t *testing.T, f Fixture) string {
	t.Helper()
	rev, exists, err := apply.ProjectRevision(t.Context(), f.Definitions, "alpha")
	if err != nil || !exists || rev == "" {
		t.Fatalf("the revision of alpha: %q, exists %v, %v", rev, exists, err)
	}
	return rev
}

// requireSpecChanged fails unless err refuses an apply over a revision
// alpha is no longer at, naming the revision it is at now.
func requireSpecChanged(t *testing.T, err error, now, what string) {
	t.Helper()
	requireCode(t, err, qlerror.PreconditionFailed, what)
	if qlerror.ReasonOf(err) != apply.RefusalSpecChanged || qlerror.ParamsOf(err)["revision"] != now ||
		!strings.Contains(err.Error(), now) || !strings.Contains(err.Error(), "`ql projects show alpha`") {
		t.Fatalf("%s: %v (reason %q, params %v); want %s naming the revision now, %s, and how to read it", what, err,
			qlerror.ReasonOf(err), qlerror.ParamsOf(err), apply.RefusalSpecChanged, now)
	}
}

// testStaleRevisionOfOwnChange: an apply over a revision, asked again
// after its answer was lost, finds the project moved by its own publish;
// the file changes nothing there, so it answers every object unchanged
// and writes nothing, where a file that would change something is still
// refused.
func testStaleRevisionOfOwnChange(t *testing.T, f Fixture) {
	applyFile(t, f, fileOf(t, []string{"job"}, "one", [][2]string{{"tick", "job"}}, 1))
	read := revisionOf(t, f)
	change := fileOf(t, []string{"job"}, "two", [][2]string{{"tick", "job"}}, 1)
	if _, err := apply.Publish(t.Context(), f.Service, change, ids.New, apply.Options{IfMatch: []string{read}}); err != nil {
		t.Fatalf("the apply over the revision read: %v", err)
	}
	now := revisionOf(t, f)
	again, err := apply.Publish(t.Context(), f.Service, change, ids.New, apply.Options{IfMatch: []string{read}})
	if err != nil || len(again) == 0 || apply.Summary(again) != "" {
		t.Fatalf("the same apply asked again over the revision it moved: %+v, %v; want every object unchanged", again, err)
	}
	if got := revisionOf(t, f); got != now {
		t.Fatalf("the apply asked again moved the revision from %s to %s", now, got)
	}
	other := fileOf(t, []string{"job"}, "three", [][2]string{{"tick", "job"}}, 1)
	_, err = apply.Publish(t.Context(), f.Service, other, ids.New, apply.Options{IfMatch: []string{read}})
	requireSpecChanged(t, err, now, "another change over the revision before the last apply")
}

// testStaleRevisionWritesNothing: an apply over a revision the project
// has moved from is refused spec_changed naming the revision now, and
// writes nothing; over the revision now it publishes. The check is the
// store's publishing transaction's, so it holds for every writer.
func testStaleRevisionWritesNothing(t *testing.T, f Fixture) {
	applyFile(t, f, fileOf(t, []string{"job"}, "one", [][2]string{{"tick", "job"}}, 1))
	read := revisionOf(t, f)
	applyFile(t, f, fileOf(t, []string{"job"}, "two", [][2]string{{"tick", "job"}}, 1))
	now := revisionOf(t, f)
	if now == read {
		t.Fatal("an apply that changed a task did not move the revision")
	}
	stale := fileOf(t, []string{"job", "extra"}, "three", [][2]string{{"tick", "job"}, {"late", "extra"}}, 2)
	_, err := apply.Publish(t.Context(), f.Service, stale, ids.New, apply.Options{IfMatch: []string{read}})
	requireSpecChanged(t, err, now, "an apply over the revision before the last apply")
	if !strings.Contains(err.Error(), read) || !strings.Contains(err.Error(), "nothing was applied") {
		t.Fatalf("the refusal %q does not name the stale revision %s and that nothing was applied", err, read)
	}
	if got := revisionOf(t, f); got != now {
		t.Fatalf("the refused apply moved the revision from %s to %s", now, got)
	}
	p, err := f.Catalog.ProjectByName(t.Context(), "alpha")
	if err != nil {
		t.Fatal(err)
	}
	if job, err := f.Catalog.TaskByName(t.Context(), p.ID, "job"); err != nil || job.Revision != 2 {
		t.Fatalf("task job after the refused apply: revision %d, %v; want still 2", job.Revision, err)
	}
	if got, err := f.Catalog.TasksByName(t.Context(), p.ID, []string{"extra"}); err != nil || len(got) != 0 {
		t.Fatalf("the refused apply's new task: %v, %v; want none", got, err)
	}
	if _, err := apply.Publish(t.Context(), f.Service, stale, ids.New, apply.Options{IfMatch: []string{now}}); err != nil {
		t.Fatalf("the same file over the revision now: %v", err)
	}
	if got := revisionOf(t, f); got == now {
		t.Fatal("the apply over the revision now did not move it")
	}
	missing := fileOf(t, []string{"job"}, "one", nil, 1)
	missing.Project = "beta"
	_, err = apply.Publish(t.Context(), f.Service, missing, ids.New, apply.Options{IfMatch: []string{"*"}})
	requireCode(t, err, qlerror.PreconditionFailed, "an apply over any revision of a project that does not exist")
	if _, err := f.Catalog.ProjectByName(t.Context(), "beta"); !qlerror.Is(err, qlerror.NotFound) {
		t.Fatalf("the refused apply of a project that did not exist created it: %v", err)
	}
}

// testTwoAppliesOverOneRevision: two applies over the same revision,
// each through its own handle on the database (two servers, or a server
// and `ql apply` on the database), started together, each adding its own
// task: exactly one publishes, and the other is refused spec_changed
// naming the revision the first left, writing nothing. A check made
// before the publishing transaction would let both through.
func testTwoAppliesOverOneRevision(t *testing.T, f Fixture) {
	applyFile(t, f, fileOf(t, []string{"job"}, "one", [][2]string{{"tick", "job"}}, 1))
	read := revisionOf(t, f)
	services := []catalog.Service{f.Service, f.AnotherService(t)}
	docs := []*apply.Document{
		fileOf(t, []string{"job", "first"}, "one", [][2]string{{"tick", "job"}}, 1),
		fileOf(t, []string{"job", "second"}, "one", [][2]string{{"tick", "job"}}, 1),
	}
	start := make(chan struct{})
	errs := make(chan error, len(docs))
	for i := range docs {
		go func() {
			<-start
			_, err := apply.Publish(t.Context(), services[i], docs[i], ids.New, apply.Options{IfMatch: []string{read}})
			errs <- err
		}()
	}
	close(start)
	var refused []error
	for range docs {
		if err := <-errs; err != nil {
			refused = append(refused, err)
		}
	}
	if len(refused) != 1 {
		t.Fatalf("two applies over one revision: %d refused (%v); want exactly one", len(refused), refused)
	}
	now := revisionOf(t, f)
	requireSpecChanged(t, refused[0], now, "the apply that lost the race")
	p, err := f.Catalog.ProjectByName(t.Context(), "alpha")
	if err != nil {
		t.Fatal(err)
	}
	got, err := f.Catalog.TasksByName(t.Context(), p.ID, []string{"first", "second"})
	if err != nil || len(got) != 1 {
		t.Fatalf("tasks the two applies added: %v, %v; want the winner's alone", names(got), err)
	}
}
