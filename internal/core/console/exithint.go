package console

import (
	"html/template"

	"github.com/qinglong/qinglong/internal/core/process"
)

// exitHints say, by exit code, what a shell's own exit codes mean and what
// to do: 127 is the shell's "command not found" (a program not installed,
// not on PATH, or the qinglong panel's task command, which a user moving
// from that panel writes first), 126 a command found but not executable.
// A command may exit with these codes itself, so the words say "usually".
var exitHints = map[string]map[int64]string{
	"en": {
		127: "Exit code 127 is the shell's \"command not found\", usually: a command the script names (its output says which) is not installed or not on the server's PATH. " +
			"Install it, write its full path, or set PATH in the task's env. There is no `task` command as in the qinglong panel: write the interpreter and the script's path, such as `node /ql/scripts/jd_bean_sign.js`.",
		126: "Exit code 126 is the shell's \"found but cannot run\", usually: the file is not executable, or is a directory. Run `chmod +x` on the file, or run it with its interpreter (`bash script.sh`).",
	},
	"zh": {
		127: "退出码 127 表示 Shell 找不到命令（通常如此）：脚本中的某个命令（输出中有它的名字）没有安装，或不在服务器的 PATH 中。" +
			"请安装它、写出它的完整路径，或在任务的 env 中设置 PATH。这里没有青龙面板的 `task` 命令：请写出解释器和脚本的路径，例如 `node /ql/scripts/jd_bean_sign.js`。",
		126: "退出码 126 表示 Shell 找到了命令但无法执行（通常如此）：文件没有执行权限，或是一个目录。请对文件执行 `chmod +x`，或用解释器运行它（`bash script.sh`）。",
	},
}

// exitHint is the sentence in l for an attempt that ended with code and
// exit code exit, "" for one without.
func exitHint(l, code string, exit *int64) template.HTML {
	if code != process.ErrorCodeExitNonZero || exit == nil {
		return ""
	}
	hints, ok := exitHints[l]
	if !ok {
		hints = exitHints["en"]
	}
	if s, ok := hints[*exit]; ok {
		return prose(s)
	}
	return ""
}
