package workeringress

import (
	"log/slog"
	"maps"
	"slices"
	"strings"

	"github.com/qinglong/qinglong/internal/cluster/pgstore"
)

// CodeWorkerLabelsChanged says a registration replaced a live session of its
// worker that had other labels.
const CodeWorkerLabelsChanged = "ingress.worker_labels_changed"

// labelsChanged says when a registration replaced a live session of the
// worker whose labels differ from the new session's. A clean restart ends
// its session first, so a replacement is a second process holding the
// credential or a restart after a crash: with other labels, the worker
// now takes other tasks' Runs (placement), which nothing else would say.
func (h *Handler) labelsChanged(worker string, reg pgstore.Registered) {
	for _, old := range reg.ReplacedLabels {
		if maps.Equal(old, reg.Labels) {
			continue
		}
		h.log.Warn("a new session of worker "+worker+" replaced a live one that had other labels: the worker now takes the Runs its new labels place, "+
			"not those of the old ones; if two processes hold the credential, give each its own (`ql workers create`)",
			slog.String("code", CodeWorkerLabelsChanged), slog.String("worker", worker),
			slog.String("labels", labelText(reg.Labels)), slog.String("replaced_labels", labelText(old)))
	}
}

// labelText is labels as k=v pairs sorted by key, as --labels takes them.
func labelText(labels map[string]string) string {
	pairs := make([]string, 0, len(labels))
	for _, k := range slices.Sorted(maps.Keys(labels)) {
		pairs = append(pairs, k+"="+labels[k])
	}
	return strings.Join(pairs, ",")
}
