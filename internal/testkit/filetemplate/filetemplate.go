// Package filetemplate builds a file once per test process and gives every
// test that asks for it a copy of its own. A migrated SQLite database is
// the case it exists for: migrating one costs about half a second of CPU
// under the race detector, and a package that opens a fresh database per
// test spent half of its run migrating instead of testing. The copy is
// byte for byte what the preparation left, so a test sees the same file it
// would have built itself.
package filetemplate

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// prepareLimit bounds one preparation; a migration that hangs fails every
// test waiting for it instead of the whole test binary's timeout.
const prepareLimit = 2 * time.Minute

type template struct {
	once sync.Once
	data []byte
	err  error
}

var (
	templatesMu sync.Mutex
	templates   = map[string]*template{}
)

// Prepare builds the file at path; it runs once per key and process, in a
// directory of its own that is removed afterwards, and must leave the
// whole content in that one file (a SQLite database closed, so that its
// write-ahead log is folded back in).
type Prepare func(ctx context.Context, path string) error

// CopyTo creates dst (which must not exist) as a copy of the file prepare
// built for key, private to its owner (mode 0600, as QingLong creates its
// database files). A failed preparation fails every test that asks for the
// key, with its error.
func CopyTo(t testing.TB, key string, prepare Prepare, dst string) {
	t.Helper()
	if err := copyTo(key, prepare, dst); err != nil {
		t.Fatalf("filetemplate: %v", err)
	}
}

func copyTo(key string, prepare Prepare, dst string) error {
	tpl := lookup(key)
	tpl.once.Do(func() { tpl.data, tpl.err = build(prepare) })
	if tpl.err != nil {
		return fmt.Errorf("preparing %q: %w", key, tpl.err)
	}
	if err := write(dst, tpl.data); err != nil {
		return fmt.Errorf("copying %q to %s: %w", key, dst, err)
	}
	return nil
}

// write creates dst, never replacing a file a test already made there.
func write(dst string, data []byte) error {
	f, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	return errors.Join(err, f.Close())
}

func lookup(key string) *template {
	templatesMu.Lock()
	defer templatesMu.Unlock()
	tpl, ok := templates[key]
	if !ok {
		tpl = &template{}
		templates[key] = tpl
	}
	return tpl
}

func build(prepare Prepare) (data []byte, err error) {
	dir, err := os.MkdirTemp("", "filetemplate-")
	if err != nil {
		return nil, err
	}
	defer func() {
		if rmErr := os.RemoveAll(dir); rmErr != nil && err == nil {
			err = rmErr
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), prepareLimit)
	defer cancel()
	path := filepath.Join(dir, "template")
	if err := prepare(ctx, path); err != nil {
		return nil, err
	}
	// Anything the preparation left beside the file (an unmerged SQLite
	// write-ahead log) holds content the copy would silently lack.
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	for _, e := range entries {
		if e.Name() == "template" {
			continue
		}
		if info, err := e.Info(); err != nil || info.Size() > 0 {
			return nil, fmt.Errorf("the preparation left %s beside the file; close what wrote it so the file holds everything", e.Name())
		}
	}
	return os.ReadFile(path)
}
