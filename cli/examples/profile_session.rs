#[path = "../src/bench/workload.rs"]
mod workload;
use slotwise_reconciler as core;
use slotwise_reconciler::plugin::*;
struct Neutral;
impl core::Relay for Neutral {
    fn answer(&mut self, _: u32, batch: &Batch, _: &[Kept]) -> core::Reply {
        let answers = match batch {
            Batch::PreSlot(b) => Answers::PreSlot((0..b.slots.len() as u32).map(|slot| PreSlotAnswer { slot, decision: PreSlotDecision::Proceed, ext: None }).collect()),
            Batch::PostSlot(b) => Answers::PostSlot((0..b.slots.len() as u32).map(|slot| PostSlotAnswer { slot, decision: PostSlotDecision::Accept, ext: None }).collect()),
            Batch::Promotion(b) => Answers::Promotion((0..b.groups.len() as u32).map(|group| PromotionAnswer { group, decision: PromotionDecision::Abstain }).collect()),
            Batch::Review(_) => Answers::Review(Vec::new()),
        };
        core::Reply { outcome: Ok(answers), logs: Vec::new(), usage: None }
    }
}
fn main() {
    let job = workload::rolling_job(1, 10_000);
    let consulted = vec![core::Consulted { name: "n".into(), version: String::new(), hooks: vec![Hook::Promotion, Hook::PreSlot, Hook::PostSlot, Hook::Review], reads: ViewParts { node_ids: false, node_meta: false, allocation_ids: false, candidate_meta: false, change_messages: false }, mode: core::Mode::Enforce, fail_open: false, unloaded: None }];
    let n: usize = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(200);
    let t = std::time::Instant::now();
    for _ in 0..n { let _ = core::reconcile_with(job.clone(), consulted.clone(), &mut Neutral); }
    eprintln!("session {:?}", t.elapsed() / n as u32);
    let t = std::time::Instant::now();
    for _ in 0..n { let _ = core::reconcile(&job); }
    eprintln!("alone {:?}", t.elapsed() / n as u32);
    let t = std::time::Instant::now();
    for _ in 0..n { let _ = job.clone(); }
    eprintln!("clone {:?}", t.elapsed() / n as u32);
}
