package console

import (
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/run"
)

// A queued Run of an archived project says on its page, in English and in
// Chinese, that its project is archived and how to make it start.
func TestTheRunPageSaysAQueuedRunsProjectIsArchived(t *testing.T) {
	w := &run.Waiting{Reason: run.WaitProjectArchived, Project: "gamma"}
	for lang, want := range map[string]string{
		"en": "Project gamma is archived; this run starts once the project is active again",
		"zh": "项目 gamma 已归档",
	} {
		if got := waitingText(lang, w); !strings.Contains(got, want) {
			t.Errorf("%s: %q, want %q", lang, got, want)
		}
	}
}
