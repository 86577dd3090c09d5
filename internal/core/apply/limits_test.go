package apply

import (
	"fmt"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/catalog"
	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/task"
)

// endless is a source that never ends (a pipe, /dev/zero); n counts the
// bytes taken from it.
type endless struct{ n int64 }

func (e *endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = '#'
	}
	e.n += int64(len(p))
	return len(p), nil
}

func TestReadStopsAtTheSizeLimit(t *testing.T) {
	t.Parallel()
	src := &endless{}
	_, err := Read("stdin", src)
	if !qlerror.Is(err, qlerror.Invalid) || !strings.Contains(err.Error(), "stdin: larger than the limit of 4194304 bytes") {
		t.Fatalf("endless input: %v; want the size limit named", err)
	}
	if src.n > MaxFileSize+64<<10 {
		t.Fatalf("read %d bytes of an endless input; the limit is %d", src.n, MaxFileSize)
	}
	exact := "project: demo\n" + strings.Repeat("#", MaxFileSize-len("project: demo\n"))
	if _, err := Read("exact", strings.NewReader(exact)); err != nil {
		t.Fatalf("a file of exactly the limit: %v", err)
	}
	if _, err := Read("over", strings.NewReader(exact+"\n")); err == nil {
		t.Fatal("a file one byte over the limit was accepted")
	}
}

func TestParseFileReadsStandardInputForDash(t *testing.T) {
	t.Parallel()
	doc, err := ParseFile("-", strings.NewReader(good))
	if err != nil || doc.File != "stdin" || len(doc.Tasks) != 2 {
		t.Fatalf("-f -: %+v, %v", doc, err)
	}
	_, err = ParseFile("-", strings.NewReader("project: [x\n"))
	if err == nil || !strings.HasPrefix(err.Error(), "stdin:") {
		t.Fatalf("an invalid standard input is reported as %v; want it named stdin", err)
	}
}

func TestObjectCountsAreCapped(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	b.WriteString("project: demo\ntasks:\n")
	for i := range MaxTasks + 1 {
		fmt.Fprintf(&b, "  - {name: t%d, script: echo}\n", i)
	}
	_, err := Parse("big.yaml", []byte(b.String()))
	if err == nil || !strings.Contains(err.Error(), "big.yaml:3: tasks: 10001 entries, the limit is 10000") {
		t.Fatalf("10,001 tasks: %v", err)
	}
	b.Reset()
	b.WriteString("project: demo\ntriggers:\n")
	for i := range MaxTriggers + 1 {
		fmt.Fprintf(&b, "  - {name: t%d, task: a, cron: '* * * * *', timezone: UTC}\n", i)
	}
	_, err = Parse("big.yaml", []byte(b.String()))
	if err == nil || !strings.Contains(err.Error(), "big.yaml:3: triggers: 10001 entries, the limit is 10000") {
		t.Fatalf("10,001 triggers: %v", err)
	}
}

func TestAnchorsAliasesAndNonStringKeysAreRefused(t *testing.T) {
	t.Parallel()
	task := "project: demo\ntasks:\n  - name: a\n    script: echo\n"
	cases := map[string]struct {
		yaml string
		want string
	}{
		"anchor":        {task + "    labels: &l {team: ops}\n", "x.yaml:5: YAML anchors and aliases (&l)"},
		"alias":         {task + "    labels: &l {team: ops}\n  - name: b\n    script: echo\n    labels: *l\n", "x.yaml:5: YAML anchors and aliases (&l)"},
		"anchored key":  {task + "    labels: {&k team: ops, other: *k}\n", "x.yaml:5: YAML anchors and aliases (&k)"},
		"merge key":     {task + "    labels:\n      <<: {team: ops}\n", "x.yaml:6: mapping keys must be plain strings, not a merge key (<<)"},
		"integer key":   {task + "    env:\n      1: x\n", `x.yaml:6: mapping keys must be plain strings, not "1" (int)`},
		"boolean key":   {task + "    labels:\n      true: x\n", `x.yaml:6: mapping keys must be plain strings, not "true" (bool)`},
		"null key":      {task + "    labels:\n      ~: x\n", "x.yaml:6: mapping keys must be plain strings"},
		"mapping key":   {task + "    labels:\n      ? {a: b}\n      : x\n", "x.yaml:6: mapping keys must be plain strings, not a mapping"},
		"top-level int": {"project: demo\n7: x\n", `x.yaml:2: mapping keys must be plain strings, not "7" (int)`},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			_, err := Parse("x.yaml", []byte(c.yaml))
			if !qlerror.Is(err, qlerror.Invalid) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want an invalid error containing %q", err, c.want)
			}
		})
	}
	if _, err := Parse("x.yaml", []byte(task+"    labels: {\"1\": x}\n")); err != nil {
		t.Fatalf("a quoted key that looks like a number: %v", err)
	}
}

func TestReservedEnvironmentNamesAreRefusedWithTheirLine(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"QL_RUN_ID", "QL_ATTEMPT_ID", "QL_FUTURE"} {
		yaml := "project: demo\ntasks:\n  - name: a\n    script: echo\n    env:\n      OK: x\n      " + name + ": forged\n"
		_, err := Parse("x.yaml", []byte(yaml))
		if !qlerror.Is(err, qlerror.Invalid) || !strings.Contains(err.Error(), "x.yaml:7:") || !strings.Contains(err.Error(), "reserved") {
			t.Errorf("env %s: %v; want x.yaml:7 and reserved", name, err)
		}
	}
}

func TestPlanWithoutADatabaseCreatesEverything(t *testing.T) {
	t.Parallel()
	doc, err := Parse("demo.yaml", []byte(good))
	if err != nil {
		t.Fatal(err)
	}
	svc := catalog.Service{Executor: task.LocalProcess, NowMs: func() int64 { return nowMs }}
	res, err := Plan(t.Context(), svc, nil, doc, ids.New)
	if err != nil || len(res) != 5 {
		t.Fatalf("plan: %v, %v", res, err)
	}
	for _, r := range res {
		if r.Change != catalog.Created || !strings.Contains(r.Planned(), "would create") {
			t.Errorf("%s; want would create", r.Planned())
		}
	}
	archived := strings.Replace(good, "project: demo", "project: demo\nstatus: archived", 1)
	if doc, err = Parse("demo.yaml", []byte(archived)); err != nil {
		t.Fatal(err)
	}
	_, err = Plan(t.Context(), svc, nil, doc, ids.New)
	if !qlerror.Is(err, qlerror.FailedPrecondition) || !strings.Contains(err.Error(), "demo.yaml:4: task \"hello\"") {
		t.Fatalf("plan of tasks in an archived project: %v; want the store's refusal, at the first task", err)
	}
}
