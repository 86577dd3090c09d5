package server

import (
	"database/sql"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// BenchmarkStartOnALargeFile measures a start (to serving) and its clean
// stop on a database filled to QL_BENCH_DB_MIB MiB (default 1024): after a
// clean stop, the start that skips the check; with --integrity-check
// always, the one that reads the whole file, as every start did before.
// The file is made in the benchmark's temporary directory, never by the
// default suite. Run: go test -run '^$' -bench StartOnALargeFile
// -benchtime 3x ./internal/single/server/
func BenchmarkStartOnALargeFile(b *testing.B) {
	mib := 1024
	if v, err := strconv.Atoi(os.Getenv("QL_BENCH_DB_MIB")); err == nil && v > 0 {
		mib = v
	}
	dir := b.TempDir()
	cfg := Config{DataDir: dir, StopTimeout: testStopTimeout, Logger: slog.New(slog.DiscardHandler)}
	startStop(b, cfg)
	fillDatabase(b, LayoutOf(dir).DB, mib)
	for _, check := range []IntegrityCheck{CheckAfterUncleanStop, CheckAlways} {
		b.Run(string(check), func(b *testing.B) {
			cfg.IntegrityCheck = check
			// One start first: the fill left no clean-stop mark.
			startStop(b, cfg)
			b.ResetTimer()
			for range b.N {
				startStop(b, cfg)
			}
		})
	}
}

func startStop(b *testing.B, cfg Config) {
	srv, err := Start(b.Context(), cfg)
	if err != nil {
		b.Fatal(err)
	}
	if err := srv.Stop(b.Context()); err != nil {
		b.Fatal(err)
	}
}

// fillDatabase grows the database at path by about mib MiB of rows in a
// table of their own, 1000-byte blobs, three to a 4 KiB page as Runs fill
// them, written by SQLite itself in one statement.
func fillDatabase(b *testing.B, path string, mib int) {
	raw, err := sql.Open("sqlite", path)
	if err != nil {
		b.Fatal(err)
	}
	_, err = raw.Exec(`CREATE TABLE bench_fill (x BLOB);
		INSERT INTO bench_fill (x) WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?) SELECT randomblob(1000) FROM n;
		PRAGMA wal_checkpoint(TRUNCATE)`, mib*1024*3/4)
	if err := errors.Join(err, raw.Close()); err != nil {
		b.Fatal(err)
	}
	if info, err := os.Stat(filepath.Clean(path)); err == nil {
		b.Logf("database file: %.0f MiB", float64(info.Size())/(1<<20))
	}
}
