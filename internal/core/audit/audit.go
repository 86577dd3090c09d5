// Package audit is the one trail of the changes people make: who did
// what to which object, when. A store writes a Record in the transaction
// of the change it records, so a change never commits without its record
// nor a record without its change; the trail is append-only and holds no
// secret (no token value, password, hash or command environment).
package audit

import (
	"strings"
	"unicode/utf8"
)

// Action is a stable dotted code of what was done; readers filter on it
// and the console translates it.
type Action string

// The actions the trail records. The trigger.* ones are read from the
// trigger schedule's own audit records, merged into the trail's listing.
const (
	TokenCreated        Action = "token.created"
	TokenRevoked        Action = "token.revoked"
	UserCreated         Action = "user.created"
	UserDisabled        Action = "user.disabled"
	UserEnabled         Action = "user.enabled"
	UserDeleted         Action = "user.deleted"
	UserPasswordSet     Action = "user.password_set"
	UserPasswordChanged Action = "user.password_changed"
	UserProjectsSet     Action = "user.projects_set"
	ProjectPaused       Action = "project.paused"
	ProjectResumed      Action = "project.resumed"
	ProjectArchived     Action = "project.archived"
	ProjectActivated    Action = "project.activated"
	ProjectDeleted      Action = "project.deleted"
	SecretSet           Action = "secret.set"
	SecretDeleted       Action = "secret.deleted"
	ScriptSaved         Action = "script.saved"
	ScriptCreated       Action = "script.created"
	ScriptUploaded      Action = "script.uploaded"
	ScriptRenamed       Action = "script.renamed"
	ScriptDeleted       Action = "script.deleted"
	ScriptFolderCreated Action = "script.folder_created"
	NotificationRetried Action = "notification.retried"
	ChannelTested       Action = "channel.tested"
	TriggerPaused       Action = "trigger.paused"
	TriggerResumed      Action = "trigger.resumed"
	TriggerEnabled      Action = "trigger.enabled"
	TriggerDisabled     Action = "trigger.disabled"
	// BackupDownloaded: a backup archive of a single-node server's data
	// directory was sent (the console's Backup page): who, its size and
	// how long it took, never what it held.
	BackupDownloaded Action = "backup.downloaded"
	// SubscriptionCreated, SubscriptionUpdated, SubscriptionDeleted and
	// SubscriptionPulled: a subscription (a repository pulled into a
	// single node's scripts folder by a task of its own) was added,
	// changed, ended or pulled now, by its name and URL without
	// credentials.
	SubscriptionCreated Action = "subscription.created"
	SubscriptionUpdated Action = "subscription.updated"
	SubscriptionDeleted Action = "subscription.deleted"
	SubscriptionPulled  Action = "subscription.pulled"
	// DependencyAdded, DependencyInstalled and DependencyRemoved: a
	// package of a single node's Dependencies page was declared, given an
	// install Run, or removed with an uninstall Run, by kind and name.
	DependencyAdded     Action = "dependency.added"
	DependencyInstalled Action = "dependency.installed"
	DependencyRemoved   Action = "dependency.removed"
	// DependencyMirrorSet: the registry or proxy a kind's installer
	// fetches through was set, by kind (node/mirror).
	DependencyMirrorSet Action = "dependency.mirror_set"
)

// UserTwoStepEnabled, UserTwoStepDisabled, UserTwoStepReset and
// UserRecoveryCodeUsed: a user turned two-step sign-in on or off on the
// account page, an operator reset it (`ql users reset-two-step`), or a
// recovery code signed the user in; never a secret or a code.
const (
	UserTwoStepEnabled   Action = "user.two_step_enabled"
	UserTwoStepDisabled  Action = "user.two_step_disabled"
	UserTwoStepReset     Action = "user.two_step_reset"
	UserRecoveryCodeUsed Action = "user.recovery_code_used"
)

// SettingTwoStepRequired is recorded when an owner (the console's account
// page) or an operator (`ql users require-two-step`) required two-step
// sign-in of every user, or stopped requiring it; the note says on or
// off.
const SettingTwoStepRequired Action = "setting.two_step_required"

// Actions lists every action in the order the docs table has them.
var Actions = []Action{
	TokenCreated, TokenRevoked,
	UserCreated, UserDisabled, UserEnabled, UserDeleted, UserPasswordSet, UserPasswordChanged, UserProjectsSet,
	UserTwoStepEnabled, UserTwoStepDisabled, UserTwoStepReset, UserRecoveryCodeUsed,
	SettingTwoStepRequired,
	ProjectPaused, ProjectResumed, ProjectArchived, ProjectActivated, ProjectDeleted,
	SecretSet, SecretDeleted,
	ScriptSaved, ScriptCreated, ScriptUploaded, ScriptRenamed, ScriptDeleted, ScriptFolderCreated,
	NotificationRetried, ChannelTested,
	TriggerPaused, TriggerResumed, TriggerEnabled, TriggerDisabled,
	BackupDownloaded,
	SubscriptionCreated, SubscriptionUpdated, SubscriptionDeleted, SubscriptionPulled,
	DependencyAdded, DependencyInstalled, DependencyRemoved, DependencyMirrorSet,
}

// Kind is the kind of object a record is about.
type Kind string

// The kinds of object.
const (
	KindToken        Kind = "token"
	KindUser         Kind = "user"
	KindProject      Kind = "project"
	KindNotification Kind = "notification"
	KindChannel      Kind = "channel"
	KindSecret       Kind = "secret"
	KindScript       Kind = "script"
	KindTrigger      Kind = "trigger"
	KindBackup       Kind = "backup"
	KindSubscription Kind = "subscription"
	KindDependency   Kind = "dependency"
	// KindSetting is a setting of the whole installation, by its name.
	KindSetting Kind = "setting"
)

// Bounds of a record's text, which the tables check too.
const (
	MaxActor = 128
	MaxNote  = 1000
)

// Record is one entry of the trail. AtMs is the store's time of the
// change; Project is the name of the object's project ("" for an object of
// no one project: a token, a user); Key orders records that share a
// millisecond and is the listing's cursor with AtMs.
type Record struct {
	Key        string `json:"key"`
	AtMs       int64  `json:"atMs"`
	Actor      string `json:"actor"`
	Action     Action `json:"action"`
	ObjectKind Kind   `json:"objectKind"`
	ObjectID   string `json:"objectId"`
	ObjectName string `json:"objectName"`
	Project    string `json:"project,omitempty"`
	Note       string `json:"note,omitempty"`
}

// Entry is what a change hands its store to record: the store adds the
// time and the key.
type Entry struct {
	Actor      string
	Action     Action
	ObjectKind Kind
	ObjectID   string
	ObjectName string
	Project    string
	Note       string
}

// Bounded is the entry cut to the tables' bounds: an actor or note longer
// than they allow is cut at a rune boundary rather than refuse the change
// it records. An actor never given is "unknown", so that a record always
// names someone.
func (e Entry) Bounded() Entry {
	e.Actor = clip(strings.TrimSpace(e.Actor), MaxActor)
	if e.Actor == "" {
		e.Actor = "unknown"
	}
	e.Note = clip(e.Note, MaxNote)
	return e
}

// clip cuts s to at most n runes.
func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n])
}
