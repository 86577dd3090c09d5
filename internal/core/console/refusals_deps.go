package console

import (
	"fmt"

	"github.com/qinglong/qinglong/internal/core/deps"
	"github.com/qinglong/qinglong/internal/core/qlerror"
)

// depsRefusalsZH say in Chinese the refusals of the Dependencies page.
var depsRefusalsZH = map[qlerror.Reason]string{
	deps.RefusalKindUnknown:      "依赖类型“{kind}”不是 node、python、linux 之一。",
	deps.RefusalNameInvalid:      "{kind} 软件包“{spec}”不可用（{why}）：每个词写一个软件包，例如 {examples}。",
	deps.RefusalNone:             "没有给出 {kind} 软件包：请写一个或多个，例如 {examples}。",
	deps.RefusalNoneDeclared:     "这里还没有添加任何 {kind} 软件包，没有可安装的内容：请先添加。",
	deps.RefusalTooMany:          "一次给出了 {count} 个 {kind} 软件包，超过上限 {max} 个：请分几次添加。",
	deps.RefusalMissing:          "这里没有添加 {kind} 软件包 {name}；依赖管理页面列出已添加的软件包。",
	deps.RefusalInstallerMissing: "{kind} 软件包用 {installer} 安装，但此服务器的 PATH 中没有它：请先在本机安装{install}，再重试。",
	deps.RefusalNeedsRoot:        "Linux 软件包用 {installer} 安装，需要 root 权限，而此服务器不是以 root 运行：请自行在主机上安装，或以 root 运行服务器（青龙镜像即如此）。",
	deps.RefusalProjectTaken:     "项目 {project} 存放依赖管理页面的安装任务，而现有的这个项目不是该页面建立的：{cause}；请重命名你的项目（或该任务），或将项目设为 maxRunning: 1 并给任务加上该标签，然后重试。",
	deps.RefusalMirrorKind:       "{kind} 软件包不设镜像：apk 和 apt 从主机自己的文件（/etc/apk/repositories、/etc/apt/sources.list）读取镜像；请为 node 或 python 设置。",
	deps.RefusalMirrorURL:        "{kind} 的{field}“{value}”{why}：请写不含用户名和密码的 http:// 或 https:// 地址，例如 {example}，或留空使用安装程序的默认值。",
	deps.RefusalFolderUnwritable: "npm 以 --run-as 账户 {account} 运行，而该账户不能写入 {folder}：请（以 root）运行 `{fix}` 把它交给该账户，然后重试。",
}

// depsWordsZH say in Chinese the params of those refusals that come from
// a fixed set (what to install, why a name is refused, what makes the
// project not the page's, the installers and examples): what the user
// wrote (a name, a spec) is shown as it is. A word may name the
// refusal's other params ({runs}, {task}, {label}).
var depsWordsZH = map[string]string{
	"install." + deps.InstallHint(deps.Node):   " Node.js 和 npm（apk add nodejs npm，或 apt-get install nodejs npm）",
	"install." + deps.InstallHint(deps.Python): " Python 3 和 pip（apk add py3-pip，或 apt-get install python3-pip）",
	"install." + deps.InstallHint(deps.Linux):  " apk（Alpine）或 apt-get（Debian、Ubuntu）",
	"installer.apk or apt-get":                 "apk 或 apt-get",
	"why." + deps.WhyTooLong:                   fmt.Sprintf("超过 %d 个字符", deps.MaxSpec),
	"why." + deps.WhyNotAName:                  "不是该安装程序接受的软件包名",
	"examples." + deps.Examples(deps.Node):     "axios、@scope/name 或 name@1.2.3",
	"examples." + deps.Examples(deps.Python):   "requests、requests==2.31.0、requests>=2 或 requests[socks]",
	"examples." + deps.Examples(deps.Linux):    "curl 或 curl=8.5.0-r0",
	"cause." + deps.TakenConcurrent:            "它允许 {runs} 个运行同时进行，而两个安装任务同时写同一个 node_modules 或 site-packages 会把两者都弄坏",
	"cause." + deps.TakenUncapped:              "它不限制同时进行的运行数，而两个安装任务同时写同一个 node_modules 或 site-packages 会把两者都弄坏",
	"cause." + deps.TakenUnlabelled:            "它的任务 {task} 不是该页面的安装任务（缺少标签 {label}）",
	"field." + deps.FieldRegistry:              "镜像源",
	"field." + deps.FieldProxy:                 "代理",
	"why." + deps.WhyMirrorScheme:              "不是 http:// 或 https:// 地址",
	"why." + deps.WhyMirrorSpace:               "含有空格或控制字符",
	"why." + deps.WhyMirrorOption:              "以“-”开头，安装程序会把它当作选项",
	"why." + deps.WhyMirrorUserInfo:            "含有用户名或密码，而安装任务及其运行日志会显示它们",
	"why." + deps.WhyMirrorLong:                fmt.Sprintf("超过 %d 个字符", deps.MaxMirrorURL),
	"why." + deps.WhyMirrorNoHost:              "没有写主机",
}
