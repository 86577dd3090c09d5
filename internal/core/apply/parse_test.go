package apply

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/task"
	"github.com/qinglong/qinglong/internal/core/trigger"
)

const good = `project: demo
tasks:
  - name: hello
    script: echo hello
    env:
      GREETING: hi
      TOKEN: {secret: api-token}
    timeout: 30s
  - name: date
    command: ["/bin/date", "-u"]
    enabled: false
triggers:
  - name: every-10s
    task: hello
    cron: "*/10 * * * * *"
    timezone: UTC
  - name: nightly
    task: hello
    cron: "0 3 * * *"
    timezone: Europe/Berlin
    misfire: skip
`

const nowMs = 1_790_000_000_000

func TestParseReadsEveryField(t *testing.T) {
	t.Parallel()
	doc, err := Parse("demo.yaml", []byte(good))
	if err != nil {
		t.Fatal(err)
	}
	if doc.Project != "demo" || len(doc.Tasks) != 2 || len(doc.Triggers) != 2 {
		t.Fatalf("unexpected document %+v", doc)
	}
	hello := doc.Tasks[0].Spec
	if hello.Command.Mode != task.ModeShell || hello.Command.Shell != "/bin/sh" || hello.Command.TimeoutMs != 30000 {
		t.Fatalf("shell task parsed wrong: %+v", hello.Command)
	}
	if len(hello.Command.Env) != 2 || hello.Command.Env[1].SecretRef != "api-token" || hello.Command.Env[1].Value != "" {
		t.Fatalf("env parsed wrong: %+v", hello.Command.Env)
	}
	date := doc.Tasks[1].Spec
	if date.Command.Mode != task.ModeArgv || date.Command.Path != "/bin/date" || date.Command.Args[0] != "-u" || date.Enabled {
		t.Fatalf("argv task parsed wrong: %+v", date)
	}
	if doc.Triggers[0].Spec.Cron.MisfirePolicy != trigger.FireOnce || doc.Triggers[1].Spec.Cron.MisfirePolicy != trigger.Skip {
		t.Fatal("misfire default or explicit value lost")
	}
	if doc.Tasks[1].Line != 9 || doc.Triggers[1].Line != 17 {
		t.Fatalf("lines: task %d trigger %d", doc.Tasks[1].Line, doc.Triggers[1].Line)
	}
	if err := Check(doc, nowMs); err != nil {
		t.Fatal(err)
	}
}

func TestInvalidInputNamesFileLineAndField(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, yaml string
		want       []string
	}{
		{"bad yaml", "project: [demo\n", []string{"x.yaml:1:", "did not find"}},
		{"unknown top field", "project: demo\nowner: me\n", []string{"x.yaml:2:", `unknown field "owner"`}},
		{"unknown task field", "project: demo\ntasks:\n  - name: a\n    script: echo\n    retries: 3\n", []string{"x.yaml:5:", `unknown field "retries"`}},
		{"missing project", "tasks: []\n", []string{"x.yaml:1:", "project: is required"}},
		{"bad timeout", "project: demo\ntasks:\n  - name: a\n    script: echo\n    timeout: soon\n", []string{"x.yaml:5:", "task.timeout"}},
		{"timeout too long", "project: demo\ntasks:\n  - name: a\n    script: echo\n    timeout: 100000h\n", []string{"x.yaml:5:", "task.timeout: 100000h is out of range: it takes 1ms to 365d"}},
		{"jitter too long", "project: demo\ntriggers:\n  - name: t\n    task: a\n    cron: '* * * * *'\n    timezone: UTC\n    jitter: 2h\n", []string{"x.yaml:7:", "trigger.jitter: 2h is out of range: it takes 0s to 1h"}},
		{"jitter not a duration", "project: demo\ntriggers:\n  - name: t\n    task: a\n    cron: '* * * * *'\n    timezone: UTC\n    jitter: soon\n", []string{"x.yaml:7:", `trigger.jitter: "soon" is not a duration from 0s to 1h`}},
		{"kill grace too long", "project: demo\ntasks:\n  - name: a\n    script: echo\n    killGrace: 11m\n", []string{"x.yaml:5:", "task.killGrace: 11m is out of range: it takes 1ms to 10m"}},
		{"relative path", "project: demo\ntasks:\n  - name: a\n    command: [date]\n", []string{"x.yaml:4:", `task "a": task.command[0]: "date" must be an absolute`}},
		{"both modes", "project: demo\ntasks:\n  - name: a\n    script: echo\n    command: [/bin/date]\n", []string{"x.yaml:5:", "not both"}},
		{"bad shell", "project: demo\ntasks:\n  - name: a\n    shell: /bin/zsh\n    script: echo\n", []string{"x.yaml:4:", `task "a": task.shell`, "/bin/sh"}},
		{"enabled not bool", "project: demo\ntasks:\n  - name: a\n    script: echo\n    enabled: yes please\n", []string{"x.yaml:5:", "true or false"}},
		{"missing timezone", "project: demo\ntriggers:\n  - name: t\n    task: a\n    cron: '* * * * *'\n", []string{"x.yaml:3:", "trigger.timezone: is required"}},
		{"bad project name", "project: Demo Project\n", []string{"x.yaml:1:", "project.name"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			_, err := Parse("x.yaml", []byte(c.yaml))
			if err == nil {
				t.Fatal("accepted")
			}
			if !qlerror.Is(err, qlerror.Invalid) {
				t.Errorf("code %s, want invalid", qlerror.CodeOf(err))
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}

func TestCheckRejectsBadReferencesAndCron(t *testing.T) {
	t.Parallel()
	base := "project: demo\ntasks:\n  - name: a\n    script: echo\n  - name: off\n    script: echo\n    enabled: false\ntriggers:\n  - name: t\n"
	cases := []struct {
		name, trig string
		want       []string
	}{
		{"unknown task", "    task: nope\n    cron: '* * * * *'\n    timezone: UTC\n", []string{"x.yaml:9:", `"nope" is not a task`}},
		{"disabled task", "    task: off\n    cron: '* * * * *'\n    timezone: UTC\n", []string{"x.yaml:9:", "disabled"}},
		// A bad cron, timezone or misfire is reported at its own line.
		{"bad cron", "    task: a\n    cron: '61 * * * *'\n    timezone: UTC\n", []string{"x.yaml:11:", "trigger.cron"}},
		{"bad timezone", "    task: a\n    cron: '* * * * *'\n    timezone: Mars/Olympus\n", []string{"x.yaml:12:", "trigger.timezone", "Mars/Olympus"}},
		{"macro", "    task: a\n    cron: '@daily'\n    timezone: UTC\n", []string{"x.yaml:11:", "0 0 * * *"}},
		{"bad misfire", "    task: a\n    cron: '* * * * *'\n    timezone: UTC\n    misfire: replay\n", []string{"x.yaml:13:", "trigger.misfire", "skip, fire_once"}},
		{"step as wide as its field", "    task: a\n    cron: '*/90 * * * *'\n    timezone: UTC\n", []string{"x.yaml:11:", "trigger.cron", "matches only the first value"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			doc, err := Parse("x.yaml", []byte(base+c.trig))
			if err == nil {
				err = Check(doc, nowMs)
			}
			if err == nil {
				t.Fatal("accepted")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}

// A file of several YAML documents is refused at the second one's line:
// applying only the first would report success while the projects, tasks
// and triggers of the rest were never published. A leading --- and a
// trailing empty document are still one document.
func TestASecondYAMLDocumentIsRefusedNotDropped(t *testing.T) {
	t.Parallel()
	second := "project: demo\ntasks:\n  - name: a\n    script: echo\n---\n---\nproject: other\ntasks:\n  - name: b\n    script: echo\n"
	_, err := Parse("x.yaml", []byte(second))
	if err == nil {
		t.Fatal("a file with two documents was accepted")
	}
	for _, w := range []string{"x.yaml:7:", "second YAML document", "a file of its own"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q lacks %q", err, w)
		}
	}
	for _, one := range []string{"---\nproject: demo\n", "project: demo\n---\n", "project: demo\n---\n---\n"} {
		if _, err := Parse("x.yaml", []byte(one)); err != nil {
			t.Errorf("%q: %v", one, err)
		}
	}
}

func TestAYAMLSyntaxErrorNamesTheLineAtFaultNotTheBlocksFirst(t *testing.T) {
	t.Parallel()
	misindented := "project: demo\ntasks:\n  - name: a\n    script: echo hi\ntriggers:\n  - name: t\n    task: a\n" +
		"    cron: '0 * * * *'\n    timezone: UTC\n  - name: u\n    task: a\n   cron: '0 * * * *'\n    timezone: UTC\n"
	cases := []struct {
		name, yaml string
		line       int
		fix        string
	}{
		{"a key indented one space too few in a list", misindented, 12, ""},
		{"the same as the file's last line, without its newline", strings.TrimSuffix(misindented, "    timezone: UTC\n"), 12, ""},
		{"a key indented too far", "project: demo\ntasks:\n  - name: a\n     script: echo\n", 4, ""},
		{"a tab", "project: demo\ntasks:\n\t- name: a\n", 3, "YAML indents with spaces only"},
		{"a tab after spaces", "project: demo\ntasks:\n  - name: a\n  \tscript: echo\n", 4, "YAML indents with spaces only"},
		{"a flow list left open", "project: [demo\n", 1, ""},
		// The decoder names no line for these two: one on the first line,
		// and one it cannot read, wherever it is.
		{"a tab on the first line", "\tproject: demo\n", 1, "YAML indents with spaces only"},
		{"a control character", "project: demo\ntasks:\n  - name: a\n    script: \"echo \x01\"\n", 4, "(the line holds U+0001: remove the character)"},
		{"a byte that is not UTF-8", "project: demo\ntasks:\n  - name: a\n    script: echo \xff\n", 4, "(the file is not UTF-8 text: save it as UTF-8)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			_, err := Parse("x.yaml", []byte(c.yaml))
			line, _, detail, ok := Locate(err)
			if !ok {
				t.Fatalf("error %v names no line", err)
			}
			if line != c.line {
				t.Errorf("line %d (%s), want %d", line, detail, c.line)
			}
			if want := fmt.Sprintf("x.yaml:%d: ", c.line); !strings.HasPrefix(err.Error(), want) {
				t.Errorf("error %q does not start %q", err, want)
			}
			if tab := strings.Contains(err.Error(), "indented with a tab"); tab != strings.Contains(c.name, "tab") {
				t.Errorf("error %q: says the line is indented with a tab: %v", err, tab)
			}
			if c.fix != "" && !strings.Contains(err.Error(), c.fix) {
				t.Errorf("error %q does not say what to do: %q", err, c.fix)
			}
		})
	}
}

// A duration that does not read says the range the field takes and
// what a duration may be written as, in the sentence every user-given
// duration is refused with.
func TestADurationThatDoesNotReadSaysItsRangeAndWhatIsAccepted(t *testing.T) {
	t.Parallel()
	task := "project: demo\ntasks:\n  - name: a\n    script: echo\n"
	trig := "triggers:\n  - name: t\n    task: a\n    cron: '* * * * *'\n    timezone: UTC\n"
	for _, c := range []struct{ what, yaml, want, examples string }{
		{"a timeout", task + "    timeout: 5x\n", `task.timeout: "5x" is not a duration from 1ms to 365d`, "500ms, 30s, 5m, 2h, 1d or 1d12h"},
		{"a kill grace", task + "    killGrace: 1.5d\n", `task.killGrace: "1.5d" is not a duration from 1ms to 10m`, "500ms, 30s or 5m"},
		{"a retry backoff", task + "    retry: {maxAttempts: 2, backoff: 12h1d}\n", `task.retry.backoff: "12h1d" is not a duration from 0s to 24h`, "500ms, 30s, 5m, 2h or 1d"},
		{"a jitter", task + trig + "    jitter: soon\n", `trigger.jitter: "soon" is not a duration from 0s to 1h`, "500ms, 30s or 5m"},
		{"a catch-up window", task + trig + "    catchUpWindow: 2 days\n", `trigger.catchUpWindow: "2 days" is not a duration from 0s to 366d`, "500ms, 30s, 5m, 2h, 1d or 1d12h"},
	} {
		_, err := Parse("x.yaml", []byte(c.yaml))
		if err == nil || !strings.Contains(err.Error(), c.want+": write a number with a unit (ms, s, m, h or d), e.g. "+c.examples) {
			t.Errorf("%s: %v; want %q, then what is accepted", c.what, err, c.want)
		}
	}
}

// Every duration field of a file accepts whole days, alone or followed by
// Go's units, as a token's expiry and a serve flag do.
func TestEveryDurationFieldOfAFileAcceptsDays(t *testing.T) {
	t.Parallel()
	doc, err := Parse("x.yaml", []byte("project: demo\ntasks:\n  - name: a\n    script: echo\n    timeout: 1d12h\n    retry: {maxAttempts: 2, backoff: 1d}\n"+
		"triggers:\n  - name: t\n    task: a\n    cron: '* * * * *'\n    timezone: UTC\n    catchUpWindow: 2d\n"))
	if err != nil {
		t.Fatalf("a file of durations in days: %v", err)
	}
	c, r := doc.Tasks[0].Spec.Command, doc.Triggers[0].Spec.Cron
	if c.TimeoutMs != (36*time.Hour).Milliseconds() || c.Retry.BackoffMs != (24*time.Hour).Milliseconds() || r.CatchUpWindowMs != (48*time.Hour).Milliseconds() {
		t.Errorf("timeout %dms, backoff %dms, catch-up window %dms; want 1d12h, 1d and 2d", c.TimeoutMs, c.Retry.BackoffMs, r.CatchUpWindowMs)
	}
}

// A task's mistakes name the keys of the file, not the fields of the API's
// task (task.env, not task.command.env; task.command[0], not
// task.command.path), in the words and in the field a sentence in
// another language names, and each says which task it is about, whether
// it is found reading a key or checking the whole task.
func TestATasksMistakesNameTheFilesKeysAndTheTask(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		what, fields, want, field string
	}{
		{"a reserved variable", "    script: echo\n    env: {QL_FOO: x}\n", `x.yaml:5: task "a": task.env: name "QL_FOO" is reserved`, ""},
		{"a relative program", "    command: [relative/path]\n", `x.yaml:4: task "a": task.command[0]: "relative/path" must be an absolute`, "task.command[0]"},
		{"an argument with a NUL", "    command: [/bin/echo, ok, \"a\\0b\"]\n", `task "a": task.command[2]: contains a NUL byte`, "task.command[2]"},
		{"a relative working directory", "    script: echo\n    workingDir: srv\n", `task "a": task.workingDir: "srv"`, "task.workingDir"},
		{"a shell of none", "    shell: /bin/zsh\n    script: echo\n", `task "a": task.shell: "/bin/zsh" is not allowed`, "task.shell"},
		{"a secret of no name", "    script: echo\n    env: {K: {secret: \"Bad Ref\"}}\n", `task "a": task.env.K: secret reference "Bad Ref"`, "task.env.K"},
	} {
		_, err := Parse("x.yaml", []byte("project: demo\ntasks:\n  - name: a\n"+c.fields))
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "task.command.") {
			t.Errorf("%s: %v; want %q and no field of the API's task", c.what, err, c.want)
			continue
		}
		if f := qlerror.ParamsOf(err)["field"]; f != c.field {
			t.Errorf("%s: the field its sentence names is %q, want %q", c.what, f, c.field)
		}
	}
}

// Each mistake in a trigger's fields says which trigger it is about, as a
// task's do, and names the entry for a caller wording it in another
// language: whether it is found reading a key, checking the expression or
// its zone, or checking the whole trigger.
func TestATriggersMistakesNameTheTrigger(t *testing.T) {
	t.Parallel()
	const head = "project: demo\ntasks:\n  - name: a\n    script: echo\ntriggers:\n  - name: t\n    task: a\n"
	for _, c := range []struct {
		what, fields, want string
	}{
		{"a zone of none", "    cron: '0 3 * * *'\n    timezone: Mars/Olympus\n", `x.yaml:9: trigger "t": trigger.timezone: `},
		{"a minute of 61", "    cron: '61 * * * *'\n    timezone: UTC\n", `x.yaml:8: trigger "t": trigger.cron: `},
		{"no zone", "    cron: '0 3 * * *'\n", `x.yaml:6: trigger "t": trigger.timezone: is required`},
		{"a misfire of none", "    cron: '0 3 * * *'\n    timezone: UTC\n    misfire: replay\n", `x.yaml:10: trigger "t": trigger.misfire: "replay" is not one of`},
		{"a jitter too long", "    cron: '0 3 * * *'\n    timezone: UTC\n    jitter: 2h\n", `x.yaml:10: trigger "t": trigger.jitter: 2h is out of range`},
		{"an overlap of none", "    cron: '0 3 * * *'\n    timezone: UTC\n    overlap: never\n", `x.yaml:10: trigger "t": trigger.overlap: "never"`},
	} {
		_, err := Parse("x.yaml", []byte(head+c.fields))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v; want %q", c.what, err, c.want)
			continue
		}
		if list, _ := Errors(err); len(list) != 1 || list[0].About.Kind != "trigger" || list[0].About.Name != "t" || !list[0].Lead {
			t.Errorf("%s: the error names no entry: %+v", c.what, list)
		}
	}
	doc, err := Parse("x.yaml", []byte(head+"    cron: '0 0 30 2 *'\n    timezone: UTC\n"))
	if err != nil {
		t.Fatal(err)
	}
	err = Check(doc, 1_790_000_000_000)
	if list, _ := Errors(err); err == nil || !strings.Contains(err.Error(), `x.yaml:6: trigger "t": `) || len(list) != 1 || list[0].About.Kind != "trigger" || list[0].About.Name != "t" || !list[0].Lead {
		t.Errorf("a date that never comes: %v; want it at the trigger, naming it", err)
	}
}

// A task's program, shell and working directory are checked as they are
// read, so a mistake in one is reported with the task's other mistakes in
// one pass, at its own line, rather than only once those are mended.
func TestAMistakeInATasksProgramShellOrWorkingDirIsReportedBesideItsOtherMistakes(t *testing.T) {
	t.Parallel()
	doc := "project: demo\ntasks:\n" +
		"  - name: a\n    shell: /bin/zsh\n    script: echo\n    workingDir: srv\n    timeout: 0s\n" +
		"  - name: b\n    command: [date]\n    workingDir: /tmp\n    killGrace: 11m\n"
	_, err := Parse("x.yaml", []byte(doc))
	if err == nil {
		t.Fatal("a file with five mistakes parsed")
	}
	for _, want := range []string{
		`x.yaml:4:12: task "a": task.shell: "/bin/zsh" is not allowed`,
		`x.yaml:6:17: task "a": task.workingDir: "srv" must be an absolute`,
		`x.yaml:7:14: task "a": task.timeout: 0s is out of range: it takes 1ms to 365d`,
		`x.yaml:9:15: task "b": task.command[0]: "date" must be an absolute`,
		`x.yaml:11:16: task "b": task.killGrace: 11m is out of range`,
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%v\nlacks %q", err, want)
		}
	}
}

// `tasks:` or `triggers:` with nothing under it (YAML's null) is read as
// the key left out, a project with none, not as a list of the wrong shape;
// a value that is there and not a list is still refused.
func TestAnEmptyTasksOrTriggersKeyReadsAsNone(t *testing.T) {
	t.Parallel()
	doc, err := Parse("x.yaml", []byte("project: demo\ntasks:\ntriggers: ~\n"))
	if err != nil || doc.Project != "demo" || len(doc.Tasks) != 0 || len(doc.Triggers) != 0 {
		t.Fatalf("empty tasks and triggers: %+v, %v; want project demo with none", doc, err)
	}
	if _, err := Parse("x.yaml", []byte("project: demo\ntasks: none\n")); err == nil || !strings.Contains(err.Error(), "x.yaml:2: tasks must be a list") {
		t.Fatalf("tasks: none: %v; want it refused as not a list", err)
	}
}
