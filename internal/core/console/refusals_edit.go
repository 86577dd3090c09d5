package console

import (
	"github.com/qinglong/qinglong/internal/core/apply"
	"github.com/qinglong/qinglong/internal/core/qlerror"
)

// editRefusalsZH say in Chinese the refusals of the Edit task and Edit
// schedule forms ({kind} is the page's word for task or trigger).
var editRefusalsZH = map[qlerror.Reason]string{
	apply.RefusalNoSuchEntry:         "项目“{project}”没有名为“{name}”的{kind}（可能已被删除或改名）：请从触发器列表重新打开。",
	apply.RefusalChangedSince:        "{kind}“{name}”在你打开此表单之后已被修改（当时是修订版 {shown}，现在是修订版 {current}），因此没有做任何修改：表单现在显示它的当前修订版，请在其上重新做你的修改。",
	apply.RefusalArgvTask:            "任务“{name}”运行的是命令而不是 Shell 脚本，此表单无法显示它：请在项目“{project}”的定义文件中编辑它。",
	apply.RefusalScriptNotShown:      "任务“{name}”的脚本含有回车符或其他控制字符，文本框无法原样保留：请在项目“{project}”的定义文件中编辑它。",
	apply.RefusalEnvNotShown:         "任务“{name}”的环境变量 {env} 的值含有回车符或其他控制字符，文本框无法原样保留：请在项目“{project}”的定义文件中编辑它。",
	apply.RefusalProjectChangedSince: "项目“{project}”在你打开此表单之后已被修改（环境变量、标题、并发上限或状态），因此没有做任何修改：表单现在显示当前的环境变量，请在其上重新做你的修改。",
	apply.RefusalProjectEnvNotShown:  "项目“{project}”的环境变量 {env} 的值含有回车符或其他控制字符，文本框无法原样保留：请在项目的定义文件中编辑它。",
	apply.RefusalPinsOlderTask:       "触发器“{name}”运行的是任务“{task}”的旧修订版，而不是它的当前修订版；写出该任务的文件会把触发器转到当前修订版：请在项目“{project}”的定义文件中编辑它。",
}
