package console

import "maps"

// sessionMessages are the words of a session's own bounds, in both
// languages; init adds them to messages.
var sessionMessages = map[string]map[string]string{
	"en": {
		"err.429":         "Too many requests",
		"err.plainhttp":   "This page was opened at a plain-HTTP address, while the console is served at an HTTPS address: the browser keeps the console's sign-in cookies only over HTTPS and never sends them back here, so signing in at this address cannot work. Nothing was changed. Open the console at its address and sign in there: %s",
		"log.signedout":   "The live output stopped: this session has ended (signed out, at the end of its lifetime, or its token or account changed). Sign in again, then reload this page to follow it.",
		"err.sessionrate": "This session sent more than %g requests a second, the most a session may. Slow down: wait a second, then reload the page. A page with many tabs or a script reloading it sends too many; one page at a time never does.",
	},
	"zh": {
		"err.429":         "请求过多",
		"err.plainhttp":   "此页面是通过明文 HTTP 地址打开的，而控制台的地址是 HTTPS：浏览器只在 HTTPS 下保存控制台的登录 Cookie，也不会在这里发回，因此在此地址无法登录。未作任何更改。请在控制台的地址打开并登录：%s",
		"log.signedout":   "实时输出已停止：此会话已结束（已退出登录、已到有效期，或其令牌或账号已变更）。请重新登录，然后刷新本页继续跟随。",
		"err.sessionrate": "此会话每秒发送的请求超过 %g 个，已达会话上限。请放慢速度：等待一秒后刷新页面。同时打开很多标签页或用脚本反复刷新才会超出；一次打开一个页面不会。",
	},
}

func init() {
	for l, m := range sessionMessages {
		maps.Copy(messages[l], m)
	}
}
