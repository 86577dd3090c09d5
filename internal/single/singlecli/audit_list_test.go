package singlecli

import (
	"encoding/json"
	"os/user"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/audit"
)

// `ql audit list` on the data directory lists who created and revoked a
// token and paused a project (the project's record and its trigger's),
// newest first, as the operating-system user who ran the commands,
// filtered by action, project and time; it never prints the token's
// value; and over the API an admin token lists the same.
func TestAuditListSaysWhoRevokedATokenAndPausedAProjectOnTheDatabaseAndOverTheAPI(t *testing.T) {
	dir := installedDir(t)
	applyDefs(t, dir, quietFile)
	secret := newToken(t, dir, "deploy", "read")
	for _, args := range [][]string{{"tokens", "revoke", "deploy"}, {"projects", "pause", "api", "--note", "release freeze"}} {
		if code, _, errOut := ql(t, append(args, "--data-dir", dir)...); code != 0 {
			t.Fatalf("%v: %d %q", args, code, errOut)
		}
	}
	me, err := user.Current()
	if err != nil {
		t.Fatal(err)
	}
	code, out, errOut := ql(t, "audit", "list", "-o", "json", "--data-dir", dir)
	var page audit.Page
	if code != 0 || json.Unmarshal([]byte(out), &page) != nil {
		t.Fatalf("audit list -o json: %d %q %q", code, out, errOut)
	}
	var got []string
	for _, r := range page.Records {
		got = append(got, string(r.Action)+" "+r.Actor+" "+r.ObjectName+" "+r.Project)
	}
	want := []string{
		"trigger.paused " + me.Username + " yearly api",
		"project.paused " + me.Username + " api api",
		"token.revoked " + me.Username + " deploy ",
		"token.created " + me.Username + " deploy ",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("audit list:\n%s\nwant (a project pause writes its trigger's record too, at the same time, the trigger schedule's first):\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if strings.Contains(out, secret) {
		t.Fatalf("audit list prints the token's value:\n%s", out)
	}
	for _, c := range []struct {
		args []string
		want int
	}{
		{[]string{"--action", "token.revoked"}, 1},
		{[]string{"--project", "api"}, 2},
		{[]string{"--actor", me.Username, "--since", "1h"}, 4},
		{[]string{"--since", "2999-01-01T00:00:00Z"}, 0},
	} {
		code, out, errOut := ql(t, append(append([]string{"audit", "list", "--data-dir", dir}, c.args...), "-o", "json")...)
		var p audit.Page
		if code != 0 || json.Unmarshal([]byte(out), &p) != nil || len(p.Records) != c.want {
			t.Errorf("audit list %v: %d %q %q; want %d records", c.args, code, out, errOut, c.want)
		}
	}
	if code, _, errOut := ql(t, "audit", "list", "--action", "token.stolen", "--data-dir", dir); code != 2 || !strings.Contains(errOut, "token.revoked") {
		t.Errorf("audit list --action token.stolen: %d %q; want exit 2 naming the actions there are", code, errOut)
	}
	if code, _, errOut := ql(t, "audit", "list", "--since", "yesterday", "--data-dir", dir); code != 2 || !strings.Contains(errOut, "--since") {
		t.Errorf("audit list --since yesterday: %d %q; want exit 2 saying what --since takes", code, errOut)
	}

	admin := newToken(t, dir, "boss", "admin")
	base := serveAPI(t, dir, "standalone")
	t.Setenv("QL_DATA_DIR", "")
	t.Setenv("QL_TOKEN", admin)
	for _, args := range [][]string{{"audit", "list"}, {"audit", "list", "-o", "json", "--limit", "2"}, {"audit", "list", "--action", "token.revoked"}} {
		remote := overAPI(t, base, args...)
		sameAs(t, strings.Join(args, " "), remote, onDB(t, dir, args...), nil)
		if remote.code != 0 {
			t.Errorf("%v over the API: %+v", args, remote)
		}
	}
}
