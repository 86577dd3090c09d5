package replica

import (
	"path/filepath"

	"github.com/qinglong/qinglong/internal/core/notify"
	"github.com/qinglong/qinglong/internal/core/process"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/shellquote"
)

// notifySecrets reads the channels' secrets from the replica's
// --secrets-file (path). A secret it lacks fails the delivery with the
// command that sets it, read in a notification's last error on any host:
// so the file is named absolute, and the command is to be run on every
// replica, since whichever claims the notification next reads its own
// file. A replica started without the flag has no file to read: a
// channel that names a secret fails saying so, and how to give one.
func notifySecrets(path string) notify.SecretResolver {
	if path == "" {
		return func(refs []string) (map[string]string, error) {
			if len(refs) == 0 {
				return nil, nil
			}
			return nil, qlerror.New(qlerror.FailedPrecondition, "secret %q cannot be read: this replica was started without --secrets-file; "+
				"set it with `ql secrets set %s --secrets-file FILE` on every replica and start each with --secrets-file FILE", refs[0], shellquote.Quote(refs[0]))
		}
	}
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	return process.Secrets{Path: path, SetOn: "on every replica", SetBy: func(name string) string {
		return "ql secrets set " + shellquote.Quote(name) + " --secrets-file " + shellquote.Quote(path)
	}}.Resolve
}
