package crontab

import (
	"slices"
	"strings"
	"testing"
)

// everyProblem is a crontab with a line of every kind the converter
// reports, read as a user crontab (system false) or a system one.
var everyProblem = map[bool]string{
	false: `MAILTO=me@example.com
QL_X=1
CRON_TZ=Mars/Olympus
SHELL=/bin/zsh
not an entry
@reboot /bin/true
@fortnightly /bin/true
61 * * * * /bin/true
* * * * * printf 'a%b'
0 5 0 * * * task jd_bean_sign.js
33 8 * * * ql repo https://example.com/owner/scripts.git
0 */6 * * * ql raw https://example.com/a.js
0 7 * * * ql raw https://example.com/b` + "\u202e" + `sj.js
0 8 * * * ql raw https://bot:to/ken@example.com/c.js
0 0 * * * ql repo
0 1 * * * ql repo https://example.com/owner/scripts.git
0 2 * * * ql repo https://example.com/scripts.git
0 3 * * * ql repo https://example.com/owner/scripts.git "" "" "" /../../x
0 4 * * * ql repo https://bot:t/k@example.com/owner/c.git
0 5 * * * ql repo https://example.com/owner/d.git '' '' '' 'ma` + "\u200b" + `in'
57 13 * * * ID=11 ql rmlog 7
15 0,12 * * * ql update
0 0 */2 * 1 /bin/true
* * * * * root /bin/true
# 0 0 7 * * * ID=7 task jd_speed.js
0 0 8 * * * task jd_tool.ts
0 0 9 * * * task jd_speed.js conc JD_COOKIE 1-3
`,
	true: `* * * * * -bad /bin/true
* * * * * backup
* * * * * backup /usr/local/bin/backup.sh
`,
}

// Every line the converter reports says which sentence its Why is, one of
// Codes, with the params that sentence names, so that the console words
// each in Chinese and no report is left in English alone.
func TestEveryLineTheConverterReportsSaysWhichSentenceItIs(t *testing.T) {
	t.Parallel()
	seen := map[Code]bool{}
	for system, text := range everyProblem {
		res, err := Convert(strings.NewReader(text), Options{Zone: "Asia/Shanghai", System: system, ScriptsDir: "/srv/ql/scripts"})
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range res.Problems {
			if !slices.Contains(Codes, p.Code) {
				t.Errorf("%s: code %q is none of Codes", p, p.Code)
			}
			if (p.Code == CodeSchedule || p.Code == CodeZoneKept) && p.Err == nil {
				t.Errorf("%s: no refusal to word it with", p)
			}
			seen[p.Code] = true
		}
	}
	for _, c := range Codes {
		if !seen[c] {
			t.Errorf("no line of the crontabs gave %s: the test misses it", c)
		}
	}
}
