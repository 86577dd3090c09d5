package run

import (
	"fmt"
	"syscall"

	"golang.org/x/sys/unix"
)

// SignalName is sig's name, e.g. SIGKILL.
func SignalName(sig int) string {
	if name := unix.SignalName(syscall.Signal(sig)); name != "" {
		return name
	}
	return fmt.Sprintf("SIG%d", sig)
}

// TruncationMarker follows the last bytes an attempt's log keeps under its
// cap of capBytes, on both profiles: the executor's log file and the
// replica's stored log read the same.
func TruncationMarker(capBytes int64) []byte {
	return fmt.Appendf(nil, "\n[qinglong: output truncated at the log cap of %d bytes; the rest was dropped]\n", capBytes)
}
