//go:build !linux

package pgtest

import "syscall"

// setParentDeathSignal is a no-op where the kernel has no parent-death
// signal: there only Main's stop and the orphan sweep guard against
// leftover servers.
func setParentDeathSignal(*syscall.SysProcAttr) {}
