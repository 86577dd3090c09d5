package schedule

import (
	"context"

	"github.com/qinglong/qinglong/internal/core/run"
)

// ObservedManual is a Manual whose run-now and re-run requests report the
// Runs they finished (RunNowResult.Finished: the unfinished Runs their
// trigger's cancel_previous cancelled) to Finished, for a server's
// monitoring. Backfill finishes none.
type ObservedManual struct {
	Manual
	Finished func(run.FinishCounts)
}

// TriggerRunNow admits as Manual does and reports the Runs it finished.
func (o ObservedManual) TriggerRunNow(ctx context.Context, r RunNowRequest) (RunNowResult, error) {
	res, err := o.Manual.TriggerRunNow(ctx, r)
	if err == nil {
		o.Finished(res.Finished)
	}
	return res, err
}

// RunRerun admits as Manual does and reports the Runs it finished.
func (o ObservedManual) RunRerun(ctx context.Context, r RerunRequest) (RerunResult, error) {
	res, err := o.Manual.RunRerun(ctx, r)
	if err == nil {
		o.Finished(res.Finished)
	}
	return res, err
}
