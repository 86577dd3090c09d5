package console

import "fmt"

// actionMessages are the words of what a form did (the flash a redirect
// shows), of the questions before a one-way action, of a batch resume
// that leaves noted pauses alone and of the page a browser meets while
// the server starts, in English and Simplified Chinese. They
// join messages at start; a key both hold is a mistake, refused at once.
var actionMessages = map[string]map[string]string{
	"en": {
		"hint.pause":              "Pause stops its fires and keeps the trigger as it is; Resume starts them again.",
		"hint.disable":            "Disable publishes a new revision of the trigger that is disabled: nothing of it runs, Run now neither, until it is enabled again (another revision).",
		"hint.cancel":             "Its command is stopped and the Run ends cancelled. This cannot be undone: Re-run makes a new Run.",
		"hint.batchdisable":       "Disable publishes a new, disabled revision of each selected trigger: nothing of them runs until each is enabled again.",
		"ask.disable":             "Disable…",
		"ask.cancel":              "Cancel run…",
		"confirm.disable":         "Yes, disable %s",
		"confirm.cancel":          "Yes, cancel Run %s",
		"confirm.batchdisable":    "Yes, disable the selected triggers",
		"run.done.cancelled":      "Cancelled Run %s.",
		"run.done.cancelasked":    "Asked Run %s to stop: it ends cancelled once its command has stopped.",
		"tok.shownonce":           "Token %s was created",
		"tok.shownonce.what":      "Its secret was shown once, on the page right after it was created, and is never shown again: if it was not copied, revoke %[1]s and create another.",
		"batch.resume.noted":      "left paused: it was paused with the note “%s”. Tick it below to resume it anyway.",
		"batch.noted.label":       "left paused",
		"batch.summary.noted":     " Left paused (paused with a note): %d.",
		"batch.noted.title":       "Paused with a note",
		"batch.noted.help":        "A batch resume leaves a trigger paused with a note as it is: someone paused it on purpose. Tick those you mean to resume anyway:",
		"batch.noted.resume":      "Resume the ticked triggers",
		"batch.resume.notedasked": "resumed (you ticked it, paused with a note).",
		"ask.batchcancel":         "Cancel the ticked runs…",
		"hint.batchcancel":        "Each ticked Run that has not ended is cancelled as its own Cancel button does: a running one has its command stopped and ends cancelled. This cannot be undone: Re-run makes a new Run.",
		"confirm.batchcancel":     "Yes, cancel the ticked Runs",
		"runs.batch.help":         "Tick Runs that have not ended to cancel them:",
		"runs.cancel.summary":     "Cancel of %d ticked Runs: %s.",
		"runs.cancel.sep":         ", ",
		"runs.cancel.cancelled":   "%d cancelled",
		"runs.cancel.asked":       "%d asked to stop (each ends cancelled once its command has stopped)",
		"runs.cancel.already":     "%d had already ended",
		"runs.cancel.refused":     "%d refused (%s)",
		"runs.cancel.untried":     "%d not tried: the request's time ran out before them; send the form again",
		"err.runsnone":            "No Run was ticked: tick the box beside each Run to cancel, then press the button again.",
		"err.runsmany":            "%d Runs were ticked, and one form cancels at most %d (a page of the list); nothing was cancelled. Tick fewer and send the form again.",
		"starting.title.check":    "QingLong is checking its database",
		"starting.check":          "The server checks its database file as it starts, reading all of it: a large file takes a while. The console opens here once the check is done.",
		"starting.title.migrate":  "QingLong is upgrading its database",
		"starting.migrate":        "The server applies the upgrade's migrations to its database as it starts, reading every Run: on a long history this takes minutes. Do not stop the server now: a stop undoes the whole upgrade, which the next start begins again. The console opens here once it is done.",
		"starting.title.other":    "QingLong is starting",
		"starting.other":          "The server is starting (step: %s). The console opens here once it is ready.",
		"starting.wait":           "Nothing needs doing: wait. This page reloads itself every %d seconds.",
		"host.title":              "This server does not answer to %s",
		"host.why":                "You opened it as %s, a name it was not told is its own. It refuses every name it does not know: a guard against DNS rebinding, where a web page makes a name of its own lead to this server.",
		"host.answers":            "It answers to %s, and to the IP address a request reaches it at.",
		"host.sep":                ", ",
		"host.at":                 "Open it at the address this request reached:",
		"host.flag":               "If %s is this machine's name, restart the server with the name added:",
	},
	"zh": {
		"hint.pause":              "暂停：只是停止触发，触发器本身不变；点“恢复”即可继续。",
		"hint.disable":            "停用：发布该触发器的一个停用的新修订版；重新启用（又一个修订版）之前它的任何运行都不会进行，也不能立即运行。",
		"hint.cancel":             "它的命令会被停止，运行以“已取消”结束。此操作无法撤销：“重新运行”会创建新的运行。",
		"hint.batchdisable":       "停用：为每个所选触发器发布一个停用的新修订版；各自重新启用之前它们的任何运行都不会进行。",
		"ask.disable":             "停用…",
		"ask.cancel":              "取消运行…",
		"confirm.disable":         "确认停用 %s",
		"confirm.cancel":          "确认取消运行 %s",
		"confirm.batchdisable":    "确认停用所选触发器",
		"run.done.cancelled":      "已取消运行 %s。",
		"run.done.cancelasked":    "已请求停止运行 %s：命令停止后它以“已取消”结束。",
		"tok.shownonce":           "令牌 %s 已创建",
		"tok.shownonce.what":      "它的密钥只在创建后紧接着的页面上显示过一次，不会再次显示：如未复制，请吊销 %[1]s 并新建一个。",
		"batch.resume.noted":      "保持暂停：它是带备注暂停的（“%s”）。如仍要恢复，请在下方勾选它。",
		"batch.noted.label":       "保持暂停",
		"batch.summary.noted":     "带备注而保持暂停 %d 个。",
		"batch.noted.title":       "带备注暂停的触发器",
		"batch.noted.help":        "批量恢复不会恢复带备注暂停的触发器：有人特意暂停了它。如仍要恢复，请勾选：",
		"batch.noted.resume":      "恢复所勾选的触发器",
		"batch.resume.notedasked": "已恢复（带备注暂停，由你勾选）。",
		"ask.batchcancel":         "取消所勾选的运行…",
		"hint.batchcancel":        "每个所勾选且尚未结束的运行都会像它自己的“取消”按钮那样被取消：运行中的会停止其命令，并以“已取消”结束。此操作无法撤销：“重新运行”会创建新的运行。",
		"confirm.batchcancel":     "确认取消所勾选的运行",
		"runs.batch.help":         "勾选尚未结束的运行以取消它们：",
		"runs.cancel.summary":     "取消所勾选的 %d 个运行：%s。",
		"runs.cancel.sep":         "；",
		"runs.cancel.cancelled":   "已取消 %d 个",
		"runs.cancel.asked":       "已要求停止 %d 个（命令停止后即以“已取消”结束）",
		"runs.cancel.already":     "%d 个此前已经结束",
		"runs.cancel.refused":     "被拒绝 %d 个（%s）",
		"runs.cancel.untried":     "%d 个未处理：请求的时间已用完，请再提交一次表单",
		"err.runsnone":            "没有勾选任何运行：请勾选要取消的每个运行旁的方框，然后再按一次按钮。",
		"err.runsmany":            "勾选了 %d 个运行，而一次表单最多取消 %d 个（列表的一页）；未取消任何运行。请少选一些，再提交表单。",
		"starting.title.check":    "QingLong 正在检查数据库",
		"starting.check":          "服务器启动时会读完整个数据库文件进行检查，文件较大时需要一些时间。检查完成后，控制台就会在这里打开。",
		"starting.title.migrate":  "QingLong 正在升级数据库",
		"starting.migrate":        "服务器启动时正在对数据库执行本次升级的迁移，需要读取每一个运行记录：历史较长时需要几分钟。请不要在此时停止服务器：停止会撤销整个升级，下次启动时会重新开始。完成后，控制台就会在这里打开。",
		"starting.title.other":    "QingLong 正在启动",
		"starting.other":          "服务器正在启动（当前步骤：%s）。就绪后，控制台就会在这里打开。",
		"starting.wait":           "无需任何操作，请稍候。本页每 %d 秒自动刷新一次。",
		"host.title":              "此服务器不响应 %s",
		"host.why":                "你通过 %s 打开了它，但没有告诉服务器这是它的名称。它拒绝一切未知的名称，以防范 DNS 重绑定（网页让自己的域名指向本服务器）。",
		"host.answers":            "它响应 %s，以及请求到达它时所用的 IP 地址。",
		"host.sep":                "、",
		"host.at":                 "请用本次请求到达的地址打开：",
		"host.flag":               "如果 %s 是这台机器的名称，请加上该名称后重启服务器：",
	},
}

func init() {
	for l, words := range actionMessages {
		for k, v := range words {
			if _, ok := messages[l][k]; ok {
				panic(fmt.Sprintf("console: the catalogue has %q in %s twice", k, l))
			}
			messages[l][k] = v
		}
	}
}
