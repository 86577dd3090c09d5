package server

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// BenchmarkBackupSyncsLogs: copying a data directory's log files (3,000
// of 1.5 KB, QL_BENCH_BACKUP_LOGS) and making them durable, as `ql backup`
// did (a sync after each file) and does (every file written, then synced
// together: syncTree), one after the other in an order that alternates
// every iteration. Set TMPDIR to a directory on the disk to measure: a
// tmpfs syncs nothing.
func BenchmarkBackupSyncsLogs(b *testing.B) {
	n := 3000
	if v := os.Getenv("QL_BENCH_BACKUP_LOGS"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil || n < 1 {
			b.Fatalf("QL_BENCH_BACKUP_LOGS=%q is not a positive number", v)
		}
	}
	src := b.TempDir()
	line := []byte(strings.Repeat("x", 1500))
	for i := range n {
		if err := os.WriteFile(filepath.Join(src, fmt.Sprintf("%06d.log", i)), line, 0o600); err != nil {
			b.Fatal(err)
		}
	}
	ways := []struct {
		name string
		copy func(dst string) error
	}{
		{"each", func(dst string) error {
			for i := range n {
				name := fmt.Sprintf("%06d.log", i)
				if _, err := copyFile(filepath.Join(src, name), filepath.Join(dst, name), 0o600); err != nil {
					return err
				}
				if err := syncPath(filepath.Join(dst, name)); err != nil {
					return err
				}
			}
			return syncPath(dst)
		}},
		{"together", func(dst string) error {
			for i := range n {
				name := fmt.Sprintf("%06d.log", i)
				if _, err := copyFile(filepath.Join(src, name), filepath.Join(dst, name), 0o600); err != nil {
					return err
				}
			}
			return syncTree(dst)
		}},
	}
	took := make([]time.Duration, len(ways))
	for iter := 0; b.Loop(); iter++ {
		for k := range ways {
			w := (k + iter) % len(ways)
			dst := filepath.Join(b.TempDir(), "logs")
			if err := os.Mkdir(dst, 0o700); err != nil {
				b.Fatal(err)
			}
			began := time.Now()
			if err := ways[w].copy(dst); err != nil {
				b.Fatal(err)
			}
			took[w] += time.Since(began)
			if err := os.RemoveAll(dst); err != nil {
				b.Fatal(err)
			}
		}
	}
	for w, way := range ways {
		b.ReportMetric(float64(took[w].Milliseconds())/float64(b.N), way.name+"-ms")
	}
}
