package apply

import (
	"strings"
	"testing"
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
