package view

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/cmdname"
	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/core/trigger"
)

// A trigger whose next fire this server cannot work out (a stored zone
// the zone database of its host lacks) says why in its refusal's words,
// whose command is named as the binary serving the answer names it:
// ql-edge's API tells its client to run `ql-edge apply`, in the triggers
// listing and in the trigger's detail alike, never ql's.
func TestANextFireNotWorkedOutNamesItsCommandAsTheBinaryServingIt(t *testing.T) {
	st := schedule.TriggerStatus{ProjectName: "demo", TriggerID: "0190a4f2-0000-7000-8000-000000000001", Name: "nightly",
		Cron: trigger.Cron{Expression: "0 3 * * *", Timezone: "Mars/Olympus"}}
	detail, err := NewTriggerDetail(schedule.TriggerDetail{TriggerStatus: st}, nil, "", 10)
	if err != nil {
		t.Fatal(err)
	}
	for name, answer := range map[string]any{
		"the listing": NewTriggerList([]schedule.TriggerStatus{st}, "", nil),
		"the detail":  detail,
	} {
		b, err := json.Marshal(cmdname.InAnswer("ql-edge", answer))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), `this server does not know its time zone \"Mars/Olympus\"`) ||
			!strings.Contains(string(b), "`ql-edge apply -f FILE`") || strings.Contains(string(b), "`ql apply") {
			t.Errorf("%s as ql-edge answers it: %s; want why no next fire is worked out, naming `ql-edge apply -f FILE`", name, b)
		}
	}
}
