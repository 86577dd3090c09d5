package scripts

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// A folder listed a page at a time gives every entry once, in the whole
// listing's order: folders (a link to a folder inside among them) first,
// then files (a link leading outside among them), each by name.
func TestAPagedListingGivesEveryEntryOnceInTheListingsOrder(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, d := range []string{"b", "d"} {
		if err := os.Mkdir(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"a.js", "c.js", "e.js"} {
		if err := os.WriteFile(filepath.Join(dir, f), []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("d", filepath.Join(dir, "c-link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(t.TempDir(), filepath.Join(dir, "b-out")); err != nil {
		t.Fatal(err)
	}
	f := &Folder{Dir: dir}
	whole, err := f.List("")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"b", "c-link", "d", "a.js", "b-out", "c.js", "e.js"}
	if names := namesOf(whole); !slices.Equal(names, want) {
		t.Fatalf("the whole listing is %v, want %v", names, want)
	}
	var got []string
	after := ""
	for pages := 0; ; pages++ {
		page, err := f.ListPage("", after, 2)
		if err != nil {
			t.Fatal(err)
		}
		if page.Total != len(want) || len(page.Entries) > 2 || pages > len(want) {
			t.Fatalf("page %d: %d entries of %d, want at most 2 of %d", pages, len(page.Entries), page.Total, len(want))
		}
		got = append(got, namesOf(page.Entries)...)
		if after = page.Next; after == "" {
			break
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("pages of 2 listed %v, want %v", got, want)
	}
}

func namesOf(entries []Entry) []string {
	out := make([]string, 0, len(entries))
	for _, e := range entries {
		out = append(out, e.Name)
	}
	return out
}
