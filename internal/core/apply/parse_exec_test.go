package apply

import (
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/task"
)

func TestParseReadsRunAsAndKillGrace(t *testing.T) {
	t.Parallel()
	doc, err := Parse("x.yaml", []byte("project: demo\ntasks:\n  - name: a\n    script: echo\n    runAs: {user: svc, group: \"1001\"}\n    killGrace: 1500ms\n  - name: b\n    script: echo\n    runAs: {user: nobody}\n"))
	if err != nil {
		t.Fatal(err)
	}
	a, b := doc.Tasks[0].Spec.Command, doc.Tasks[1].Spec.Command
	if a.RunAs != (task.RunAs{User: "svc", Group: "1001"}) || a.KillGraceMs != 1500 {
		t.Fatalf("task a: runAs %+v killGrace %d", a.RunAs, a.KillGraceMs)
	}
	if b.RunAs != (task.RunAs{User: "nobody"}) || b.KillGraceMs != 0 {
		t.Fatalf("task b: runAs %+v killGrace %d; want the user alone and the default grace", b.RunAs, b.KillGraceMs)
	}
}

func TestInvalidRunAsAndKillGraceNameTheField(t *testing.T) {
	t.Parallel()
	base := "project: demo\ntasks:\n  - name: a\n    script: echo\n"
	cases := map[string]struct{ yaml, want string }{
		"runAs not a mapping": {"    runAs: svc\n", "x.yaml:5: task \"a\": task.runAs must be a mapping"},
		"runAs without user":  {"    runAs: {group: svc}\n", "task.runAs.user: is required"},
		"runAs unknown field": {"    runAs: {user: svc, uid: 3}\n", `unknown field "uid"`},
		"runAs bad user":      {"    runAs: {user: \"a b\"}\n", "task.runAs.user"},
		"grace not duration":  {"    killGrace: soon\n", "x.yaml:5: task \"a\": task.killGrace"},
		"grace zero":          {"    killGrace: 0s\n", "task.killGrace"},
		"grace too long":      {"    killGrace: 1h\n", "x.yaml:5: task \"a\": task.killGrace: 1h is out of range: it takes 1ms to 10m"},
	}
	for name, c := range cases {
		_, err := Parse("x.yaml", []byte(base+c.yaml))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want an error containing %q", name, err, c.want)
		}
	}
}
