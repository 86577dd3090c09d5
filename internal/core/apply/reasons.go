package apply

import "github.com/qinglong/qinglong/internal/core/qlerror"

// The reasons a definitions file is refused for that are the file's own
// (its YAML, its shape, its references); the checks it shares with every
// way of publishing carry the reasons of validate, task, trigger, cron,
// notify and project. Each names the params its sentence may use; every
// located one is at its line (LocatedError) as well.
const (
	// RefusalArchivingWithChanges is a file that archives its project and
	// in the same apply creates or changes a task or trigger of it, which
	// an archived project cannot take: kind (task or trigger), name,
	// project, fields (the changed ones, comma separated; empty for a new
	// object).
	RefusalArchivingWithChanges qlerror.Reason = "defs_archiving_with_changes"
	// RefusalYAMLSyntax is text the YAML decoder cannot read: detail
	// (the decoder's own words).
	RefusalYAMLSyntax qlerror.Reason = "defs_yaml_syntax"
	// RefusalNotUTF8Text is a file with bytes that are not UTF-8 (saved
	// in another encoding): detail (the decoder's words).
	RefusalNotUTF8Text qlerror.Reason = "defs_not_utf8"
	// RefusalControlCharacter is a control character the decoder does not
	// take (a pasted escape, a NUL): detail (the decoder's words), char
	// (U+XXXX).
	RefusalControlCharacter qlerror.Reason = "defs_control_character"
	// RefusalEmptyFile is a file with no document.
	RefusalEmptyFile qlerror.Reason = "defs_empty_file"
	// RefusalTooLarge is a file over the limit: limit (bytes).
	RefusalTooLarge qlerror.Reason = "defs_too_large"
	// RefusalSecondDocument is a second YAML document after ---.
	RefusalSecondDocument qlerror.Reason = "defs_second_document"
	// RefusalYAMLAnchor is an anchor or alias: anchor.
	RefusalYAMLAnchor qlerror.Reason = "defs_yaml_anchor"
	// RefusalKeyNotString is a mapping key that is not a plain string.
	RefusalKeyNotString qlerror.Reason = "defs_key_not_string"
	// RefusalUnknownField is a key the mapping does not have: field (the
	// mapping), value (the key), allowed.
	RefusalUnknownField qlerror.Reason = "defs_unknown_field"
	// RefusalNotMapping is a value that must be a mapping: field.
	RefusalNotMapping qlerror.Reason = "defs_not_a_mapping"
	// RefusalNotList is a value that must be a list: field.
	RefusalNotList qlerror.Reason = "defs_not_a_list"
	// RefusalNotString is a value that must be a string: field.
	RefusalNotString qlerror.Reason = "defs_not_a_string"
	// RefusalNotBool is a value that must be true or false: field.
	RefusalNotBool qlerror.Reason = "defs_not_a_bool"
	// RefusalTooManyEntries is a file with more tasks or triggers than
	// one file holds: field, count, limit.
	RefusalTooManyEntries qlerror.Reason = "defs_too_many_entries"
	// RefusalCommandAndScript is a task giving both modes: task.
	RefusalCommandAndScript qlerror.Reason = "defs_command_and_script"
	// RefusalNoCommand is a task giving neither mode: task.
	RefusalNoCommand qlerror.Reason = "defs_no_command"
	// RefusalEmptyCommand is an argv command without its program: field.
	RefusalEmptyCommand qlerror.Reason = "defs_empty_command"
	// RefusalEnvMapping is an environment mapping other than
	// {secret: ref}: field.
	RefusalEnvMapping qlerror.Reason = "defs_env_mapping"
	// RefusalRetryOn is a retry.on that is no list of outcomes: field,
	// allowed.
	RefusalRetryOn qlerror.Reason = "defs_retry_on"
	// RefusalNotInstant is a time that is no RFC 3339 instant: field,
	// value.
	RefusalNotInstant qlerror.Reason = "defs_not_an_instant"
	// RefusalRuleEventAndStreak is a rule giving on and
	// consecutive_failures: field.
	RefusalRuleEventAndStreak qlerror.Reason = "defs_rule_event_and_streak"
	// RefusalRuleStreakAsEvent is on: consecutive_failures: field.
	RefusalRuleStreakAsEvent qlerror.Reason = "defs_rule_streak_as_event"
	// RefusalRuleNoEvent is a rule giving neither: field.
	RefusalRuleNoEvent qlerror.Reason = "defs_rule_no_event"
	// RefusalRuleScopeUnknown is a notification rule's tasks or triggers
	// naming no task or trigger of the file nor of its project as the
	// store holds it: field, kind (task, trigger), name, project.
	RefusalRuleScopeUnknown qlerror.Reason = "defs_rule_scope_unknown"
	// RefusalDefinedTwice is a task or trigger name given twice in the
	// file: kind (task, trigger), name, field (task.name, trigger.name).
	RefusalDefinedTwice qlerror.Reason = "defs_defined_twice"
	// RefusalUnknownTask is a trigger naming a task the file does not
	// define: trigger, task, field (trigger.task).
	RefusalUnknownTask qlerror.Reason = "defs_unknown_task"
	// RefusalTriggerOfDisabledTask is an enabled trigger of a disabled
	// task: trigger, task.
	RefusalTriggerOfDisabledTask qlerror.Reason = "defs_trigger_of_disabled_task"
	// RefusalTriggerRebound is a trigger the file binds to another task
	// than the one it is bound to: trigger.
	RefusalTriggerRebound qlerror.Reason = "defs_trigger_rebound"
	// RefusalWriteConflict is a valid file whose publish lost to another
	// writer of the same objects after it was validated: file. Nothing
	// of it was written.
	RefusalWriteConflict qlerror.Reason = "defs_write_conflict"
	// RefusalOutcomeUnknown is a valid file whose publish the store did
	// not see end (a lost connection, a write lock held elsewhere): file.
	// It may or may not have been written; applying it again converges.
	RefusalOutcomeUnknown qlerror.Reason = "defs_outcome_unknown"
)
