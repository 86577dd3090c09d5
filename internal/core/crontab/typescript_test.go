package crontab

import (
	"strings"
	"testing"
)

// Given the scripts folder, the panel's task SCRIPT.ts runs as tsx
// SCRIPT.ts there, nothing downloading a runner at run time, and is noted
// once saying what to install, not npx (which would download one).
func TestAPanelsTypeScriptTaskRunsWithTsxNotingWhatToInstall(t *testing.T) {
	t.Parallel()
	res, err := Convert(strings.NewReader("0 1 * * * task jd_tool.ts now\n0 2 * * * task jd_other.ts\n"), Options{Zone: "UTC", ScriptsDir: "/srv/ql/scripts"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Entries) != 2 || res.Entries[0].Script != "tsx jd_tool.ts" || res.Entries[0].WorkingDir != "/srv/ql/scripts" || res.Entries[1].Script != "tsx jd_other.ts" {
		t.Fatalf("entries %+v, want tsx SCRIPT.ts run in the scripts folder", res.Entries)
	}
	notes := 0
	for _, p := range res.Problems {
		switch p.Code {
		case CodeTaskTypeScript:
			notes++
			if !strings.Contains(p.Why, "npm install -g tsx") || strings.Contains(p.Why, "npx") {
				t.Errorf("the TypeScript note %q: want what to install, no npx", p.Why)
			}
		case CodeTaskCommand:
			t.Errorf("line %d is reported as the panel's task command: %s", p.Line, p.Why)
		}
	}
	if notes != 1 {
		t.Errorf("%d TypeScript notes, want 1: %v", notes, res.Problems)
	}
}
