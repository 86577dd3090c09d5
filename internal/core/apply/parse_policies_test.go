package apply

import (
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/trigger"
)

const policyBase = "project: demo\ntasks:\n  - name: a\n    script: echo\ntriggers:\n  - name: t\n    task: a\n    cron: \"0 * * * *\"\n    timezone: UTC\n"

func TestParseReadsTriggerTimePolicies(t *testing.T) {
	t.Parallel()
	doc, err := Parse("x.yaml", []byte(policyBase+`    jitter: 30s
    startAt: 2026-12-01T00:00:00Z
    endAt: "2027-01-01T00:00:00+01:00"
    catchUpWindow: 10m
`))
	if err != nil {
		t.Fatal(err)
	}
	got := doc.Triggers[0].Spec.Cron
	want := trigger.Cron{Expression: "0 * * * *", Timezone: "UTC", MisfirePolicy: trigger.FireOnce, JitterMs: 30_000,
		StartAtMs: 1_796_083_200_000, EndAtMs: 1_798_758_000_000, CatchUpWindowMs: 600_000, HasCatchUpWindow: true}
	if got != want {
		t.Fatalf("read %+v, want %+v", got, want)
	}
	plain, err := Parse("x.yaml", []byte(policyBase))
	if err != nil {
		t.Fatal(err)
	}
	if c := plain.Triggers[0].Spec.Cron; c.JitterMs != 0 || c.StartAtMs != 0 || c.EndAtMs != 0 || c.HasCatchUpWindow {
		t.Fatalf("a trigger without policies reads as %+v", c)
	}
	zero, err := Parse("x.yaml", []byte(policyBase+"    catchUpWindow: 0s\n"))
	if err != nil || !zero.Triggers[0].Spec.Cron.HasCatchUpWindow || zero.Triggers[0].Spec.Cron.CatchUpWindowMs != 0 {
		t.Fatalf("catchUpWindow: 0s reads as %+v (%v); want a set, zero window", zero, err)
	}
}

func TestInvalidTimePoliciesNameFileLineAndField(t *testing.T) {
	t.Parallel()
	cases := map[string]struct{ yaml, want string }{
		"jitter not a duration": {"    jitter: soon\n", `x.yaml:10: trigger "t": trigger.jitter: "soon" is not a duration`},
		"jitter negative":       {"    jitter: -1s\n", "-1s is out of range: it takes 0s to 1h"},
		"jitter too long":       {"    jitter: 61m\n", "x.yaml:10: trigger \"t\": trigger.jitter"},
		"startAt not RFC 3339":  {"    startAt: tomorrow\n", `x.yaml:10: trigger "t": trigger.startAt: "tomorrow" is not an RFC 3339 instant`},
		"endAt before 1970":     {"    endAt: 1969-12-31T00:00:00Z\n", "x.yaml:10: trigger \"t\": trigger.endAt"},
		"endAt not after start": {"    startAt: 2026-12-01T00:00:00Z\n    endAt: 2026-12-01T00:00:00Z\n", "x.yaml:11: trigger \"t\": trigger.endAt: must be after startAt"},
		"window under skip":     {"    misfire: skip\n    catchUpWindow: 10m\n", "x.yaml:11: trigger \"t\": trigger.catchUpWindow: only applies to misfire: fire_once"},
		"window negative":       {"    catchUpWindow: -1m\n", "x.yaml:10: trigger \"t\": trigger.catchUpWindow"},
		"window a number":       {"    catchUpWindow: [10]\n", "trigger.catchUpWindow must be a string"},
	}
	for name, c := range cases {
		_, err := Parse("x.yaml", []byte(policyBase+c.yaml))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want an error containing %q", name, err, c.want)
		}
	}
}

func TestParseReadsOverlapPolicy(t *testing.T) {
	t.Parallel()
	for yamlValue, want := range map[string]trigger.OverlapPolicy{
		"allow": trigger.OverlapAllow, "skip": trigger.OverlapSkip, "queue_one": trigger.OverlapQueueOne,
		"cancel_previous": trigger.OverlapCancelPrevious,
	} {
		doc, err := Parse("x.yaml", []byte(policyBase+"    overlap: "+yamlValue+"\n"))
		if err != nil {
			t.Fatalf("overlap: %s: %v", yamlValue, err)
		}
		if got := doc.Triggers[0].Spec.Cron.Overlap; got != want {
			t.Errorf("overlap: %s reads as %q, want %q", yamlValue, got, want)
		}
	}
	for value, want := range map[string]string{
		"never": `x.yaml:10: trigger "t": trigger.overlap: "never" is not one of allow, skip, queue_one, cancel_previous`,
		`""`:    `x.yaml:10: trigger "t": trigger.overlap: "" is not one of`,
		"[1]":   "trigger.overlap must be a string",
	} {
		if _, err := Parse("x.yaml", []byte(policyBase+"    overlap: "+value+"\n")); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("overlap: %s: got %v, want an error containing %q", value, err, want)
		}
	}
}
