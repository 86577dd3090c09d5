package console

import (
	"fmt"
	"os"
	"slices"
	"sync"
	"testing"

	"github.com/qinglong/qinglong/internal/testkit/leakcheck"
)

func TestMain(m *testing.M) {
	missingKey = asked.add
	code := m.Run()
	if keys := asked.keys(); len(keys) > 0 && code == 0 {
		fmt.Fprintf(os.Stderr, "the pages asked for words no language has, which they showed as nothing: %q; add each to both catalogues (i18n*.go), or mend its spelling\n", keys)
		code = 1
	}
	if code == 0 {
		if err := leakcheck.Check(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			code = 1
		}
	}
	os.Exit(code)
}

// missingKeys are the keys tr was asked for that no language has
// (missingKey), while the package's tests ran.
type missingKeys struct {
	mu  sync.Mutex
	set map[string]bool
}

var asked = &missingKeys{set: map[string]bool{}}

func (m *missingKeys) add(key string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.set[key] = true
}

// take reports whether key was asked for, and forgets it.
func (m *missingKeys) take(key string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	was := m.set[key]
	delete(m.set, key)
	return was
}

func (m *missingKeys) keys() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []string
	for k := range m.set {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
