//! The pipeline: named steps run in order, each reporting how it ended and what it did; a step may pause the run, which resumes at that step.

use crate::{StepReport, StepStatus};

/// How a step ended.
pub(crate) struct Outcome {
    status: StepStatus,
    message: String,
    finish: bool,
    pause: bool,
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

    /// The step needs what only its caller can give (the plugins' rulings):
    /// the run stops before it, and calls it again when resumed.
    pub(crate) fn pause() -> Self {
        Self {
            pause: true,
            ..Self::new(StepStatus::Waiting, String::new())
        }
    }

    fn new(status: StepStatus, message: impl Into<String>) -> Self {
        Self {
            status,
            message: message.into(),
            finish: false,
            pause: false,
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

/// How a run of steps stopped.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Flow {
    /// Every step ran, or one finished the run.
    Finished,
    /// A step paused the run; it is called again when the run resumes.
    Paused,
}

/// Runs `steps` in order on `state` from the one at `cursor`, appending a
/// report line per step that ends; leaves `cursor` at a step that pauses.
pub(crate) fn run<S: Reporting>(state: &mut S, steps: &[Step<S>], cursor: &mut usize) -> Flow {
    // One line per step at most: reserved once rather than grown by doubling.
    state.reports().reserve(steps.len().saturating_sub(*cursor));
    while let Some(step) = steps.get(*cursor) {
        let outcome = (step.run)(state);
        if outcome.pause {
            return Flow::Paused;
        }
        *cursor += 1;
        let group = state.group();
        state.reports().push(StepReport {
            step: step.name.to_string(),
            group,
            status: outcome.status,
            message: outcome.message,
        });
        if outcome.finish {
            *cursor = steps.len();
            break;
        }
    }
    Flow::Finished
}
