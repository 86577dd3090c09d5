package apply

import (
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/catalog"
	"github.com/qinglong/qinglong/internal/core/project"
	"github.com/qinglong/qinglong/internal/core/task"
)

// Two mistakes on one line come back in the order they are written, not
// in the order the parser checks their fields (misfire before jitter).
func TestMistakesOfOneLineAreReportedByColumn(t *testing.T) {
	t.Parallel()
	_, err := Parse("x.yaml", []byte("project: e\ntasks:\n  - {name: t, script: echo}\ntriggers:\n"+
		`  - {name: e, task: t, cron: "0 0 * * *", timezone: UTC, jitter: -1s, misfire: never}`+"\n"))
	requireErrors(t, err, 0,
		place{5, 66, `trigger.jitter: -1s is out of range`},
		place{5, 80, `trigger.misfire: "never"`})
}

// A task with a mistake in one field still has the checks of its other
// fields run: an empty script is reported beside a timeout without a unit,
// not only once the timeout is mended.
func TestATasksOtherChecksRunBesideAFieldsMistake(t *testing.T) {
	t.Parallel()
	_, err := Parse("x.yaml", []byte("project: e\ntasks:\n  - {name: t3, script: \"\", timeout: \"30\"}\n"))
	requireErrors(t, err, 0,
		place{3, 24, "task.script: is required in shell mode"},
		place{3, 37, `task.timeout: "30"`})
	_, err = Parse("x.yaml", []byte("project: e\ntasks:\n  - {name: t, labels: {Team: ops}, command: [/bin/true], env: {a: {secret: B/d}}, timeout: 1}\n"))
	requireErrors(t, err, 0,
		place{3, 23, `task.labels: key "Team"`},
		place{3, 67, `task.env.a: secret reference "B/d"`},
		place{3, 92, "task.timeout"})
}

// A check that reads a field that failed is not run: it would report that
// field's mistake a second time, in other words.
func TestACheckOfAFieldThatFailedIsNotRunAgain(t *testing.T) {
	t.Parallel()
	_, err := Parse("x.yaml", []byte("project: e\ntasks:\n  - {name: t, script: [echo], timeout: 1}\n"))
	requireErrors(t, err, 0,
		place{3, 23, "task.script must be a string"},
		place{3, 40, "task.timeout"})
}

// A rule naming a channel given nowhere is reported though another
// channel has a mistake; one naming the channel that failed is not
// reported for it.
func TestARuleNamingNoChannelIsReportedBesideAChannelsMistake(t *testing.T) {
	t.Parallel()
	_, err := Parse("x.yaml", []byte(notifyBase+`  channels:
    ops: {type: webhook, url: "ftp://x"}
  rules:
    - {on: failed, channel: ops}
    - {on: failed, channel: zz}
`))
	requireErrors(t, err, 0,
		place{4, 10, "notifications.channels.ops"},
		place{7, 7, `notifications.rules[1].channel: "zz" is not defined`})
}

// A file with mistakes everywhere — in the project, a task's fields and
// its whole-task checks, a trigger's fields in another order than the
// parser's, the notifications and the references between entries — has
// them all reported in one pass, in the order they are written.
func TestAFileWithManyMistakesHasThemAllInFileOrderInOnePass(t *testing.T) {
	t.Parallel()
	_, err := Parse("x.yaml", []byte(`project: demo
notifications:
  channels:
    ops: {type: webhook}
  rules:
    - {on: failed, channel: nope}
tasks:
  - {name: a, script: "", timeout: "30", env: {N: [1]}}
  - {name: b, command: [bin/true], retry: {maxAttempts: 0}}
triggers:
  - {name: t1, task: a, cron: "61 * * * *", timezone: Mars/Olympus, overlap: never, jitter: 2h, misfire: never}
  - {name: t2, task: gone, cron: "0 * * * *", timezone: UTC}
`))
	requireErrors(t, err, 0,
		place{4, 10, "notifications.channels.ops"},
		place{6, 7, `notifications.rules[0].channel: "nope" is not defined`},
		place{8, 23, "task.script: is required in shell mode"},
		place{8, 36, `task.timeout: "30"`},
		place{8, 51, "task.env.N must be a value"},
		place{9, 25, "task.command[0]"},
		place{9, 57, "task.retry.maxAttempts"},
		place{11, 31, "trigger.cron"},
		place{11, 55, "trigger.timezone"},
		place{11, 78, "trigger.overlap"},
		place{11, 93, "trigger.jitter"},
		place{11, 106, "trigger.misfire"},
		place{12, 0, `trigger.task "gone" is not a task of this file`})
}

// An env value is the text written for it, whatever YAML would read it
// as, for every scalar alike; ql export writes it back quoted, so the
// export reads back to the very same values.
func TestEnvValuesAreTheTextWrittenAndSurviveAnExport(t *testing.T) {
	t.Parallel()
	doc, err := Parse("x.yaml", []byte(`project: e
tasks:
  - name: t
    script: echo
    env: {N: 8080, F: 1.50, H: 0x1F, M: true, O: null, T: ~, E: , S: "s"}
`))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"N": "8080", "F": "1.50", "H": "0x1F", "M": "true", "O": "null", "T": "~", "E": "", "S": "s"}
	requireEnv(t, doc.Tasks[0].Spec.Command.Env, want)
	out, err := Export(project.Project{Name: doc.Project, Status: project.Active},
		[]task.Revision{{TaskID: "0190a4f2-0000-7000-8000-00000000000a", Spec: doc.Tasks[0].Spec.Normalize()}}, nil, catalog.Titles{})
	if err != nil {
		t.Fatal(err)
	}
	back, err := Parse("export.yaml", out)
	if err != nil {
		t.Fatalf("the export does not parse: %v\n%s", err, out)
	}
	requireEnv(t, back.Tasks[0].Spec.Command.Env, want)
	if !strings.Contains(string(out), `"N": "8080"`) {
		t.Errorf("a value YAML reads as a number should be exported quoted:\n%s", out)
	}
	_, err = Parse("x.yaml", []byte("project: e\ntasks:\n  - {name: t, script: echo, env: {L: [a, b]}}\n"))
	requireErrors(t, err, 0, place{3, 38, `task.env.L must be a value, taken as the text written (8080, true, "a,b"), or {secret: name}, not a list`})
}

func requireEnv(t *testing.T, env []task.EnvVar, want map[string]string) {
	t.Helper()
	got := map[string]string{}
	for _, e := range env {
		got[e.Name] = e.Value
	}
	if len(got) != len(want) {
		t.Fatalf("env %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("env %s = %q, want %q", k, got[k], v)
		}
	}
}
