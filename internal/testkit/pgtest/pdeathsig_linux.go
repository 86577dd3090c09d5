package pgtest

import "syscall"

// setParentDeathSignal makes the kernel send the postmaster SIGQUIT
// (immediate shutdown) when the test process dies without stopping it. See
// startPinned for why this is tied to a pinned thread.
func setParentDeathSignal(attr *syscall.SysProcAttr) {
	attr.Pdeathsig = syscall.SIGQUIT
}
