package console

import (
	"fmt"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/core/view"
)

// A backlog of a project at its maxRunning is said on the console, in
// English and Chinese, as queued behind the project's cap with the advice
// to raise maxRunning, not to raise the slots, which would start none of
// its Runs.
func TestTheConsoleSaysABacklogOfAProjectAtItsCapWaitsForTheCap(t *testing.T) {
	capped := run.Last{Queued: view.BacklogAt, Project: "team", MaxRunning: 2, ProjectRunning: 2,
		SlotHolders: []run.SlotHolder{{TriggerID: "other", Project: "team", Trigger: "runaway", Runs: 2}}}
	for lang, want := range map[string]string{"en": "behind the cap of project team", "zh": "因为项目 team 同时运行的运行数已达到它的 maxRunning 上限"} {
		lines := warningLines(lang, view.Cron{}, capped)
		if len(lines) != 1 || lines[0].Key != "trig.warn.backlog.capped" || lines[0].Held != "team" {
			t.Fatalf("%s: %+v; want the capped backlog naming team", lang, lines)
		}
		text := fmt.Sprintf(tr(lang, lines[0].Key), lines[0].N, lines[0].Of, lines[0].Held)
		if !strings.Contains(text, want) || !strings.Contains(text, "maxRunning") || strings.Contains(text, "--concurrency") {
			t.Errorf("%s: %q; want %q, the advice to raise maxRunning and nothing of --concurrency", lang, text, want)
		}
	}
}
