package storetest

import (
	"slices"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/apply"
	"github.com/qinglong/qinglong/internal/core/catalog"
	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/task"
	"github.com/qinglong/qinglong/internal/core/validate"
)

// projectEnvCases are the guarantees of a project's env as a definitions
// file sets it: kept on the project, its change an update of the project
// alone that says which variables it adds, changes and removes, written
// back by an export so that applying the export changes nothing, and
// removed by a file that leaves it out.
func projectEnvCases() map[string]func(*testing.T, Fixture) {
	return map[string]func(*testing.T, Fixture){
		"ChangingProjectEnvPublishesNoTaskRevision":           testChangingProjectEnvPublishesNoTaskRevision,
		"ExportWritesTheProjectEnvBack":                       testExportWritesTheProjectEnvBack,
		"ANewTaskFormKeepsTheProjectEnv":                      testANewTaskFormKeepsTheProjectEnv,
		"AnEditTaskFormKeepsTheProjectEnv":                    testAnEditTaskFormKeepsTheProjectEnv,
		"AnEnvATaskLeftOutCouldNotStartWithIsRefused":         testAnEnvATaskLeftOutCouldNotStartWithIsRefused,
		"AProjectEnvFormsFileIsRefusedAfterTheProjectChanged": testAProjectEnvFormsFileIsRefusedAfterTheProjectChanged,
	}
}

// envFile is a definitions file of project shop with one task and
// trigger, its env lines as given ("" leaves env out).
func envFile(t *testing.T, env string) *apply.Document {
	t.Helper()
	s := "project: shop\n"
	if env != "" {
		s += "env:\n" + env
	}
	s += "tasks:\n  - {name: job, command: [/usr/bin/env, \"true\"], env: {OWN: \"1\"}}\n" +
		"triggers:\n  - {name: tick, task: job, cron: \"7 * * * *\", timezone: UTC, misfire: skip}\n"
	doc, err := apply.Parse("shop.yaml", []byte(s))
	if err != nil {
		t.Fatalf("parse: %v\n%s", err, s)
	}
	return doc
}

func testChangingProjectEnvPublishesNoTaskRevision(t *testing.T, f Fixture) {
	applyFile(t, f, envFile(t, "  B: one\n  C: {secret: shop/c-token}\n"))
	before, err := f.Catalog.ProjectByName(t.Context(), "shop")
	if err != nil {
		t.Fatal(err)
	}
	if want := []task.EnvVar{{Name: "B", Value: "one"}, {Name: "C", SecretRef: "shop/c-token"}}; !slices.Equal(before.Env, want) {
		t.Fatalf("the project reads env %+v; want %+v", before.Env, want)
	}
	next := envFile(t, "  A: \"8080\"\n  B: two\n")
	planned, err := apply.Plan(t.Context(), f.Service, f.Catalog, next, ids.New)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := planned[0].Planned(), "project shop: would update env (+A, ~B, -C)"; got != want {
		t.Fatalf("dry run says %q; want %q", got, want)
	}
	res := applyFile(t, f, next)
	if res[0].Kind != "project" || res[0].Change != catalog.Updated || !slices.Equal(res[0].Fields, []string{"env (+A, ~B, -C)"}) {
		t.Fatalf("applying a changed env: %s; want the project updated (env (+A, ~B, -C))", res[0])
	}
	for _, r := range res[1:] {
		if r.Change != catalog.Unchanged {
			t.Fatalf("applying a changed env: %s; a project's env publishes no revision of a task or trigger", r)
		}
	}
	after, err := f.Catalog.ProjectByName(t.Context(), "shop")
	if want := []task.EnvVar{{Name: "A", Value: "8080"}, {Name: "B", Value: "two"}}; err != nil || !slices.Equal(after.Env, want) {
		t.Fatalf("after the change the project reads env %+v, %v; want %+v", after.Env, err, want)
	}
	if res := applyFile(t, f, envFile(t, "")); !slices.Equal(res[0].Fields, []string{"env (-A, -B)"}) {
		t.Fatalf("a file leaving env out: %s; want the project updated (env (-A, -B))", res[0])
	}
	if p, err := f.Catalog.ProjectByName(t.Context(), "shop"); err != nil || len(p.Env) != 0 {
		t.Fatalf("a file leaving env out left %+v, %v; want none, as leaving the title out clears it", p.Env, err)
	}
}

func testExportWritesTheProjectEnvBack(t *testing.T, f Fixture) {
	applyFile(t, f, envFile(t, "  PORT: 8080\n  TOKEN: {secret: shop/api-token}\n"))
	ex, err := apply.ExportProject(t.Context(), f.Definitions, "shop", nil)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(ex.YAML), "\nenv:\n  PORT: \"8080\"\n  TOKEN:\n    secret: shop/api-token\n") {
		t.Fatalf("export lacks the project's env:\n%s", ex.YAML)
	}
	doc, err := apply.Parse("export.yaml", ex.YAML)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range applyFile(t, f, doc) {
		if r.Change != catalog.Unchanged {
			t.Fatalf("applying the export: %s; want every object unchanged (the env kept)", r)
		}
	}
}

func testANewTaskFormKeepsTheProjectEnv(t *testing.T, f Fixture) {
	applyFile(t, f, envFile(t, "  REGION: cn-east\n"))
	text, err := apply.NewTaskFile(t.Context(), f.Definitions, apply.NewTask{Project: "shop", Task: "second", Script: "echo hi", Cron: "7 * * * *", Timezone: "UTC"})
	if err != nil {
		t.Fatal(err)
	}
	doc, err := apply.Parse("form.yaml", text)
	if err != nil {
		t.Fatalf("%v\n%s", err, text)
	}
	res := applyFile(t, f, doc)
	if res[0].Change != catalog.Unchanged {
		t.Fatalf("publishing a new task from the form: %s; want the project (and its env) unchanged\n%s", res[0], text)
	}
}

// A project split over two files: the env one file gives, with which a
// task of the other could not start (task.MaxExecSize), is refused
// naming that task, and nothing is applied.
func testAnEnvATaskLeftOutCouldNotStartWithIsRefused(t *testing.T, f Fixture) {
	big := "project: shop\ntasks:\n  - name: big\n    script: \"" + strings.Repeat("#", task.MaxScriptLen) + "\"\n"
	doc, err := apply.Parse("big.yaml", []byte(big))
	if err != nil {
		t.Fatal(err)
	}
	applyFile(t, f, doc)
	var env strings.Builder
	for _, name := range []string{"A", "B", "C", "D", "E", "F", "G", "H", "I", "J", "K", "L"} {
		env.WriteString("  " + name + ": " + strings.Repeat("v", task.MaxEnvValueLen) + "\n")
	}
	_, err = apply.Apply(t.Context(), f.Service, envFile(t, env.String()), ids.New)
	if qlerror.ReasonOf(err) != validate.RefusalTooLong || !strings.Contains(err.Error(), `task "big" of project shop, which this file leaves out`) {
		t.Fatalf("%.400v; want the env refused naming task big", err)
	}
	if p, err := f.Catalog.ProjectByName(t.Context(), "shop"); err != nil || len(p.Env) != 0 {
		t.Fatalf("after the refusal the project reads env %d variables, %v; want none applied", len(p.Env), err)
	}
}

func testAnEditTaskFormKeepsTheProjectEnv(t *testing.T, f Fixture) {
	applyFile(t, f, cronEnvFile(t))
	text, expect := editedTaskFile(t, f, "shop", "job", func(e *apply.EditTask) { e.Script = "echo edited" })
	doc, err := apply.Parse("form.yaml", text)
	if err != nil {
		t.Fatalf("%v\n%s", err, text)
	}
	doc.Expect = expect
	if res := applyFile(t, f, doc); res[0].Change != catalog.Unchanged || res[1].Change != catalog.Updated {
		t.Fatalf("publishing an edited task from the form: %s, %s; want the project (and its env) unchanged, the task updated\n%s", res[0], res[1], text)
	}
}

// cronEnvFile is project shop with an env and one shell task, which the
// task form edits.
func cronEnvFile(t *testing.T) *apply.Document {
	t.Helper()
	doc, err := apply.Parse("shop.yaml", []byte("project: shop\nenv:\n  REGION: cn-east\n  TOKEN: {secret: shop/api-token}\n"+
		"tasks:\n  - {name: job, script: echo}\ntriggers:\n  - {name: tick, task: job, cron: \"7 * * * *\", timezone: UTC, misfire: skip}\n"))
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// `ql secrets list` says a secret of a project's env is used by every
// task of the project that does not set that variable itself.
func testASecretOfTheProjectEnvIsUsedByEveryTask(t *testing.T, f Fixture) {
	doc, err := apply.Parse("shop.yaml", []byte("project: shop\nenv:\n  TOKEN: {secret: shop/api-token}\n"+
		"tasks:\n  - {name: a, script: echo}\n  - {name: b, script: echo, env: {TOKEN: own}}\n"))
	if err != nil {
		t.Fatal(err)
	}
	applyFile(t, f, doc)
	uses, complete, err := apply.SecretUses(t.Context(), f.Definitions)
	if err != nil || !complete {
		t.Fatalf("secret uses: %v (complete %v)", err, complete)
	}
	got := uses["shop/api-token"]
	if len(got) != 1 || got[0].Name != "a" || got[0].Env != "TOKEN" || got[0].Kind != apply.SecretUseTask {
		t.Fatalf("uses of shop/api-token %+v; want task a's TOKEN alone (task b sets its own)", got)
	}
}
