//! Volcano's proportion plugin (`plugins/proportion/proportion.go`) as the `allocate` action
//! consults it: each queue's `deserved` share of the cluster (water-filling by weight, within
//! its real capability and its own request, at least its guarantee), its `share`
//! (allocated / deserved, the largest over resources) that orders the queues, whether it is
//! `Overused` (deserved <= allocated), and whether one more pod is `Allocatable`
//! (allocated + pod <= deserved in the pod's resources). Amounts are Volcano's floats: CPU in
//! millicores, memory and ephemeral storage in bytes, extended resources as counted.

use std::collections::BTreeMap;

use df_engine::Resources;
use df_model::resources::format_bytes;

/// Below this, Volcano counts an amount as nothing (`minResource`), and two amounts this close
/// as equal.
const MIN_RESOURCE: f64 = 0.1;

/// Resources by name (`cpu`, `memory`, `ephemeral-storage`, extended ones); an absent name is
/// 0. Pods are left out: no pod requests a pod slot and proportion zeroes the dimension.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Amount(BTreeMap<String, f64>);

impl Amount {
    pub(crate) fn of(r: &Resources) -> Amount {
        let mut out = BTreeMap::new();
        out.insert("cpu".to_string(), r.milli_cpu as f64);
        out.insert("memory".to_string(), r.memory as f64);
        if r.ephemeral_storage != 0 {
            out.insert("ephemeral-storage".to_string(), r.ephemeral_storage as f64);
        }
        for (name, v) in &r.scalar {
            out.insert(name.clone(), *v as f64);
        }
        Amount(out)
    }

    pub(crate) fn get(&self, name: &str) -> f64 {
        self.0.get(name).copied().unwrap_or(0.0)
    }

    fn set(&mut self, name: &str, v: f64) {
        self.0.insert(name.to_string(), v);
    }

    pub(crate) fn add(&mut self, other: &Amount) {
        for (name, v) in &other.0 {
            *self.0.entry(name.clone()).or_default() += v;
        }
    }

    /// The amounts by name.
    pub(crate) fn as_map(&self) -> BTreeMap<String, f64> {
        self.0.clone()
    }

    fn names(&self) -> impl Iterator<Item = &str> {
        self.0.keys().map(String::as_str)
    }

    /// Every amount below [`MIN_RESOURCE`] (`IsEmpty`).
    fn is_empty(&self) -> bool {
        self.0.values().all(|v| *v < MIN_RESOURCE)
    }

    /// Every resource of `self` at most `other`'s, within [`MIN_RESOURCE`] (`LessEqual`, absent
    /// names 0).
    fn fits_in(&self, other: &Amount) -> bool {
        self.names().chain(["cpu", "memory"]).all(|n| {
            self.get(n) < other.get(n) || (self.get(n) - other.get(n)).abs() < MIN_RESOURCE
        })
    }

    /// Per name: how far `self` rose above `old`, and how far it fell below (`Diff`).
    fn diff(&self, old: &Amount) -> (Amount, Amount) {
        let (mut up, mut down) = (Amount::default(), Amount::default());
        for name in self.names().chain(old.names()) {
            let (new, was) = (self.get(name), old.get(name));
            if new > was {
                up.set(name, new - was);
            } else {
                down.set(name, was - new);
            }
        }
        (up, down)
    }

    /// The same amount of every resource (absent names 0).
    fn same(&self, other: &Amount) -> bool {
        self.names()
            .chain(other.names())
            .all(|n| self.get(n) == other.get(n))
    }

    /// `self - other` per name, never below 0 (`ExceededPart`).
    pub(crate) fn exceeding(&self, other: &Amount) -> Amount {
        self.diff(other).0
    }

    /// `name`'s amount as a manifest writes it: cores, bytes with a binary suffix, a count.
    pub(crate) fn show(name: &str, v: f64) -> String {
        match name {
            "cpu" => {
                let cores = format!("{:.3}", v / 1000.0);
                cores
                    .trim_end_matches('0')
                    .trim_end_matches('.')
                    .to_string()
            }
            "memory" | "ephemeral-storage" => format_bytes(v.round() as i64),
            _ => format!("{}", v.round() as i64),
        }
    }
}

/// One queue as proportion sees it in a session.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct QueueAttr {
    pub name: String,
    /// `spec.weight` (unset: 1).
    pub weight: i64,
    /// `spec.priority`: higher queues are allocated first.
    pub priority: i32,
    /// `metadata.creationTimestamp`: the order of queues proportion cannot tell apart.
    pub created: String,
    /// `status.state` when the queue is not open (allocate gives it nothing).
    pub closed: Option<String>,
    /// The cluster less the other queues' guarantees, within `spec.capability`; an absent name
    /// is unlimited.
    pub real_capability: BTreeMap<String, f64>,
    pub guarantee: Amount,
    /// What its jobs' bound and allocated pods request.
    pub allocated: Amount,
    /// `allocated` plus what its jobs' pending pods request.
    pub request: Amount,
    pub deserved: Amount,
}

impl QueueAttr {
    /// `max over deserved resources of allocated / deserved` (`updateQueueAttrShare`).
    pub(crate) fn share(&self) -> f64 {
        self.deserved
            .0
            .iter()
            .filter(|(_, d)| **d >= MIN_RESOURCE)
            .map(|(name, d)| self.allocated.get(name) / d)
            .fold(0.0, f64::max)
    }

    /// Deserved is all allocated already (`Overused`: deserved <= allocated in every resource).
    pub(crate) fn overused(&self) -> bool {
        self.deserved.fits_in(&self.allocated)
    }

    /// Whether `pod` fits the queue with `more` already allocated in this attempt
    /// (`queueAllocatable`): in each resource the pod asks for, allocated + more + pod must not
    /// exceed deserved. The error names each resource that would.
    pub(crate) fn allocatable(&self, more: &Amount, pod: &Amount) -> Result<(), String> {
        if let Some(state) = &self.closed {
            return Err(format!(
                "queue {} is {state}: Volcano allocates nothing to a queue that is not Open",
                self.name
            ));
        }
        let mut future = self.allocated.clone();
        future.add(more);
        future.add(pod);
        let over: Vec<String> = pod
            .0
            .iter()
            .filter(|(name, v)| **v > 0.0 && future.get(name) > self.deserved.get(name))
            .map(|(name, _)| {
                format!(
                    "{name} {} > {} deserved",
                    Amount::show(name, future.get(name)),
                    Amount::show(name, self.deserved.get(name))
                )
            })
            .collect();
        if over.is_empty() {
            Ok(())
        } else {
            Err(format!(
                "queue {} is over its deserved share with this pod: {}",
                self.name,
                over.join(", ")
            ))
        }
    }

    /// What the queue holds of its deserved share, for a queue skipped as overused.
    pub(crate) fn overused_reason(&self) -> String {
        let held: Vec<String> = self
            .deserved
            .0
            .iter()
            .filter(|(_, d)| **d >= MIN_RESOURCE)
            .map(|(name, d)| format!("{name} {}", Amount::show(name, *d)))
            .collect();
        format!(
            "not tried: queue {} is overused (its deserved {} is allocated), so Volcano's \
             allocate action skips its jobs",
            self.name,
            if held.is_empty() {
                "nothing".to_string()
            } else {
                held.join(", ")
            }
        )
    }
}

/// Share `total` out among `queues` as proportion's `OnSessionOpen` does: round after round,
/// each queue not yet satisfied gets `remaining x weight / total weight` more, cut to its real
/// capability and its request and raised to its guarantee; a queue is satisfied once its
/// request is met or its share stops growing; the rounds end when nothing remains or nothing
/// changes.
pub(crate) fn deserve(total: &Amount, queues: &mut [QueueAttr]) {
    let mut remaining = total.clone();
    let mut met = vec![false; queues.len()];
    loop {
        let weights: i64 = queues
            .iter()
            .zip(&met)
            .filter(|(_, m)| !**m)
            .map(|(q, _)| q.weight)
            .sum();
        if weights == 0 {
            break;
        }
        let before = remaining.clone();
        let (mut grown, mut shrunk) = (Amount::default(), Amount::default());
        for (queue, met) in queues.iter_mut().zip(met.iter_mut()).filter(|(_, m)| !**m) {
            let old = queue.deserved.clone();
            let ratio = queue.weight as f64 / weights as f64;
            for (name, v) in &remaining.0 {
                *queue.deserved.0.entry(name.clone()).or_default() += v * ratio;
            }
            for (name, cap) in &queue.real_capability {
                if let Some(d) = queue.deserved.0.get_mut(name) {
                    *d = d.min(*cap);
                }
            }
            for (name, d) in queue.deserved.0.iter_mut() {
                *d = d.min(queue.request.get(name));
            }
            for (name, g) in &queue.guarantee.0 {
                let d = queue.deserved.0.entry(name.clone()).or_default();
                *d = d.max(*g);
            }
            if queue.request.fits_in(&queue.deserved) || queue.deserved.same(&old) {
                *met = true;
            }
            let (up, down) = queue.deserved.diff(&old);
            grown.add(&up);
            shrunk.add(&down);
        }
        remaining.add(&shrunk);
        remaining = remaining.exceeding(&grown);
        if remaining.is_empty() || remaining.same(&before) {
            break;
        }
    }
}
