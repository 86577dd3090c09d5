package storetest

import (
	"testing"
	"time"
)

// RunStorage runs the contract of the sizes monitoring reads against an
// adapter.
func RunStorage(t *testing.T, newFixture Factory) {
	t.Run("TheDatabaseSizeGrowsWithTheRunsItHolds", func(t *testing.T) {
		t.Parallel()
		testDatabaseSizeGrows(t, newFixture(t))
	})
	t.Run("TheRunLogsSizeGrowsWithTheLogsItHolds", func(t *testing.T) {
		t.Parallel()
		testRunLogsSizeGrows(t, newFixture(t))
	})
}

// testDatabaseSizeGrows: a thousand finished Runs with their attempts,
// events and logs take pages the database did not have, and its size
// says so.
func testDatabaseSizeGrows(t *testing.T, f Fixture) {
	_, template := retentionDefs(t, f)
	before, err := f.DatabaseSize(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if before <= 0 {
		t.Fatalf("an installed database's size is %d bytes", before)
	}
	seed(t, f, template, 1000, time.Hour, logSize)
	after, err := f.DatabaseSize(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("database size %d → %d bytes with 1000 finished Runs", before, after)
	// The rows alone take well over a hundred bytes per Run.
	if after < before+100*1000 {
		t.Fatalf("the database's size went from %d to %d bytes with 1000 more finished Runs; want it to grow by their rows", before, after)
	}
}

// testRunLogsSizeGrows: the logs of a thousand finished Runs add to the
// run logs' size, by at least a row header each (the cluster keeps a log
// as rows, which PostgreSQL may compress); a store that keeps logs as
// files counts each in whole blocks, as the log cap does.
func testRunLogsSizeGrows(t *testing.T, f Fixture) {
	_, template := retentionDefs(t, f)
	before, err := f.RunLogsSize(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	seed(t, f, template, 1000, time.Hour, logSize)
	after, err := f.RunLogsSize(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("run logs' size %d → %d bytes with 1000 logs of %d bytes", before, after, logSize)
	if after < before+24*1000 || after > before+2*logSize*1000+1<<20 {
		t.Fatalf("the run logs' size went from %d to %d bytes with 1000 more logs of %d bytes each", before, after, logSize)
	}
}
