package sqlitestore

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// backupBenchTriggers is the due triggers a round admits: a minute of a
// big installation.
const backupBenchTriggers = 1_500

// BenchmarkAdmissionsDuringABackup measures how a backup's copy of the
// database slows the server's admissions: rounds of 1,500 triggers made
// due at once (a minute boundary), each admitted in pages of 16, while
// nothing copies, while one VACUUM INTO copies the database (as backups
// did), and while the stepped copy (copyInSteps) does, in the same run on
// the same file. The database is padded to QL_BENCH_BACKUP_MIB MiB
// (default 256) of rows with an index. Reported: admissions/s and the
// slowest round (the admission lag of a minute boundary) of each, and the
// copy's wall time; the ratios compare the two copies to none.
func BenchmarkAdmissionsDuringABackup(b *testing.B) {
	e := newEnv(b)
	p := e.projectTB(b, "bench")
	tk := e.taskTB(b, p.ID)
	for i := range backupBenchTriggers {
		e.triggerTB(b, p.ID, tk, fmt.Sprintf("t%05d", i))
	}
	path := commitPath{"page16", 16, wholePage}
	drain(b, e, path, 0)
	padDatabase(b, e, benchMiB(b))
	copies := []struct {
		name string
		copy func(ctx context.Context, dest string) error
	}{
		{"none", nil},
		{"vacuum-into", func(ctx context.Context, dest string) error {
			_, err := e.raw.ExecContext(ctx, qVacuumInto, dest)
			return err
		}},
		{"steps", func(ctx context.Context, dest string) error {
			src, err := openReadPool(ctx, "file:"+e.path+"?mode=ro", 1)
			if err != nil {
				return err
			}
			defer src.Close()
			if err := createPrivate(dest); err != nil {
				return err
			}
			_, err = copyInSteps(ctx, src, dest, sharedPace, nil)
			return err
		}},
	}
	admitted := make([]int, len(copies))
	elapsed := make([]time.Duration, len(copies))
	worst := make([]time.Duration, len(copies))
	copyTook := make([]time.Duration, len(copies))
	for b.Loop() {
		for i, c := range copies {
			dest := filepath.Join(b.TempDir(), "copy.db")
			done := make(chan error, 1)
			start := time.Now()
			if c.copy == nil {
				close(done)
			} else {
				go func() { done <- c.copy(b.Context(), dest) }()
			}
			// At least three rounds, then as many as the copy lasts.
			for round := 0; ; round++ {
				if round >= 3 && copyEnded(done) {
					break
				}
				if _, err := e.raw.Exec(allDueSQL, e.clock.NowMs()-1_000); err != nil {
					b.Fatal(err)
				}
				roundStart := time.Now()
				admitted[i] += drain(b, e, path, backupBenchTriggers)
				took := time.Since(roundStart)
				elapsed[i] += took
				worst[i] = max(worst[i], took)
			}
			if err := <-done; err != nil {
				b.Fatalf("%s: %v", c.name, err)
			}
			copyTook[i] += time.Since(start)
			if err := os.Remove(dest); err != nil && c.copy != nil {
				b.Fatal(err)
			}
		}
	}
	perSec := make([]float64, len(copies))
	for i, c := range copies {
		perSec[i] = float64(admitted[i]) / elapsed[i].Seconds()
		b.ReportMetric(perSec[i], c.name+"-admissions/s")
		b.ReportMetric(float64(worst[i].Milliseconds()), c.name+"-worst-round-ms")
		if c.copy != nil {
			b.ReportMetric(copyTook[i].Seconds()/float64(b.N), c.name+"-copy-s")
		}
	}
	b.ReportMetric(perSec[1]/perSec[0], "vacuum-into/none")
	b.ReportMetric(perSec[2]/perSec[0], "steps/none")
	b.ReportMetric(float64(worst[1])/float64(worst[2]), "worst-round-vacuum-into/steps")
}

// copyEnded reports, without waiting, whether the copy ended; its error
// stays for the caller.
func copyEnded(done chan error) bool {
	select {
	case err, ok := <-done:
		if ok {
			done <- err
		}
		return true
	default:
		return false
	}
}

// benchMiB is QL_BENCH_BACKUP_MIB, or 256.
func benchMiB(b *testing.B) int {
	v := os.Getenv("QL_BENCH_BACKUP_MIB")
	if v == "" {
		return 256
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		b.Fatalf("QL_BENCH_BACKUP_MIB=%q: want a number of MiB", v)
	}
	return n
}

// padDatabase grows the database by about mib MiB of indexed rows, as a
// long history would: what a copy must read and write.
func padDatabase(b *testing.B, e *env, mib int) {
	const rowBytes = 512
	rows := mib << 20 / rowBytes
	if _, err := e.raw.Exec(`CREATE TABLE bench_history (id TEXT PRIMARY KEY, at INTEGER, body TEXT);
		CREATE INDEX bench_history_at ON bench_history (at)`); err != nil {
		b.Fatal(err)
	}
	if _, err := e.raw.Exec(`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
		INSERT INTO bench_history SELECT hex(randomblob(16)), abs(random()) % 1000000, hex(randomblob(220)) FROM n`, rows); err != nil {
		b.Fatal(err)
	}
	if _, err := e.raw.Exec(`PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
		b.Fatal(err)
	}
}
