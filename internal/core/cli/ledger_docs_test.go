package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"

	"github.com/qinglong/qinglong/internal/core/view"
)

// TestTheDocsWholeLedgerValueIsTheBinarys: every `--ledger N` the README
// and docs/ give is the whole ledger, view.MaxLedgerShown (derived from
// schedule.LedgerKeep and the reasons), so a change of either cannot leave
// the docs naming a value that shows less, or that the flag refuses.
func TestTheDocsWholeLedgerValueIsTheBinarys(t *testing.T) {
	files, err := filepath.Glob("../../../docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	flag := regexp.MustCompile(`--ledger (\d+)`)
	found := 0
	for _, f := range append(files, "../../../README.md") {
		text, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range flag.FindAllSubmatch(text, -1) {
			found++
			if n, _ := strconv.Atoi(string(m[1])); n != view.MaxLedgerShown {
				t.Errorf("%s gives --ledger %d; the whole ledger is --ledger %d", filepath.Base(f), n, view.MaxLedgerShown)
			}
		}
	}
	if found == 0 {
		t.Fatal("no --ledger N found in README.md or docs/; the test reads the wrong files")
	}
}
