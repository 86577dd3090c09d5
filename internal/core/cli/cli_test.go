package cli

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/schedule"
)

func ql(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	return qlWith(t, Options{Binary: "ql"}, args...)
}

func qlWith(t *testing.T, opts Options, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := Main(context.Background(), opts, args, &out, &errb)
	return code, out.String(), errb.String()
}

func TestUsageErrorsExitTwoWithAHint(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{"bogus"},
		{"cron", "next"},
		{"cron", "next", "* * * * *"},
		{"cron", "next", "* * * * *", "--tz", "UTC", "-n", "0"},
		{"cron", "next", "@daily", "--tz", "UTC"},
		{"cron", "next", "* * * * *", "--tz", "UTC", "--after", "yesterday"},
		{"cron", "next", "*/90 * * * *", "--tz", "UTC"},
		{"cron", "next", "--nope"},
		{"serve", "--profile", "cluster"},
	} {
		code, _, stderr := ql(t, args...)
		if code != 2 {
			t.Errorf("%v: exit %d, want 2 (stderr %q)", args, code, stderr)
		}
		if !strings.Contains(stderr, "--help") {
			t.Errorf("%v: stderr %q has no hint", args, stderr)
		}
	}
}

func TestCronNextPrintsLocalAndUTC(t *testing.T) {
	t.Parallel()
	code, out, stderr := ql(t, "cron", "next", "30 2 * * *", "--tz", "America/New_York", "--after", "2026-03-07T12:00:00Z", "-n", "2")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	want := "2026-03-08 03:00:00 EDT -04:00  2026-03-08T07:00:00Z\n2026-03-09 02:30:00 EDT -04:00  2026-03-09T06:30:00Z\n"
	if out != want {
		t.Fatalf("got\n%s\nwant\n%s", out, want)
	}
}

// An expression that never fires is the input at fault, as `ql apply`
// refuses it: exit 2, saying what to fix.
func TestCronNextNeverFiringExitsTwoAsApplyRefusesIt(t *testing.T) {
	t.Parallel()
	code, _, stderr := ql(t, "cron", "next", "0 0 30 2 *", "--tz", "UTC")
	if code != 2 || !strings.Contains(stderr, "never fires") || !strings.Contains(stderr, "fix the day or month") {
		t.Fatalf("exit %d stderr %q", code, stderr)
	}
}

// An expression that fires but has no occurrence before the last instant
// occurrences are computed to ran out of time, not of dates: it says so,
// and which --after to give, never that its days miss its months.
func TestCronNextPastTheLastComputedInstantSaysItRanOutOfTime(t *testing.T) {
	t.Parallel()
	code, _, stderr := ql(t, "cron", "next", "0 0 * * *", "--tz", "UTC", "--after", "9999-12-31T00:00:00Z")
	if code != 2 || !strings.Contains(stderr, "the last instant occurrences are computed to; give an earlier --after") || strings.Contains(stderr, "never fires") {
		t.Fatalf("exit %d stderr %q", code, stderr)
	}
	code, out, stderr := ql(t, "cron", "next", "0 0 * * *", "--tz", "UTC", "--after", "9999-12-30T12:00:00Z", "-n", "3")
	if code != 0 || out != "9999-12-31 00:00:00 UTC +00:00  9999-12-31T00:00:00Z\n(no further occurrence before 9999-12-31T23:59:59Z, the last instant occurrences are computed to)\n" {
		t.Fatalf("exit %d out %q stderr %q", code, out, stderr)
	}
}

// A flag value its type cannot read is refused naming the flag and what
// it takes, not in the parser's words.
func TestAnUnreadableFlagValueSaysWhatTheFlagTakes(t *testing.T) {
	t.Parallel()
	code, _, stderr := ql(t, "cron", "next", "* * * * *", "--tz", "UTC", "-n", "abc")
	if code != 2 || !strings.Contains(stderr, `-n/--count "abc" is not a whole number: it takes how many occurrences to print (1–1000)`) || strings.Contains(stderr, "strconv") {
		t.Fatalf("exit %d stderr %q", code, stderr)
	}
}

// One try shows everything wrong with `cron next`: a bad field is
// reported with a missing or unknown --tz, a bad -n and --after, the
// expression's mistake first, each on a line led by the binary's name.
func TestCronNextReportsEveryMistakeTheExpressionsFirst(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{"cron", "next", "61 * * * *"},
		{"cron", "next", "61 * * * *", "--tz", "Mars/Olympus", "-n", "0", "--after", "yesterday"},
	} {
		code, _, stderr := ql(t, args...)
		field, zone := strings.Index(stderr, "61"), strings.Index(stderr, "--tz")
		if len(args) > 3 {
			zone = strings.Index(stderr, "Mars/Olympus")
		}
		if code != 2 || field < 0 || zone < 0 || field > zone {
			t.Errorf("%v: exit %d %q; want exit 2 naming the minute 61, then the zone", args, code, stderr)
		}
		if len(args) > 3 && (!strings.Contains(stderr, "-n 0") || !strings.Contains(stderr, `--after "yesterday"`)) {
			t.Errorf("%v: %q does not name -n 0 and --after too", args, stderr)
		}
		lines := strings.Split(strings.TrimSuffix(stderr, "\n"), "\n")
		for _, l := range lines[:len(lines)-1] {
			if !strings.HasPrefix(l, "ql: ") {
				t.Errorf("%v: the line %q of %q is not led by ql: as the first is", args, l, stderr)
			}
		}
	}
}

func TestVersionPrintsGoVersion(t *testing.T) {
	t.Parallel()
	code, out, _ := ql(t, "version")
	if code != 0 || !strings.Contains(out, runtime.Version()) || !strings.Contains(out, "commit") {
		t.Fatalf("exit %d out %q", code, out)
	}
}

func TestEveryCommandHasHelp(t *testing.T) {
	t.Parallel()
	root := NewRoot(Options{Binary: "ql"})
	for _, c := range allCommands(root) {
		if c.Short == "" {
			t.Errorf("%s has no help text", c.CommandPath())
		}
	}
}

func TestReadingAMissingDatabaseFailsInsteadOfCreatingOne(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := filepath.Join(dir, "qinglong.db")
	opened := false
	opener := func(context.Context, string) (*Backend, error) {
		opened = true
		return nil, errors.New("must not be called")
	}
	opts := Options{Binary: "ql", OpenSQLite: opener, OpenSQLiteReadOnly: opener}
	for _, args := range [][]string{{"runs", "list", "--data-dir", dir}, {"runs", "show", "0190c2b4-0000-7000-8000-000000000000", "--data-dir", dir}, {"triggers", "list", "--data-dir", dir}} {
		var out, errb bytes.Buffer
		code := Main(context.Background(), opts, args, &out, &errb)
		if code != 1 || !strings.Contains(errb.String(), "no QingLong database at "+db) {
			t.Errorf("%v: exit %d stderr %q", args, code, errb.String())
		}
	}
	if opened {
		t.Fatal("a read command opened (and would have created) the missing database")
	}
	if _, err := os.Stat(db); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("database file appeared: %v", err)
	}
}

func TestCronNextFindsTheLeapDayAfterACenturyYear(t *testing.T) {
	t.Parallel()
	code, out, stderr := ql(t, "cron", "next", "0 0 29 2 *", "--tz", "UTC", "--after", "2096-03-01T00:00:00Z", "-n", "1")
	if code != 0 || !strings.Contains(out, "2104-02-29T00:00:00Z") {
		t.Fatalf("exit %d out %q stderr %q; want 2104-02-29", code, out, stderr)
	}
}

// A run id that is no id and a token or user name no object can have are
// usage errors: exit 2 with the rule and the hint, before any database is
// opened.
func TestAMalformedIDOrNameExitsTwoBeforeAnyDatabaseIsOpened(t *testing.T) {
	t.Parallel()
	var opened []string
	record := func(_ context.Context, dsn string) (*Backend, error) {
		opened = append(opened, dsn)
		return nil, errors.New("not opening in this test")
	}
	opts := Options{Binary: "ql", OpenSQLite: record, OpenSQLiteReadOnly: record}
	dir := t.TempDir()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"runs", "show", "nope"}, "give a run id as printed by `ql runs list --data-dir "},
		{[]string{"runs", "logs", "42"}, "not a canonical lower-case UUID"},
		{[]string{"runs", "cancel", "0190C2B4-0000-7000-8000-000000000000"}, "not a canonical lower-case UUID"},
		{[]string{"runs", "rerun", "x"}, "run id"},
		{[]string{"tokens", "create", "Bad", "--scope", "read"}, `token name: "Bad" must use lower-case letters`},
		{[]string{"tokens", "revoke", "ci_"}, "token name"},
		{[]string{"users", "create", "x y", "--role", "viewer"}, `user name: "x y"`},
		{[]string{"users", "delete", "UPPER"}, "user name"},
		{[]string{"notifications", "retry", "nope"}, "give a notification id as printed by `ql notifications list --state dead --data-dir "},
		{[]string{"runs", "logs", "0190c2b4-0000-7000-8000-000000000000", "--attempt", "0"}, "--attempt 0 is not an attempt number"},
		{[]string{"runs", "list", "--state", "done"}, `--state "done" is not a run state; use one of created, queued, `},
	} {
		opened = nil
		code, _, stderr := qlWith(t, opts, append(c.args, "--data-dir", dir)...)
		if code != 2 || !strings.Contains(stderr, c.want) || !strings.Contains(stderr, "--help") || len(opened) != 0 {
			t.Errorf("%v: exit %d stderr %q opened %v; want exit 2 saying %q with the hint, nothing opened", c.args, code, stderr, opened, c.want)
		}
	}
}

func TestApplyGivenAFileWithoutDashFSaysHowToWriteIt(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		binary string
		args   []string
		want   string
	}{
		{"ql", []string{"apply", "defs.yaml"}, "apply reads its file from -f: write ql apply -f defs.yaml"},
		{"ql-edge", []string{"apply", "defs.yaml"}, "write ql-edge apply -f defs.yaml"},
		{"ql", []string{"apply", "a.yaml", "b.yaml"}, "apply takes one file, given with -f (2 arguments given); to apply several files, run it once per file"},
	} {
		code, _, stderr := qlWith(t, Options{Binary: c.binary}, c.args...)
		if code != 2 || !strings.Contains(stderr, c.want) || strings.Contains(stderr, "unknown command") {
			t.Errorf("%s %v: exit %d, stderr %q; want exit 2 and %q", c.binary, c.args, code, stderr, c.want)
		}
	}
}

// A command without --api-url (the API has no route for its action) that
// finds no database while $QL_API_URL is set says it never asks a server,
// and lists the commands that do; a command that can ask the API is not
// told it cannot, and one given a database on its command line while
// $QL_API_URL is set is told which of the two to drop.
func TestACommandWithoutAPIURLSaysSoWhenQLAPIURLIsSetAndNoDatabaseIsThere(t *testing.T) {
	t.Setenv("QL_API_URL", "https://127.0.0.1:1")
	dir := t.TempDir()
	code, _, stderr := ql(t, "retention", "run", "--dry-run", "--data-dir", dir)
	if code != 1 {
		t.Fatalf("exit %d, want 1 (stderr %q)", code, stderr)
	}
	_, can, _ := strings.Cut(stderr, "the commands that can: ")
	for _, want := range []string{"no QingLong database at", "$QL_API_URL is set, but ql retention run works on a database", "runs list", "runs logs", "runs cancel",
		"triggers list", "triggers show", "triggers pause", "triggers backfill", "triggers enable", "notifications retry", "apply"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr %q lacks %q", stderr, want)
		}
	}
	if strings.Contains(can, "retention") || strings.Contains(can, "tokens") {
		t.Errorf("stderr %q lists a command that cannot ask the API among those that can", stderr)
	}
	for _, args := range [][]string{{"runs", "list"}, {"runs", "logs", "0193a8a0-0000-7000-8000-00000000abcd"}, {"triggers", "pause", "tick"}, {"notifications", "retry", "0193a8a0-0000-7000-8000-00000000abcd"}} {
		code, _, stderr := ql(t, append(args, "--data-dir", dir)...)
		if strings.Contains(stderr, "works on a database") || code != 2 || !strings.Contains(stderr, "$QL_API_URL is set, so this command would ask that server's API") ||
			!strings.Contains(stderr, "unset QL_API_URL") {
			t.Errorf("%v --data-dir with $QL_API_URL set: exit %d %q; want exit 2 saying the variable and the flag are both given", args, code, stderr)
		}
	}
}

// Every command that takes --api-url has the token scope it needs listed
// (the hint for a missing token names it), and every command listed takes
// --api-url.
func TestEveryCommandWithAPIURLHasAScope(t *testing.T) {
	t.Parallel()
	full := Options{Binary: "ql", OpenPostgres: func(context.Context, string) (*Backend, error) { return nil, nil }}
	seen := map[string]bool{}
	for _, c := range allCommands(NewRoot(full)) {
		if c.Flags().Lookup("api-url") == nil {
			continue
		}
		path := remotePath(c)
		seen[path] = true
		if s, ok := remoteScopes[path]; !ok || !s.Valid() {
			t.Errorf("%s takes --api-url but remoteScopes gives it no scope", path)
		}
	}
	for path := range remoteScopes {
		if !seen[path] {
			t.Errorf("remoteScopes lists %s, which takes no --api-url", path)
		}
	}
}

func TestABackfillDryRunOfOneExistingRunSaysHasNotHave(t *testing.T) {
	t.Parallel()
	one := backfillReport("t", true, schedule.BackfillResult{Occurrences: 2, Admitted: 1, Existing: 1, FirstMs: 0, LastMs: 3_600_000})
	if !strings.HasSuffix(one, ", 1 would be admitted, 1 already has a run") {
		t.Errorf("report %q, want it to say that 1 already has a run", one)
	}
	two := backfillReport("t", true, schedule.BackfillResult{Occurrences: 2, Existing: 2, FirstMs: 0, LastMs: 3_600_000})
	if !strings.HasSuffix(two, ", 0 would be admitted, 2 already have a run") {
		t.Errorf("report %q, want it to say that 2 already have a run", two)
	}
}

// A number flag whose refusal names its range says that range in its
// help, so nobody learns it only by giving a value outside it.
func TestANumberFlagsHelpSaysTheRangeItsRefusalNames(t *testing.T) {
	t.Parallel()
	root := NewRoot(Options{Binary: "ql"})
	outside := regexp.MustCompile(`outside (\d+–\d+)`)
	for _, c := range []struct {
		args []string
		flag string
	}{
		{[]string{"cron", "next", "* * * * *", "--tz", "UTC"}, "count"},
		{[]string{"runs", "list"}, "limit"},
		{[]string{"triggers", "list"}, "limit"},
		{[]string{"triggers", "show", "t"}, "runs"},
		{[]string{"triggers", "show", "t"}, "ledger"},
		{[]string{"triggers", "backfill", "t", "--from", "2026-11-01T00:00:00Z", "--to", "2026-11-02T00:00:00Z"}, "max"},
		{[]string{"notifications", "list"}, "limit"},
	} {
		code, _, stderr := ql(t, append(c.args, "--"+c.flag, "0")...)
		m := outside.FindStringSubmatch(stderr)
		if code != 2 || m == nil {
			t.Fatalf("%v --%s 0: exit %d, stderr %q; want exit 2 naming the range", c.args, c.flag, code, stderr)
		}
		cmd, _, err := root.Find(c.args[:2])
		if err != nil {
			t.Fatal(err)
		}
		if usage := cmd.Flags().Lookup(c.flag).Usage; !strings.Contains(usage, m[1]) {
			t.Errorf("%s --%s: help %q does not name the range %s its refusal does", cmd.CommandPath(), c.flag, usage, m[1])
		}
	}
}

// runs list --state offers and accepts the states a Run can be in, as
// the store, the API and the console do: waiting_approval, which the
// schema keeps for approvals nothing enters, is refused saying so.
func TestRunsListStateRefusesWaitingApprovalAsTheAPIDoes(t *testing.T) {
	t.Parallel()
	code, _, stderr := ql(t, "runs", "list", "--state", "waiting_approval")
	if code != 2 || !strings.Contains(stderr, "no Run of this release is ever in it") || strings.Contains(stderr, "use one of created, queued, dispatching, running, waiting_approval") {
		t.Fatalf("exit %d stderr %q", code, stderr)
	}
	code, out, _ := ql(t, "runs", "list", "--help")
	if code != 0 || strings.Contains(out, "waiting_approval") || !strings.Contains(out, "retry_wait") {
		t.Fatalf("help exit %d %q; want the states a Run can be in, without waiting_approval", code, out)
	}
}
