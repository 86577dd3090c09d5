package qlimport

import (
	"bytes"
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/crontab"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/testkit/qlpanel"
)

func planOf(t *testing.T, dir string) (Plan, string) {
	t.Helper()
	p, err := Read(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	pl := Make(p, Options{Project: "jd", Convert: crontab.Options{Zone: "Asia/Shanghai", ScriptsDir: "/srv/ql/scripts", Binary: "ql"}})
	file, err := pl.Definitions.Definitions("jd", crontab.Server{Binary: "ql", Concurrency: "by default 1"})
	if err != nil {
		t.Fatal(err)
	}
	return pl, string(file)
}

// A panel's tasks, and their triggers, keep their Chinese names as
// titles, their commands as
// the crontab converter writes them, their 6-field crons and their
// disabled state; its subscriptions become labelled pull tasks; its
// labels are kept.
func TestAPanelsTasksAndTheirTriggersAreTitledWithItsNames(t *testing.T) {
	t.Parallel()
	_, file := planOf(t, qlpanel.Write(t, t.TempDir(), qlpanel.Schema, qlpanel.Rows))
	for _, want := range []string{
		"  - name: jd_bean_sign\n    title: 京东签到\n    script: node jd_bean_sign.js\n    workingDir: /srv/ql/scripts\n    labels:\n      qinglong/labels: 京东,签到\n",
		"  - name: jd_bean_sign\n    title: 京东签到\n    task: jd_bean_sign\n    cron: 0 5 0 * * *\n    timezone: Asia/Shanghai\n",
		"  - name: jd_fruit\n    title: 东东农场\n    task: jd_fruit\n    cron: 15 8,20 * * *\n    timezone: Asia/Shanghai\n    enabled: false\n",
		"    title: 每日报告\n    script: python3 /ql/scripts/report.py --date $(date +%F)\n",
		"    title: Faker仓库\n", "      subscription/url: https://github.com/shufflewzc/faker2.git\n", "      subscription/match: jd_|jx_\n",
		"    title: 通知脚本\n",
		"env:\n  JD_COOKIE:\n    secret: jd/JD_COOKIE\n",
	} {
		if !strings.Contains(file, want) {
			t.Errorf("the file lacks %q:\n%s", want, file)
		}
	}
	if strings.Contains(file, "rmlog") || strings.Contains(file, "OLD_TOKEN") || strings.Contains(file, "pt_key") {
		t.Errorf("the file holds the panel's log upkeep, a disabled variable or a value:\n%s", file)
	}
}

// A variable's enabled values are joined by "&" as the panel's env.sh
// joins them, lines kept; its disabled ones go in a secret given to no
// task; a name no shell takes and a value too short to mask are listed
// as not converted, as is a subscription pulled at an interval and a
// removed dependency.
func TestAPanelsVariablesBecomeSecretsAndItsDependenciesPackages(t *testing.T) {
	t.Parallel()
	pl, _ := planOf(t, qlpanel.Write(t, t.TempDir(), qlpanel.Schema, qlpanel.Rows))
	got := map[string]Secret{}
	for _, s := range pl.Secrets {
		got[s.Name] = s
	}
	for name, want := range map[string]Secret{
		"jd/JD_COOKIE":          {Variable: "JD_COOKIE", Value: "pt_key=AAA;pt_pin=one;&pt_key=BBB;pt_pin=two;", Values: 2, Given: true},
		"jd/JD_COOKIE.disabled": {Variable: "JD_COOKIE", Value: "pt_key=CCC;pt_pin=old;", Values: 1},
		"jd/MULTI_LINE":         {Variable: "MULTI_LINE", Value: "line one\nline two", Values: 1, Given: true},
		"jd/JOINED":             {Variable: "JOINED", Value: "pt_key=X1;&pt_key=Y2;", Values: 1, Given: true},
		"jd/OLD_TOKEN.disabled": {Variable: "OLD_TOKEN", Value: "tok-0123456789", Values: 1},
	} {
		s, ok := got[name]
		if !ok || s.Variable != want.Variable || s.Value != want.Value || s.Values != want.Values || s.Given != want.Given {
			t.Errorf("secret %s: %+v, want %+v", name, s, want)
		}
	}
	if len(got) != 5 {
		t.Errorf("%d secrets, want 5: %v", len(got), pl.Secrets)
	}
	if r := got["jd/JD_COOKIE"].Remarks; strings.Join(r, ";") != "账号一;账号二" {
		t.Errorf("JD_COOKIE's remarks %v", r)
	}
	if env := pl.Definitions.ProjectSecrets; len(env) != 3 || env["OLD_TOKEN"] != "" {
		t.Errorf("the project's env %v: want JD_COOKIE, MULTI_LINE and JOINED only", env)
	}
	var specs []string
	for _, d := range pl.Dependencies {
		specs = append(specs, string(d.Kind)+" "+d.Spec)
	}
	if strings.Join(specs, ", ") != "node axios, python requests==2.31.0, linux curl" {
		t.Errorf("dependencies %v", specs)
	}
	var skipped []string
	for _, it := range pl.Skipped {
		skipped = append(skipped, it.Ref.String())
	}
	if strings.Join(skipped, ", ") != "subscription 3 (私有仓库), env SHORT, env bad-name, dependency 4 (left-pad)" {
		t.Errorf("not converted: %v", skipped)
	}
	for _, p := range pl.Definitions.Problems {
		if p.Kind == crontab.NotConverted && pl.Refs[p.Line-1].String() != "task 3 (删除日志)" {
			t.Errorf("not converted: %s: %s", pl.Refs[p.Line-1], p.Why)
		}
	}
}

// The panel's database is opened read-only and immutable: a folder and
// file nobody may write are read, and nothing in the folder changes, no
// journal or lock file appears beside the database; and a panel holding
// the database's exclusive lock, which keeps every other reader out, does
// not keep this one out.
func TestTheImportNeverWritesThePanelsDatabase(t *testing.T) {
	t.Parallel()
	data := qlpanel.Write(t, t.TempDir(), qlpanel.Schema, qlpanel.Rows)
	db := filepath.Join(data, DBFile)
	before, err := os.ReadFile(db)
	if err != nil {
		t.Fatal(err)
	}
	st, _ := os.Stat(db)
	for _, p := range []string{db, filepath.Dir(db)} {
		mode := os.FileMode(0o444)
		if p != db {
			mode = 0o555
		}
		if err := os.Chmod(p, mode); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() { _ = os.Chmod(filepath.Dir(db), 0o755) })
	panel, err := sql.Open("sqlite", db)
	if err != nil {
		t.Fatal(err)
	}
	defer panel.Close()
	panel.SetMaxOpenConns(1)
	if _, err := panel.Exec("BEGIN EXCLUSIVE"); err != nil {
		t.Fatal(err)
	}
	other, err := sql.Open("sqlite", db)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if _, err := other.Exec("PRAGMA busy_timeout = 0; SELECT count(*) FROM Crontabs"); err == nil {
		t.Fatal("a plain reader read while the panel held its exclusive lock: the lock was not taken")
	}
	if _, err := Read(context.Background(), data); err != nil {
		t.Fatalf("read of a read-only panel folder whose database the panel holds locked: %v", err)
	}
	if _, err := panel.Exec("ROLLBACK"); err != nil {
		t.Fatal(err)
	}
	after, _ := os.ReadFile(db)
	st2, _ := os.Stat(db)
	entries, _ := os.ReadDir(filepath.Dir(db))
	if !bytes.Equal(before, after) || !st.ModTime().Equal(st2.ModTime()) || len(entries) != 1 {
		t.Fatalf("the panel's database changed, or files appeared beside it: %v", entries)
	}
}

// A folder that is not a panel's, a database of a panel version lacking
// a column, a file that is no database, and a database being written
// are refused whole, each with its reason.
func TestWhatIsNoPanelsReadableDatabaseIsRefusedSayingWhy(t *testing.T) {
	t.Parallel()
	old := strings.Replace(qlpanel.Schema, "`isDisabled` NUMBER, ", "", 1)
	oldRows := "INSERT INTO Crontabs (id, name, command, schedule, createdAt, updatedAt) VALUES (1, 'a', 'true', '* * * * *', '2024-01-01', '2024-01-01');"
	busyDir := qlpanel.Write(t, t.TempDir(), qlpanel.Schema, qlpanel.Rows)
	if err := os.WriteFile(filepath.Join(busyDir, DBFile+"-journal"), []byte("journal"), 0o644); err != nil {
		t.Fatal(err)
	}
	garbage := t.TempDir()
	if err := os.MkdirAll(filepath.Join(garbage, "db"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(garbage, DBFile), bytes.Repeat([]byte("not sqlite "), 200), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, dir string
		reason    qlerror.Reason
		says      string
	}{
		{"an empty folder", t.TempDir(), RefusalNotPanel, "holds no db/database.sqlite"},
		{"no folder", filepath.Join(t.TempDir(), "absent"), RefusalNotPanel, "no such folder"},
		{"no database", garbage, RefusalNotPanel, "is no SQLite database"},
		{"an unknown version", qlpanel.Write(t, t.TempDir(), old, oldRows), RefusalSchema, "no column isDisabled of table Crontabs"},
		{"a write in progress", busyDir, RefusalBusy, "database.sqlite-journal is beside the panel's database"},
	} {
		_, err := Read(context.Background(), c.dir)
		if qlerror.ReasonOf(err) != c.reason || !strings.Contains(err.Error(), c.says) {
			t.Errorf("%s: %v; want %s saying %q", c.name, err, c.reason, c.says)
		}
	}
}

// What the panel's config/config.sh sets with a value is listed by name
// with what to do instead: its notification keys, the variables it
// exports to every task, and its own settings; never a value, nor an
// empty key, a commented line or a variable not exported.
func TestThePanelsConfigIsListedByNameNeverByValue(t *testing.T) {
	t.Parallel()
	pl, _ := planOf(t, qlpanel.Write(t, t.TempDir(), qlpanel.Schema, qlpanel.Rows))
	var said []string
	for _, it := range pl.Notes {
		if it.Ref.Name == ConfigFile {
			said = append(said, it.Why)
		}
	}
	all := strings.Join(said, "\n")
	for _, want := range []string{"notification keys TG_BOT_TOKEN, TG_USER_ID, which QingLong does not take: give the project a notification channel",
		"exports MY_SCRIPT_FLAG to every task", "sets CommandTimeoutTime, the panel's own setting, which QingLong does not take: set the tasks' timeout",
		"sets AutoDelCron, the panel's own setting, which means nothing here"} {
		if !strings.Contains(all, want) {
			t.Errorf("the notes of config.sh lack %q:\n%s", want, all)
		}
	}
	for _, never := range []string{qlpanel.ConfigSecret, "42", "2h", "PUSH_KEY", "RandomDelay", "BARK_PUSH", "local_only", "="} {
		if strings.Contains(all, never) {
			t.Errorf("the notes of config.sh say %q:\n%s", never, all)
		}
	}
	if len(said) != 4 {
		t.Errorf("%d notes of config.sh, want 4:\n%s", len(said), all)
	}
}
