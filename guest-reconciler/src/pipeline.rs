//! The pipeline: named steps run in order, each reporting how it ended and what it did; a step may pause the run, which resumes at that step.

use std::borrow::Cow;

use crate::{StepReport, StepStatus};

/// How a step ended. Most sentences are fixed: they are borrowed, and only
/// copied when the plan reports them.
pub(crate) struct Outcome {
    status: StepStatus,
    message: Cow<'static, str>,
    finish: bool,
    pause: bool,
}

impl Outcome {
    /// The step did its work.
    pub(crate) fn done(message: impl Into<Cow<'static, str>>) -> Self {
        Self::new(StepStatus::Done, message)
    }

    /// The step had nothing to do.
    pub(crate) fn skipped(message: impl Into<Cow<'static, str>>) -> Self {
        Self::new(StepStatus::Skipped, message)
    }

    /// The step held something back until later.
    pub(crate) fn waiting(message: impl Into<Cow<'static, str>>) -> Self {
        Self::new(StepStatus::Waiting, message)
    }

    /// The step needs what only its caller can give (the plugins' rulings):
    /// the run stops before it, and calls it again when resumed.
    pub(crate) fn pause() -> Self {
        Self {
            pause: true,
            ..Self::new(StepStatus::Waiting, "")
        }
    }

    fn new(status: StepStatus, message: impl Into<Cow<'static, str>>) -> Self {
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
    /// Whether the plan reports every step, those that had nothing to do
    /// too: only when the input asks for explanations.
    fn every_step(&self) -> bool;
}

/// How a run of steps stopped.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Flow {
    /// Every step ran, or one finished the run.
    Finished,
    /// A step paused the run; it is called again when the run resumes.
    Paused,
}

/// What a run of steps does after one step.
pub(crate) enum Next {
    /// Goes on with the next step.
    Continue,
    /// Stops before this step, which is called again when the run resumes.
    Pause,
    /// Stops after this step: no further step runs.
    Finish,
}

/// Makes room in `state`'s report for the lines of `steps` steps at most:
/// reserved once rather than grown by doubling.
pub(crate) fn begin<S: Reporting>(state: &mut S, steps: usize) {
    state.reports().reserve(steps);
}

/// Runs the step `name` on `state`, appending its report line unless it
/// pauses, or had nothing to do in a plan that reports only what acted.
#[inline(always)]
pub(crate) fn step<S: Reporting>(
    state: &mut S,
    name: &'static str,
    run: impl FnOnce(&mut S) -> Outcome,
) -> Next {
    let outcome = run(state);
    if outcome.pause {
        return Next::Pause;
    }
    if outcome.status != StepStatus::Skipped || state.every_step() {
        let group = state.group();
        state.reports().push(StepReport {
            step: name.to_string(),
            group,
            status: outcome.status,
            message: outcome.message.into_owned(),
        });
    }
    if outcome.finish {
        Next::Finish
    } else {
        Next::Continue
    }
}

/// Declares a module's step table: `STEPS`, the names of its steps in order,
/// and `run_steps(state, cursor)`, which runs them in order on `state` from
/// the one at `cursor`, appending a report line per step that ends, and
/// leaves `cursor` at a step that pauses (returning [`Flow::Paused`]) or past
/// the last.
///
/// The steps are called directly, not through a table of function pointers:
/// in the component, the first call through a pointer to each function makes
/// the host initialise that table entry, again in every fresh instance, which
/// cost about a microsecond of a count-10 reconcile over the step and rule
/// tables together.
macro_rules! step_table {
    ($state:ty { $($name:literal => $run:expr),+ $(,)? }) => {
        /// The names of the steps, in the order they run.
        const STEPS: &[&str] = &[$($name),+];

        /// Runs the steps of [`STEPS`] on `state` from the one at `cursor`.
        #[allow(unused_assignments)]
        fn run_steps(state: &mut $state, cursor: &mut usize) -> $crate::pipeline::Flow {
            use $crate::pipeline::{begin, step, Flow, Next};
            begin(state, STEPS.len().saturating_sub(*cursor));
            let mut index = 0;
            $(
                if index >= *cursor {
                    match step(state, $name, $run) {
                        Next::Continue => *cursor = index + 1,
                        Next::Pause => return Flow::Paused,
                        Next::Finish => {
                            *cursor = STEPS.len();
                            return Flow::Finished;
                        }
                    }
                }
                index += 1;
            )+
            Flow::Finished
        }
    };
}

pub(crate) use step_table;
