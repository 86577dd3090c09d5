package qlimport

import (
	"slices"
	"testing"

	"github.com/qinglong/qinglong/internal/testkit/qlpanel"
)

// Every item the import notes or leaves out says which sentence its Why
// is, one of Codes, with the params that sentence names, so that the
// console words each in Chinese; a refusal's words come with its error.
func TestEveryItemTheImportNotesSaysWhichSentenceItIs(t *testing.T) {
	t.Parallel()
	pl, _ := planOf(t, qlpanel.Write(t, t.TempDir(), qlpanel.Schema, qlpanel.Rows))
	for _, it := range append(slices.Clone(pl.Skipped), pl.Notes...) {
		if !slices.Contains(Codes, it.Code) {
			t.Errorf("%s: code %q is none of Codes: %s", it.Ref, it.Code, it.Why)
		}
		if (it.Code == CodeSecretValue || it.Code == CodeDependencySpec) != (it.Err != nil) {
			t.Errorf("%s (%s): refusal %v", it.Ref, it.Code, it.Err)
		}
	}
}
