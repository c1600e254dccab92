//! ImageLocality: nodes that already hold the pod's images score higher, scaled by how many
//! nodes hold them (a widely spread image is worth less).

use crate::framework::{Context, MAX_NODE_SCORE, PreScore, Score};
use df_model::normalized_image_name;

const MB: i64 = 1024 * 1024;
const MIN_THRESHOLD: i64 = 23 * MB;
const MAX_CONTAINER_THRESHOLD: i64 = 1000 * MB;

/// PreScore: the pod's normalised image names, init containers first (only the pod's names are
/// normalised: the nodes' are looked up as they list them).
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
                // Upstream's scaledImageScore: size * (holders / nodes), truncated.
                let spread = holders.len() as f64 / total_nodes;
                Some((holders[at].1 as f64 * spread) as i64)
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

    const MB: i64 = 1024 * 1024;

    /// Upstream image_locality_test.go: the pod's names are normalised (`:latest` unless a
    /// tag follows the last `/`), the nodes' are matched as listed; each image scores its
    /// size times the share of nodes holding it, the sum clamped to 23MB..1000MB per
    /// container and mapped to 0..100 (integer division).
    #[test]
    fn image_size_scaled_by_spread() {
        let node = |name: &str, images: &[(&str, i64)]| {
            let images: Vec<String> = images
                .iter()
                .map(|(name, mb)| format!("{{names: [\"{name}\"], sizeBytes: {}}}", mb * MB))
                .collect();
            format!(
                "apiVersion: v1\nkind: Node\nmetadata: {{name: {name}}}\nstatus:\n  allocatable: {{cpu: \"4\", memory: 8Gi, pods: \"110\"}}\n  images: [{}]\n---\n",
                images.join(", ")
            )
        };
        let digest = format!("app@sha256:{}", "0123456789abcdef".repeat(4));
        let on_n1 = [(digest.as_str(), 400)];
        // (case, images of n1, n2, n3, init container image, container image, scores)
        type Case<'a> = (
            &'a str,
            [&'a [(&'a str, i64)]; 3],
            Option<&'a str>,
            &'a str,
            [i64; 3],
        );
        let cases: Vec<Case> = vec![
            // The pod's `app` is `app:latest`, which n1 does not list.
            (
                "an untagged name on the node",
                [&[("app", 500)], &[], &[]],
                None,
                "app",
                [0, 0, 0],
            ),
            // 500MB * 1/3 = 166.7MB -> 100 * (166.7 - 23) / (1000 - 23) = 14.
            (
                "an untagged name in the pod",
                [&[("app:latest", 500)], &[], &[]],
                None,
                "app",
                [14, 0, 0],
            ),
            // 250MB * 1/3 = 83.3MB -> 100 * (83.3 - 23) / 977 = 6.
            (
                "a tag",
                [&[("app:1.0", 250)], &[], &[]],
                None,
                "app:1.0",
                [6, 0, 0],
            ),
            // A registry port is no tag; on every node: 900MB * 3/3 -> 100 * 877 / 977 = 89.
            (
                "a registry with a port",
                [
                    &[("reg.io:5000/app:latest", 900)],
                    &[("reg.io:5000/app:latest", 900)],
                    &[("reg.io:5000/app:latest", 900)],
                ],
                None,
                "reg.io:5000/app",
                [89, 89, 89],
            ),
            // A digest is kept: 400MB * 1/3 = 133.3MB -> 100 * 110.3 / 977 = 11.
            ("a digest", [&on_n1, &[], &[]], None, &digest, [11, 0, 0]),
            // No registry is implied: docker.io/library/app:1 is not app:1.
            (
                "a registry the node does not list",
                [&[("app:1", 600)], &[], &[]],
                None,
                "docker.io/library/app:1",
                [0, 0, 0],
            ),
            // Two containers: 200MB + 200MB = 400MB, clamped to 23MB..2000MB ->
            // 100 * (400 - 23) / (2000 - 23) = 19.
            (
                "an init container counts as a container",
                [&[("tool:2", 600), ("app:1", 600)], &[], &[]],
                Some("tool:2"),
                "app:1",
                [19, 0, 0],
            ),
            (
                "absent everywhere",
                [&[("app:1", 600)], &[], &[]],
                None,
                "other:2",
                [0, 0, 0],
            ),
        ];
        for (name, images, init, image, want) in cases {
            let cluster = node("n1", images[0]) + &node("n2", images[1]) + &node("n3", images[2]);
            let init = init
                .map(|i| format!("  initContainers: [{{name: i, image: \"{i}\"}}]\n"))
                .unwrap_or_default();
            let decision = decide(
                &cluster,
                &format!("spec:\n{init}  containers: [{{name: c, image: \"{image}\"}}]\n"),
            );
            assert_eq!(scores(&decision, "ImageLocality"), want, "{name}");
        }
    }
}
