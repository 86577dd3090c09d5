package crontab

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"testing/fstest"
)

// pulledRepository is a subscription's folder as the panel's users pull
// them: scripts whose header comments give their cron in each of the
// conventions the panel reads, Chinese titles, helpers without a cron.
var pulledRepository = map[string]string{
	"jd_bean.js": `/*
京东豆签到
cron "1 7-21/2 * * *" jd_bean.js, tag=京东豆
*/
const $ = new Env('京东豆签到');
`,
	"jd_fruit.js": `/*
[task_local]
#东东农场
5 6-18/6 * * * https://raw.example.com/o/r/main/jd_fruit.js, tag=东东农场, enabled=true
================Loon==============
[Script]
cron "5 6-18/6 * * *" script-path=https://raw.example.com/o/r/main/jd_fruit.js,tag=东东农场
*/
const $ = new Env("东东农场");
`,
	"jx_sign.py": `# -*- coding: utf-8 -*-
"""
cron: 0 0 * * *
new Env('京喜签到');
"""
print("sign")
`,
	"sub/jd_joy.js": `// Loon: cron "0 0 8,20 * * *" script-path=jd_joy.js, tag=宠汪汪
console.log(1)
`,
	"jd_tag.sh": `#!/usr/bin/env bash
# 15 3 * * 7 jd_tag.sh, tag=周日任务
echo hi
`,
	"sendNotify.js":  "module.exports = {}\n",
	"jd_no_cron.js":  "// v1.2 0 0 * * * released\nconsole.log('x')\n",
	"jd_bad.js":      "// cron: 61 * * * *\n",
	"jd_types.ts":    "// cron: 0 1 * * *\n",
	"backup_test.js": "// cron: 0 2 * * *\n",
	"README.md":      "cron: 0 0 * * * README.md\n",
	".git/x.js":      "// cron: 0 0 * * *\n",
}

// writeScripts writes files under a new folder and returns its path.
func writeScripts(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, text := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// Each script's header gives its task as the panel reads it: the cron
// before the script's name (the panel's, Quantumult X's and Loon's
// lines), else a cron: line, else cron "…", six fields with seconds
// first; the title new Env('…')'s, else the tag's; the command its
// interpreter (tsx for TypeScript) and the script, run in the script's
// folder.
func TestEachScriptsHeaderGivesItsTaskAsThePanelReadsIt(t *testing.T) {
	t.Parallel()
	dir := writeScripts(t, pulledRepository)
	res, _, err := Scripts(os.DirFS(dir), dir, ScriptOptions{Zone: "Asia/Shanghai"})
	if err != nil {
		t.Fatal(err)
	}
	type task struct{ title, cron, script, dir string }
	want := map[string]task{
		"jd_bean":     {"京东豆签到", "1 7-21/2 * * *", "node jd_bean.js", dir},
		"jd_fruit":    {"东东农场", "5 6-18/6 * * *", "node jd_fruit.js", dir},
		"jd_tag":      {"周日任务", "15 3 * * 0", "bash jd_tag.sh", dir},
		"jx_sign":     {"京喜签到", "0 0 * * *", "python3 -u jx_sign.py", dir},
		"sub-jd_joy":  {"宠汪汪", "0 0 8,20 * * *", "node jd_joy.js", filepath.Join(dir, "sub")},
		"backup_test": {"", "0 2 * * *", "node backup_test.js", dir},
		"jd_types":    {"", "0 1 * * *", "tsx jd_types.ts", dir},
	}
	got := map[string]task{}
	for _, e := range res.Entries {
		got[e.Name] = task{e.Title, e.Cron, e.Script, e.WorkingDir}
		if e.Timezone != "Asia/Shanghai" {
			t.Errorf("%s: zone %q", e.Name, e.Timezone)
		}
	}
	if len(got) != len(want) {
		t.Errorf("tasks %v, want %v", got, want)
	}
	for name, w := range want {
		if got[name] != w {
			t.Errorf("%s: %+v, want %+v", name, got[name], w)
		}
	}
}

// A script that gives no task — no cron in its header (a version number
// before its name is none), a cron refused — is listed with
// why; files of other extensions, hidden folders and node_modules are not
// read.
func TestAScriptWhoseHeaderGivesNoCronIsListedWithWhy(t *testing.T) {
	t.Parallel()
	dir := writeScripts(t, pulledRepository)
	_, skipped, err := Scripts(os.DirFS(dir), dir, ScriptOptions{Zone: "Asia/Shanghai"})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"jd_bad.js": "is refused", "jd_no_cron.js": "gives no cron", "sendNotify.js": "gives no cron"}
	if len(skipped) != len(want) {
		t.Errorf("skipped %+v, want %v", skipped, want)
	}
	for _, s := range skipped {
		if w, ok := want[s.Path]; !ok || !strings.Contains(s.Why, w) {
			t.Errorf("%s skipped: %s; want %q", s.Path, s.Why, w)
		}
	}
}

// The subscription's whitelist and blacklist, over the path under the
// folder, choose the scripts: those they leave out give no task and are
// not listed.
func TestTheWhitelistAndBlacklistChooseWhichScriptsBecomeTasks(t *testing.T) {
	t.Parallel()
	dir := writeScripts(t, pulledRepository)
	res, skipped, err := Scripts(os.DirFS(dir), dir, ScriptOptions{Zone: "Asia/Shanghai",
		Match: regexp.MustCompile(`jd_|jx_`), Exclude: regexp.MustCompile(`backup|test|_bad|no_cron|\.ts$`)})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range res.Entries {
		names = append(names, e.Name)
	}
	if strings.Join(names, " ") != "jd_bean jd_fruit jd_tag jx_sign sub-jd_joy" || len(skipped) != 0 {
		t.Errorf("tasks %v, skipped %+v; want the whitelisted scripts but the blacklisted, none listed", names, skipped)
	}
}

// Reading the same folder again, its files written in another order,
// prints the same file byte for byte, so applying it again publishes
// nothing new.
func TestReadingAnUnchangedScriptsFolderAgainGivesTheSameFile(t *testing.T) {
	t.Parallel()
	first := writeScripts(t, pulledRepository)
	second := filepath.Join(t.TempDir(), "again")
	if err := os.Rename(writeScripts(t, pulledRepository), second); err != nil {
		t.Fatal(err)
	}
	var outs [][]byte
	for _, dir := range []string{first, first, second} {
		res, _, err := Scripts(os.DirFS(dir), "/srv/scripts/o_r", ScriptOptions{Zone: "Asia/Shanghai"})
		if err != nil {
			t.Fatal(err)
		}
		out, err := res.Definitions("jd", testServer)
		if err != nil {
			t.Fatal(err)
		}
		outs = append(outs, out)
	}
	if !bytes.Equal(outs[0], outs[1]) || !bytes.Equal(outs[0], outs[2]) {
		t.Fatalf("the files differ:\n%s\n---\n%s\n---\n%s", outs[0], outs[1], outs[2])
	}
	if !bytes.HasPrefix(outs[0], []byte(ScriptsHeader)) || !strings.Contains(string(outs[0]), "  - name: jd_bean\n    title: 京东豆签到\n    script: node jd_bean.js\n    workingDir: /srv/scripts/o_r\n") {
		t.Errorf("file:\n%s\nwant the scripts' header and jd_bean's task", outs[0])
	}
}

// Only a script's first HeaderBytes are read for its header: a cron on a
// line within them is found, one on a line past them is not, so that a
// bundled script of megabytes is not read whole.
func TestAHeaderIsReadOnlyFromAScriptsFirstPart(t *testing.T) {
	t.Parallel()
	filler := strings.Repeat("// "+strings.Repeat("x", 60)+"\n", HeaderBytes/64)
	within := filler[:len(filler)-64*16] + "// cron: 5 6 * * *\n" + strings.Repeat("code();\n", 1000)
	past := filler + "// cron: 5 6 * * *\n"
	if len(within) <= HeaderBytes || len(past) <= HeaderBytes || strings.Index(within, "cron:") >= HeaderBytes-64 || strings.Index(past, "cron:") < HeaderBytes {
		t.Fatalf("the scripts are not laid out as the test needs: %d, %d bytes", len(within), len(past))
	}
	res, skipped, err := Scripts(fstest.MapFS{"within.js": {Data: []byte(within)}, "past.js": {Data: []byte(past)}}, "/srv/scripts", ScriptOptions{Zone: "UTC"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Entries) != 1 || res.Entries[0].Name != "within" || res.Entries[0].Cron != "5 6 * * *" {
		t.Errorf("entries %+v; want within.js's header read", res.Entries)
	}
	if len(skipped) != 1 || skipped[0].Path != "past.js" || skipped[0].Code != CodeScriptNoCron {
		t.Errorf("skipped %+v; want past.js, its cron past the first %d bytes unread", skipped, HeaderBytes)
	}
}

// A script whose name starts with '-' (a pulled repository's -x.js)
// becomes a task running ./-x.js, so that node runs it rather than read
// it as an option; the other scripts' commands stay as they were.
func TestAScriptNamedLikeAnOptionBecomesATaskRunningItAsAFile(t *testing.T) {
	t.Parallel()
	dir := writeScripts(t, map[string]string{"-x.js": "// cron: 0 1 * * *\n", "sub/--inspect.py": "# cron: 0 2 * * *\n", "jd_bean.js": "// cron: 0 3 * * *\n"})
	res, _, err := Scripts(os.DirFS(dir), dir, ScriptOptions{Zone: "Asia/Shanghai"})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, e := range res.Entries {
		got[e.Name] = e.Script
	}
	want := map[string]string{"x": "node ./-x.js", "sub-inspect": "python3 -u ./--inspect.py", "jd_bean": "node jd_bean.js"}
	for name, script := range want {
		if got[name] != script {
			t.Errorf("task %s runs %q; want %q (all: %v)", name, got[name], script, got)
		}
	}
}
