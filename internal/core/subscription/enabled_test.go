package subscription

import (
	"maps"
	"testing"

	"github.com/qinglong/qinglong/internal/single/sqlitestore"
)

// enabledStates are the enabled state of each task and trigger of
// project p, by "task NAME" and "trigger NAME".
func enabledStates(t *testing.T, st *sqlitestore.Store, p string) map[string]bool {
	t.Helper()
	d, err := st.ProjectDefinitions(t.Context(), p, 100)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for _, tk := range d.Tasks {
		out["task "+tk.Spec.Name] = tk.Spec.Enabled
	}
	for _, tr := range d.Triggers {
		out["trigger "+tr.Spec.Name] = tr.Spec.Enabled
	}
	return out
}

// A subscription pulled by a trigger of another name than its own (a
// task labelled by hand), or by one of several triggers while its
// trigger of its own name is disabled, reads as enabled, as it runs; an
// edit that asks for no change of that state (its match changed, as
// `ql subscriptions edit NAME --match` and the Edit form sent as shown
// do) leaves the task and each trigger enabled or disabled as it was,
// still pulling.
func TestAnEditLeavesASubscriptionWhoseTriggerHasAnotherNameEnabled(t *testing.T) {
	t.Parallel()
	st, svc := newStore(t)
	applyText(t, svc, []byte(`project: jd
tasks:
  - name: repo-o-a
    script: "git -C /srv/scripts/o_a pull\n"
    labels: {subscription/url: "https://example.com/o/a.git"}
  - name: repo-o-b
    script: "git -C /srv/scripts/o_b pull\n"
    labels: {subscription/url: "https://example.com/o/b.git"}
triggers:
  - {name: pull-a-hourly, task: repo-o-a, cron: "0 * * * *", timezone: UTC, misfire: skip}
  - {name: repo-o-b, task: repo-o-b, cron: "0 * * * *", timezone: UTC, misfire: fire_once, enabled: false}
  - {name: nightly-b, task: repo-o-b, cron: "0 3 * * *", timezone: UTC, misfire: skip}
`))
	before := enabledStates(t, st, "jd")
	subs, err := List(t.Context(), st)
	if err != nil || len(subs) != 2 {
		t.Fatalf("the subscriptions: %+v, %v; want the two", subs, err)
	}
	for _, sub := range subs {
		if !sub.Enabled {
			t.Errorf("%s reads as disabled, though a trigger of its enabled task fires it", sub.Name)
		}
		f := Form{URL: Redacted(sub.URL), Branch: sub.Branch, Match: "jd_", Exclude: sub.Exclude, Cron: sub.Cron, Timezone: sub.Timezone, Enabled: sub.Enabled}
		if _, _, errs := Save(t.Context(), st, svc, f, sub.Name, "admin"); len(errs) != 0 {
			t.Fatalf("edit %s: %v", sub.Name, errs)
		}
	}
	if after := enabledStates(t, st, "jd"); !maps.Equal(after, before) {
		t.Errorf("after the edits the enabled states are %v; want them as they were, %v", after, before)
	}
	subs, _ = List(t.Context(), st)
	for _, sub := range subs {
		if !sub.Enabled || sub.Match != "jd_" {
			t.Errorf("%s edited: enabled %t, match %q; want it enabled, its match jd_", sub.Name, sub.Enabled, sub.Match)
		}
	}
}

// Enabling a subscription whose task is fired by triggers of other
// names only, all disabled, enables the task and those triggers, so that
// it pulls and reads as enabled; disabling it disables its task, so that
// none fires it.
func TestEnablingASubscriptionWithoutATriggerOfItsNameEnablesTheTriggersFiringIt(t *testing.T) {
	t.Parallel()
	st, svc := newStore(t)
	applyText(t, svc, []byte(`project: jd
tasks:
  - name: repo-o-a
    script: "git -C /srv/scripts/o_a pull\n"
    labels: {subscription/url: "https://example.com/o/a.git"}
    enabled: false
triggers:
  - {name: pull-a-hourly, task: repo-o-a, cron: "0 * * * *", timezone: UTC, misfire: skip, enabled: false}
  - {name: pull-a-nightly, task: repo-o-a, cron: "0 3 * * *", timezone: UTC, misfire: skip, enabled: false}
`))
	sub, err := Find(t.Context(), st, "repo-o-a")
	if err != nil || sub.Enabled {
		t.Fatalf("the subscription: %+v, %v; want it read as disabled", sub, err)
	}
	for _, enabled := range []bool{true, false} {
		f := Form{URL: Redacted(sub.URL), Enabled: enabled}
		if _, _, errs := Save(t.Context(), st, svc, f, sub.Name, "admin"); len(errs) != 0 {
			t.Fatalf("save enabled %t: %v", enabled, errs)
		}
		want := map[string]bool{"task repo-o-a": enabled, "trigger pull-a-hourly": true, "trigger pull-a-nightly": true}
		if got := enabledStates(t, st, "jd"); !maps.Equal(got, want) {
			t.Errorf("saved enabled %t: the states %v; want %v", enabled, got, want)
		}
		if sub, _ = Find(t.Context(), st, "repo-o-a"); sub.Enabled != enabled {
			t.Errorf("saved enabled %t: it reads as enabled %t", enabled, sub.Enabled)
		}
	}
}

// A subscription whose task alone was disabled (its trigger of its name
// left enabled, as disabling the task on the definitions page leaves it)
// takes an edit of its schedule that asks for no change of its state:
// the task stays disabled and the edit is published, its trigger written
// disabled as a definitions file must write a disabled task's, which
// fires nothing either way.
func TestAnEditOfASubscriptionWhoseTaskAloneIsDisabledIsPublished(t *testing.T) {
	t.Parallel()
	st, svc := newStore(t)
	applyText(t, svc, []byte(`project: jd
tasks:
  - name: repo-o-a
    script: "git -C /srv/scripts/o_a pull\n"
    labels: {subscription/url: "https://example.com/o/a.git"}
triggers:
  - {name: repo-o-a, task: repo-o-a, cron: "0 * * * *", timezone: UTC, misfire: fire_once}
`))
	applyText(t, svc, []byte(`project: jd
tasks:
  - name: repo-o-a
    script: "git -C /srv/scripts/o_a pull\n"
    labels: {subscription/url: "https://example.com/o/a.git"}
    enabled: false
`))
	sub, err := Find(t.Context(), st, "repo-o-a")
	if err != nil || sub.Enabled {
		t.Fatalf("the subscription: %+v, %v; want it read as disabled", sub, err)
	}
	f := Form{URL: Redacted(sub.URL), Cron: "30 * * * *", Timezone: sub.Timezone, Enabled: sub.Enabled}
	if _, _, errs := Save(t.Context(), st, svc, f, sub.Name, "admin"); len(errs) != 0 {
		t.Fatalf("edit of its schedule: %v; want it published", errs)
	}
	if sub, _ = Find(t.Context(), st, "repo-o-a"); sub.Enabled || sub.Cron != "30 * * * *" {
		t.Errorf("edited: enabled %t, cron %q; want it disabled, its cron 30 * * * *", sub.Enabled, sub.Cron)
	}
}
