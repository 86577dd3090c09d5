package crontab

import (
	"strings"

	"github.com/qinglong/qinglong/internal/core/shellquote"
)

// ScriptWord is the script file (a name in the task's working folder) as
// the word its interpreter's command takes: quoted for the shell, and
// written ./FILE when it starts with '-', which node, python3 and bash
// would read as an option (a pulled repository's -x.js run as node -x.js).
// Every other name is written as it is, so that the commands of tasks
// made before stay the same.
func ScriptWord(file string) string {
	if strings.HasPrefix(file, "-") {
		file = "./" + file
	}
	return shellquote.Quote(file)
}
