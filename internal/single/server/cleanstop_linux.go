package server

import (
	"os"
	"syscall"
)

// statIdentity is the file's device, inode and times as a clean-stop mark
// records them.
func statIdentity(info os.FileInfo) (cleanStop, bool) {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return cleanStop{}, false
	}
	return cleanStop{
		Dev:     uint64(st.Dev), //nolint:unconvert // a narrower type on some architectures
		Ino:     st.Ino,
		MtimeNs: st.Mtim.Nano(),
		CtimeNs: st.Ctim.Nano(),
	}, true
}
