package console

import (
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/scripts"
	"github.com/qinglong/qinglong/internal/core/subscription"
)

// scriptsRefusalsZH say in Chinese the refusals of the Scripts page.
var scriptsRefusalsZH = map[qlerror.Reason]string{
	scripts.RefusalPathInvalid:      "脚本路径“{path}”不可用（{why}）：请写脚本文件夹内的相对路径，如 jd_bean.js 或 sub/notify.py；不能是绝对路径，不能含 ..、空的部分或控制字符。",
	scripts.RefusalOutside:          "脚本路径 {path} 经由符号链接指向脚本文件夹之外，已拒绝，文件夹之外的任何内容都不会被读取或写入：请用文件本身替换该链接，或让链接指向文件夹内的文件。",
	scripts.RefusalMissing:          "脚本文件夹中没有 {path}（可能已被删除或重命名）；文件夹列表显示现有的内容。",
	scripts.RefusalExists:           "脚本文件夹中已有 {path}：请换一个名称，或先删除或重命名它。",
	scripts.RefusalChanged:          "你打开编辑器之后，脚本 {path} 已被修改，什么都没有保存：请对比它现在的内容与你的内容，再在现在的内容基础上保存。",
	scripts.RefusalTooLarge:         "脚本 {path} 有 {size} 字节，超过这里的上限 {max} 字节：请缩小它，或在主机上直接把它复制到脚本文件夹。",
	scripts.RefusalNotText:          "脚本 {path} 不是文本（不是 UTF-8，或含有 NUL 字节），无法在这里编辑：请下载它，或通过上传替换它。",
	scripts.RefusalIsFolder:         "{path} 是文件夹，不是文件：请从列表中打开它。",
	scripts.RefusalNotFolder:        "{path} 是文件，不是文件夹：请作为文件打开它。",
	scripts.RefusalFolderNotEmpty:   "文件夹 {path} 包含 {entries} 项，什么都没有删除：请确认连同其中的全部内容一起删除，或先清空它。",
	scripts.RefusalRoot:             "这里不能重命名或删除脚本文件夹本身：请指定其中的文件或文件夹。",
	scripts.RefusalNoFiles:          "上传中没有文件：请选择一个或多个文件后再上传。",
	scripts.RefusalBusy:             "脚本文件夹 {dir} 正被另一个进程（使用同一文件夹的服务器，或 scripts put/rm）修改，等待超时，什么都没有改动：请稍后再试。",
	scripts.RefusalLink:             "脚本 {path} 是指向 {target} 的符号链接，而该目标在脚本文件夹之外、不存在或经过过多链接（循环？）；什么都没有写入，链接保持原样：请让链接指向脚本文件夹内的文件，或删除该链接并在原处新建文件。",
	subscription.RefusalURL:         "仓库地址“{value}”不可用（{why}）：请写 https://host/OWNER/REPO.git、ssh://git@host/OWNER/REPO.git、git@host:OWNER/REPO.git，或本机上的 file:///path/OWNER/REPO.git。",
	subscription.RefusalURLRepo:     "仓库地址“{value}”没有给出所有者和仓库名，而订阅的名称和文件夹由它们组成：请写成 https://host/OWNER/REPO.git。",
	subscription.RefusalCharacter:   "{field} 含有 {char}，这是控制或格式字符（如改变文字方向的字符、零宽空格），显示不出来或会打乱周围文字的顺序，页面显示的就不是 git 和脚本文件夹读到的内容：请删除它后重新填写。",
	subscription.RefusalBranch:      "分支“{value}”不是 git 接受的分支名（不能有空格、~ ^ : ? * [ \\、..、//，不能以 -、/ 或 . 开头）：请按 git 中的名称填写，如 main，或留空使用仓库的默认分支。",
	subscription.RefusalPattern:     "{field} 不是订阅接受的正则表达式（{why}）：请写如 jd_|jx_ 的表达式，或留空。",
	subscription.RefusalExists:      "已有名为 {name} 的订阅（项目 {project}），会拉取到同一个文件夹：请编辑它，或先删除它。",
	subscription.RefusalFolderTaken: "订阅 {name}（项目 {project}）已拉取到文件夹 {other}，而这个订阅会拉取到 {folder}：两个订阅共用一个文件夹（或一个在另一个的文件夹之内）会拉取到同一个克隆，连同文件夹删除其中一个会删掉另一个的脚本；请换一个分支，或先编辑或删除 {name}。",
	subscription.RefusalMissing:     "没有名为“{name}”的订阅（已被删除，或其任务的标签已被移除）：订阅管理页面列出了现有的订阅。",
	subscription.RefusalRenamed:     "这个仓库地址和分支对应的订阅是 {new}，不是 {name}：订阅的名称和文件夹由仓库和分支决定；请把 {new} 添加为新订阅，再删除 {name}。",
}
