package storetest

import (
	"testing"

	"github.com/qinglong/qinglong/internal/core/apply"
	"github.com/qinglong/qinglong/internal/core/catalog"
	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/qlerror"
)

// enableOver enables or disables trigger name of alpha over the project
// revisions expected, as the API's enable with If-Match does.
func enableOver(t *testing.T, svc catalog.Service, projectID, name string, enabled bool, expected ...string) (catalog.EnableResult, error) {
	return svc.TriggerSetEnabled(t.Context(), catalog.EnableRequest{ProjectID: projectID, Name: name, Enabled: enabled, Actor: "ops",
		Precondition: apply.RevisionPrecondition("alpha", expected)})
}

// testStaleRevisionEnableWritesNothing: a disable over a revision the
// project has moved from is refused spec_changed naming the revision now
// and writes nothing; over the revision now it publishes (and moves it);
// asked again over the revision it moved from, the trigger being in the
// state asked for, it answers unchanged, as an apply asked again does.
func testStaleRevisionEnableWritesNothing(t *testing.T, f Fixture) {
	applyFile(t, f, fileOf(t, []string{"job"}, "one", [][2]string{{"tick", "job"}}, 1))
	read := revisionOf(t, f)
	applyFile(t, f, fileOf(t, []string{"job"}, "two", [][2]string{{"tick", "job"}}, 1))
	now := revisionOf(t, f)
	p, err := f.Catalog.ProjectByName(t.Context(), "alpha")
	if err != nil {
		t.Fatal(err)
	}
	before, err := f.Catalog.TriggerByName(t.Context(), p.ID, "tick")
	if err != nil {
		t.Fatal(err)
	}
	_, err = enableOver(t, f.Service, p.ID, "tick", false, read)
	requireSpecChanged(t, err, now, "a disable over the revision before the last apply")
	if tick, err := f.Catalog.TriggerByName(t.Context(), p.ID, "tick"); err != nil || !tick.Spec.Enabled || tick.Revision != before.Revision {
		t.Fatalf("trigger tick after the refused disable: revision %d, enabled %v, %v; want revision %d, enabled", tick.Revision, tick.Spec.Enabled, err, before.Revision)
	}
	if got := revisionOf(t, f); got != now {
		t.Fatalf("the refused disable moved the revision from %s to %s", now, got)
	}
	res, err := enableOver(t, f.Service, p.ID, "tick", false, now)
	if err != nil || !res.Changed || res.Enabled {
		t.Fatalf("a disable over the revision now: %+v, %v; want it disabled", res, err)
	}
	if got := revisionOf(t, f); got == now {
		t.Fatal("the disable did not move the revision")
	}
	again, err := enableOver(t, f.Service, p.ID, "tick", false, now)
	if err != nil || again.Changed || again.Enabled {
		t.Fatalf("the same disable asked again over the revision it moved: %+v, %v; want it unchanged", again, err)
	}
	_, err = enableOver(t, f.Service, p.ID, "tick", true, now)
	requireCode(t, err, qlerror.PreconditionFailed, "an enable over the revision before the disable")
}

// testTwoEnablesOverOneRevision: two disables of two triggers of one
// project over the same revision, each through its own handle on the
// database, started together: exactly one publishes, and the other is
// refused spec_changed, writing nothing. A check made before the
// publishing transaction would let both through.
func testTwoEnablesOverOneRevision(t *testing.T, f Fixture) {
	applyFile(t, f, fileOf(t, []string{"job"}, "one", [][2]string{{"tick", "job"}, {"tock", "job"}}, 1))
	read := revisionOf(t, f)
	p, err := f.Catalog.ProjectByName(t.Context(), "alpha")
	if err != nil {
		t.Fatal(err)
	}
	services := []catalog.Service{f.Service, f.AnotherService(t)}
	triggers := []string{"tick", "tock"}
	start := make(chan struct{})
	errs := make(chan error, len(triggers))
	for i := range triggers {
		go func() {
			<-start
			_, err := enableOver(t, services[i], p.ID, triggers[i], false, read)
			errs <- err
		}()
	}
	close(start)
	var refused []error
	for range triggers {
		if err := <-errs; err != nil {
			refused = append(refused, err)
		}
	}
	if len(refused) != 1 {
		t.Fatalf("two disables over one revision: %d refused (%v); want exactly one", len(refused), refused)
	}
	requireSpecChanged(t, refused[0], revisionOf(t, f), "the disable that lost the race")
	got, err := f.Catalog.TriggersByName(t.Context(), p.ID, triggers)
	if err != nil {
		t.Fatal(err)
	}
	if got["tick"].Spec.Enabled == got["tock"].Spec.Enabled {
		t.Fatalf("after two disables over one revision tick is enabled %v and tock %v; want the winner's alone disabled", got["tick"].Spec.Enabled, got["tock"].Spec.Enabled)
	}
}

// testApplyCreatingOnlyRefusesAnExistingProject: an apply that may only
// create its project (If-None-Match: *) creates it where none has its
// name; asked again with the same file it answers unchanged (its own
// creation, whose answer was lost); with a file that would change the
// project it is refused project_exists naming the revision, writing
// nothing, in the publishing transaction.
func testApplyCreatingOnlyRefusesAnExistingProject(t *testing.T, f Fixture) {
	first := fileOf(t, []string{"job"}, "one", [][2]string{{"tick", "job"}}, 1)
	if _, err := apply.Publish(t.Context(), f.Service, first, ids.New, apply.Options{IfNoneMatch: true}); err != nil {
		t.Fatalf("an apply creating only, of a project that does not exist: %v", err)
	}
	now := revisionOf(t, f)
	again, err := apply.Publish(t.Context(), f.Service, first, ids.New, apply.Options{IfNoneMatch: true})
	if err != nil || apply.Summary(again) != "" {
		t.Fatalf("the same apply asked again: %+v, %v; want every object unchanged", again, err)
	}
	_, err = apply.Publish(t.Context(), f.Service, fileOf(t, []string{"job"}, "two", [][2]string{{"tick", "job"}}, 1), ids.New, apply.Options{IfNoneMatch: true})
	requireCode(t, err, qlerror.PreconditionFailed, "an apply creating only, of a project that exists")
	if qlerror.ReasonOf(err) != apply.RefusalProjectExists || qlerror.ParamsOf(err)["revision"] != now {
		t.Fatalf("an apply creating only, of a project that exists: %v (reason %q, params %v); want %s naming revision %s",
			err, qlerror.ReasonOf(err), qlerror.ParamsOf(err), apply.RefusalProjectExists, now)
	}
	if got := revisionOf(t, f); got != now {
		t.Fatalf("the refused apply moved the revision from %s to %s", now, got)
	}
}
