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

// fillDatabase grows the database at path by about mib MiB of rows of the
// apply audit (a table of the schema, which the start's readiness check
// keeps to), about 1000 bytes each (1024 of them a MiB of file), written
// by SQLite itself in one statement.
func fillDatabase(b *testing.B, path string, mib int) {
	raw, err := sql.Open("sqlite", path)
	if err != nil {
		b.Fatal(err)
	}
	_, err = raw.Exec(`INSERT INTO publish_audit (project, actor, summary, at_ms)
		WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?) SELECT 'bench', 'bench', hex(randomblob(480)), 0 FROM n;
		PRAGMA wal_checkpoint(TRUNCATE)`, mib*1024)
	if err := errors.Join(err, raw.Close()); err != nil {
		b.Fatal(err)
	}
	if info, err := os.Stat(filepath.Clean(path)); err == nil {
		b.Logf("database file: %.0f MiB", float64(info.Size())/(1<<20))
	}
}
