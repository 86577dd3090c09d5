package console

import (
	"github.com/qinglong/qinglong/internal/core/account"
	"github.com/qinglong/qinglong/internal/core/qlerror"
)

// twoStepRequiredRefusalsZH say in Chinese the refusals of two-step
// sign-in required of every user (twostep_wall.go).
var twoStepRequiredRefusalsZH = map[qlerror.Reason]string{
	account.RefusalTwoStepRequired:         "此控制台要求每位用户启用两步验证，而你的尚未设置：请先在“账号”页设置（用身份验证器应用扫描二维码，输入应用显示的验证码和你的密码）；在此之前只有“账号”页和“退出”可用。",
	account.RefusalTwoStepRequiredStaysOn:  "此控制台要求每位用户启用两步验证，因此你的两步验证不能关闭；要换到另一部手机，请所有者重置它（`ql users reset-two-step NAME`），然后在下次登录时重新设置。",
	account.RefusalTwoStepRequiredOwnFirst: "请先设置你自己的两步验证（在本页上方），再要求所有用户启用；未做任何更改。",
}
