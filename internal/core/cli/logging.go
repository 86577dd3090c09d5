package cli

import (
	"io"
	"log/slog"
	"strings"

	"github.com/spf13/pflag"
)

// Log line formats of --log-format.
const (
	LogText = "text"
	LogJSON = "json"
)

// defaultLogLevel is --log-level's default on every command that has it.
const defaultLogLevel = "info"

// logLevels are --log-level's accepted values, in help's order.
var logLevels = []struct {
	name  string
	level slog.Level
}{{"debug", slog.LevelDebug}, {"info", slog.LevelInfo}, {"warn", slog.LevelWarn}, {"error", slog.LevelError}}

// LogFlags are --log-level and --log-format of a long-running command.
type LogFlags struct {
	Level  string
	Format string
}

// Add adds both flags to fs, bound to QL_LOG_LEVEL and QL_LOG_FORMAT.
// format is the command's format when none is given, which the help then
// states; a command whose format depends on more ("" here) states it in
// defaultHelp instead.
func (l *LogFlags) Add(fs *pflag.FlagSet, format, defaultHelp string) {
	fs.StringVar(&l.Level, "log-level", defaultLogLevel, "lowest level logged: "+levelNames())
	fs.StringVar(&l.Format, "log-format", format, "log line format on stderr: text (key=value) or json (one object a line)"+defaultHelp)
	BindEnv(fs, "log-level", "log-format")
}

// NewLogger builds the logger of a long-running command: lines in format
// (text or json) written to w, the ones below level dropped. Every binary
// builds its logger here, so the flags mean the same everywhere. A value
// it does not know is a usage error naming the flag and what it accepts.
// The command survives its log's reader going away (surviveBrokenPipe):
// it runs on, and its lines are dropped from the first that finds the
// pipe broken.
func NewLogger(w io.Writer, level, format string) (*slog.Logger, error) {
	opts := &slog.HandlerOptions{}
	known := false
	for _, l := range logLevels {
		if level == l.name {
			opts.Level, known = l.level, true
		}
	}
	if !known {
		return nil, Usagef("--log-level %q is not a level; give one of %s", level, levelNames())
	}
	surviveBrokenPipe()
	w = &pipeLog{w: w}
	switch format {
	case LogText:
		return slog.New(slog.NewTextHandler(w, opts)), nil
	case LogJSON:
		return slog.New(slog.NewJSONHandler(w, opts)), nil
	}
	return nil, Usagef("--log-format %q is not a log format; give %s or %s", format, LogText, LogJSON)
}

func levelNames() string {
	names := make([]string, len(logLevels))
	for i, l := range logLevels {
		names[i] = l.name
	}
	return strings.Join(names, ", ")
}
