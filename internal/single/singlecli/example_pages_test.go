package singlecli

import (
	"database/sql"
	"io"
	"path/filepath"
	"testing"

	"github.com/spf13/cobra"

	"github.com/qinglong/qinglong/internal/single/server"
)

// TestTheExampleOfAnEdgeServeMakesTheDatabaseWithTheEdgesPages: `serve
// --example` applies the sample before the server opens a new file, so the
// apply makes the database as the profile served would: with 1 KiB pages
// on edge, 4 KiB on standalone.
func TestTheExampleOfAnEdgeServeMakesTheDatabaseWithTheEdgesPages(t *testing.T) {
	t.Parallel()
	for p, want := range map[server.Profile]int{server.Edge: 1024, server.Standalone: 4096} {
		db := filepath.Join(t.TempDir(), "data", "qinglong.db")
		cmd := &cobra.Command{}
		cmd.SetOut(io.Discard)
		cmd.SetErr(io.Discard)
		if err := applyExample(t.Context(), cmd, db, p); err != nil {
			t.Fatal(err)
		}
		raw, err := sql.Open("sqlite", "file:"+db+"?mode=ro")
		if err != nil {
			t.Fatal(err)
		}
		var got int
		err = raw.QueryRow(`PRAGMA page_size`).Scan(&got)
		raw.Close()
		if err != nil || got != want {
			t.Errorf("%s: the example made a database of %d-byte pages (%v), want %d", p, got, err, want)
		}
	}
}
