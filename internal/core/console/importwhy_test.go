package console

import (
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/crontab"
)

// Every line the crontab import reports is said in Chinese on a Chinese
// page, its values filled in: none falls back to the converter's English.
func TestEveryLineACrontabImportReportsIsSaidInChinese(t *testing.T) {
	t.Parallel()
	for _, code := range crontab.Codes {
		if _, ok := importWhy["zh"][code]; !ok && code != crontab.CodeSchedule {
			t.Errorf("crontab code %s has no Chinese sentence in importWhy", code)
		}
	}
	crontabs := map[bool]string{
		false: "MAILTO=me@example.com\nQL_X=1\nCRON_TZ=Mars/Olympus\nSHELL=/bin/zsh\nnot an entry\n@reboot /bin/true\n@fortnightly /bin/true\n" +
			"61 * * * * /bin/true\n* * * * * printf 'a%b'\n0 5 0 * * * task jd_bean_sign.js\n33 8 * * * ql repo https://example.com/owner/s.git\n0 1 * * * ql repo https://example.com/owner/s.git\n0 2 * * * ql repo https://example.com/s.git\n0 3 * * * ql repo https://example.com/owner/b.git \"\" \"\" \"\" /../../x\n0 4 * * * ql repo https://bot:t/k@example.com/owner/c.git\n0 5 * * * ql repo https://example.com/owner/d.git '' '' '' 'ma\u200bin'\n0 */6 * * * ql raw https://example.com/a.js\n0 7 * * * ql raw https://example.com/b\u202esj.js\n0 8 * * * ql raw https://bot:to/ken@example.com/c.js\n0 0 * * * ql repo\n57 13 * * * ID=11 ql rmlog 7\n15 0,12 * * * ql update\n" +
			"0 0 */2 * 1 /bin/true\n* * * * * root /bin/true\n# 0 0 7 * * * ID=7 task jd_speed.js\n0 0 8 * * * task jd_tool.ts\n0 0 9 * * * task jd_speed.js conc JD_COOKIE 1-3\n",
		true: "* * * * * -bad /bin/true\n* * * * * backup\n* * * * * backup /usr/local/bin/backup.sh\n",
	}
	seen := map[crontab.Code]bool{}
	for system, text := range crontabs {
		res, err := crontab.Convert(strings.NewReader(text), crontab.Options{Zone: "Asia/Shanghai", System: system, ScriptsDir: "/srv/ql/scripts"})
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range res.Problems {
			seen[p.Code] = true
			got := problemWhyIn("zh", p, false, false)
			if p.Code == crontab.CodeRawCharacter && !strings.Contains(got, "ql raw 的 URL 含有 U+202E") {
				t.Errorf("line %d (%s) in Chinese: %q; want the URL named", p.Line, p.Code, got)
			}
			if p.Code == crontab.CodeRepoCharacter && !strings.Contains(got, "ql repo 的分支含有 U+200B") {
				t.Errorf("line %d (%s) in Chinese: %q; want the field named in the form's word", p.Line, p.Code, got)
			}
			if got == p.Why || strings.Contains(got, "{") || strings.Contains(got, "cron fires") || strings.Contains(got, " is no ") || strings.Contains(got, "unknown") {
				t.Errorf("line %d (%s) in Chinese: %q", p.Line, p.Code, got)
			}
		}
	}
	for _, code := range crontab.Codes {
		if !seen[code] {
			t.Errorf("no line of the crontabs gave %s: the test misses it", code)
		}
	}
}

// The crontab import's English names the form's fields where the
// converter's sentence names a flag of `ql crontab convert`: the console
// has no --system or --account, only the "System crontab" box and the
// account field; the CLI's sentence keeps its flags.
func TestTheCrontabImportNamesTheFormsFieldsNotTheCommandsFlags(t *testing.T) {
	t.Parallel()
	crontabs := map[bool]string{
		false: "* * * * * root /bin/true\n",
		true:  "* * * * * -bad /bin/true\n* * * * * backup /usr/local/bin/backup.sh\n",
	}
	field := map[crontab.Code]string{
		crontab.CodeRootCommand: `"System crontab" ticked`,
		crontab.CodeNotAUser:    `"System crontab" unticked`,
		crontab.CodeRunAs:       `fill in "Account the server runs commands as" with backup`,
	}
	seen := 0
	for system, text := range crontabs {
		res, err := crontab.Convert(strings.NewReader(text), crontab.Options{Zone: "Asia/Shanghai", System: system})
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range res.Problems {
			want, ok := field[p.Code]
			if !ok {
				continue
			}
			seen++
			if !strings.Contains(p.Why, "--") {
				t.Errorf("the converter's own sentence for %s, %q, names no flag: the CLI's keeps them", p.Code, p.Why)
			}
			for _, l := range []string{"en", "zh"} {
				if got := problemWhyIn(l, p, false, false); strings.Contains(got, "--") || (l == "en" && !strings.Contains(got, want)) {
					t.Errorf("line %d (%s) in %s: %q; want the form's field named (%s), no flag", p.Line, p.Code, l, got, want)
				}
			}
		}
	}
	if seen != len(field) {
		t.Fatalf("the crontabs gave %d of the %d lines naming a flag", seen, len(field))
	}
}

// The crontab import form's own words (its labels, help and notes) name
// no command-line flag in any language: the console has none, and a
// field says what it does.
func TestTheCrontabImportFormsWordsNameNoFlag(t *testing.T) {
	t.Parallel()
	for l, words := range importMessages {
		for key, text := range words {
			if strings.HasPrefix(key, "imp.") && strings.Contains(text, "--") {
				t.Errorf("%s %s names a flag: %q", l, key, text)
			}
		}
	}
}

// Every script the Scripts page makes no task of is said in Chinese on a
// Chinese page: none falls back to the reader's English.
func TestEveryScriptMadeNoTaskOfIsSaidInChinese(t *testing.T) {
	t.Parallel()
	for _, code := range crontab.ScriptCodes {
		if _, ok := importWhy["zh"][code]; !ok {
			t.Errorf("script code %s has no Chinese sentence in importWhy", code)
		}
	}
}

// On the edge binary's console the import's sentences, in English and in
// Chinese, name no cluster or worker; a panel's rows are called rows
// (条记录) in them, a crontab's lines lines (行).
func TestOnEdgeTheImportsSentencesNameNoClusterAndAPanelsRowsAreRows(t *testing.T) {
	t.Parallel()
	const list = "0 5 0 * * * task jd_bean_sign.js\n33 8 * * * ql repo https://example.com/o/s.git\n0 1 * * * ql repo https://example.com/o/s.git\n" +
		"0 */6 * * * ql raw https://example.com/a.js\n* * * * * backup /usr/local/bin/backup.sh\n"
	for _, edge := range []bool{false, true} {
		o := crontab.Options{Zone: "Asia/Shanghai", ScriptsDir: "/srv/ql/scripts", Edge: edge}
		lines, err := crontab.Convert(strings.NewReader(list), o)
		if err != nil {
			t.Fatal(err)
		}
		system, err := crontab.Convert(strings.NewReader("* * * * * backup /usr/local/bin/backup.sh\n"), crontab.Options{Zone: "UTC", System: true, Edge: edge})
		if err != nil {
			t.Fatal(err)
		}
		var rows []crontab.Row
		for i, line := range strings.Split(list, "\n")[:4] {
			f := strings.Fields(line)
			rows = append(rows, crontab.Row{ID: i + 1, Schedule: strings.Join(f[:len(f)-2], " "), Command: strings.Join(f[len(f)-2:], " ")})
		}
		for _, c := range []struct {
			rows     bool
			problems []crontab.Problem
		}{{false, append(lines.Problems, system.Problems...)}, {true, crontab.ConvertRows(rows, o).Problems}} {
			for _, l := range []string{"en", "zh"} {
				named := false
				for _, p := range c.problems {
					got := problemWhyIn(l, p, c.rows, edge)
					cluster := strings.Contains(got, "cluster") || strings.Contains(got, "worker") || strings.Contains(got, "集群")
					named = named || cluster
					if edge && cluster {
						t.Errorf("rows %v, %s, on edge: %s names a cluster or worker: %s", c.rows, l, p.Code, got)
					}
					if p.Code == crontab.CodeSeconds || p.Code == crontab.CodeTaskInterpreter || p.Code == crontab.CodeRepoRepeated {
						unit := map[bool]map[string]string{false: {"en": "line", "zh": "行"}, true: {"en": "row", "zh": "条记录"}}[c.rows][l]
						if !strings.Contains(got, unit) || c.rows && strings.Contains(got, "此行") {
							t.Errorf("rows %v, %s: %s does not say %s: %s", c.rows, l, p.Code, unit, got)
						}
					}
				}
				if !edge && !named {
					t.Errorf("rows %v, %s, off edge: no sentence names a cluster: the test misses them", c.rows, l)
				}
			}
		}
	}
}
