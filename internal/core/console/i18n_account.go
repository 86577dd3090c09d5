package console

import "maps"

// accountMessages are the words of the first owner's setup page and the
// account page, in both languages; init adds them to messages.
//
//nolint:gosec // G101: the words "password" and "token" in labels, not credentials
var accountMessages = map[string]map[string]string{
	"en": {
		"setup":             "Create the first owner",
		"setup.link":        "No account exists yet. Create the first owner with the setup code: the server's log says where it is.",
		"setup.intro":       "No account exists yet. The account you create here is an owner: it may do everything, create more accounts with `ql users create` included. Once it exists, this page is gone.",
		"setup.userhelp":    "Lowercase letters, digits, dots, dashes and underscores, starting and ending with a letter or digit.",
		"setup.code":        "Setup code",
		"setup.codehelp":    "The line with code %s in the server's log says where it is: a standalone or edge server writes it to the file qinglong-setup-code in its data directory, readable by the server's user alone.",
		"setup.codecluster": "A cluster replica started with --setup-code-dir writes it to that file in that directory, once its database is ready.",
		"setup.codeform":    "Eight groups of four letters and digits; the dashes may be left out. It works once. Lost it? Restart the server: each start without an account draws a new one.",
		"setup.create":      "Create the owner and sign in",
		"setup.back":        "Back to sign-in",
		"account":           "Account",
		"account.user":      "Signed in as user %s (role %s).",
		"role.viewer":       "viewer", "role.operator": "operator", "role.owner": "owner",
		"account.token": "Signed in with API token %s: a token has no password to change. Create or revoke tokens on the tokens page or with `ql tokens`.",
		"pw.change":     "Change your password",
		"pw.current":    "Current password",
		"pw.new":        "New password",
		"pw.again":      "Password again",
		"pw.rules":      "At least %d characters, not one of the most common passwords, and without the user name.",
		"pw.others":     " Your other sessions are signed out when it changes; this one stays signed in.",
		"pw.save":       "Change password",
		"pw.changed":    "Your password is changed. Your other sessions are signed out.",
		"pw.cli":        "This server cannot change passwords from the console; an administrator changes yours with `ql users passwd %s`.",

		"err.nosetup":        "There is no first owner to create here: an account exists already. Sign in, or ask an owner for an account (`ql users create`).",
		"err.nosetuphere":    "This server does not create the first owner in the browser, or drew no setup code when it started (an account existed then): create accounts with `ql users create NAME --owner%s`.",
		"err.nosetupcluster": "On a cluster, give it the admin role's database URL in $QL_DATABASE_ADMIN_URL.",
		"err.setupcsrf":      "The form is missing its CSRF token or it is stale; fill it in again on this page.",
		"err.setupcode":      "That is not the setup code, or it was used already. Copy it from where the server's log says it is (the line with code %s); restart the server for a new one.",
		"err.setupexists":    "Someone created an account while you filled in the form, so there is no first owner to create. Sign in with that account, or ask its owner for one.",
		"err.setupstore":     "The account could not be stored: the database did not answer in time. The setup code still works: try again in a moment.",
		"err.pwmismatch":     "The two new passwords differ; type the same one twice.",
		"err.pwlength":       "The new password has %[1]d characters; use %[2]d to %[3]d.",
		"err.pwcurrent":      "That is not your current password.",
		"err.pwtoken":        "You are signed in with an API token, which has no password to change.",
		"err.pwstore":        "The password could not be changed: the database did not answer in time. Nothing changed; try again in a moment.",
		"err.pwchanged":      "Your password was changed elsewhere, or your account disabled or deleted, while this change was made, so nothing changed here. Sign in again, then change it if you still want to.",
		"err.setupthrottle":  "Too many wrong setup codes from this address: wait a minute, then try again with the code from where the server's log says it is.",
	},
	"zh": {
		"setup":             "创建第一个所有者",
		"setup.link":        "还没有任何账号。请用设置码创建第一个所有者：服务器日志会说明设置码在哪里。",
		"setup.intro":       "还没有任何账号。在这里创建的账号是所有者：它可以做任何事，包括用 `ql users create` 创建更多账号。账号创建后，本页即不再提供。",
		"setup.userhelp":    "小写字母、数字、点、连字符和下划线，以字母或数字开头和结尾。",
		"setup.code":        "设置码",
		"setup.codehelp":    "服务器日志中代码为 %s 的那一行会说明设置码在哪里：单机或边缘服务器把它写入数据目录中的 qinglong-setup-code 文件，只有服务器的运行用户可以读取。",
		"setup.codecluster": "以 --setup-code-dir 启动的集群副本在其数据库就绪后把它写入该目录中的同名文件。",
		"setup.codeform":    "八组，每组四个字母或数字；连字符可以省略。它只能使用一次。找不到了？重启服务器：每次在没有账号时启动都会生成一个新的设置码。",
		"setup.create":      "创建所有者并登录",
		"setup.back":        "返回登录",
		"account":           "账号",
		"account.user":      "已作为用户 %s 登录（角色：%s）。",
		"role.viewer":       "查看者", "role.operator": "操作员", "role.owner": "所有者",
		"account.token": "你使用 API 令牌 %s 登录：令牌没有可修改的密码。请在令牌页面或用 `ql tokens` 创建或撤销令牌。",
		"pw.change":     "修改密码",
		"pw.current":    "当前密码",
		"pw.new":        "新密码",
		"pw.again":      "再次输入密码",
		"pw.rules":      "至少 %d 个字符，不能是最常见的密码之一，也不能包含用户名。",
		"pw.others":     "修改后，你的其他会话将退出登录；本会话保持登录。",
		"pw.save":       "修改密码",
		"pw.changed":    "密码已修改。你的其他会话已退出登录。",
		"pw.cli":        "此服务器不能在控制台中修改密码；请管理员用 `ql users passwd %s` 修改你的密码。",

		"err.nosetup":        "这里没有可创建的第一个所有者：已经存在账号。请登录，或请所有者为你创建账号（`ql users create`）。",
		"err.nosetuphere":    "此服务器不在浏览器中创建第一个所有者，或启动时没有生成设置码（当时已有账号）：请用 `ql users create NAME --owner%s` 创建账号。",
		"err.nosetupcluster": "集群上请把 admin 角色的数据库 URL 放进 $QL_DATABASE_ADMIN_URL。",
		"err.setupcsrf":      "表单缺少 CSRF 令牌或已过期，请在本页重新填写。",
		"err.setupcode":      "这不是设置码，或它已被使用。请从服务器日志所说的位置复制（代码为 %s 的那一行）；重启服务器可获得新的设置码。",
		"err.setupexists":    "在你填写表单期间，有人创建了账号，因此没有可创建的第一个所有者。请用该账号登录，或请它的所有者为你创建账号。",
		"err.setupstore":     "账号未能保存：数据库未及时响应。设置码仍然有效，请稍后重试。",
		"err.pwmismatch":     "两次输入的新密码不同，请输入相同的密码两次。",
		"err.pwlength":       "新密码有 %[1]d 个字符，请使用 %[2]d 到 %[3]d 个字符。",
		"err.pwcurrent":      "这不是你的当前密码。",
		"err.pwtoken":        "你使用 API 令牌登录，令牌没有可修改的密码。",
		"err.pwstore":        "密码未能修改：数据库未及时响应。没有任何更改，请稍后重试。",
		"err.pwchanged":      "在本次修改期间，你的密码已在别处被修改，或你的账号已被停用或删除，因此这里没有任何更改。请重新登录，如仍需要再修改密码。",
		"err.setupthrottle":  "此地址输入错误设置码的次数过多：请等待一分钟，再用服务器日志所说位置中的设置码重试。",
	},
}

func init() {
	for l, m := range accountMessages {
		maps.Copy(messages[l], m)
	}
}
