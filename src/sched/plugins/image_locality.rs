//! ImageLocality: nodes that already hold the pod's images score higher, scaled by how many
//! nodes hold them (a widely spread image is worth less).

use crate::sched::framework::{Context, MAX_NODE_SCORE, PreScore, Score};
use crate::sched::normalized_image_name;

const MB: i64 = 1024 * 1024;
const MIN_THRESHOLD: i64 = 23 * MB;
const MAX_CONTAINER_THRESHOLD: i64 = 1000 * MB;

/// PreScore: the pod's normalised image names, init containers first.
pub(in crate::sched) struct ImageLocality {
    images: Vec<String>,
}

impl PreScore for ImageLocality {
    fn pre_score(cx: &Context, _: &[usize]) -> Self {
        let spec = &cx.pod.spec;
        ImageLocality {
            images: spec
                .init_containers
                .iter()
                .chain(&spec.containers)
                .map(|c| normalized_image_name(&c.image))
                .collect(),
        }
    }
}

impl Score for ImageLocality {
    fn score(&self, cx: &Context, node: usize) -> i64 {
        if self.images.is_empty() {
            return 0;
        }
        let sched = cx.sched;
        let total_nodes = sched.state.nodes.len().max(1) as f64;
        let sum: i64 = self
            .images
            .iter()
            .filter_map(|name| {
                let size = sched.node_images[node].get(name)?;
                let spread = sched.images.get(name).map_or(1, |(_, n)| *n) as f64;
                Some((*size as f64 * spread / total_nodes) as i64)
            })
            .sum();
        let max = MAX_CONTAINER_THRESHOLD * self.images.len() as i64;
        let clamped = sum.clamp(MIN_THRESHOLD, max);
        MAX_NODE_SCORE * (clamped - MIN_THRESHOLD) / (max - MIN_THRESHOLD)
    }

    fn describe_score(&self, _: &Context, _: usize) -> String {
        "size of the pod's images present on the node, scaled by spread".into()
    }
}
