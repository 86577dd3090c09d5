package console

import "maps"

// twoStepMessages are the words of two-step sign-in: the account page's
// section and the sign-in's second step, in both languages; init adds
// them to messages.
//
//nolint:gosec // G101: the words "password", "key" and "code" in labels, not credentials
var twoStepMessages = map[string]map[string]string{
	"en": {
		"ts":           "Two-step sign-in",
		"ts.about":     "With two-step sign-in on, signing in asks for a six-digit code from an authenticator app on your phone (any TOTP app) after your password, so a password found or guessed is not enough. API tokens are not affected.",
		"ts.off":       "Two-step sign-in is off.",
		"ts.begin":     "Turn on two-step sign-in",
		"ts.scan":      "Scan this QR code with your authenticator app, or add this key to it by hand:",
		"ts.qralt":     "QR code of the two-step key",
		"ts.uri":       "Key as an otpauth:// address",
		"ts.confirm":   "Then type the code the app shows, and your password, to turn two-step sign-in on. Until you do, it stays off.",
		"ts.code":      "Code from the app",
		"ts.codehelp":  "Six digits; a code works once.",
		"ts.turnon":    "Turn on",
		"ts.restart":   "Start again with a new key",
		"ts.on":        "Two-step sign-in is on. Unused recovery codes: %d.",
		"ts.offcode":   "Code from the app, or a recovery code",
		"ts.turnoff":   "Turn off two-step sign-in",
		"ts.wasoff":    "Two-step sign-in is off now.",
		"ts.codes":     "Two-step sign-in is on. Your recovery codes",
		"ts.codesonce": "Keep these somewhere safe, away from your phone: each signs you in once instead of a code if the phone is lost. They are shown only now. Your other sessions are signed out.",
		"ts.unread":    "Two-step sign-in could not be read: the database did not answer in time. Reload the page in a moment.",
		"ts.lost":      "Lost your phone and your recovery codes? An administrator turns two-step sign-in off for you on the server with `ql users reset-two-step NAME`.",
		"ts.step":      "Two-step sign-in",
		"ts.stephelp":  "Your password is right. Type the code your authenticator app shows now, or one of your recovery codes. This step ends in %d minutes.",
		"ts.stepgo":    "Verify and sign in",
		"ts.back":      "Back to sign-in",

		"log.walled":          "The live output stopped: two-step sign-in is now required for every user of this console, and yours is not set up. Set it up on the Account page, then reload this page to follow the output again.",
		"ts.walled":           "Two-step sign-in is required for every user of this console, and yours is not set up yet: set it up below before anything else. Until you do, every other page brings you back here; only this page and Sign out work.",
		"ts.requiredon":       "Two-step sign-in is required for every user of this console, so yours stays on. Lost your phone and your recovery codes? An owner resets it on the server with `ql users reset-two-step NAME`, and you set it up again at your next sign-in.",
		"ts.everyone":         "Two-step sign-in for everyone",
		"ts.everyone.off":     "Each user chooses whether to use two-step sign-in. Require it, and a user without it who signs in with a password can do nothing but set it up, read their account and sign out until they have. API tokens are not affected.",
		"ts.everyone.on":      "Two-step sign-in is required for every user: a user without it who signs in with a password is sent to set it up before anything else, from every page. API tokens are not affected.",
		"ts.everyone.require": "Require two-step sign-in for everyone",
		"ts.everyone.stop":    "Stop requiring it",
		"err.requiredvalue":   "The form asked for neither on nor off: reload the Account page and use its button.",

		"err.twosteptoken": "Two-step sign-in is for user accounts, and this server keeps none: you are signed in with an API token, or the server has no user accounts.",
		"err.twostepended": "This sign-in's second step has ended: it lasts %d minutes, signs in once and only in the browser where the password was typed, and a password changed meanwhile ends it. Sign in again.",
	},
	"zh": {
		"ts":           "两步验证",
		"ts.about":     "开启两步验证后，登录时在密码之后还要输入手机上身份验证器应用（任意 TOTP 应用）显示的六位验证码，仅凭被发现或猜中的密码无法登录。API 令牌不受影响。",
		"ts.off":       "两步验证未开启。",
		"ts.begin":     "开启两步验证",
		"ts.scan":      "用身份验证器应用扫描此二维码，或手动添加此密钥：",
		"ts.qralt":     "两步验证密钥的二维码",
		"ts.uri":       "otpauth:// 地址形式的密钥",
		"ts.confirm":   "然后输入应用显示的验证码和你的密码以开启两步验证。在此之前它保持关闭。",
		"ts.code":      "应用中的验证码",
		"ts.codehelp":  "六位数字；每个验证码只能使用一次。",
		"ts.turnon":    "开启",
		"ts.restart":   "用新密钥重新开始",
		"ts.on":        "两步验证已开启。未使用的恢复码：%d 个。",
		"ts.offcode":   "应用中的验证码，或一个恢复码",
		"ts.turnoff":   "关闭两步验证",
		"ts.wasoff":    "两步验证已关闭。",
		"ts.codes":     "两步验证已开启。你的恢复码",
		"ts.codesonce": "请把它们保存在手机以外的安全地方：手机丢失时，每个恢复码可代替验证码登录一次。它们只显示这一次。你的其他会话已退出登录。",
		"ts.unread":    "无法读取两步验证：数据库未及时响应。请稍后刷新本页。",
		"ts.lost":      "手机和恢复码都丢了？请管理员在服务器上用 `ql users reset-two-step NAME` 为你关闭两步验证。",
		"ts.step":      "两步验证",
		"ts.stephelp":  "密码正确。请输入身份验证器应用当前显示的验证码，或一个恢复码。此步骤在 %d 分钟后失效。",
		"ts.stepgo":    "验证并登录",
		"ts.back":      "返回登录",

		"log.walled":          "实时输出已停止：此控制台现在要求每位用户启用两步验证，而你的尚未设置。请在“账号”页设置后，刷新本页继续跟随输出。",
		"ts.walled":           "此控制台要求每位用户启用两步验证，而你的尚未设置：请先在下方设置。完成之前，其他页面都会把你带回这里，只有本页和“退出”可用。",
		"ts.requiredon":       "此控制台要求每位用户启用两步验证，因此你的两步验证保持开启。手机和恢复码都丢了？请所有者在服务器上用 `ql users reset-two-step NAME` 重置，你在下次登录时重新设置。",
		"ts.everyone":         "要求所有用户启用两步验证",
		"ts.everyone.off":     "目前由每位用户自行决定是否启用两步验证。要求之后，未启用的用户用密码登录后，在设置好之前只能设置两步验证、查看账号和退出。API 令牌不受影响。",
		"ts.everyone.on":      "已要求每位用户启用两步验证：未启用的用户用密码登录后，无论打开哪个页面，都会先被带去设置。API 令牌不受影响。",
		"ts.everyone.require": "要求所有用户启用两步验证",
		"ts.everyone.stop":    "不再要求",
		"err.requiredvalue":   "表单既未要求开启也未要求关闭：请刷新账号页并使用其中的按钮。",

		"err.twosteptoken": "两步验证只用于用户账号，而这里没有：你使用 API 令牌登录，或此服务器没有用户账号。",
		"err.twostepended": "本次登录的第二步已失效：它只持续 %d 分钟，只能登录一次，且只在输入密码的浏览器中有效；期间修改密码也会使它失效。请重新登录。",
	},
}

func init() {
	for l, m := range twoStepMessages {
		maps.Copy(messages[l], m)
	}
}
