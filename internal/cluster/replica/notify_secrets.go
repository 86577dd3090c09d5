package replica

import (
	"path/filepath"

	"github.com/qinglong/qinglong/internal/core/notify"
	"github.com/qinglong/qinglong/internal/core/process"
	"github.com/qinglong/qinglong/internal/core/shellquote"
)

// notifySecrets reads the channels' secrets from the replica's
// --secrets-file (path; nil when none was given). A secret it lacks fails
// the delivery with the command that sets it, read in a notification's
// last error on any host: so the file is named absolute, and the command
// is to be run on every replica, since whichever claims the notification
// next reads its own file.
func notifySecrets(path string) notify.SecretResolver {
	if path == "" {
		return nil
	}
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	return process.Secrets{Path: path, SetOn: "on every replica", SetBy: func(name string) string {
		return "ql secrets set " + shellquote.Quote(name) + " --secrets-file " + shellquote.Quote(path)
	}}.Resolve
}
