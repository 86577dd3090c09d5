package storetest

import (
	"fmt"
	"testing"

	"github.com/qinglong/qinglong/internal/core/apply"
)

// testSecretUses: every secret the current definitions refer to is listed
// with each task variable and channel that refers to it, an archived
// project's marked, and a reference a newer revision dropped is gone.
func testSecretUses(t *testing.T, f Fixture) {
	applyFile(t, f, parse(t, "rich.yaml", []byte(EveryField)))
	applyFile(t, f, parse(t, "old.yaml", []byte("project: old\ntasks:\n  - {name: t, command: [/bin/true], env: {K: {secret: api-token}, DROP: {secret: dropped}}}\n")))
	applyFile(t, f, parse(t, "old2.yaml", []byte("project: old\ntasks:\n  - {name: t, command: [/bin/true], env: {K: {secret: api-token}}}\n")))
	applyFile(t, f, parse(t, "old3.yaml", []byte("project: old\nstatus: archived\n")))
	uses, complete, err := apply.SecretUses(t.Context(), f.Definitions)
	if err != nil || !complete {
		t.Fatalf("secret uses: complete=%v err=%v", complete, err)
	}
	want := map[string]string{
		"api-token":  "[{old task t K true} {rich task zeta-argv A false}]",
		"hook-key":   "[{rich channel hook  false}]",
		"hook-token": "[{rich channel hook  false}]",
		"tg-url":     "[{rich channel tg  false}]",
	}
	if len(uses) != len(want) {
		t.Errorf("uses of %d secrets, want %d: %v", len(uses), len(want), uses)
	}
	for name, w := range want {
		if got := fmt.Sprint(uses[name]); got != w {
			t.Errorf("uses of %s: %s, want %s", name, got, w)
		}
	}
}
