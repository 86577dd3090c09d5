package subscription

import (
	"maps"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/crontab"
	"github.com/qinglong/qinglong/internal/core/task"
)

// A task labelled a subscription by hand is edited on the Subscriptions
// page as any subscription: the pull script replaces what it ran, its
// command (a program and its arguments) or its script (whose shell
// stays), and the task keeps its id, title, other labels, other env,
// timeout and its other triggers, its trigger of its name taking the
// form's schedule.
func TestEditingAHandLabelledTaskAsASubscriptionGivesItThePullScriptAndKeepsTheRest(t *testing.T) {
	t.Parallel()
	st, svc := newStore(t)
	applyText(t, svc, []byte(`project: jd
tasks:
  - name: repo-o-a
    title: Pull of a
    command: [/usr/bin/git, -C, /srv/scripts/o_a, pull]
    labels: {subscription/url: "https://example.com/o/a.git", team: ops}
    env: {HTTPS_PROXY: "http://proxy:3128"}
    timeout: 2h
  - name: repo-o-b
    title: Pull of b
    shell: /bin/bash
    script: "git -C /srv/scripts/o_b pull\n"
    labels: {subscription/url: "https://example.com/o/b.git", team: ops}
    env: {HTTPS_PROXY: "http://proxy:3128"}
    timeout: 2h
triggers:
  - {name: repo-o-a, task: repo-o-a, cron: "0 * * * *", timezone: UTC, misfire: fire_once}
  - {name: nightly-a, task: repo-o-a, cron: "0 3 * * *", timezone: UTC, misfire: skip}
  - {name: repo-o-b, task: repo-o-b, cron: "0 * * * *", timezone: UTC, misfire: fire_once}
  - {name: nightly-b, task: repo-o-b, cron: "0 3 * * *", timezone: UTC, misfire: skip}
`))
	for name, shell := range map[string]string{"repo-o-a": "/bin/sh", "repo-o-b": "/bin/bash"} {
		before, _ := taskOf(t, st, "jd", name)
		u := "https://example.com/o/" + strings.TrimPrefix(name, "repo-o-") + ".git"
		f := Form{URL: u, Match: "jd_", Cron: "6 * * * *", Timezone: "Asia/Shanghai", Enabled: true}
		pull, _, errs := Save(t.Context(), st, svc, f, name, "admin")
		if len(errs) != 0 {
			t.Errorf("edit %s: %v; want it published", name, errs)
			continue
		}
		after, d := taskOf(t, st, "jd", name)
		c := after.Spec.Command
		if after.TaskID != before.TaskID || c.Mode != task.ModeShell || c.Script != pull.Script || c.Path != "" || len(c.Args) != 0 || c.Shell != shell {
			t.Errorf("%s edited: task %s (was %s), %s %q %q shell %q; want the same task running the pull script, shell %q",
				name, after.TaskID, before.TaskID, c.Mode, c.Path, c.Script, c.Shell, shell)
		}
		wantLabels := map[string]string{LabelURL: u, LabelMatch: "jd_", "team": "ops"}
		if !maps.Equal(after.Spec.Labels, wantLabels) || d.Titles.Tasks[name] != "Pull of "+name[len(name)-1:] ||
			len(c.Env) != 1 || c.Env[0].Name != "HTTPS_PROXY" || c.TimeoutMs != 7_200_000 {
			t.Errorf("%s edited: labels %v, title %q, env %+v, timeout %dms; want labels %v and the rest as it was",
				name, after.Spec.Labels, d.Titles.Tasks[name], c.Env, c.TimeoutMs, wantLabels)
		}
		crons := map[string]string{}
		for _, tr := range d.Triggers {
			if tr.TaskID == after.TaskID {
				crons[tr.Spec.Name] = tr.Spec.Cron.Expression + " " + tr.Spec.Cron.Timezone
			}
		}
		nightly := "nightly-" + name[len(name)-1:]
		if want := map[string]string{name: "6 * * * * Asia/Shanghai", nightly: "0 3 * * * UTC"}; !maps.Equal(crons, want) {
			t.Errorf("%s edited: its triggers %v; want %v", name, crons, want)
		}
	}
}

// A credential variable the user pointed at a secret by hand
// ({secret: NAME}) is kept, with the other, by an edit whose URL is sent
// without credentials, whether the stored URL carries some (the form
// shows it without them, and sent as shown keeps them) or none; an edit
// whose URL is typed with credentials replaces them.
func TestAnEditKeepsACredentialSetFromASecretUntilAURLWithCredentialsReplacesIt(t *testing.T) {
	t.Parallel()
	st, svc := newStore(t)
	const stored, typed = "ghp_STORED7", "ghp_TYPED8"
	pull, _ := crontab.PullOf("https://example.com/o/r.git", "")
	for _, name := range []string{"repo-o-r", "repo-o-s"} {
		label := "https://example.com/o/" + name[len(name)-1:] + ".git"
		if name == "repo-o-r" {
			label = "https://bot:" + stored + "@example.com/o/r.git"
		}
		applyText(t, svc, []byte("project: jd\ntasks:\n  - name: "+name+"\n    script: "+quoteYAML(pull.Script)+"\n"+
			"    labels: {subscription/url: \""+label+"\"}\n"+
			"    env: {"+crontab.CredentialUserVariable+": bot, "+crontab.CredentialPasswordVariable+": {secret: GH_TOKEN}, HTTPS_PROXY: \"http://proxy:3128\"}\n"))
	}
	want := map[string]string{crontab.CredentialUserVariable: "bot", crontab.CredentialPasswordVariable: "secret GH_TOKEN", "HTTPS_PROXY": "http://proxy:3128"}
	for _, name := range []string{"repo-o-r", "repo-o-s"} {
		f := Form{URL: "https://example.com/o/" + name[len(name)-1:] + ".git", Cron: "6 * * * *", Timezone: "UTC", Enabled: true}
		if _, _, errs := Save(t.Context(), st, svc, f, name, "admin"); len(errs) != 0 {
			t.Fatalf("edit %s: %v", name, errs)
		}
		tk, _ := taskOf(t, st, "jd", name)
		if got := envOf(tk); !maps.Equal(got, want) {
			t.Errorf("%s edited with its URL sent without credentials: env %v; want the secret kept, %v", name, got, want)
		}
	}
	f := Form{URL: "https://bot:" + typed + "@example.com/o/r.git", Cron: "6 * * * *", Timezone: "UTC", Enabled: true}
	if _, _, errs := Save(t.Context(), st, svc, f, "repo-o-r", "admin"); len(errs) != 0 {
		t.Fatal(errs)
	}
	tk, _ := taskOf(t, st, "jd", "repo-o-r")
	want[crontab.CredentialPasswordVariable] = typed
	if got := envOf(tk); !maps.Equal(got, want) || strings.Contains(tk.Spec.Command.Script, typed) {
		t.Errorf("edited with credentials typed into its URL: env %v, script %q; want %v, the token out of the script", got, tk.Spec.Command.Script, want)
	}
}

// envOf is t's env by name, a secret's value written "secret NAME".
func envOf(t task.Revision) map[string]string {
	out := map[string]string{}
	for _, v := range t.Spec.Command.Env {
		out[v.Name] = v.Value
		if v.SecretRef != "" {
			out[v.Name] = "secret " + v.SecretRef
		}
	}
	return out
}

// quoteYAML is s as a YAML double-quoted scalar.
func quoteYAML(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`)
	return `"` + r.Replace(s) + `"`
}

// Credentials the user gave a subscription's task from a secret are set
// for the scheme, host and port of its URL, to which alone the pull's
// credential helper gives them: an edit whose URL, sent without
// credentials, leads to another host, port or scheme removes them from
// the task's env (it pulls without any there) and says so, never naming
// the token; one to the same host, its name's case aside, keeps them.
func TestAnEditToAnotherHostDoesNotCarryASecretCredentialThere(t *testing.T) {
	t.Parallel()
	st, svc := newStore(t)
	pull, _ := crontab.PullOf("https://bot@example.com/o/r.git", "")
	edits := map[string]string{
		"repo-o-h": "https://git.example.org/o/h.git",
		"repo-o-p": "https://example.com:8443/o/p.git",
		"repo-o-s": "http://example.com/o/s.git",
		"repo-o-k": "https://EXAMPLE.com/o/k.git",
	}
	for name := range edits {
		applyText(t, svc, []byte("project: jd\ntasks:\n  - name: "+name+"\n    script: "+quoteYAML(pull.Script)+"\n"+
			"    labels: {subscription/url: \"https://bot@example.com/o/"+name[len(name)-1:]+".git\"}\n"+
			"    env: {"+crontab.CredentialUserVariable+": bot, "+crontab.CredentialPasswordVariable+": {secret: GH_TOKEN}, HTTPS_PROXY: \"http://proxy:3128\"}\n"))
	}
	for name, u := range edits {
		f := Form{URL: u, Cron: "6 * * * *", Timezone: "UTC", Enabled: true}
		saved, _, errs := Save(t.Context(), st, svc, f, name, "admin")
		if len(errs) != 0 {
			t.Errorf("edit %s to %s: %v; want it published", name, u, errs)
			continue
		}
		tk, _ := taskOf(t, st, "jd", name)
		got := envOf(tk)
		want := map[string]string{"HTTPS_PROXY": "http://proxy:3128"}
		if name == "repo-o-k" {
			want[crontab.CredentialUserVariable], want[crontab.CredentialPasswordVariable] = "bot", "secret GH_TOKEN"
		}
		if !maps.Equal(got, want) || saved.SecretCredentialsDropped != (name != "repo-o-k") {
			t.Errorf("%s edited to %s: env %v, said dropped %t; want env %v, said dropped %t", name, u, got, saved.SecretCredentialsDropped, want, name != "repo-o-k")
		}
	}
}

// A same-host edit whose URL is typed without the user the stored one
// carries (https://example.com/o/r where https://bot@example.com/o/r.git
// was stored, the password given from a secret) keeps the secret's
// variables and the stored user in its URL, which keeps naming whom they
// sign in as, its pull script giving git the credential helper reading
// them. The stored URL's password is not carried, the secret giving it.
func TestASameHostEditWithoutTheUserKeepsItSoGitReadsTheSecretCredentials(t *testing.T) {
	t.Parallel()
	st, svc := newStore(t)
	const token = "ghp_LABEL9"
	for name, label := range map[string]string{"repo-o-r": "https://bot@example.com/o/r.git", "repo-o-t": "https://bot:" + token + "@example.com/o/t.git"} {
		had, _ := crontab.PullOf(label, "")
		applyText(t, svc, []byte("project: jd\ntasks:\n  - name: "+name+"\n    script: "+quoteYAML(had.Script)+"\n"+
			"    labels: {subscription/url: \""+label+"\"}\n"+
			"    env: {"+crontab.CredentialUserVariable+": bot, "+crontab.CredentialPasswordVariable+": {secret: GH_TOKEN}}\n"))
	}
	want := map[string]string{crontab.CredentialUserVariable: "bot", crontab.CredentialPasswordVariable: "secret GH_TOKEN"}
	for name, typed := range map[string]string{"repo-o-r": "https://example.com/o/r", "repo-o-t": "https://EXAMPLE.com/o/t"} {
		saved, _, errs := Save(t.Context(), st, svc, Form{URL: typed, Cron: "6 * * * *", Timezone: "UTC", Enabled: true}, name, "admin")
		if len(errs) != 0 {
			t.Fatalf("edit %s to %s: %v", name, typed, errs)
		}
		withUser := strings.Replace(typed, "https://", "https://bot@", 1)
		pull, _ := crontab.PullOf(withUser, "")
		tk, _ := taskOf(t, st, "jd", name)
		if got := envOf(tk); !maps.Equal(got, want) || saved.SecretCredentialsDropped || tk.Spec.Labels[LabelURL] != withUser ||
			tk.Spec.Command.Script != pull.Script || !strings.Contains(strings.ToLower(pull.Script), "credential.https://example.com.helper=") {
			t.Errorf("%s edited to %s: env %v, dropped %t, url %q, script %q; want env %v kept, the url %s and its script giving git the credential helper",
				name, typed, got, saved.SecretCredentialsDropped, tk.Spec.Labels[LabelURL], tk.Spec.Command.Script, want, withUser)
		}
	}
}
