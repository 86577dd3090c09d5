package qlimport

import "fmt"

// Code says which sentence an Item's Why is, so that a reader in another
// language (the console's) words it in its own, filling in the Item's
// Params.
type Code string

// The codes of the items the import notes or leaves out, each with the
// params its sentence names.
const (
	// CodeLabelsLong: a task's labels, joined (labels), are longer than a
	// label's max characters.
	CodeLabelsLong Code = "labels_long"
	// CodeExtraSchedules: a task's count extra schedules.
	CodeExtraSchedules Code = "extra_schedules"
	// CodeTaskHooks: a task's task_before or task_after.
	CodeTaskHooks Code = "task_hooks"
	// CodeWorkDir: a task's work_dir (dir).
	CodeWorkDir Code = "work_dir"
	// CodeInterval: a subscription pulled at an interval.
	CodeInterval Code = "interval"
	// CodePrivateRepo: a private repository's key or password.
	CodePrivateRepo Code = "private_repo"
	// CodeSubscriptionHooks: a subscription's sub_before or sub_after.
	CodeSubscriptionHooks Code = "subscription_hooks"
	// CodeEnvName: a variable of a name no shell takes.
	CodeEnvName Code = "env_name"
	// CodeEnvReserved: a variable of QingLong's own prefix (prefix).
	CodeEnvReserved Code = "env_reserved"
	// CodeSecretNameLong: the secret's name (name) is too long.
	CodeSecretNameLong Code = "secret_name_long"
	// CodeSecretValue: the joined value is no secret's; Item.Err says
	// why.
	CodeSecretValue Code = "secret_value"
	// CodeDisabledValues: count values disabled in the panel, kept in
	// secret, given to no task (variable).
	CodeDisabledValues Code = "disabled_values"
	// CodeDependencyType: a dependency of a type (type) the panel has
	// not.
	CodeDependencyType Code = "dependency_type"
	// CodeDependencyRemoved: a dependency the panel removed.
	CodeDependencyRemoved Code = "dependency_removed"
	// CodeDependencySpec: a dependency no package list takes; Item.Err
	// says why.
	CodeDependencySpec Code = "dependency_spec"
	// CodeTableMissing: an optional table an older panel lacks.
	CodeTableMissing Code = "table_missing"
	// CodeScriptsFolder: the data folder's scripts, not copied.
	CodeScriptsFolder Code = "scripts_folder"
	// CodeConfigUnreadable: config.sh could not be read (why).
	CodeConfigUnreadable Code = "config_unreadable"
	// CodeConfigNotify: config.sh's notification keys (names).
	CodeConfigNotify Code = "config_notify"
	// CodeConfigExported: config.sh's other exported variables (names).
	CodeConfigExported Code = "config_exported"
	// CodeConfigPanelSetting: one of the panel's own settings (name)
	// that means nothing here.
	CodeConfigPanelSetting Code = "config_panel_setting"
	// The panel's settings (name) that have a counterpart here, by what
	// to do instead: a timeout, the server's concurrency, a jitter, a
	// mirror, a proxy, a proxied subscription URL.
	CodeSettingTimeout     Code = "setting_timeout"
	CodeSettingConcurrency Code = "setting_concurrency"
	CodeSettingJitter      Code = "setting_jitter"
	CodeSettingMirror      Code = "setting_mirror"
	CodeSettingProxy       Code = "setting_proxy"
	CodeSettingGithubProxy Code = "setting_github_proxy"
)

// Codes lists every code, for the readers that must word each.
var Codes = []Code{CodeLabelsLong, CodeExtraSchedules, CodeTaskHooks, CodeWorkDir, CodeInterval, CodePrivateRepo, CodeSubscriptionHooks,
	CodeEnvName, CodeEnvReserved, CodeSecretNameLong, CodeSecretValue, CodeDisabledValues, CodeDependencyType, CodeDependencyRemoved, CodeDependencySpec,
	CodeTableMissing, CodeScriptsFolder, CodeConfigUnreadable, CodeConfigNotify, CodeConfigExported, CodeConfigPanelSetting,
	CodeSettingTimeout, CodeSettingConcurrency, CodeSettingJitter, CodeSettingMirror, CodeSettingProxy, CodeSettingGithubProxy}

// RefKind is what kind of the panel's things a Ref names.
type RefKind string

// The kinds.
const (
	RefTask         RefKind = "task"
	RefSubscription RefKind = "subscription"
	RefEnv          RefKind = "env"
	RefDependency   RefKind = "dependency"
	RefTable        RefKind = "table"
	// RefFile is a file or folder of the data folder, by its path.
	RefFile RefKind = "file"
)

// Ref names one thing of the panel's: its kind, its id in the panel's
// table (0 for a thing that has none) and its name.
type Ref struct {
	Kind RefKind
	ID   int
	Name string
}

// String is the ref as the command line prints it: "task 12 (京东签到)",
// "env JD_COOKIE", "config/config.sh".
func (r Ref) String() string {
	switch {
	case r.Kind == RefFile:
		return r.Name
	case r.ID != 0:
		return fmt.Sprintf("%s %d (%s)", r.Kind, r.ID, r.Name)
	}
	return string(r.Kind) + " " + r.Name
}
