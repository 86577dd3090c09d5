package crontab

// Code says which of the converter's sentences a Problem's Why is, so
// that a reader in another language (the console's) words it in its own,
// filling in the Problem's Params.
type Code string

// The codes, each with the params its sentence names.
const (
	// CodeNotAnEntry: no schedule followed by a command.
	CodeNotAnEntry Code = "not_an_entry"
	// CodeReboot: an @reboot entry.
	CodeReboot Code = "reboot"
	// CodeNotAUser: a system crontab's user column is no user (user).
	CodeNotAUser Code = "not_a_user"
	// CodeNoCommand: nothing after a system crontab's user (user).
	CodeNoCommand Code = "no_command"
	// CodeRootCommand: a user crontab's command starts with "root".
	CodeRootCommand Code = "root_command"
	// CodePanelCommand: the qinglong panel's ql repo or ql raw naming
	// nothing to pull (command: its second word).
	CodePanelCommand Code = "panel_command"
	// CodePanelRepo: the panel's ql repo, converted to a pull task (url,
	// folder, match, exclude, dependence).
	CodePanelRepo Code = "panel_repo"
	// CodeRepoURL: the panel's ql repo of a URL naming no owner and
	// repository (value), which a subscription's name and folder are made
	// of: the Subscriptions form refuses it alike.
	CodeRepoURL Code = "repo_url"
	// CodeRepoBranch: the panel's ql repo of a branch git would refuse
	// (value), which a subscription's folder and git's command line are
	// made of: the Subscriptions form refuses it alike.
	CodeRepoBranch Code = "repo_branch"
	// CodeRepoCredentials: the panel's ql repo of a URL whose user and
	// password hold a '/', '?' or '#' (CredentialsFault), which would keep
	// the password in the task: not converted, the URL not repeated.
	CodeRepoCredentials Code = "repo_credentials"
	// CodeRepoCharacter: the panel's ql repo whose URL, branch,
	// whitelist or blacklist (field: url, branch, match, exclude) holds a
	// control or format character (char: U+XXXX; Unseen), which the
	// Subscriptions form refuses alike (subscription_character): not
	// converted, the word not repeated.
	CodeRepoCharacter Code = "repo_character"
	// CodeRepoRepeated: a ql repo pulling into the folder (folder) an
	// earlier line's task (line, name) pulls into (other), or into one
	// inside or around it (FoldersShare), left out.
	CodeRepoRepeated Code = "repo_repeated"
	// CodePanelRaw: the panel's ql raw, converted to a download task
	// (url, file).
	CodePanelRaw Code = "panel_raw"
	// CodeRawCharacter: the panel's ql raw whose URL (field: url) holds
	// a control or format character (char: U+XXXX; Unseen), as
	// CodeRepoCharacter of a ql repo: not converted, the URL not
	// repeated.
	CodeRawCharacter Code = "raw_character"
	// CodeRawCredentials: the panel's ql raw of a URL whose user and
	// password hold a '/', '?' or '#' (CredentialsFault), as
	// CodeRepoCredentials of a ql repo: not converted, the URL not
	// repeated.
	CodeRawCredentials Code = "raw_credentials"
	// CodePanelLogs: the panel's ql rmlog, which deletes old logs.
	CodePanelLogs Code = "panel_logs"
	// CodePanelUpkeep: one of the panel's ql commands that keep the panel
	// itself (update, check, …; command: its second word).
	CodePanelUpkeep Code = "panel_upkeep"
	// CodeUnknownMacro: an @-schedule cron does not know (macro).
	CodeUnknownMacro Code = "unknown_macro"
	// CodeSchedule: the schedule is refused; Problem.Err is the cron
	// package's refusal, which says why.
	CodeSchedule Code = "schedule"
	// CodeStandardInput: an unescaped "%".
	CodeStandardInput Code = "standard_input"
	// CodeSeconds: six time fields are read with seconds first.
	CodeSeconds Code = "seconds"
	// CodeTaskCommand: the qinglong panel's task command.
	CodeTaskCommand Code = "task_command"
	// CodeRunAs: a system crontab's entries of user run as it (user).
	CodeRunAs Code = "run_as"
	// CodeBothDays: both day fields restricted (monthday, weekday).
	CodeBothDays Code = "both_days"
	// CodeZoneKept: a CRON_TZ= or TZ= line names no zone; the lines
	// after it keep zone; Problem.Err says what is wrong with it.
	CodeZoneKept Code = "zone_kept"
	// CodeShellKept: a SHELL= line names a shell a task cannot have; the
	// lines after it keep shell.
	CodeShellKept Code = "shell_kept"
	// CodeMail: MAILTO= or MAILFROM=.
	CodeMail Code = "mail"
	// CodeReservedName: a VAR= line of a QL_ name.
	CodeReservedName Code = "reserved_name"
	// CodeCommented: a commented line of the qinglong panel's, converted
	// with its trigger disabled.
	CodeCommented Code = "commented"
	// CodeTaskInterpreter: the panel's task SCRIPT written with its
	// interpreter, run in the scripts folder (dir).
	CodeTaskInterpreter Code = "task_interpreter"
	// CodeTaskTypeScript: the panel's task SCRIPT.ts written as tsx
	// SCRIPT.ts, which needs tsx installed.
	CodeTaskTypeScript Code = "task_typescript"
)

// The codes of what Scripts says of a script, each with the params its
// sentence names: of one it makes no task of, and the note of the first
// TypeScript one it does.
const (
	// CodeScriptTypeScript: a .ts script's task runs it with tsx, which
	// must be installed (script: the task's command).
	CodeScriptTypeScript Code = "script_typescript"
	// CodeScriptNoCron: a script whose header gives no cron.
	CodeScriptNoCron Code = "script_no_cron"
	// CodeScriptCron: its header's cron is refused (cron); Err says why.
	CodeScriptCron Code = "script_cron"
)

// ScriptCodes lists every code Scripts says of a script.
var ScriptCodes = []Code{CodeScriptTypeScript, CodeScriptNoCron, CodeScriptCron}

// Codes lists every code, for the readers that must word each.
var Codes = []Code{CodeNotAnEntry, CodeReboot, CodeNotAUser, CodeNoCommand, CodeRootCommand, CodePanelCommand, CodePanelRepo, CodeRepoURL, CodeRepoBranch, CodeRepoCredentials, CodeRepoCharacter, CodeRepoRepeated, CodePanelRaw, CodeRawCharacter, CodeRawCredentials, CodePanelLogs, CodePanelUpkeep, CodeUnknownMacro,
	CodeSchedule, CodeStandardInput, CodeSeconds, CodeTaskCommand, CodeRunAs, CodeBothDays, CodeZoneKept, CodeShellKept, CodeMail, CodeReservedName, CodeCommented, CodeTaskInterpreter, CodeTaskTypeScript}
