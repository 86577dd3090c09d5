package storetest

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/qinglong/qinglong/internal/core/apply"
	"github.com/qinglong/qinglong/internal/core/process"
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

// testSecretListing: a listing holds every name the file defines and
// every name the definitions use, each said defined or not; without a
// database it holds the file's names alone and says the uses are unknown.
func testSecretListing(t *testing.T, f Fixture) {
	applyFile(t, f, parse(t, "rich.yaml", []byte(EveryField)))
	file := process.Secrets{Path: filepath.Join(t.TempDir(), "secrets.json")}
	for _, name := range []string{"api-token", "unused-one"} {
		if _, err := file.Set(name, "v3ry-s3cret"); err != nil {
			t.Fatal(err)
		}
	}
	l, err := apply.ListSecrets(t.Context(), f.Definitions, file)
	if err != nil || !l.UsesKnown || !l.Complete || l.File != file.Path {
		t.Fatalf("listing: %+v, %v", l, err)
	}
	var got []string
	for _, e := range l.Secrets {
		got = append(got, fmt.Sprintf("%s:%v:%d", e.Name, e.Defined, len(e.UsedBy)))
	}
	if w := "api-token:true:1 hook-key:false:1 hook-token:false:1 tg-url:false:1 unused-one:true:0"; strings.Join(got, " ") != w {
		t.Fatalf("listing %v, want %s", got, w)
	}
	alone, err := apply.ListSecrets(t.Context(), nil, file)
	if err != nil || alone.UsesKnown || len(alone.Secrets) != 2 || alone.Secrets[0].Name != "api-token" || alone.Secrets[1].Name != "unused-one" {
		t.Fatalf("listing without definitions: %+v, %v", alone, err)
	}
}
