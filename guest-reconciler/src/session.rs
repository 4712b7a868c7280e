//! The session: a reconcile that consults plugins, as a state machine that performs no I/O. It decides whom to ask with what batch, what each reply means, how answers compose, what a failure does and what the plan records; a host only relays.
//!
//! The run it drives keeps its state between questions (it borrows the
//! input the session owns), so each question resumes the reconcile where it
//! paused: nothing is computed twice.

use crate::answers::{self, hook_name, Checked};
use crate::composition::{self, Answer};
use crate::pipeline::Flow;
use crate::plugin::{Batch, Hook, Kept, ViewParts};
use crate::ruling::{Point, Wants};
use crate::run::{carried_ext, JobRun};
use crate::sentence::say;
use crate::validation::{Noted, Unnoted};
use crate::views::{self, Shown};
use crate::{
    phrasing, Consulted, Failure, FailureKind, InputError, LogLevel, Mode, Plan, PluginFailure,
    PluginLog, Progress, Question, ReconcileInput, Reply, SessionError, SlotExt, StepReport,
    StepStatus,
};
use std::collections::BTreeMap;

/// Log lines one call may leave; past them the call fails as too large.
pub const MAX_LOG_LINES: usize = 100;

/// Bytes one log line may hold.
pub const MAX_LOG_LINE: usize = 1 << 10;

/// Log lines kept of one plugin in one reconcile. Later lines are counted,
/// not kept, and one line at the end says how many: a plugin may log a
/// hundred lines a call, and a job of 100,000 groups asks it 200,000
/// times, which kept whole would be 20 GB of logs.
pub const MAX_KEPT_LOG_LINES: usize = 1_000;

/// A session's input: the input itself, or, in the component, the input as
/// decoded into the input arena with its reader's notes (`wire::HeldInput`).
/// Behind a trait rather than named here: `Held` reaches the crate root's
/// allocator, whose root reaches this file, a circle `xtask circles` refuses.
pub(crate) type Input = Box<dyn Noted>;

self_cell::self_cell!(
    /// The input and the run that borrows it.
    struct Run {
        owner: Input,
        #[not_covariant]
        dependent: JobRun,
    }
);

/// One reconcile, asked and answered one question at a time.
pub struct Session {
    run: Run,
    plugins: Vec<Consulted>,
    /// What each plugin did and used, in the plugins' order.
    records: Vec<Record>,
    failures: Vec<PluginFailure>,
    logs: Vec<PluginLog>,
    /// Bytes plugins attached to slots this run.
    fresh: Vec<SlotExt>,
    /// Per plugin, where its bytes from earlier runs are in the input's
    /// ext data, by group, then node id (for a node slot) and name index.
    kept_at: Vec<BTreeMap<String, BTreeMap<SlotName, usize>>>,
    /// The hook point being asked about, while the run is paused at one.
    point: Option<Asking>,
    /// Set once the session returned its plan or an error.
    over: bool,
    started: bool,
}

/// How `ext` data names a slot within its group: the node's id for a
/// node slot, and the name index.
type SlotName = (Option<String>, u32);

/// What the session keeps of one plugin.
#[derive(Default)]
struct Record {
    /// Not asked again: it failed in a way its instance cannot recover
    /// from, or could not be loaded.
    out: bool,
    /// Calls per hook: promotion, pre-slot, post-slot, review.
    calls: [u64; 4],
    fuel: u64,
    memory: u64,
    metered: bool,
    /// Log lines kept, and those past the limit, with the hook of the last.
    logged: usize,
    unkept: usize,
    unkept_at: &'static str,
}

/// A hook point being asked about.
struct Asking {
    shown: Shown,
    /// The batch built and not sent yet; once a question carries it, the
    /// host keeps it for the next plugins that read the same parts.
    batch: Option<Batch>,
    /// The parts the batch last built holds.
    reads: ViewParts,
    /// The next plugin to consider asking.
    next: usize,
    /// The plugin whose reply is awaited.
    asked: Option<usize>,
    /// Checked answers so far, by plugin position.
    answers: Vec<(usize, Checked)>,
}

impl Session {
    /// Starts a reconcile of `input`, consulting `plugins` in this order.
    ///
    /// # Errors
    /// When the input is inconsistent, or two plugins share a name; the
    /// error names the offending field.
    pub fn open(input: ReconcileInput, plugins: Vec<Consulted>) -> Result<Self, InputError> {
        Self::open_held(Box::new(Unnoted(input)), plugins)
    }

    /// As [`Session::open`], for an input held as the caller chose.
    pub(crate) fn open_held(input: Input, plugins: Vec<Consulted>) -> Result<Self, InputError> {
        crate::validation::check_noted(&*input)?;
        for (i, c) in plugins.iter().enumerate() {
            if plugins[..i].iter().any(|d| d.name == c.name) {
                return Err(InputError {
                    field: say!("plugins[", i, "].name"),
                    message: say!("two consulted plugins are named `", c.name, "`"),
                });
            }
        }
        let live = |hook: Hook| {
            plugins
                .iter()
                .any(|p| p.unloaded.is_none() && p.hooks.contains(&hook))
        };
        let wants = Wants {
            promotion: live(Hook::Promotion),
            pre_slot: live(Hook::PreSlot),
            post_slot: live(Hook::PostSlot),
            review: live(Hook::Review),
        };
        let mut records: Vec<Record> = plugins.iter().map(|_| Record::default()).collect();
        let mut failures = Vec::new();
        for (p, plugin) in plugins.iter().enumerate() {
            if let Some(cause) = &plugin.unloaded {
                records[p].out = true;
                failures.push(PluginFailure {
                    plugin: plugin.name.clone(),
                    hook: "load".into(),
                    group: None,
                    slot: None,
                    node: None,
                    cause: cause.clone(),
                });
            }
        }
        let mut kept_at = vec![BTreeMap::new(); plugins.len()];
        for (at, e) in input.ext.iter().enumerate() {
            if let Some(p) = plugins.iter().position(|c| c.name == e.plugin) {
                let by_slot: &mut BTreeMap<SlotName, usize> =
                    kept_at[p].entry(e.group.clone()).or_default();
                by_slot.insert((e.node.clone(), e.slot), at);
            }
        }
        Ok(Self {
            run: Run::new(input, |input| JobRun::new(input, input.lists(), wants)),
            plugins,
            records,
            failures,
            logs: Vec::new(),
            fresh: Vec::new(),
            kept_at,
            point: None,
            over: false,
            started: false,
        })
    }

    /// Takes the reply to the last question (none the first time), and
    /// returns the next question or the plan.
    ///
    /// # Errors
    /// When a plugin that does not fail open failed or answered something
    /// invalid, or the session is driven wrongly (a reply to no question,
    /// none to one, any after the end). The session is then over.
    pub fn next(&mut self, reply: Option<Reply>) -> Result<Progress, SessionError> {
        let outcome = self.step(reply);
        if !matches!(outcome, Ok(Progress::Ask(_))) {
            self.over = true;
        }
        outcome
    }

    fn step(&mut self, reply: Option<Reply>) -> Result<Progress, SessionError> {
        if self.over {
            return Err(driving("the session is over"));
        }
        let asked = self.point.as_ref().and_then(|a| a.asked);
        match (asked, reply) {
            (None, None) if !self.started => {
                self.started = true;
                self.refuse_unloaded()?;
            }
            (None, _) => return Err(driving("a reply was given, but nothing was asked")),
            (Some(p), None) => {
                let name = &self.plugins[p].name;
                return Err(driving(&say!(
                    "the question to ",
                    name,
                    " awaits its reply"
                )));
            }
            (Some(p), Some(reply)) => self.take(p, reply)?,
        }
        loop {
            if self.point.is_none() {
                let flow = self.run.with_dependent_mut(|_, run| run.advance());
                if flow == Flow::Finished {
                    return Ok(Progress::Done(self.plan()));
                }
                self.point = Some(self.ask_about()?);
            }
            if let Some(question) = self.next_question() {
                return Ok(Progress::Ask(question));
            }
            let Some(asking) = self.point.take() else {
                continue;
            };
            let answers: Vec<Answer> = asking
                .answers
                .into_iter()
                .map(|(p, checked)| Answer {
                    plugin: &self.plugins[p].name,
                    monitor: self.plugins[p].mode == Mode::Monitor,
                    checked,
                })
                .collect();
            let (rulings, ext) = composition::compose(&asking.shown, answers);
            self.fresh.extend(ext);
            self.run
                .with_dependent_mut(|_, run| run.rulings = Some(rulings));
        }
    }

    /// Ends the session when a plugin that fails closed could not be loaded.
    fn refuse_unloaded(&mut self) -> Result<(), SessionError> {
        for plugin in &self.plugins {
            if let (Some(cause), false) = (&plugin.unloaded, fails_open(plugin)) {
                return Err(SessionError {
                    plugin: plugin.name.clone(),
                    group: String::new(),
                    slot: None,
                    message: say!("cannot load plugin ", who(plugin), ": ", cause),
                });
            }
        }
        Ok(())
    }

    /// The hook point the run paused at, with its batch built for the
    /// first plugin to ask.
    fn ask_about(&self) -> Result<Asking, SessionError> {
        let hook = self
            .run
            .with_dependent(|_, run| run.paused_at())
            .map(hook_of)
            .ok_or_else(|| driving("the reconcile paused at no hook point"))?;
        let first = (0..self.plugins.len()).find(|&p| self.asks(p, hook));
        let reads = first.map_or(views::READS_NOTHING, |p| self.plugins[p].reads);
        let (shown, batch) = self
            .run
            .with_dependent(|_, run| views::batch(run, reads))
            .ok_or_else(|| driving("the reconcile paused with nothing to show"))?;
        Ok(Asking {
            shown,
            batch: Some(batch),
            reads,
            next: 0,
            asked: None,
            answers: Vec::new(),
        })
    }

    /// Whether plugin `p` is to be asked at `hook`.
    fn asks(&self, p: usize, hook: Hook) -> bool {
        !self.records[p].out && self.plugins[p].hooks.contains(&hook)
    }

    /// The question to the next plugin to ask about the current hook point,
    /// if any is left.
    fn next_question(&mut self) -> Option<Question> {
        let hook = self.point.as_ref()?.shown.hook;
        let from = self.point.as_ref()?.next;
        let p = (from..self.plugins.len()).find(|&p| self.asks(p, hook))?;
        let reads = self.plugins[p].reads;
        let kept = self.kept(p);
        let run = &self.run;
        let asking = self.point.as_mut()?;
        asking.next = p + 1;
        asking.asked = Some(p);
        if asking.reads != reads {
            let built = run.with_dependent(|_, run| views::batch(run, reads));
            if let Some((_, batch)) = built {
                asking.batch = Some(batch);
                asking.reads = reads;
            }
        }
        let batch = asking.batch.take();
        self.records[p].calls[hook_slot(hook)] += 1;
        let shown = &asking.shown;
        let items = if shown.slots.is_empty() {
            shown.groups.len()
        } else {
            shown.slots.len()
        };
        Some(Question {
            plugin: p as u32,
            hook,
            batch,
            items: items as u32,
            kept,
        })
    }

    /// The bytes plugin `p` attached earlier to the slots of the current batch.
    fn kept(&self, p: usize) -> Vec<Kept> {
        let kept_at = &self.kept_at[p];
        let Some(asking) = self.point.as_ref().filter(|_| !kept_at.is_empty()) else {
            return Vec::new();
        };
        let shown = &asking.shown;
        self.run.with_dependent(|input, _| {
            shown
                .slots
                .iter()
                .enumerate()
                .filter_map(|(at, slot)| {
                    let group = shown.groups[slot.group].as_str();
                    let node = slot.node.as_ref().map(|(_, id)| id.clone());
                    let &e = kept_at.get(group)?.get(&(node, slot.index))?;
                    Some(Kept {
                        slot: at as u32,
                        data: input.ext[e].data.clone(),
                    })
                })
                .collect()
        })
    }

    /// Takes plugin `p`'s reply to the current question.
    fn take(&mut self, p: usize, reply: Reply) -> Result<(), SessionError> {
        let Some(asking) = self.point.as_mut() else {
            return Err(driving("a reply was given, but nothing was asked"));
        };
        asking.asked = None;
        let hook = asking.shown.hook;
        let group = batch_group(&asking.shown);
        let record = &mut self.records[p];
        if let Some(usage) = reply.usage {
            record.metered = true;
            record.fuel += usage.fuel;
            record.memory = record.memory.max(usage.memory);
        }
        let logged = reply.logs.len();
        if logged > MAX_LOG_LINES || reply.logs.iter().any(|l| l.message.len() > MAX_LOG_LINE) {
            let message = say!(
                "logged ",
                logged,
                " lines, or a line longer than ",
                phrasing::bytes(MAX_LOG_LINE as u64),
                "; at most ",
                MAX_LOG_LINES,
                " lines of that length per call are kept"
            );
            return self.fail(p, FailureKind::TooLarge, message, None);
        }
        for line in reply.logs {
            let record = &mut self.records[p];
            if record.logged == MAX_KEPT_LOG_LINES {
                record.unkept += 1;
                record.unkept_at = hook_name(hook);
                continue;
            }
            record.logged += 1;
            self.logs.push(PluginLog {
                plugin: self.plugins[p].name.clone(),
                hook: hook_name(hook).to_string(),
                group: group.clone(),
                level: line.level,
                message: line.message,
            });
        }
        let answers = match reply.outcome {
            Ok(answers) => answers,
            Err(Failure { kind, message }) => return self.fail(p, kind, message, None),
        };
        let Some(asking) = self.point.as_mut() else {
            return Ok(());
        };
        match answers::check(&asking.shown, answers) {
            Ok(checked) => {
                asking.answers.push((p, checked));
                Ok(())
            }
            Err(invalid) => {
                let message = say!("answered something invalid: ", invalid.message);
                self.fail(p, FailureKind::Invalid, message, invalid.slot)
            }
        }
    }

    /// Plugin `p` failed at the current question, at batch slot `slot` when
    /// known: reported when it fails open, the end of the session otherwise.
    fn fail(
        &mut self,
        p: usize,
        kind: FailureKind,
        cause: String,
        slot: Option<usize>,
    ) -> Result<(), SessionError> {
        // An instance that trapped or overran cannot be entered again.
        if !matches!(kind, FailureKind::Invalid | FailureKind::TooLarge) {
            self.records[p].out = true;
        }
        let Some(asking) = self.point.as_ref() else {
            return Err(driving("a failure was given, but nothing was asked"));
        };
        let shown = &asking.shown;
        let slot_shown = slot.and_then(|at| shown.slots.get(at));
        let group = match slot_shown {
            Some(s) => Some(shown.groups[s.group].clone()),
            None => batch_group(shown),
        };
        let index = slot_shown.map(|s| s.index);
        let node = slot_shown
            .and_then(|s| s.node.as_ref())
            .map(|(node, _)| *node);
        let plugin = &self.plugins[p];
        let hook = hook_name(shown.hook);
        if fails_open(plugin) {
            self.failures.push(PluginFailure {
                plugin: plugin.name.clone(),
                hook: hook.to_string(),
                group,
                slot: index,
                node,
                cause,
            });
            return Ok(());
        }
        let node_id = slot_shown.and_then(|s| s.node.as_ref()).map(|(_, id)| id);
        let place = match (&group, index, node_id) {
            (Some(g), Some(_), Some(id)) => say!(" (group ", g, ", node ", id, ")"),
            (Some(g), Some(s), None) => say!(" (group ", g, ", slot ", s, ")"),
            (Some(g), None, _) => say!(" (group ", g, ")"),
            _ => String::new(),
        };
        Err(SessionError {
            plugin: plugin.name.clone(),
            group: group.unwrap_or_default(),
            slot: index,
            message: say!(
                "plugin ",
                who(plugin),
                " failed at ",
                hook,
                place,
                ": ",
                cause
            ),
        })
    }

    /// The plan of the finished run, with what plugins did.
    fn plan(&mut self) -> Plan {
        let mut plan = self.run.with_dependent_mut(|_, run| run.finish());
        plan.plugin_failures = std::mem::take(&mut self.failures);
        plan.plugin_logs = std::mem::take(&mut self.logs);
        for (plugin, record) in self.plugins.iter().zip(&self.records) {
            if record.unkept > 0 {
                plan.plugin_logs.push(PluginLog {
                    plugin: plugin.name.clone(),
                    hook: record.unkept_at.to_string(),
                    group: None,
                    level: LogLevel::Warn,
                    message: say!(
                        record.unkept,
                        " further lines not kept: at most ",
                        MAX_KEPT_LOG_LINES,
                        " are kept of a plugin in one reconcile"
                    ),
                });
            }
        }
        let fresh = std::mem::take(&mut self.fresh);
        plan.ext = carried_ext(&self.run.borrow_owner().ext, fresh);
        for (plugin, record) in self.plugins.iter().zip(&self.records) {
            plan.steps.push(plugin_step(plugin, record));
        }
        plan
    }
}

/// The step report on one plugin: how it ran and what it used.
fn plugin_step(plugin: &Consulted, record: &Record) -> StepReport {
    let step = say!("plugin ", plugin.name);
    if let Some(cause) = &plugin.unloaded {
        return StepReport {
            step,
            group: None,
            status: StepStatus::Skipped,
            message: say!("not loaded: ", cause),
        };
    }
    let mode = match plugin.mode {
        Mode::Enforce => "enforcing",
        Mode::Monitor => "monitoring",
    };
    let hooks = [Hook::Promotion, Hook::PreSlot, Hook::PostSlot, Hook::Review];
    let calls: Vec<String> = hooks
        .iter()
        .zip(record.calls)
        .filter(|(_, n)| *n > 0)
        .map(|(h, n)| say!(hook_name(*h), " ", n))
        .collect();
    let used = if calls.is_empty() {
        "not called".to_string()
    } else if record.metered {
        say!(
            "calls: ",
            calls.join(", "),
            "; fuel ",
            phrasing::digits(record.fuel),
            "; peak memory ",
            phrasing::bytes(record.memory)
        )
    } else {
        say!("calls: ", calls.join(", "))
    };
    let message = match plugin.version.as_str() {
        "" => say!(mode, "; ", used),
        version => say!(version, " ", mode, "; ", used),
    };
    StepReport {
        step,
        group: None,
        status: StepStatus::Done,
        message,
    }
}

/// Whether a failure of `plugin` is reported rather than ending the
/// reconcile: it fails open, or it only monitors, and what a monitoring
/// plugin does, failing included, never changes the outcome.
fn fails_open(plugin: &Consulted) -> bool {
    plugin.fail_open || plugin.mode == Mode::Monitor
}

/// A plugin's name and version, as errors name it.
fn who(plugin: &Consulted) -> String {
    match plugin.version.as_str() {
        "" => plugin.name.clone(),
        version => say!(plugin.name, " ", version),
    }
}

/// The group a batch is about, when it is about one.
fn batch_group(shown: &Shown) -> Option<String> {
    match (shown.hook, shown.groups.as_slice()) {
        (Hook::PreSlot | Hook::PostSlot, [one]) => Some(one.clone()),
        _ => None,
    }
}

fn hook_of(point: Point) -> Hook {
    match point {
        Point::Promotion => Hook::Promotion,
        Point::PreSlot => Hook::PreSlot,
        Point::PostSlot => Hook::PostSlot,
        Point::Review => Hook::Review,
    }
}

/// The position of `hook` in a record's counts.
fn hook_slot(hook: Hook) -> usize {
    match hook {
        Hook::Promotion => 0,
        Hook::PreSlot => 1,
        Hook::PostSlot => 2,
        Hook::Review => 3,
    }
}

/// An error in how the session is driven, rather than in a plugin's answer.
fn driving(message: &str) -> SessionError {
    SessionError {
        plugin: String::new(),
        group: String::new(),
        slot: None,
        message: message.to_string(),
    }
}
