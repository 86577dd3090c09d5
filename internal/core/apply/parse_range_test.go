package apply

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/task"
	"github.com/qinglong/qinglong/internal/core/trigger"
	"github.com/qinglong/qinglong/internal/core/validate"
)

// TestARangeRefusalSaysOutOfRangeInOneForm: a duration that reads but lies
// outside its field's range, too short or too long, is refused in one
// sentence, "X is out of range: it takes FROM to TO", never as "not a
// duration" (0s is one), while what does not read as one still is.
func TestARangeRefusalSaysOutOfRangeInOneForm(t *testing.T) {
	t.Parallel()
	const task = "project: demo\ntasks:\n  - name: a\n    script: echo\n"
	const trig = "triggers:\n  - name: t\n    task: a\n    cron: '* * * * *'\n    timezone: UTC\n"
	for _, c := range []struct {
		what, doc, want string
	}{
		{"a kill grace of 0s", task + "    killGrace: 0s\n", `task.killGrace: 0s is out of range: it takes 1ms to 10m`},
		{"a negative kill grace", task + "    killGrace: -1s\n", `task.killGrace: -1s is out of range: it takes 1ms to 10m`},
		{"a timeout of 0s", task + "    timeout: 0s\n", `task.timeout: 0s is out of range: it takes 1ms to 365d`},
		{"a timeout too long", task + "    timeout: 9999h\n", `task.timeout: 9999h is out of range: it takes 1ms to 365d`},
		{"a backoff too long", task + "    retry: {maxAttempts: 2, backoff: 25h}\n", `task.retry.backoff: 25h is out of range: it takes 0s to 24h`},
		{"a catch-up window too long", task + trig + "    catchUpWindow: 8785h\n", `trigger.catchUpWindow: 8785h is out of range: it takes 0s to 366d`},
		{"a jitter too long", task + trig + "    jitter: 2h\n", `trigger.jitter: 2h is out of range: it takes 0s to 1h`},
		{"a timeout that is no duration", task + "    timeout: soon\n", `task.timeout: "soon" is not a duration from 1ms to 365d`},
	} {
		_, err := Parse("x.yaml", []byte(c.doc))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v; want %q", c.what, err, c.want)
		}
	}
}

// TestAMissingZoneSaysWhatToGive: a trigger without a timezone is asked
// for one in the words `cron next` asks for its --tz, with an example.
func TestAMissingZoneSaysWhatToGive(t *testing.T) {
	t.Parallel()
	_, err := Parse("x.yaml", []byte("project: demo\ntriggers:\n  - name: t\n    task: a\n    cron: '* * * * *'\n"))
	want := "trigger.timezone: is required: give an IANA zone such as UTC or Europe/Berlin (the host zone is never implied)"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("%v; want %q", err, want)
	}
}

// A definition that reaches the spec checks without `ql apply`'s parser
// (the API's apply route, the console's forms) is refused for a duration
// out of its range in the one form the parser refuses it with, the same
// range spelt the same way, with the same reason and fields.
func TestTheSpecChecksRefuseADurationOutOfRangeAsApplyDoes(t *testing.T) {
	t.Parallel()
	command := task.Command{Mode: task.ModeShell, Shell: "/bin/sh", Script: "echo", TimeoutMs: time.Minute.Milliseconds()}
	withCommand := func(edit func(*task.Command)) error {
		c := command
		edit(&c)
		return task.Spec{Name: "a", Command: c}.Validate()
	}
	cron := trigger.Cron{Expression: "* * * * *", Timezone: "UTC", MisfirePolicy: trigger.FireOnce, Overlap: trigger.OverlapAllow}
	withCron := func(edit func(*trigger.Cron)) error {
		c := cron
		edit(&c)
		return trigger.Spec{Name: "t", Cron: c}.Validate(0)
	}
	for _, c := range []struct {
		err                        error
		want, field, value, lo, hi string
	}{
		{withCommand(func(c *task.Command) { c.TimeoutMs = 9999 * time.Hour.Milliseconds() }),
			`task.command.timeout: 9999h is out of range: it takes 1ms to 365d`, "task.command.timeout", "9999h", "1ms", "365d"},
		{withCommand(func(c *task.Command) { c.KillGraceMs = -1000 }),
			`task.command.killGrace: -1s is out of range: it takes 1ms to 10m`, "task.command.killGrace", "-1s", "1ms", "10m"},
		{withCommand(func(c *task.Command) {
			c.Retry = task.RetryPolicy{MaxAttempts: 2, BackoffMs: 25 * time.Hour.Milliseconds(), On: []string{task.RetryOnLost}}
		}), `task.command.retry.backoff: 25h is out of range: it takes 0s to 24h`, "task.command.retry.backoff", "25h", "0s", "24h"},
		{withCron(func(c *trigger.Cron) { c.JitterMs = 2 * time.Hour.Milliseconds() }),
			`trigger.cron.jitter: 2h is out of range: it takes 0s to 1h`, "trigger.cron.jitter", "2h", "0s", "1h"},
		{withCron(func(c *trigger.Cron) { c.HasCatchUpWindow, c.CatchUpWindowMs = true, 8785*time.Hour.Milliseconds() }),
			`trigger.cron.catchUpWindow: 8785h is out of range: it takes 0s to 366d`, "trigger.cron.catchUpWindow", "8785h", "0s", "366d"},
	} {
		var e *qlerror.Error
		if !errors.As(c.err, &e) || e.Error() != c.want || e.Reason != validate.RefusalNotDuration ||
			e.Params["field"] != c.field || e.Params["value"] != c.value || e.Params["min"] != c.lo || e.Params["max"] != c.hi {
			t.Errorf("%v (%+v); want %q, refused as not a duration from %s to %s", c.err, e, c.want, c.lo, c.hi)
		}
	}
}
