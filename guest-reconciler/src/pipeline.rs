//! The pipeline: named steps run in order, each reporting how it ended and what it did.

use crate::{StepReport, StepStatus};

/// How a step ended.
pub(crate) struct Outcome {
    status: StepStatus,
    message: String,
    finish: bool,
}

impl Outcome {
    /// The step did its work.
    pub(crate) fn done(message: impl Into<String>) -> Self {
        Self::new(StepStatus::Done, message)
    }

    /// The step had nothing to do.
    pub(crate) fn skipped(message: impl Into<String>) -> Self {
        Self::new(StepStatus::Skipped, message)
    }

    /// The step held something back until later.
    pub(crate) fn waiting(message: impl Into<String>) -> Self {
        Self::new(StepStatus::Waiting, message)
    }

    fn new(status: StepStatus, message: impl Into<String>) -> Self {
        Self {
            status,
            message: message.into(),
            finish: false,
        }
    }

    /// No further step runs after this one.
    pub(crate) fn and_finish(mut self) -> Self {
        self.finish = true;
        self
    }
}

/// A state that steps run on and that keeps the report of the run.
pub(crate) trait Reporting {
    /// The report lines so far.
    fn reports(&mut self) -> &mut Vec<StepReport>;
    /// The group the steps run for; none for job-wide steps.
    fn group(&self) -> Option<String>;
}

/// A named step over some state `S`.
pub(crate) struct Step<S> {
    pub(crate) name: &'static str,
    pub(crate) run: fn(&mut S) -> Outcome,
}

/// Runs `steps` in order on `state`, appending a report line per step run.
pub(crate) fn run<S: Reporting>(state: &mut S, steps: &[Step<S>]) {
    for step in steps {
        let outcome = (step.run)(state);
        let group = state.group();
        state.reports().push(StepReport {
            step: step.name.to_string(),
            group,
            status: outcome.status,
            message: outcome.message,
        });
        if outcome.finish {
            break;
        }
    }
}
