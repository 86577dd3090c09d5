package console

import "fmt"

// depsMessages are the words of the Dependencies page, in English and
// Simplified Chinese. They join messages at start; a key both hold is a
// mistake, refused at once.
var depsMessages = map[string]map[string]string{
	"en": {
		"dep.title":            "Dependencies",
		"dep.intro":            "The Node.js, Python 3 and Linux packages your scripts need, installed on this server. Each install or removal is a Run of a task of the project %s (made on first use, one Run at a time): its log, cancel, timeout and history are a Run's.",
		"dep.elsewhere":        "Commands run on the cluster's workers, so dependencies are installed on each worker's host, not here: give the install its own task pinned to the workers by labels (placement), or install them in the workers' image.",
		"dep.kind.node":        "Node.js (npm)",
		"dep.kind.python":      "Python 3 (pip)",
		"dep.kind.linux":       "Linux (apk / apt-get)",
		"dep.where.node":       "npm installs into the scripts folder's node_modules, where `node script.js` run in the scripts folder (or a folder of it) finds them.",
		"dep.where.python":     "pip3 installs with --user, for the account the server runs as, where its tasks' python3 finds them.",
		"dep.where.linux":      "apk add (Alpine) or apt-get install (Debian, Ubuntu): system packages, which need the server to run as root.",
		"dep.when":             "Last asked for",
		"dep.log":              "Run and log",
		"dep.state.installed":  "installed",
		"dep.state.failed":     "failed",
		"dep.state.installing": "installing",
		"dep.state.declared":   "not installed",
		"dep.state.gone":       "Run no longer kept",
		"dep.reinstall":        "Reinstall",
		"dep.remove":           "Remove",
		"dep.none":             "No package declared.",
		"dep.all":              "Install all",
		"dep.names":            "Packages to add",
		"dep.nameshelp":        "Several at once, separated by spaces or lines; a version as the installer writes it. They are installed at once, in one Run.",
		"dep.example.node":     "axios @scope/name dayjs@1.11.10",
		"dep.example.python":   "requests==2.31.0 httpx[socks]",
		"dep.example.linux":    "curl jq",
		"dep.add":              "Add and install",
		"dep.howto":            "A task started after an install finds the packages; a Run that failed says why in its log. Removing a package uninstalls it in a Run and forgets it here.",
		"dep.done.install":     "Installing %s: Run %s.",
		"dep.done.remove":      "Removing %s: Run %s.",
	},
	"zh": {
		"dep.title":            "依赖管理",
		"dep.intro":            "脚本需要的 Node.js、Python 3 和 Linux 软件包，安装在本服务器上。每次安装或删除都是项目 %s 中一个任务的一次运行（首次使用时创建，同一时间只运行一个）：日志、取消、超时和历史都与普通运行相同。",
		"dep.elsewhere":        "命令在集群的 worker 上运行，所以依赖要装在每个 worker 所在的主机上，而不是这里：请为安装建一个用标签（placement）固定到这些 worker 的任务，或把依赖装进 worker 的镜像。",
		"dep.kind.node":        "Node.js（npm）",
		"dep.kind.python":      "Python 3（pip）",
		"dep.kind.linux":       "Linux（apk / apt-get）",
		"dep.where.node":       "npm 安装到脚本文件夹的 node_modules 中，在脚本文件夹（或其子文件夹）中运行 `node script.js` 时即可找到。",
		"dep.where.python":     "pip3 以 --user 安装，装给服务器运行所用的账户，任务中的 python3 即可找到。",
		"dep.where.linux":      "apk add（Alpine）或 apt-get install（Debian、Ubuntu）：系统软件包，需要服务器以 root 身份运行。",
		"dep.when":             "最近一次请求",
		"dep.log":              "运行与日志",
		"dep.state.installed":  "已安装",
		"dep.state.failed":     "失败",
		"dep.state.installing": "安装中",
		"dep.state.declared":   "未安装",
		"dep.state.gone":       "运行记录已不保留",
		"dep.reinstall":        "重新安装",
		"dep.remove":           "删除",
		"dep.none":             "尚未添加软件包。",
		"dep.all":              "全部安装",
		"dep.names":            "要添加的软件包",
		"dep.nameshelp":        "可一次添加多个，用空格或换行分隔；版本按安装器的写法。它们在一次运行中一起安装。",
		"dep.example.node":     "axios @scope/name dayjs@1.11.10",
		"dep.example.python":   "requests==2.31.0 httpx[socks]",
		"dep.example.linux":    "curl jq",
		"dep.add":              "添加并安装",
		"dep.howto":            "安装完成后启动的任务即可找到这些软件包；失败的运行会在日志中说明原因。删除软件包会在一次运行中卸载它，并从这里移除。",
		"dep.done.install":     "正在安装 %s：运行 %s。",
		"dep.done.remove":      "正在删除 %s：运行 %s。",
	},
}

func init() {
	for l, words := range depsMessages {
		for k, v := range words {
			if _, ok := messages[l][k]; ok {
				panic(fmt.Sprintf("console: the catalogue has %q in %s twice", k, l))
			}
			messages[l][k] = v
		}
	}
}
