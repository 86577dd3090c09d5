// Package qlpanel writes a qinglong panel's data folder for tests: its
// database with the tables the panel's models create (as its ORM writes
// them for SQLite), holding tasks with Chinese names, disabled items,
// multi-line and "&"-joined environment values, subscriptions and
// dependencies.
package qlpanel

import (
	"database/sql"
	"os"
	"path/filepath"
	"testing"

	// The pure-Go SQLite driver, registered as "sqlite".
	_ "modernc.org/sqlite"
)

// Schema is the panel's tables as its ORM creates them in SQLite.
const Schema = "CREATE TABLE IF NOT EXISTS `Crontabs` (`id` INTEGER PRIMARY KEY AUTOINCREMENT, `name` VARCHAR(255), `command` VARCHAR(255), `schedule` VARCHAR(255), " +
	"`timestamp` VARCHAR(255), `saved` TINYINT(1), `status` NUMBER, `isSystem` NUMBER, `pid` NUMBER, `isDisabled` NUMBER, `isPinned` NUMBER, `log_path` VARCHAR(255), " +
	"`labels` JSON, `last_running_time` NUMBER, `last_execution_time` NUMBER, `sub_id` NUMBER, `extra_schedules` JSON, `task_before` TEXT, `task_after` TEXT, " +
	"`log_name` VARCHAR(255), `allow_multiple_instances` NUMBER, `work_dir` VARCHAR(255), `createdAt` DATETIME NOT NULL, `updatedAt` DATETIME NOT NULL, " +
	"UNIQUE (`name`, `command`, `schedule`));\n" +
	"CREATE TABLE IF NOT EXISTS `Envs` (`id` INTEGER PRIMARY KEY AUTOINCREMENT, `value` VARCHAR(255), `timestamp` VARCHAR(255), `status` NUMBER, `position` NUMBER, " +
	"`name` VARCHAR(255), `remarks` VARCHAR(255), `isPinned` NUMBER, `labels` JSON, `createdAt` DATETIME NOT NULL, `updatedAt` DATETIME NOT NULL, UNIQUE (`value`, `name`));\n" +
	"CREATE TABLE IF NOT EXISTS `Subscriptions` (`id` INTEGER PRIMARY KEY AUTOINCREMENT, `name` VARCHAR(255), `url` VARCHAR(255), `schedule` VARCHAR(255), " +
	"`interval_schedule` JSON, `type` VARCHAR(255), `whitelist` VARCHAR(255), `blacklist` VARCHAR(255), `status` NUMBER, `dependences` VARCHAR(255), " +
	"`extensions` VARCHAR(255), `sub_before` VARCHAR(255), `sub_after` VARCHAR(255), `branch` VARCHAR(255), `pull_type` VARCHAR(255), `pull_option` JSON, " +
	"`pid` NUMBER, `is_disabled` NUMBER, `log_path` VARCHAR(255), `schedule_type` VARCHAR(255), `alias` VARCHAR(255) UNIQUE, `proxy` VARCHAR(255), " +
	"`autoAddCron` NUMBER, `autoDelCron` NUMBER, `createdAt` DATETIME NOT NULL, `updatedAt` DATETIME NOT NULL, " +
	"UNIQUE (`name`, `url`, `schedule`, `interval_schedule`));\n" +
	"CREATE TABLE IF NOT EXISTS `Dependences` (`id` INTEGER PRIMARY KEY AUTOINCREMENT, `name` VARCHAR(255), `type` NUMBER, `timestamp` VARCHAR(255), " +
	"`status` NUMBER, `log` JSON, `remark` VARCHAR(255), `createdAt` DATETIME NOT NULL, `updatedAt` DATETIME NOT NULL);\n"

// Rows are a panel's rows: tasks (one 6-field, one disabled, one the
// panel's own log upkeep, one with a "%"), variables (JD_COOKIE of two
// enabled values and one disabled, a multi-line one, one "&"-joined in
// one row, one disabled whole, one of a name no shell takes, one too
// short to be a secret), subscriptions (a repository, a disabled raw
// file, one pulled at an interval) and dependencies (one removed).
const Rows = "INSERT INTO Crontabs (id, name, command, schedule, isDisabled, labels, status, isSystem, createdAt, updatedAt) VALUES " +
	"(1, '京东签到', 'task jd_bean_sign.js', '0 5 0 * * *', 0, '[\"京东\",\"签到\"]', 1, 0, '2024-01-01', '2024-01-01'), " +
	"(2, '东东农场', 'task jd_fruit.js now', '15 8,20 * * *', 1, '[]', 2, 0, '2024-01-01', '2024-01-01'), " +
	"(3, '删除日志', 'ql rmlog 7', '30 7 */7 * *', 0, '[]', 1, 1, '2024-01-01', '2024-01-01'), " +
	"(4, '每日报告', 'python3 /ql/scripts/report.py --date $(date +%F)', '0 9 * * *', 0, NULL, 1, 0, '2024-01-01', '2024-01-01');\n" +
	"INSERT INTO Envs (id, name, value, status, position, remarks, createdAt, updatedAt) VALUES " +
	"(1, 'JD_COOKIE', 'pt_key=AAA;pt_pin=one;', 0, 4500000000000000, '账号一', '2024-01-01', '2024-01-01'), " +
	"(2, 'JD_COOKIE', 'pt_key=BBB;pt_pin=two;', 0, 4499990000000000, '账号二', '2024-01-01', '2024-01-01'), " +
	"(3, 'JD_COOKIE', 'pt_key=CCC;pt_pin=old;', 1, 4499980000000000, '过期', '2024-01-01', '2024-01-01'), " +
	"(4, 'MULTI_LINE', 'line one\nline two\n', 0, 4499970000000000, '', '2024-01-01', '2024-01-01'), " +
	"(5, 'JOINED', 'pt_key=X1;&pt_key=Y2;', 0, 4499960000000000, '两个账号', '2024-01-01', '2024-01-01'), " +
	"(6, 'OLD_TOKEN', 'tok-0123456789', 1, 4499950000000000, '停用', '2024-01-01', '2024-01-01'), " +
	"(7, 'bad-name', 'whatever', 0, 4499940000000000, '', '2024-01-01', '2024-01-01'), " +
	"(8, 'SHORT', 'ab', 0, 4499930000000000, '', '2024-01-01', '2024-01-01');\n" +
	"INSERT INTO Subscriptions (id, name, url, schedule, type, whitelist, blacklist, dependences, branch, is_disabled, schedule_type, alias, pull_option, createdAt, updatedAt) VALUES " +
	"(1, 'Faker仓库', 'https://github.com/shufflewzc/faker2.git', '0 0 * * *', 'public-repo', 'jd_|jx_', 'backup', '', 'main', 0, 'crontab', 'faker2', NULL, '2024-01-01', '2024-01-01'), " +
	"(2, '通知脚本', 'https://example.com/raw/sendNotify.js', '0 1 * * *', 'file', '', '', '', '', 1, 'crontab', 'notify', NULL, '2024-01-01', '2024-01-01'), " +
	"(3, '私有仓库', 'git@github.com:me/private.git', '', 'private-repo', '', '', '', '', 0, 'interval', 'private', '{\"private_key\":\"PRIVATE-KEY-TEXT\"}', '2024-01-01', '2024-01-01');\n" +
	"INSERT INTO Dependences (id, name, type, status, log, remark, createdAt, updatedAt) VALUES " +
	"(1, 'axios', 0, 1, '[]', '', '2024-01-01', '2024-01-01'), " +
	"(2, 'requests==2.31.0', 1, 1, '[]', '', '2024-01-01', '2024-01-01'), " +
	"(3, 'curl', 2, 2, '[]', '', '2024-01-01', '2024-01-01'), " +
	"(4, 'left-pad', 0, 4, '[]', '', '2024-01-01', '2024-01-01');\n"

// Config is a panel's config/config.sh: notification keys exported with
// a value (TG_BOT_TOKEN's is ConfigSecret) and one without, a variable
// exported to every task, the panel's own settings, a commented line and
// a variable not exported.
const Config = "## 通知环境变量\nexport TG_BOT_TOKEN=\"" + ConfigSecret + "\"\nexport TG_USER_ID='42' # 数字 ID\nexport PUSH_KEY=\"\"\n" +
	"CommandTimeoutTime=\"2h\"\nAutoDelCron=\"true\"\nRandomDelay=\"\"\n# export BARK_PUSH=\"x\"\nexport MY_SCRIPT_FLAG=on\nlocal_only=1\n"

// ConfigSecret is the value of a notification key in Config.
const ConfigSecret = "1234567:CONFIG-SECRET-TOKEN"

// Write makes a panel's data folder under dir, its database holding
// schema and rows, with config/config.sh and scripts/ beside it, and
// returns the folder.
func Write(t testing.TB, dir, schema, rows string) string {
	t.Helper()
	data := filepath.Join(dir, "data")
	for _, d := range []string{"db", "config", "scripts"} {
		if err := os.MkdirAll(filepath.Join(data, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(data, "config", "config.sh"), []byte(Config), 0o644); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", filepath.Join(data, "db", "database.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(schema + rows); err != nil {
		t.Fatalf("write the panel's database: %v", err)
	}
	return data
}
