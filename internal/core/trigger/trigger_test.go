package trigger

import (
	"strings"
	"testing"
)

const (
	projectID = "0193a8a0-0000-7000-8000-000000000001"
	triggerID = "0193a8a0-0000-7000-8000-000000000003"
	taskID    = "0193a8a0-0000-7000-8000-000000000002"
	taskDig   = "sha256:3aec053ffb3fe33a0644af6005d9116c85a1ec8cbf25d0062833010c9d7e9acb"
	nowMs     = 1_790_000_000_000
)

func spec() Spec {
	return Spec{Name: "nightly", Enabled: true, Cron: Cron{Expression: "0 3 * * *", Timezone: "Europe/Berlin", MisfirePolicy: FireOnce}}
}

func TestTriggerDigestGoldenVector(t *testing.T) {
	t.Parallel()
	const want = "sha256:8f873caf7cef6321cd4812d70acd7fb3d79298a9891f58986e433c5ff07b7588"
	if got := ContentDigest(projectID, triggerID, taskID, 1, taskDig, spec()); got != want {
		t.Fatalf("trigger digest drifted: %s", got)
	}
}

func TestRepinningToAnotherTaskRevisionChangesTheDigest(t *testing.T) {
	t.Parallel()
	a := ContentDigest(projectID, triggerID, taskID, 1, taskDig, spec())
	b := ContentDigest(projectID, triggerID, taskID, 2, taskDig, spec())
	if a == b {
		t.Fatal("task revision is not part of the trigger digest")
	}
}

func TestNewRevisionValidatesSpec(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		mutate func(*Spec)
		want   string
	}{
		"bad policy":   {func(s *Spec) { s.Cron.MisfirePolicy = "replay" }, "misfirePolicy"},
		"no timezone":  {func(s *Spec) { s.Cron.Timezone = "" }, "trigger.cron"},
		"bad cron":     {func(s *Spec) { s.Cron.Expression = "* * *" }, "trigger.cron"},
		"never fires":  {func(s *Spec) { s.Cron.Expression = "0 0 30 2 *" }, "no occurrence"},
		"bad name":     {func(s *Spec) { s.Name = "" }, "trigger.name"},
		"every macro":  {func(s *Spec) { s.Cron.Expression = "@every 5m" }, "*/5"},
		"daily macro":  {func(s *Spec) { s.Cron.Expression = "@daily" }, "0 0 * * *"},
		"local zone":   {func(s *Spec) { s.Cron.Timezone = "Local" }, "Local"},
		"unknown zone": {func(s *Spec) { s.Cron.Timezone = "Mars/Base" }, "Mars/Base"},
	}
	for name, c := range cases {
		s := spec()
		c.mutate(&s)
		_, err := NewRevision(projectID, triggerID, taskID, 1, taskDig, 0, "m", s, nowMs)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want error containing %q", name, err, c.want)
		}
	}
	rev, err := NewRevision(projectID, triggerID, taskID, 1, taskDig, 2, "m", spec(), nowMs)
	if err != nil || rev.Revision != 3 || rev.VerifyDigest() != nil {
		t.Fatalf("valid revision: %+v %v", rev, err)
	}
	if _, err := NewRevision(projectID, triggerID, taskID, 0, taskDig, 0, "m", spec(), nowMs); err == nil {
		t.Fatal("pin to task revision 0 accepted")
	}
}

// A revision without time policies keeps the digest it had before they
// existed (TestTriggerDigestGoldenVector); one with them has its own
// golden vector, and each policy changes it.
func TestTimePolicyDigestGoldenVector(t *testing.T) {
	t.Parallel()
	s := spec()
	s.Cron.JitterMs, s.Cron.StartAtMs, s.Cron.EndAtMs = 30_000, 1_790_000_000_000, 1_800_000_000_000
	s.Cron.CatchUpWindowMs, s.Cron.HasCatchUpWindow = 600_000, true
	const want = "sha256:7ec6f1df4346550f9299b0e6577a965e33dc463ae82256e8aeb649f627fc352c"
	if got := ContentDigest(projectID, triggerID, taskID, 1, taskDig, s); got != want {
		t.Fatalf("time policy digest drifted: %s", got)
	}
	for name, mutate := range map[string]func(*Cron){
		"jitter":               func(c *Cron) { c.JitterMs = 1 },
		"startAt":              func(c *Cron) { c.StartAtMs = 1 },
		"endAt":                func(c *Cron) { c.EndAtMs = 1 },
		"zero catch-up window": func(c *Cron) { c.HasCatchUpWindow = true },
	} {
		c := spec()
		mutate(&c.Cron)
		if ContentDigest(projectID, triggerID, taskID, 1, taskDig, c) == ContentDigest(projectID, triggerID, taskID, 1, taskDig, spec()) {
			t.Errorf("setting %s did not change the digest", name)
		}
	}
}

func TestTimePoliciesAreValidated(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		mutate func(*Cron)
		want   string
	}{
		"negative jitter":       {func(c *Cron) { c.JitterMs = -1 }, "jitter"},
		"jitter over an hour":   {func(c *Cron) { c.JitterMs = MaxJitterMs + 1 }, "jitter"},
		"endAt before startAt":  {func(c *Cron) { c.StartAtMs, c.EndAtMs = nowMs, nowMs }, "endAt: must be after startAt"},
		"negative startAt":      {func(c *Cron) { c.StartAtMs = -1 }, "startAt"},
		"window under skip":     {func(c *Cron) { c.MisfirePolicy, c.HasCatchUpWindow = Skip, true }, "only applies to misfire: fire_once"},
		"negative window":       {func(c *Cron) { c.HasCatchUpWindow, c.CatchUpWindowMs = true, -1 }, "catchUpWindow"},
		"window not marked set": {func(c *Cron) { c.CatchUpWindowMs = 5 }, "not marked as set"},
	}
	for name, c := range cases {
		s := spec()
		c.mutate(&s.Cron)
		if err := s.Validate(nowMs); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want error containing %q", name, err, c.want)
		}
	}
	s := spec()
	s.Cron.JitterMs, s.Cron.StartAtMs, s.Cron.EndAtMs, s.Cron.HasCatchUpWindow = MaxJitterMs, nowMs, nowMs+1, true
	if err := s.Validate(nowMs); err != nil {
		t.Fatalf("valid policies refused: %v", err)
	}
}

// The default overlap (allow) leaves the digest as it was before overlap
// existed; each other policy has its own digest and an unknown one is
// refused.
func TestOverlapPolicyDigestAndValidation(t *testing.T) {
	t.Parallel()
	base := ContentDigest(projectID, triggerID, taskID, 1, taskDig, spec())
	seen := map[string]OverlapPolicy{}
	for _, o := range []OverlapPolicy{OverlapSkip, OverlapQueueOne, OverlapCancelPrevious} {
		s := spec()
		s.Cron.Overlap = o
		d := ContentDigest(projectID, triggerID, taskID, 1, taskDig, s)
		if d == base || seen[d] != "" {
			t.Errorf("overlap %s digests like another policy", o)
		}
		seen[d] = o
		if err := s.Validate(nowMs); err != nil {
			t.Errorf("overlap %s refused: %v", o, err)
		}
	}
	s := spec()
	s.Cron.Overlap = "queue_all"
	if err := s.Validate(nowMs); err == nil || !strings.Contains(err.Error(), "trigger.cron.overlap") {
		t.Fatalf("unknown overlap accepted: %v", err)
	}
	if o, ok := ParseOverlap("allow"); !ok || o != OverlapAllow {
		t.Fatalf("allow parses as %q, %v", o, ok)
	}
}
