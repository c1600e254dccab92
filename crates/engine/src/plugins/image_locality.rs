//! ImageLocality: nodes that already hold the pod's images score higher, scaled by how many
//! nodes hold them (a widely spread image is worth less).

use crate::framework::{Context, MAX_NODE_SCORE, PreScore, Score};
use df_model::normalized_image_name;

const MB: i64 = 1024 * 1024;
const MIN_THRESHOLD: i64 = 23 * MB;
const MAX_CONTAINER_THRESHOLD: i64 = 1000 * MB;

/// PreScore: the pod's normalised image names, init containers first.
pub(crate) struct ImageLocality {
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
                .map(|c| normalized_image_name(&c.image).into_owned())
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
                let holders = sched.images.get(name.as_str())?;
                let at = holders.binary_search_by_key(&node, |(n, _)| *n).ok()?;
                let spread = holders.len() as f64;
                Some((holders[at].1 as f64 * spread / total_nodes) as i64)
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

#[cfg(test)]
mod tests {
    use crate::tests::*;

    /// Upstream image_locality_test.go: the image's size scaled by the share of nodes that
    /// have it, clamped to 23MB..1000MB per container, mapped to 0..100.
    #[test]
    fn image_size_scaled_by_spread() {
        let node = |name: &str, images: &str| {
            format!(
                "apiVersion: v1\nkind: Node\nmetadata: {{name: {name}}}\nstatus:\n  allocatable: {{cpu: \"4\", memory: 8Gi, pods: \"110\"}}\n  images: [{images}]\n---\n"
            )
        };
        let mb = 1024 * 1024;
        let cluster = node(
            "n1",
            &format!("{{names: [app:1.0], sizeBytes: {}}}", 250 * mb),
        ) + &node(
            "n2",
            &format!("{{names: [\"app\"], sizeBytes: {}}}", 500 * mb),
        ) + &node("n3", "");
        let cases: &[(&str, &str, [i64; 3])] = &[
            // n1: 250MB * 1/3 = 83MB -> 100 * (83 - 23) / (1000 - 23) = 6.
            ("tagged image on one of three nodes", "app:1.0", [6, 0, 0]),
            // `app` means `app:latest`: n2's 500MB * 1/3 = 166MB -> 14.
            ("untagged name is the latest tag", "app", [0, 14, 0]),
            ("absent everywhere", "other:2", [0, 0, 0]),
        ];
        for (name, image, want) in cases {
            let decision = decide(
                &cluster,
                &format!("spec:\n  containers: [{{name: c, image: \"{image}\"}}]\n"),
            );
            assert_eq!(scores(&decision, "ImageLocality"), want, "{name}");
        }
    }
}
