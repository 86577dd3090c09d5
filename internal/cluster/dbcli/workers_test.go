package dbcli

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/cluster/pgstore"
	"github.com/qinglong/qinglong/internal/core/cli"
	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/workerproto"
	"github.com/qinglong/qinglong/internal/testkit/clustertest"
)

// workers executes `ql workers <args>` with env as its whole environment
// and returns its two streams apart: the credential must be alone on
// standard output.
func workers(t *testing.T, env map[string]string, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	cmd := newWorkersCommand(func(k string) string { return env[k] })
	var out, errOut bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetErr(&errOut)
	cmd.SetArgs(args)
	err = cmd.ExecuteContext(t.Context())
	return out.String(), errOut.String(), err
}

type listed struct {
	Workers []struct {
		Name           string
		State          string
		Labels         map[string]string
		SessionLabels  []map[string]string
		MaxConcurrency int
		Sessions       int
		Capacity       int
		FreeSlots      int
		Reads          []string
	}
}

func listWorkers(t *testing.T, env map[string]string) listed {
	t.Helper()
	out, errOut, err := workers(t, env, "list", "-o", "json")
	var l listed
	if err != nil || json.Unmarshal([]byte(out), &l) != nil {
		t.Fatalf("workers list -o json: %v %q %q", err, out, errOut)
	}
	return l
}

// The credential create prints once authenticates as that worker; list
// shows the worker with its labels, sessions and slots; drain shows it
// draining; revoke makes its credential fail to authenticate.
func TestWorkersCreateListDrainRevoke(t *testing.T) {
	t.Parallel()
	c := clustertest.New(t)
	env := map[string]string{EnvAdminURL: c.URL(pgstore.RoleAdmin)}
	rt := c.Runtime(t, "workers-test", 30*time.Second)

	cred, note, err := workers(t, env, "create", "build-01", "--labels", "region=eu,gpu=true", "--max-concurrency", "2")
	if err != nil {
		t.Fatalf("create: %v %q", err, note)
	}
	cred = strings.TrimSuffix(cred, "\n")
	if !strings.HasPrefix(cred, workerproto.CredentialPrefix) || strings.ContainsAny(cred, " \n") {
		t.Fatalf("create printed %q on standard output; want the credential alone", cred)
	}
	if !strings.Contains(note, "cannot be shown again") || !strings.Contains(note, "chmod 600") || strings.Contains(note, cred) {
		t.Fatalf("create said %q on standard error; want how to store the credential, without repeating it", note)
	}
	id, err := rt.AuthenticateWorker(t.Context(), cred)
	if err != nil || id.Name != "build-01" {
		t.Fatalf("authenticate with the printed credential: %+v, %v", id, err)
	}
	if _, err := rt.RegisterWorker(t.Context(), id, workerproto.RegisterRequest{Capacity: 8, Version: "test"}, pgstore.WorkerSettings{}); err != nil {
		t.Fatalf("register: %v", err)
	}

	l := listWorkers(t, env)
	if len(l.Workers) != 1 {
		t.Fatalf("list shows %+v; want one worker", l)
	}
	w := l.Workers[0]
	if w.Name != "build-01" || w.State != "active" || w.Labels["region"] != "eu" || w.Labels["gpu"] != "true" ||
		w.MaxConcurrency != 2 || w.Sessions != 1 || w.Capacity != 2 || w.FreeSlots != 2 {
		t.Fatalf("list shows %+v; want build-01 active with its labels, one session and 2 of 2 slots free (capacity capped at max concurrency)", w)
	}
	table, _, err := workers(t, env, "list")
	if err != nil || !strings.Contains(table, "LAST HEARTBEAT") || !strings.Contains(table, "gpu=true,region=eu") || strings.Contains(table, cred) {
		t.Fatalf("list table: %v %q", err, table)
	}

	if out, _, err := workers(t, env, "drain", "build-01"); err != nil || !strings.Contains(out, "draining") {
		t.Fatalf("drain: %v %q", err, out)
	}
	if l := listWorkers(t, env); l.Workers[0].State != "draining" {
		t.Fatalf("after drain the list shows %+v", l.Workers[0])
	}
	if out, _, err := workers(t, env, "resume", "build-01"); err != nil || !strings.Contains(out, "worker build-01: active") {
		t.Fatalf("resume: %v %q", err, out)
	}
	if l := listWorkers(t, env); l.Workers[0].State != "active" {
		t.Fatalf("after resume the list shows %+v", l.Workers[0])
	}
	if _, err := rt.RegisterWorker(t.Context(), id, workerproto.RegisterRequest{Capacity: 8, Version: "test"}, pgstore.WorkerSettings{}); err != nil {
		t.Fatalf("register after resume: %v", err)
	}
	if l := listWorkers(t, env); l.Workers[0].Sessions != 1 || l.Workers[0].FreeSlots != 2 {
		t.Fatalf("a session opened after resume: %+v, want one live session taking work", l.Workers[0])
	}
	if _, _, err := workers(t, env, "drain", "build-01"); err != nil {
		t.Fatalf("drain again: %v", err)
	}

	if out, _, err := workers(t, env, "revoke", "build-01"); err != nil || out != "worker build-01: revoked\n" {
		t.Fatalf("revoke: %v %q", err, out)
	}
	if _, err := rt.AuthenticateWorker(t.Context(), cred); !qlerror.Is(err, qlerror.Unauthenticated) {
		t.Fatalf("authenticate after revoke: %v; want unauthenticated", err)
	}
	// A second revoke changes nothing and says so, as revoking a revoked
	// token does.
	if out, _, err := workers(t, env, "revoke", "build-01"); err != nil || !strings.HasPrefix(out, "worker build-01: revoked already (at ") ||
		!strings.HasSuffix(out, "); nothing changed\n") {
		t.Fatalf("a second revoke: %v %q; want it said revoked already, nothing changed", err, out)
	}
	if l := listWorkers(t, env); l.Workers[0].State != "revoked" {
		t.Fatalf("after revoke the list shows %+v", l.Workers[0])
	}
	if _, _, err := workers(t, env, "resume", "build-01"); err == nil || !strings.Contains(err.Error(), "revoked, which is final") {
		t.Fatalf("resume of a revoked worker: %v, want a refusal saying revocation is final", err)
	}
}

// Each mistake names what was wrong and what to do.
func TestWorkersCommandErrorsSayWhatToDo(t *testing.T) {
	t.Parallel()
	c := clustertest.New(t)
	env := map[string]string{EnvAdminURL: c.URL(pgstore.RoleAdmin)}
	if _, _, err := workers(t, env, "create", "dup"); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		args  []string
		usage bool
		want  string
	}{
		{[]string{"create", "Bad_Name"}, true, `worker name: "Bad_Name" must use lower-case letters`},
		{[]string{"create", "w2", "--labels", "region"}, true, `"region" is not key=value; write labels as k=v,k=v`},
		{[]string{"create", "w2", "--labels", "Region=eu"}, true, `key "Region" must be`},
		{[]string{"create", "w2", "--labels", "a=1,a=2"}, true, `key "a" is given twice`},
		{[]string{"create", "w2", "--max-concurrency", "0"}, true, "--max-concurrency 0 is outside 1–256"},
		{[]string{"create", "dup"}, false, `a worker named "dup" already exists; choose another name`},
		{[]string{"revoke", "nobody"}, false, "list workers with `ql workers list`"},
		{[]string{"drain", "nobody"}, false, "list workers with `ql workers list`"},
		{[]string{"revoke"}, true, "takes one worker name"},
	}
	for _, tc := range cases {
		_, _, err := workers(t, env, tc.args...)
		var ue *cli.UsageError
		if err == nil || !strings.Contains(err.Error(), tc.want) || errors.As(err, &ue) != tc.usage {
			t.Errorf("workers %v: %v; want an error (usage %v) containing %q", tc.args, err, tc.usage, tc.want)
		}
	}
	if _, _, err := workers(t, map[string]string{}, "list"); err == nil || !strings.Contains(err.Error(), "$"+EnvAdminURL) {
		t.Errorf("list without a URL: %v; want the variable to set", err)
	}
	runtime := map[string]string{EnvURL: c.URL(pgstore.RoleRuntime)}
	if _, _, err := workers(t, runtime, "create", "w3"); err == nil || !strings.Contains(err.Error(), "needs the admin role's URL in $"+EnvAdminURL) {
		t.Errorf("create as the runtime role: %v; want the admin role named", err)
	}
	if l := listWorkers(t, env); len(l.Workers) != 1 {
		t.Fatalf("after the refused commands the list shows %+v; want only dup", l)
	}
}

// An empty workers list is empty as every list of the CLI is (cli.NoneLine):
// the header alone on standard output, a line on standard error saying
// there is none and how to make one, and an empty array in JSON.
func TestAnEmptyWorkersListSaysSoOnStandardErrorAsEveryList(t *testing.T) {
	t.Parallel()
	c := clustertest.New(t)
	env := map[string]string{EnvAdminURL: c.URL(pgstore.RoleAdmin)}
	out, errOut, err := workers(t, env, "list")
	if err != nil || strings.Count(out, "\n") != 1 || !strings.HasPrefix(out, "NAME") || !strings.HasPrefix(errOut, "no worker yet: `ql workers create NAME`") {
		t.Fatalf("workers list on none: %v %q %q; want the header alone, and on stderr that there is none and how to make one", err, out, errOut)
	}
	out, errOut, err = workers(t, env, "list", "-o", "json")
	if err != nil || errOut != "" || strings.Join(strings.Fields(out), "") != `{"workers":[]}` {
		t.Fatalf("workers list -o json on none: %v %q %q; want an empty array alone", err, out, errOut)
	}
}

// The note create prints says what to do when the credential is lost, and
// that advice works as printed: the rotation it names gives the worker a
// new credential under its name and refuses the lost one at once.
func TestALostCredentialsAdviceWorksAsPrinted(t *testing.T) {
	t.Parallel()
	c := clustertest.New(t)
	env := map[string]string{EnvAdminURL: c.URL(pgstore.RoleAdmin)}
	rt := c.Runtime(t, "workers-test", 30*time.Second)
	lost, note, err := workers(t, env, "create", "build-01")
	if err != nil {
		t.Fatal(err)
	}
	const rotate = "`ql workers rotate build-01 --keep-old 0`"
	if !strings.Contains(note, rotate) {
		t.Fatalf("create said %q; want the lost credential's advice to name %s", note, rotate)
	}
	args := strings.Fields(strings.Trim(rotate, "`"))[2:]
	out, _, err := workers(t, env, args...)
	if err != nil {
		t.Fatalf("the printed %s: %v", rotate, err)
	}
	if _, err := rt.AuthenticateWorker(t.Context(), strings.TrimSpace(lost)); !qlerror.Is(err, qlerror.Unauthenticated) {
		t.Fatalf("the lost credential after the printed %s: %v; want it refused", rotate, err)
	}
	if id, err := rt.AuthenticateWorker(t.Context(), strings.TrimSpace(out)); err != nil || id.Name != "build-01" {
		t.Fatalf("the credential the printed %s gave: %+v, %v; want worker build-01", rotate, id, err)
	}
}

// Each `ql workers` subcommand runs with the roles the docs name and no
// other: list reads with the admin or the runtime role's URL (the console
// lists workers with the runtime role too); create, drain, resume and
// revoke change credentials, which only the admin role may (rotate too); a role that
// may not is refused with exit 5 (permission denied), naming the role
// the subcommand needs.
func TestEachWorkersSubcommandRunsWithTheRolesItNeedsAndNamesThemWhenRefused(t *testing.T) {
	t.Parallel()
	c := clustertest.New(t)
	admin := map[string]string{EnvAdminURL: c.URL(pgstore.RoleAdmin)}
	if _, _, err := workers(t, admin, "create", "build-01"); err != nil {
		t.Fatal(err)
	}
	runtime := map[string]string{EnvURL: c.URL(pgstore.RoleRuntime)}
	if l := listWorkers(t, runtime); len(l.Workers) != 1 || l.Workers[0].Name != "build-01" {
		t.Fatalf("list with the runtime role's URL shows %+v, want build-01", l)
	}
	maintenance := map[string]string{EnvURL: c.URL(pgstore.RoleMaintenance)}
	_, _, err := workers(t, maintenance, "list")
	if !qlerror.Is(err, qlerror.PermissionDenied) || !strings.Contains(err.Error(), "`ql workers list` needs the admin or the runtime role's URL in $"+EnvAdminURL) {
		t.Errorf("list with the maintenance role's URL: %v; want permission denied naming the admin and the runtime role", err)
	}
	for _, verb := range []string{"rotate", "drain", "resume", "revoke"} {
		_, _, err := workers(t, runtime, verb, "build-01")
		if !qlerror.Is(err, qlerror.PermissionDenied) || !strings.Contains(err.Error(), "`ql workers "+verb+"` needs the admin role's URL in $"+EnvAdminURL) {
			t.Errorf("%s with the runtime role's URL: %v; want permission denied naming the admin role", verb, err)
		}
	}
	if l := listWorkers(t, admin); l.Workers[0].State != "active" {
		t.Fatalf("after the refused commands the list shows %+v, want build-01 still active", l.Workers[0])
	}
}

// A worker whose process says it drains (its draining watch, sent when it
// stops on a signal) is listed draining (stopping), by the worker, not by
// an admin, with no free slot: it takes no new work while it finishes its
// commands.
func TestAWorkerStoppingOnItsOwnIsListedDrainingStopping(t *testing.T) {
	t.Parallel()
	c := clustertest.New(t)
	env := map[string]string{EnvAdminURL: c.URL(pgstore.RoleAdmin)}
	rt := c.Runtime(t, "workers-test", 30*time.Second)
	cred, _, err := workers(t, env, "create", "build-01")
	if err != nil {
		t.Fatal(err)
	}
	id, err := rt.AuthenticateWorker(t.Context(), strings.TrimSpace(cred))
	if err != nil {
		t.Fatal(err)
	}
	reg, err := rt.RegisterWorker(t.Context(), id, workerproto.RegisterRequest{Capacity: 2, Version: "test"}, pgstore.WorkerSettings{})
	if err != nil {
		t.Fatal(err)
	}
	watch := workerproto.PullRequest{SessionID: reg.SessionID, OfferID: ids.New(),
		Token: strings.Repeat("A", 43), Max: 0, Draining: true}
	if reply, err := rt.PullGrants(t.Context(), id, watch, pgstore.WorkerSettings{}); err != nil || reply.State != workerproto.SessionDraining {
		t.Fatalf("draining watch: %+v, %v", reply, err)
	}
	table, _, err := workers(t, env, "list")
	if err != nil || !strings.Contains(table, "build-01  draining (stopping)") {
		t.Fatalf("list table: %v %q; want build-01 draining (stopping)", err, table)
	}
	out, _, err := workers(t, env, "list", "-o", "json")
	var l struct {
		Workers []struct {
			State     string `json:"state"`
			DrainedBy string `json:"drainedBy"`
			FreeSlots int    `json:"freeSlots"`
		} `json:"workers"`
	}
	if err != nil || json.Unmarshal([]byte(out), &l) != nil || len(l.Workers) != 1 {
		t.Fatalf("list -o json: %v %q", err, out)
	}
	if w := l.Workers[0]; w.State != "draining" || w.DrainedBy != "worker" || w.FreeSlots != 0 {
		t.Fatalf("list -o json shows %+v, want draining by the worker with no free slot", w)
	}
	// Resuming the credential cannot return a process stopping on its own
	// to work, and the command says so rather than "active" alone.
	if out, _, err := workers(t, env, "resume", "build-01"); err != nil || !strings.Contains(out, "worker build-01: active; its process running now is stopping on its own") {
		t.Fatalf("resume of a worker stopping on its own: %v %q; want it to say its process still stops", err, out)
	}
}

// The labels a task's placement is matched against are the live
// session's — the credential's plus those its process gave with
// `ql-worker --labels` — and the list shows those: the table's LABELS,
// and -o json's sessionLabels beside the credential's own labels, which
// keep their meaning. With no process running, the table shows the
// credential's.
func TestWorkersListShowsTheLabelsPlacementMatches(t *testing.T) {
	t.Parallel()
	c := clustertest.New(t)
	env := map[string]string{EnvAdminURL: c.URL(pgstore.RoleAdmin)}
	rt := c.Runtime(t, "workers-test", 30*time.Second)
	cred, _, err := workers(t, env, "create", "w3", "--labels", "zone=eu")
	if err != nil {
		t.Fatal(err)
	}
	if table, _, err := workers(t, env, "list"); err != nil || !strings.Contains(table, "w3    active  zone=eu ") {
		t.Fatalf("list table with no process running: %v %q; want the credential's labels", err, table)
	}
	id, err := rt.AuthenticateWorker(t.Context(), strings.TrimSpace(cred))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rt.RegisterWorker(t.Context(), id, workerproto.RegisterRequest{Capacity: 1, Version: "test", Labels: map[string]string{"sec": "yes"}}, pgstore.WorkerSettings{}); err != nil {
		t.Fatal(err)
	}
	if table, _, err := workers(t, env, "list"); err != nil || !strings.Contains(table, "w3    active  sec=yes,zone=eu ") {
		t.Fatalf("list table: %v %q; want the session's labels sec=yes,zone=eu", err, table)
	}
	w := listWorkers(t, env).Workers[0]
	if len(w.Labels) != 1 || w.Labels["zone"] != "eu" || len(w.SessionLabels) != 1 || len(w.SessionLabels[0]) != 2 ||
		w.SessionLabels[0]["sec"] != "yes" || w.SessionLabels[0]["zone"] != "eu" {
		t.Fatalf("list -o json: labels %v, sessionLabels %v; want the credential's {zone=eu} and the session's {sec=yes,zone=eu}", w.Labels, w.SessionLabels)
	}
}

// A worker drained while its process runs, then resumed before that
// process ended: the process heard the drain and still exits once its
// commands end, so resume says so, and the list shows it draining
// (resumed) by the admin, with no free slot — not active with free slots
// it will not fill, nor stopping on a signal once its draining watch
// comes. A process started again takes work.
func TestAResumedWorkerWhoseProcessHeardTheDrainIsListedDrainingResumed(t *testing.T) {
	t.Parallel()
	c := clustertest.New(t)
	env := map[string]string{EnvAdminURL: c.URL(pgstore.RoleAdmin)}
	rt := c.Runtime(t, "workers-test", 30*time.Second)
	cred, _, err := workers(t, env, "create", "w2")
	if err != nil {
		t.Fatal(err)
	}
	id, err := rt.AuthenticateWorker(t.Context(), strings.TrimSpace(cred))
	if err != nil {
		t.Fatal(err)
	}
	reg, err := rt.RegisterWorker(t.Context(), id, workerproto.RegisterRequest{Capacity: 2, Version: "test"}, pgstore.WorkerSettings{})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := workers(t, env, "drain", "w2"); err != nil {
		t.Fatal(err)
	}
	watch := workerproto.PullRequest{SessionID: reg.SessionID, OfferID: ids.New(), Token: strings.Repeat("A", 43), Max: 0}
	if reply, err := rt.PullGrants(t.Context(), id, watch, pgstore.WorkerSettings{}); err != nil || reply.State != workerproto.SessionDraining {
		t.Fatalf("the watch after the drain: %+v, %v; want the worker told draining", reply, err)
	}
	out, _, err := workers(t, env, "resume", "w2")
	if err != nil || !strings.Contains(out, "still finishes its commands") || !strings.Contains(out, "then exits") {
		t.Fatalf("resume: %v %q; want it said the running process still finishes and exits", err, out)
	}
	check := func(when string) {
		t.Helper()
		table, _, err := workers(t, env, "list")
		if err != nil || !strings.Contains(table, "w2    draining (resumed)") {
			t.Fatalf("list table %s: %v %q; want w2 draining (resumed)", when, err, table)
		}
		out, _, err := workers(t, env, "list", "-o", "json")
		var l struct {
			Workers []struct {
				State     string `json:"state"`
				DrainedBy string `json:"drainedBy"`
				Resumed   bool   `json:"resumed"`
				FreeSlots int    `json:"freeSlots"`
			} `json:"workers"`
		}
		if err != nil || json.Unmarshal([]byte(out), &l) != nil || len(l.Workers) != 1 {
			t.Fatalf("list -o json %s: %v %q", when, err, out)
		}
		if w := l.Workers[0]; w.State != "draining" || w.DrainedBy != "admin" || !w.Resumed || w.FreeSlots != 0 {
			t.Fatalf("list -o json %s: %+v; want draining by the admin, resumed, no free slot", when, w)
		}
	}
	check("after the resume")
	// The process, draining, keeps a draining watch: that is the drain it
	// heard, not a stop on a signal.
	watch.OfferID, watch.Draining = ids.New(), true
	if reply, err := rt.PullGrants(t.Context(), id, watch, pgstore.WorkerSettings{}); err != nil || reply.State != workerproto.SessionDraining {
		t.Fatalf("the draining watch: %+v, %v", reply, err)
	}
	check("after its draining watch")
	if _, err := rt.RegisterWorker(t.Context(), id, workerproto.RegisterRequest{Capacity: 2, Version: "test"}, pgstore.WorkerSettings{}); err != nil {
		t.Fatal(err)
	}
	if table, _, err := workers(t, env, "list"); err != nil || !strings.Contains(table, "w2    active ") {
		t.Fatalf("list table once started again: %v %q; want w2 active", err, table)
	}
}

// The list says which workers read a project's env: the table's READS
// names the grant fields each running worker reads, "none" for a worker
// built before them (it is not given the Runs of a project with an env),
// "-" with none running; -o json's reads lists them, [] and null.
func TestWorkersListShowsWhichWorkersReadProjectEnv(t *testing.T) {
	t.Parallel()
	c := clustertest.New(t)
	env := map[string]string{EnvAdminURL: c.URL(pgstore.RoleAdmin)}
	rt := c.Runtime(t, "workers-test", 30*time.Second)
	reads := map[string][]string{"new": workerproto.Reads(), "old": nil}
	for _, name := range []string{"idle", "new", "old"} {
		cred, _, err := workers(t, env, "create", name)
		if err != nil {
			t.Fatal(err)
		}
		if name == "idle" {
			continue
		}
		id, err := rt.AuthenticateWorker(t.Context(), strings.TrimSpace(cred))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := rt.RegisterWorker(t.Context(), id, workerproto.RegisterRequest{Capacity: 1, Version: "test", Reads: reads[name]}, pgstore.WorkerSettings{}); err != nil {
			t.Fatal(err)
		}
	}
	table, _, err := workers(t, env, "list")
	if err != nil {
		t.Fatal(err)
	}
	cells := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(table), "\n")[1:] {
		f := strings.Fields(line)
		cells[f[0]] = f[len(f)-1]
	}
	if !strings.Contains(table, "READS") || cells["idle"] != "-" || cells["new"] != workerproto.ReadProjectEnv || cells["old"] != "none" {
		t.Fatalf("list table's READS %v; want idle -, new %s, old none:\n%s", cells, workerproto.ReadProjectEnv, table)
	}
	got := map[string][]string{}
	for _, w := range listWorkers(t, env).Workers {
		got[w.Name] = w.Reads
	}
	if got["idle"] != nil || got["old"] == nil || len(got["old"]) != 0 || len(got["new"]) != 1 || got["new"][0] != workerproto.ReadProjectEnv {
		t.Fatalf("list -o json reads %q; want idle null, old [], new [%s]", got, workerproto.ReadProjectEnv)
	}
}
