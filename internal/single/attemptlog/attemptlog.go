// Package attemptlog names an attempt's log file in the data directory
// that serves it.
//
// An attempt's row keeps the path its log was created at (log_path), but
// only to say whether the attempt has a log: a data directory copied by a
// backup and served at another path holds rows naming the original
// directory's files. Every reader and writer of a log finds it here, in
// the log directory of the data directory being served, so a copy never
// reads or writes the original's files, and never misses its own.
package attemptlog

import "path/filepath"

// Path is the log file of the attempt attemptID in logDir, the serving
// data directory's log directory.
func Path(logDir, attemptID string) string {
	return filepath.Join(logDir, attemptID+".log")
}
