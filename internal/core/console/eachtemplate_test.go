package console

import (
	"io/fs"
	"testing"
)

// eachTemplate calls check with the name and the text of every page
// template the console serves; finding none fails t, so a check of them
// all cannot pass by checking nothing.
func eachTemplate(t *testing.T, check func(name, page string)) {
	t.Helper()
	names, err := fs.Glob(assets, "assets/*.html")
	if err != nil || len(names) == 0 {
		t.Fatalf("no templates found: %v", err)
	}
	for _, name := range names {
		b, err := fs.ReadFile(assets, name)
		if err != nil {
			t.Fatal(err)
		}
		check(name, string(b))
	}
}
