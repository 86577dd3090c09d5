package crontab

import (
	"strings"
	"testing"
)

// A system crontab (/etc/crontab, /etc/cron.d) names the user of each
// entry between its schedule and its command: read as one, the user
// becomes the task's runAs (noted once per user, since switching accounts
// needs a server started as root) and never part of the command; the
// account the server runs commands as gets no runAs; a user column that is
// no user name (a user crontab given as a system one) is refused with its
// line; and a user crontab whose command starts with root is noted as
// maybe a system crontab.
func TestASystemCrontabsUserBecomesTheTasksRunAsAndNotPartOfItsCommand(t *testing.T) {
	t.Parallel()
	const file = "17 *\t* * *\troot    cd / && run-parts --report /etc/cron.hourly\n" +
		"*/5 * * * * www-data /usr/bin/php /var/www/cron.php\n" +
		"@daily root /opt/backup.sh\n" +
		"0 3 * * * ops /opt/ops.sh\n" +
		"0 4 * * * /opt/nouser.sh\n"
	res, err := Convert(strings.NewReader(file), Options{Zone: "UTC", System: true, Account: "ops"})
	if err != nil {
		t.Fatal(err)
	}
	type got struct {
		line          int
		runAs, script string
	}
	var entries []got
	for _, e := range res.Entries {
		entries = append(entries, got{e.Line, e.RunAs, e.Script})
	}
	want := []got{{1, "root", "cd / && run-parts --report /etc/cron.hourly"}, {2, "www-data", "/usr/bin/php /var/www/cron.php"}, {3, "root", "/opt/backup.sh"}, {4, "", "/opt/ops.sh"}}
	if len(entries) != len(want) {
		t.Fatalf("entries %+v, want %+v", entries, want)
	}
	for i := range want {
		if entries[i] != want[i] {
			t.Errorf("entry %d: %+v, want %+v", i, entries[i], want[i])
		}
	}
	var notes, refused []int
	for _, p := range res.Problems {
		switch p.Kind {
		case Noted:
			if !strings.Contains(p.Why, "(runAs)") || !strings.Contains(p.Why, "started as root") {
				t.Errorf("note: %s", p)
			}
			notes = append(notes, p.Line)
		case NotConverted:
			if !strings.Contains(p.Why, `"/opt/nouser.sh" is no user name`) || !strings.Contains(p.Why, "without --system") {
				t.Errorf("refusal: %s", p)
			}
			refused = append(refused, p.Line)
		default:
			t.Errorf("problem: %s", p)
		}
	}
	if len(notes) != 2 || notes[0] != 1 || notes[1] != 2 || len(refused) != 1 || refused[0] != 5 {
		t.Errorf("notes on lines %v, refusals on lines %v; want runAs noted on lines 1 and 2 (root, www-data: once each) and line 5 refused", notes, refused)
	}
	out, err := res.Definitions("ops", testServer)
	if err != nil {
		t.Fatal(err)
	}
	if text := string(out); !strings.Contains(text, "    script: /usr/bin/php /var/www/cron.php\n    runAs:\n      user: www-data\n") ||
		!strings.Contains(text, "  - name: ops\n    script: /opt/ops.sh\n") || strings.Contains(text, "www-data /usr/bin/php") {
		t.Errorf("definitions:\n%s\nwant www-data's task to run as www-data, the server account's without runAs", text)
	}

	user, err := Convert(strings.NewReader("17 * * * * root run-parts /etc/cron.hourly\n"), Options{Zone: "UTC"})
	if err != nil {
		t.Fatal(err)
	}
	if len(user.Problems) != 1 || user.Problems[0].Kind != Noted || !strings.Contains(user.Problems[0].Why, "convert it with --system") {
		t.Errorf("a user crontab's entry starting with root: problems %+v; want a note pointing at --system", user.Problems)
	}
}
