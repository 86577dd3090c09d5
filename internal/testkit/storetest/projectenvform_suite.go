package storetest

import (
	"slices"
	"testing"

	"github.com/qinglong/qinglong/internal/core/apply"
	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/task"
)

// testAProjectEnvFormsFileIsRefusedAfterTheProjectChanged: the file the
// console's Edit environment form writes carries the project as the
// form showed it, and its apply checks it in its own transaction: a
// change of the project published between the preview and the
// confirmation is refused, not set back.
func testAProjectEnvFormsFileIsRefusedAfterTheProjectChanged(t *testing.T, f Fixture) {
	applyFile(t, f, envFile(t, "  B: one\n"))
	e, err := apply.ProjectEnvToEdit(t.Context(), f.Definitions, "shop")
	if err != nil {
		t.Fatal(err)
	}
	e.Env = append(e.Env, apply.EnvRow{Name: "MINE", Value: "1"})
	text, expect, err := apply.ProjectEnvFile(t.Context(), f.Definitions, e)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := apply.Parse("form.yaml", text)
	if err != nil {
		t.Fatalf("%v\n%s", err, text)
	}
	doc.Expect = expect
	applyFile(t, f, envFile(t, "  B: theirs\n"))
	if _, err := apply.Apply(t.Context(), f.Service, doc, ids.New); qlerror.ReasonOf(err) != apply.RefusalProjectChangedSince {
		t.Fatalf("the form's file applied after the project changed: %v; want %s", err, apply.RefusalProjectChangedSince)
	}
	p, err := f.Catalog.ProjectByName(t.Context(), "shop")
	if want := []task.EnvVar{{Name: "B", Value: "theirs"}}; err != nil || !slices.Equal(p.Env, want) {
		t.Fatalf("after the refusal the project reads env %+v, %v; want the change made meanwhile, %+v", p.Env, err, want)
	}
}
