package subscription

import (
	"reflect"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/apply"
	"github.com/qinglong/qinglong/internal/core/crontab"
)

// Ending a subscription leaves its task's command and env as they were,
// so that enabled again by hand it pulls what it pulled: one stored with
// a format character in its branch (which the form now refuses, so its
// labels would write a script pulling the default branch into o_r), one
// whose script was edited as a task's, and a task labelled by hand whose
// command is a program and its arguments, each keeps its own.
func TestEndingASubscriptionKeepsTheScriptItPulledWith(t *testing.T) {
	t.Parallel()
	st, svc := newStore(t)
	const url, branch = "https://bot:ghp_END1@example.com/o/r.git", "ma\u200bin"
	pull, why := crontab.PullOf(url, branch)
	if why != "" {
		t.Fatal(why)
	}
	for _, e := range []apply.PullEntry{
		{Name: pull.Name, Script: pull.Script, Env: pull.Env, Labels: crontab.SubscriptionLabels(url, branch, "", "")},
		{Name: "repo-o-s", Script: "git -C \"$QL_SCRIPTS_DIR\"/o_s pull --ff-only\n", Labels: crontab.SubscriptionLabels("https://example.com/o/s.git", "", "", "")},
	} {
		e.Project, e.LabelPrefix, e.Enabled, e.Cron, e.Timezone = "jd", LabelPrefix, true, "6 * * * *", "UTC"
		text, err := apply.NewPullFile(t.Context(), st, e)
		if err != nil {
			t.Fatal(err)
		}
		applyText(t, svc, text)
	}
	applyText(t, svc, []byte("project: jd\ntasks:\n  - name: repo-o-t\n    command: [/usr/bin/git, -C, /srv/scripts/o_t, pull]\n"+
		"    labels: {subscription/url: \"https://example.com/o/t.git\"}\n"))
	subs, err := List(t.Context(), st)
	if err != nil || len(subs) != 3 {
		t.Fatalf("the subscriptions: %+v, %v; want the three", subs, err)
	}
	for _, sub := range subs {
		before, _ := taskOf(t, st, "jd", sub.Name)
		if err := End(t.Context(), st, svc, sub, "admin"); err != nil {
			t.Fatalf("end %s: %v", sub.Name, err)
		}
		after, d := taskOf(t, st, "jd", sub.Name)
		if !reflect.DeepEqual(after.Spec.Command, before.Spec.Command) {
			t.Errorf("%s ended: command %q %q; want its own, %q %q, its env as it was", sub.Name, after.Spec.Command.Script, after.Spec.Command.Args,
				before.Spec.Command.Script, before.Spec.Command.Args)
		}
		if _, listed := Named(Of(d), sub.Name); after.Spec.Enabled || listed {
			t.Errorf("%s ended: enabled %v, listed %v; want it disabled and no subscription", sub.Name, after.Spec.Enabled, listed)
		}
	}
	if got, _ := taskOf(t, st, "jd", pull.Name); !strings.Contains(got.Spec.Command.Script, "o_r_"+branch) {
		t.Errorf("the ended task of branch %q pulls with:\n%s\nwant its own folder o_r_%s", branch, got.Spec.Command.Script, branch)
	}
}
