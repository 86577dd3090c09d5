package server

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// flockHolder finds the process holding an exclusive flock on the file at
// path, and the path that process opened the file by, for a refusal to
// name. Linux lists every lock in /proc/locks by the file's inode, and
// each process's open files in /proc/PID/fd; a holder is only named once
// one of its descriptors is found to be this very file, so an inode of
// the same number on another file system is never taken for it. Elsewhere,
// or when the holder is another user's (its descriptors are not ours to
// read), ok is false. Nothing here opens the file, so no lock of this
// process on it is touched (see dbLock).
func flockHolder(path string) (pid int, through string, ok bool) {
	info, err := os.Stat(path)
	if err != nil {
		return 0, "", false
	}
	st, isUnix := info.Sys().(*syscall.Stat_t)
	if !isUnix {
		return 0, "", false
	}
	locks, err := os.ReadFile("/proc/locks")
	if err != nil {
		return 0, "", false
	}
	for _, line := range strings.Split(string(locks), "\n") {
		// "1: FLOCK  ADVISORY  WRITE 4242 fd:01:131073 0 EOF"; a
		// process waiting for a lock has "->" after the number, and is
		// not its holder.
		f := strings.Fields(line)
		if len(f) < 6 || f[1] != "FLOCK" || f[3] != "WRITE" {
			continue
		}
		id := f[5][strings.LastIndexByte(f[5], ':')+1:]
		if id != strconv.FormatUint(st.Ino, 10) {
			continue
		}
		holder, err := strconv.Atoi(f[4])
		if err != nil || holder == os.Getpid() {
			continue
		}
		if other, found := openedAs(holder, info); found {
			return holder, other, true
		}
	}
	return 0, "", false
}

// openedAs is the path by which process pid opened the file info
// describes, read from its descriptors.
func openedAs(pid int, info os.FileInfo) (string, bool) {
	dir := filepath.Join("/proc", strconv.Itoa(pid), "fd")
	entries, err := os.ReadDir(dir)
	if err != nil {
		return "", false
	}
	for _, e := range entries {
		fd := filepath.Join(dir, e.Name())
		if fi, err := os.Stat(fd); err != nil || !os.SameFile(fi, info) {
			continue
		}
		if target, err := os.Readlink(fd); err == nil {
			return target, true
		}
	}
	return "", false
}
