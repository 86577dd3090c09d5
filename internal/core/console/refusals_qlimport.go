package console

import (
	"github.com/qinglong/qinglong/internal/core/process"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/qlimport"
)

// qlimportRefusalsZH say in Chinese the refusals of a qinglong panel's
// data folder given to the import, and those of a secret's value, which
// its preview gives a variable it leaves out.
var qlimportRefusalsZH = map[qlerror.Reason]string{
	qlimport.RefusalNotPanel:          "{dir} 不是青龙面板的数据目录（其中没有可读的 db/database.sqlite）：请给出面板的 /ql/data 目录（含 db/database.sqlite、config 和 scripts），或它的副本。",
	qlimport.RefusalSchema:            "面板数据库缺少表 {table} 的 {column}：它来自本导入不认识的青龙版本；请升级面板（启动时会补上所缺），停止它，再导入其目录。",
	qlimport.RefusalNotDatabase:       "文件 {name} 不是 SQLite 数据库，因此不是青龙面板的数据库：请上传面板的 db/database.sqlite（在其 /ql/data 中），在面板停止时复制。",
	qlimport.RefusalBusy:              "面板数据库旁有 {file}：面板正在写入（或写到一半时停止），此时读取可能读到写了一半的数据；请停止面板（docker stop）后再导入，或在面板停止时复制目录并导入副本。",
	process.RefusalSecretValueShort:   "密钥 {name} 的值不到 {min} 个字节，太短，无法在输出中遮盖而不遮住无关的文字：请使用更长的值；若它并不需要保密，请改用普通的 env 值。",
	process.RefusalSecretValueLong:    "密钥 {name} 的值超过了 {max} 个字节的上限（一个环境变量值的上限）。",
	process.RefusalSecretValueNUL:     "密钥 {name} 的值含有 NUL 字节，任何环境变量值都不能含有它。",
	process.RefusalSecretValueNotUTF8: "密钥 {name} 的值不是 UTF-8 文本：二进制数据请编码（base64、hex）后保存，在命令中解码。",
}
