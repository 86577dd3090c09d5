package console

import "fmt"

// backupMessages are the words of the Backup page, in English and
// Simplified Chinese. They join messages at start; a key both hold is a
// mistake, refused at once.
//
//nolint:gosec // G101: the words "password" and "secret" in sentences, no credential
var backupMessages = map[string]map[string]string{
	"en": {
		"bk.title":           "Backup",
		"bk.intro":           "Download a backup of this server's data directory as one .tar.gz file: what `ql backup DIR` writes, taken while the server goes on running (what it records later is not in it).",
		"bk.holds":           "What the archive holds",
		"bk.holds.db":        "qinglong.db: a consistent copy of the database — projects, tasks, triggers, Runs and their history, the API tokens' digests, the users' password hashes, the audit trail — about %s.",
		"bk.holds.logs":      "qinglong-logs/: the logs of the attempts in that copy, %s now, about %s (a log still being written, as far as it got).",
		"bk.files":           "%d files",
		"bk.files.one":       "%d file",
		"bk.holds.secrets":   "qinglong-secrets.json: the secrets file, every secret's value in plain text (mode 0600 in the archive), %s.",
		"bk.holds.nosecrets": "No qinglong-secrets.json: this server has no secrets file.",
		"bk.holds.scripts":   "scripts/: the data directory's scripts folder, its folders and files with their modes (links left out; a folder --scripts-dir puts outside the data directory is not in the archive, and not in the size below).",
		"bk.keep":            "Keep the archive like a password: it is not encrypted, and whoever holds it can read every secret and every Run's output. Store it where only you can read it (chmod 600), off this machine, and delete the copies you no longer need.",
		"bk.size":            "About %s before compression, by the files' sizes now (logs compress well: the file is usually smaller). The server first copies the database on the data directory's disk, which needs room for it; the copy is removed once the download ends, however it ends.",
		"bk.download":        "Download backup",
		"bk.onlyone":         "One backup at a time: another one asked for while this server sends one is refused until it ends. The audit trail records each download (who, its size, how long it took).",
		"bk.restore":         "Restore",
		"bk.restore.1":       "Check that the file is whole: `gzip -t FILE` prints nothing for a whole archive (a download cut off fails it; download it again).",
		"bk.restore.2":       "Stop the server.",
		"bk.restore.3":       "Unpack the archive into a new, empty directory: `mkdir -m 700 DIR && tar -xzf FILE -C DIR`.",
		"bk.restore.4":       "Put it in the data directory's place: `mv %[1]s %[1]s.old && mv DIR %[1]s` (the old directory stays beside it until you remove it).",
		"bk.restore.5":       "Start the server as before (`ql serve --data-dir %s`). Occurrences due since the backup are caught up as each trigger's misfire policy says; to pass them over instead, add `--after-restore skip-missed` to that first start.",
		"bk.restore.6":       "Then revoke again the API tokens revoked since the backup, disable again the users disabled since, and set again the passwords and secrets changed since: the archive holds them as they were. docs/operations.md, \"Backup and restore\", says more.",
		"bk.cluster":         "This server's database is PostgreSQL's, which the console does not back up: back it up with PostgreSQL's own tools, as a superuser with umask 077: `pg_dump --format=custom --schema=qinglong --file=qinglong.dump \"$SUPERUSER_URL\"`, and restore it with `pg_restore` into a new, empty database. docs/operations.md, \"Backup and restore\" (Cluster), says how, with QingLong's roles. Each worker keeps its own secrets file: back that up on its host.",
	},
	"zh": {
		"bk.title":           "备份",
		"bk.intro":           "把此服务器的数据目录下载为一个 .tar.gz 备份文件：内容与 `ql backup DIR` 写出的相同，备份期间服务器照常运行（之后记录的内容不在其中）。",
		"bk.holds":           "备份文件包含什么",
		"bk.holds.db":        "qinglong.db：数据库的一致副本——项目、任务、触发器、运行及其历史、API 令牌的摘要、用户的密码哈希、审计记录——约 %s。",
		"bk.holds.logs":      "qinglong-logs/：该副本中各次尝试的日志，目前 %s，约 %s（仍在写入的日志，截至复制时的内容）。",
		"bk.files":           "%d 个文件",
		"bk.holds.secrets":   "qinglong-secrets.json：密钥文件，包含每个密钥的明文值（在备份文件中的权限为 0600），%s。",
		"bk.holds.nosecrets": "没有 qinglong-secrets.json：此服务器没有密钥文件。",
		"bk.holds.scripts":   "scripts/：数据目录中的脚本文件夹，包括其中的文件夹和文件及其权限（不含符号链接；用 --scripts-dir 放在数据目录之外的文件夹不在备份文件中，也不计入下面的大小）。",
		"bk.keep":            "请像保管密码一样保管备份文件：它没有加密，任何拿到它的人都能读到每个密钥和每次运行的输出。请把它存放在只有你能读取的地方（chmod 600），最好不在本机，并删除不再需要的副本。",
		"bk.size":            "压缩前约 %s（按文件当前大小计算；日志压缩率高，文件通常更小）。服务器会先在数据目录所在的磁盘上复制一份数据库，需要有相应的空间；无论下载如何结束，该副本都会在结束时删除。",
		"bk.download":        "下载备份",
		"bk.onlyone":         "同一时间只做一份备份：服务器正在发送一份时，再次请求会被拒绝，直到它结束。每次下载都记入审计记录（操作者、大小、耗时）。",
		"bk.restore":         "恢复",
		"bk.restore.1":       "先检查文件是否完整：对完整的备份文件，`gzip -t FILE` 不输出任何内容（中途断开的下载无法通过检查，请重新下载）。",
		"bk.restore.2":       "停止服务器。",
		"bk.restore.3":       "把备份文件解压到一个新的空目录：`mkdir -m 700 DIR && tar -xzf FILE -C DIR`。",
		"bk.restore.4":       "用它替换数据目录：`mv %[1]s %[1]s.old && mv DIR %[1]s`（旧目录保留在旁边，直到你删除它）。",
		"bk.restore.5":       "照常启动服务器（`ql serve --data-dir %s`）。备份之后到期的计划按各触发器的错过策略补跑；若不想补跑，请在这第一次启动时加上 `--after-restore skip-missed`。",
		"bk.restore.6":       "然后再次吊销备份之后吊销过的 API 令牌、再次停用之后停用过的用户，并重新设置之后改过的密码和密钥：备份文件中保存的是它们当时的样子。详见 docs/operations.md 的“Backup and restore”一节。",
		"bk.cluster":         "此服务器的数据库属于 PostgreSQL，控制台不负责备份它：请以超级用户身份、在 umask 077 下用 PostgreSQL 自带的工具备份：`pg_dump --format=custom --schema=qinglong --file=qinglong.dump \"$SUPERUSER_URL\"`，并用 `pg_restore` 恢复到一个新的空数据库。docs/operations.md 的“Backup and restore”一节（Cluster）说明了具体做法以及 QingLong 的角色。每个 worker 有自己的密钥文件：请在其所在主机上备份。",
	},
}

func init() {
	for l, words := range backupMessages {
		for k, v := range words {
			if _, ok := messages[l][k]; ok {
				panic(fmt.Sprintf("console: the catalogue has %q in %s twice", k, l))
			}
			messages[l][k] = v
		}
	}
}
