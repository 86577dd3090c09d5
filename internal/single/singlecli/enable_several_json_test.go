package singlecli

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/view"
)

// triggers disable and enable given several names with -o json print one
// JSON document, {"triggers": [...]}, the answer of each trigger done in
// the order given, the refused one said on stderr only; one name prints
// its answer alone, as the API answers it.
func TestTriggersDisableOfSeveralNamesPrintsOneJSONDocument(t *testing.T) {
	t.Parallel()
	dir := installedDir(t)
	if code, out, errOut := ql(t, "apply", "-f", writeFile(t, dir, "m.yaml", projectFile("demo", "a", "b")), "--data-dir", dir); code != 0 {
		t.Fatalf("apply: %d %q %q", code, out, errOut)
	}
	ids := map[string]string{"a": showJSON(t, dir, "a").Trigger.TriggerID, "b": showJSON(t, dir, "b").Trigger.TriggerID}
	code, out, errOut := ql(t, "triggers", "disable", "b", "nope", "demo/a", "-o", "json", "--data-dir", dir)
	if code != 1 || !strings.Contains(errOut, "trigger nope: not disabled: ") {
		t.Fatalf("disable b nope demo/a -o json: exit %d %q %q; want exit 1, nope refused by name", code, out, errOut)
	}
	var several view.TriggerEnables
	dec := json.NewDecoder(strings.NewReader(out))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&several); err != nil {
		t.Fatalf("disable of several -o json printed %q: %v", out, err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		t.Fatalf("disable of several -o json printed more than one document: %q", out)
	}
	if len(several.Triggers) != 2 || several.Triggers[0].TriggerID != ids["b"] || several.Triggers[1].TriggerID != ids["a"] ||
		several.Triggers[0].Enabled || several.Triggers[1].Enabled || !several.Triggers[0].Changed {
		t.Errorf("disable b nope demo/a -o json: %+v; want b then a, each disabled", several.Triggers)
	}
	code, out, errOut = ql(t, "triggers", "enable", "a", "-o", "json", "--data-dir", dir)
	var one view.TriggerEnable
	dec = json.NewDecoder(bytes.NewReader([]byte(out)))
	dec.DisallowUnknownFields()
	if code != 0 || dec.Decode(&one) != nil || one.TriggerID != ids["a"] || !one.Enabled {
		t.Fatalf("enable a -o json: exit %d %q %q; want trigger a's answer alone", code, out, errOut)
	}
}
