package singlecli

import (
	"encoding/json"
	"os/user"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/audit"
)

// auditTrail is dir's trail as `ql audit list -o json` prints it, each
// record "action actor object project note", newest first.
func auditTrail(t *testing.T, dir string, args ...string) []string {
	t.Helper()
	code, out, errOut := ql(t, append([]string{"audit", "list", "-o", "json", "--data-dir", dir}, args...)...)
	var page audit.Page
	if code != 0 || json.Unmarshal([]byte(out), &page) != nil {
		t.Fatalf("audit list -o json: %d %q %q", code, out, errOut)
	}
	var got []string
	for _, r := range page.Records {
		got = append(got, strings.Join([]string{string(r.Action), r.Actor, r.ObjectName, r.Project, r.Note}, " "))
	}
	return got
}

// osUser is the operating-system user the commands record.
func osUser(t *testing.T) string {
	t.Helper()
	me, err := user.Current()
	if err != nil {
		t.Fatal(err)
	}
	return me.Username
}

// `ql apply` of a file that archives its project, then of one that makes
// it active again, records each as the operating-system user who ran it;
// `ql projects delete` records the deletion with what it removed, and the
// project's records stay.
func TestApplyThatArchivesOrActivatesAndProjectsDeleteAreRecordedAsTheOSUser(t *testing.T) {
	t.Parallel()
	dir := installedDir(t)
	applyDefs(t, dir, quietFile)
	applyDefs(t, dir, "project: api\nstatus: archived\n")
	applyDefs(t, dir, "project: api\nstatus: active\n")
	applyDefs(t, dir, "project: api\nstatus: archived\n")
	code, out, errOut := ql(t, "projects", "delete", "api", "--yes", "--data-dir", dir)
	if code != 0 {
		t.Fatalf("projects delete: %d %q %q", code, out, errOut)
	}
	me := osUser(t)
	want := []string{
		"project.deleted " + me + " api api 1 task, 1 trigger, 0 Runs, 0 attempts, 0 events, 0 logs (0 bytes), 0 ledger entries, 0 pause records, 0 notifications",
		"project.archived " + me + " api api status active → archived",
		"project.activated " + me + " api api status archived → active",
		"project.archived " + me + " api api status active → archived",
	}
	if got := auditTrail(t, dir); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("audit list:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// `ql secrets set` and `delete` on the data directory's file record who
// set and deleted the secret, by name only; a file named alone
// (--secrets-file) is none of the server's, and records nothing.
func TestSecretsSetAndDeleteOnTheDataDirectoryAreRecordedAsTheOSUserByName(t *testing.T) {
	t.Parallel()
	dir := installedDir(t)
	const value = "secret-value-Hn4"
	for _, args := range [][]string{
		{"secrets", "set", "alpha/api_token", "--data-dir", dir},
		{"secrets", "set", "alpha/api_token", "--data-dir", dir},
		{"secrets", "delete", "alpha/api_token", "--data-dir", dir},
		{"secrets", "set", "elsewhere", "--secrets-file", writeFile(t, t.TempDir(), "other.json", "{}")},
	} {
		if code, out, errOut := qlStdin(t, value, args...); code != 0 {
			t.Fatalf("%v: %d %q %q", args, code, out, errOut)
		}
	}
	me := osUser(t)
	want := []string{
		"secret.deleted " + me + " alpha/api_token alpha ",
		"secret.set " + me + " alpha/api_token alpha replaced",
		"secret.set " + me + " alpha/api_token alpha ",
	}
	got := auditTrail(t, dir)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("audit list:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if strings.Contains(strings.Join(got, "\n"), value) {
		t.Fatalf("the trail holds the value:\n%s", strings.Join(got, "\n"))
	}
}

// Disabling a disabled user, or enabling an enabled one, says so, exits 0
// and records nothing.
func TestDisablingADisabledUserSaysAlreadyDisabledAndRecordsNothing(t *testing.T) {
	t.Parallel()
	dir := installedDir(t)
	const pw = "correct horse battery"
	if code, out, errOut := qlIn(t, pw+"\n", "users", "create", "alice", "--password-stdin", "--data-dir", dir); code != 0 {
		t.Fatalf("users create: %d %q %q", code, out, errOut)
	}
	steps := []struct {
		args []string
		said string
	}{
		{[]string{"users", "enable", "alice", "--password-stdin"}, `user "alice" is already enabled; nothing changed, its password neither`},
		{[]string{"users", "disable", "alice"}, `user "alice" disabled`},
		{[]string{"users", "disable", "alice"}, `user "alice" is already disabled; nothing changed`},
	}
	for _, s := range steps {
		code, out, errOut := qlIn(t, pw+"\n", append(s.args, "--data-dir", dir)...)
		if code != 0 || !strings.Contains(out, s.said) {
			t.Fatalf("%v: %d %q %q; want exit 0 saying %q", s.args, code, out, errOut, s.said)
		}
	}
	me := osUser(t)
	want := []string{
		"user.disabled " + me + " alice  ",
		"user.created " + me + " alice  role viewer",
	}
	if got := auditTrail(t, dir); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("audit list:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
