//! The binary state cache: a recorded state's decoded objects, kept beside it as
//! `<state>.dfcache`, so the next command skips reading and decoding the text.
//!
//! The cache names its source by size, modification time and a SHA-256 of the source's first
//! and last 64 KiB; a cache whose source no longer matches, or that another build of the tool
//! wrote, is refused with the reason and never read. The objects are MessagePack with field
//! names (the model's serde shapes skip empty fields, which only a self-describing format
//! reads back), in chunks that the header lists, so that every core reads and decodes its own
//! chunks and the file is never held whole. The header also counts each chunk's pods, so that
//! they are decoded straight into their place in the state's one list of pods. It is written
//! with a safe write (a temp file renamed over it): a crash leaves the old cache or none, never
//! half of one.

use std::path::{Path, PathBuf};

use serde::Serialize;
use serde::de::{DeserializeSeed, SeqAccess, Visitor};

use df_manifest::file::write_atomic;
use df_model::resources::{self, Resources};
use df_model::{KindObject, Object, ObjectMeta, Pod, TypeMeta};
use std::mem::MaybeUninit;

use super::{Run, msgpack};

/// What a cache file is called: the state's path with this appended.
pub(crate) const SUFFIX: &str = ".dfcache";

const MAGIC: &[u8; 8] = b"KDFCACHE";
/// Bumped whenever the layout below, or what the model keeps of an object, changes (5: a pod's
/// `deletionTimestamp` and `DisruptionTarget` condition; 6: its `hostNetwork`; 7: Services and
/// workload controllers; 8: a pod's volumes beyond claims, and the storage kinds; 9: the
/// `resource.k8s.io` kinds and a pod's resource claims); the tool's version is checked as well,
/// since the model's fields change between releases.
const FORMAT: u32 = 11;
/// How much of each end of the source its fingerprint hashes.
const FINGERPRINT_BLOCK: u64 = 64 << 10;
/// Objects per chunk: chunks are what the decoding threads share out, each read into a reused
/// buffer (about 1 MB of a realistic state's pods) just before it is decoded.
const CHUNK_OBJECTS: usize = 1024;

/// Why a cache was not used.
#[derive(Debug, thiserror::Error)]
pub enum CacheError {
    #[error("{cache}: no cache yet")]
    Missing { cache: String },
    #[error("{cache}: stale ({source_file} changed since the cache was written: {what})")]
    Stale {
        cache: String,
        source_file: String,
        what: &'static str,
    },
    #[error(
        "{cache}: written by kubectl-dataflow {found} (cache format {found_format}); this is {} (format {FORMAT})",
        env!("CARGO_PKG_VERSION")
    )]
    OtherVersion {
        cache: String,
        found: String,
        found_format: u32,
    },
    #[error("{cache}: not a readable state cache ({message})")]
    Corrupt { cache: String, message: String },
    #[error("{file}: {message}")]
    Io { file: String, message: String },
}

/// The cache file of a state file.
pub fn cache_path(source: &Path) -> PathBuf {
    let mut name = source.as_os_str().to_os_string();
    name.push(SUFFIX);
    PathBuf::from(name)
}

/// What identifies the source's content without reading all of it.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Fingerprint {
    size: u64,
    modified_nanos: u128,
    ends_sha256: [u8; 32],
}

impl Fingerprint {
    fn of(source: &Path) -> Result<Fingerprint, CacheError> {
        use std::io::{Read, Seek, SeekFrom};
        let io = |e: std::io::Error| CacheError::Io {
            file: source.display().to_string(),
            message: e.to_string(),
        };
        let mut file = std::fs::File::open(source).map_err(io)?;
        let meta = file.metadata().map_err(io)?;
        let modified_nanos = meta
            .modified()
            .map_err(io)?
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        let size = meta.len();
        let mut ends = Vec::with_capacity(2 * FINGERPRINT_BLOCK as usize);
        (&mut file)
            .take(FINGERPRINT_BLOCK)
            .read_to_end(&mut ends)
            .map_err(io)?;
        let tail = size
            .saturating_sub(FINGERPRINT_BLOCK)
            .max(FINGERPRINT_BLOCK);
        file.seek(SeekFrom::Start(tail)).map_err(io)?;
        file.take(FINGERPRINT_BLOCK)
            .read_to_end(&mut ends)
            .map_err(io)?;
        let digest = ring::digest::digest(&ring::digest::SHA256, &ends);
        let mut ends_sha256 = [0; 32];
        ends_sha256.copy_from_slice(digest.as_ref());
        Ok(Fingerprint {
            size,
            modified_nanos,
            ends_sha256,
        })
    }

    /// What differs from `other`, in the words of the stale message.
    fn difference(&self, other: &Fingerprint) -> Option<&'static str> {
        if self.size != other.size {
            Some("its size differs")
        } else if self.ends_sha256 != other.ends_sha256 {
            Some("its content differs")
        } else if self.modified_nanos != other.modified_nanos {
            Some("its modification time differs")
        } else {
            None
        }
    }
}

/// Write the cache of `source`, holding `objects` (the objects decoded from it, in order) and
/// the API server version the source recorded, if any.
pub fn write(
    source: &Path,
    objects: &[&Object],
    server_version: Option<&str>,
) -> Result<(), CacheError> {
    let cache = cache_path(source);
    let fingerprint = Fingerprint::of(source)?;
    let mut encoded = Vec::new();
    for chunk in objects.chunks(CHUNK_OBJECTS) {
        let items: Vec<CachedItem<'_>> = chunk.iter().map(|&o| CachedItem(o)).collect();
        let bytes = rmp_serde::to_vec_named(&items).map_err(|e| CacheError::Corrupt {
            cache: cache.display().to_string(),
            message: e.to_string(),
        })?;
        let pods = chunk.iter().filter(|o| matches!(o, Object::Pod(_))).count();
        encoded.push((bytes, pods as u32));
    }
    let mut bytes = Vec::new();
    bytes.extend_from_slice(MAGIC);
    bytes.extend_from_slice(&FORMAT.to_le_bytes());
    let version = env!("CARGO_PKG_VERSION").as_bytes();
    bytes.extend_from_slice(&(version.len() as u32).to_le_bytes());
    bytes.extend_from_slice(version);
    bytes.extend_from_slice(&fingerprint.size.to_le_bytes());
    bytes.extend_from_slice(&fingerprint.modified_nanos.to_le_bytes());
    bytes.extend_from_slice(&fingerprint.ends_sha256);
    bytes.push(u8::from(pods_distinct(objects)));
    let server_version = server_version.unwrap_or_default().as_bytes();
    bytes.extend_from_slice(&(server_version.len() as u32).to_le_bytes());
    bytes.extend_from_slice(server_version);
    bytes.extend_from_slice(&(encoded.len() as u32).to_le_bytes());
    for (chunk, pods) in &encoded {
        bytes.extend_from_slice(&(chunk.len() as u64).to_le_bytes());
        bytes.extend_from_slice(&pods.to_le_bytes());
    }
    for (chunk, _) in &encoded {
        bytes.extend_from_slice(chunk);
    }
    write_atomic(&cache, &bytes, None).map_err(|e| CacheError::Io {
        file: cache.display().to_string(),
        message: e.to_string(),
    })
}

/// Whether no two pods share a namespace and name: then the state reading the cache need not
/// look for pods that replace others.
fn pods_distinct(objects: &[&Object]) -> bool {
    let mut seen = rustc_hash::FxHashSet::default();
    objects.iter().all(|object| match object {
        Object::Pod(pod) => seen.insert((&pod.metadata.namespace, &pod.metadata.name)),
        _ => true,
    })
}

/// Read the objects of `source` from its cache, if the cache is there, fresh and of this
/// build: a run per chunk of the objects other than pods, in order, then every pod in one run
/// (joining them into one list would hold every object twice at the peak; the state takes
/// the runs one by one and frees each as it goes, and takes the pods' list as it is).
///
/// Only the header is read here; each decoding thread reads the chunks it takes into a buffer
/// it reuses, so reading the file is shared out with the decoding and never held whole.
pub fn read(source: &Path) -> Result<Cached, CacheError> {
    let cache = cache_path(source);
    let shown = cache.display().to_string();
    let file = match std::fs::File::open(&cache) {
        Ok(file) => file,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(CacheError::Missing { cache: shown });
        }
        Err(e) => return Err(io_error(&shown, &e)),
    };
    let size = file.metadata().map_err(|e| io_error(&shown, &e))?.len();
    let mut header = Header {
        file: std::io::BufReader::new(&file),
        rest: size,
        cache: &shown,
    };
    if header.take(MAGIC.len())? != MAGIC {
        return Err(header.corrupt("not a kubectl-dataflow state cache"));
    }
    let format = header.u32()?;
    let version_len = header.u32()? as usize;
    let version = String::from_utf8_lossy(&header.take(version_len)?).into_owned();
    if format != FORMAT || version != env!("CARGO_PKG_VERSION") {
        return Err(CacheError::OtherVersion {
            cache: shown,
            found: version,
            found_format: format,
        });
    }
    let recorded = Fingerprint {
        size: header.u64()?,
        modified_nanos: u128::from_le_bytes(header.array()?),
        ends_sha256: header.array()?,
    };
    if let Some(what) = Fingerprint::of(source)?.difference(&recorded) {
        return Err(CacheError::Stale {
            cache: shown,
            source_file: source.display().to_string(),
            what,
        });
    }
    let distinct = header.array::<1>()? == [1];
    let server_version_len = header.u32()? as usize;
    if server_version_len > MAX_SERVER_VERSION {
        return Err(header.corrupt("a server version longer than any"));
    }
    let server_version = String::from_utf8(header.take(server_version_len)?)
        .map_err(|_| header.corrupt("a server version that is not UTF-8"))?;
    let count = header.u32()? as usize;
    let mut listed = Vec::with_capacity(count.min(1 << 16));
    for _ in 0..count {
        listed.push((header.u64()?, header.u32()?));
    }
    let mut chunks = Vec::with_capacity(listed.len());
    let mut offset = size - header.rest;
    for (len, pods) in listed {
        if len > header.rest {
            return Err(header.corrupt("cut short"));
        }
        // A chunk holds at most `CHUNK_OBJECTS` objects, each pod more than `MIN_POD_BYTES`: a
        // count beyond either is a broken header, refused before room is made for the pods.
        if pods as usize > CHUNK_OBJECTS || u64::from(pods) * MIN_POD_BYTES > len {
            return Err(header.corrupt("more pods than a chunk can hold"));
        }
        header.rest -= len;
        chunks.push(Chunk {
            offset,
            len,
            pods: pods as usize,
        });
        offset += len;
    }
    if header.rest != 0 {
        return Err(header.corrupt("trailing bytes"));
    }
    Ok(Cached {
        runs: decode_chunks(&shown, &file, &chunks, distinct)?,
        server_version: (!server_version.is_empty()).then_some(server_version),
    })
}

/// What a cache holds: the source's objects, and the API server version it recorded.
pub struct Cached {
    pub runs: Vec<Run>,
    pub server_version: Option<String>,
}

/// A server version (`v1.36.2-gke.1200`) is a few dozen bytes; a length beyond this is a
/// broken header.
const MAX_SERVER_VERSION: usize = 256;

fn io_error(file: &str, e: &std::io::Error) -> CacheError {
    CacheError::Io {
        file: file.to_string(),
        message: e.to_string(),
    }
}

/// The fewest bytes a cached pod takes: `[apiVersion, kind, body]` with the shortest strings.
const MIN_POD_BYTES: u64 = 8;

/// Where one chunk of objects lies in the cache file, and how many of them are pods.
struct Chunk {
    offset: u64,
    len: u64,
    pods: usize,
}

/// Read and decode the chunks on every core, keeping their order, each chunk's pods straight
/// into its share of one list. Each thread reads its chunk into a buffer taken from a shared
/// pool: a few chunk-sized buffers, reused, instead of the whole file in memory (and fresh
/// pages to fault in for every chunk).
fn decode_chunks(
    cache: &str,
    file: &std::fs::File,
    chunks: &[Chunk],
    distinct: bool,
) -> Result<Vec<Run>, CacheError> {
    use std::os::unix::fs::FileExt;
    let total: usize = chunks.iter().map(|chunk| chunk.pods).sum();
    let mut pods: Vec<Pod> = Vec::new();
    pods.try_reserve_exact(total)
        .map_err(|_| corrupt(cache, "too many pods"))?;
    let mut room = &mut pods.spare_capacity_mut()[..total];
    let mut work = Vec::with_capacity(chunks.len());
    for chunk in chunks {
        let (share, rest) = std::mem::take(&mut room).split_at_mut(chunk.pods);
        room = rest;
        work.push((chunk, std::sync::Mutex::new(Some(share))));
    }
    let buffers: std::sync::Mutex<Vec<Vec<u8>>> = std::sync::Mutex::default();
    let decoded = df_parallel::try_map(&work, |(chunk, share)| {
        let share = share.lock().ok().and_then(|mut share| share.take());
        let mut slots = PodSlots::new(share.unwrap_or_default());
        let taken = buffers.lock().map(|mut pool| pool.pop()).ok().flatten();
        let mut buffer = taken.unwrap_or_default();
        let len = usize::try_from(chunk.len).map_err(|_| corrupt(cache, "chunk too long"))?;
        buffer.resize(len, 0);
        file.read_exact_at(&mut buffer, chunk.offset)
            .map_err(|e| io_error(cache, &e))?;
        let mut reader = msgpack::Reader::new(&buffer);
        let objects = serde::Deserializer::deserialize_seq(&mut reader, ObjectsVisitor(&mut slots))
            .map_err(|e| corrupt(cache, &e.to_string()))?;
        if !slots.full() {
            return Err(corrupt(cache, "fewer pods than its header says"));
        }
        if let Ok(mut pool) = buffers.lock() {
            pool.push(buffer);
        }
        Ok((objects, slots))
    })?;
    // Every chunk is decoded when none failed; checked all the same, since the pods' list is
    // only whole when every share of it is filled.
    if decoded.len() != chunks.len() {
        return Err(corrupt(cache, "a chunk was not read"));
    }
    let mut runs = Vec::with_capacity(decoded.len() + 1);
    let mut requests = Vec::with_capacity(total);
    for (objects, slots) in decoded {
        requests.extend(slots.keep());
        runs.push(Run::Objects(objects));
    }
    // SAFETY: every chunk was decoded (checked above) and filled all of its share of the room
    // (`slots.full()`), the shares tile `..total`, and `keep` left the pods there undropped.
    unsafe { pods.set_len(total) };
    runs.push(Run::Pods {
        pods,
        requests,
        distinct,
    });
    Ok(runs)
}

/// A chunk's share of the room in the state's list of pods, filled in order as its pods are
/// decoded, with each pod's requests: computed here, while the pod is still in the cache, they
/// cost a fraction of a later pass over 150,000 pods. Dropped before [`Self::keep`] (a chunk
/// or a later one failed), it drops the pods it holds, so a refused cache leaves nothing
/// behind.
struct PodSlots<'r> {
    room: &'r mut [MaybeUninit<Pod>],
    filled: usize,
    requests: Vec<(Resources, Resources)>,
}

impl<'r> PodSlots<'r> {
    fn new(room: &'r mut [MaybeUninit<Pod>]) -> Self {
        let requests = Vec::with_capacity(room.len());
        PodSlots {
            room,
            filled: 0,
            requests,
        }
    }

    fn push(&mut self, pod: Pod) -> Result<(), &'static str> {
        let slot = self
            .room
            .get_mut(self.filled)
            .ok_or("more pods than its header says")?;
        self.requests
            .push(resources::pod_requests_and_non_zero(&pod.spec));
        slot.write(pod);
        self.filled += 1;
        Ok(())
    }

    fn full(&self) -> bool {
        self.filled == self.room.len()
    }

    /// Leave the pods in place for the list that owns the room; their requests, in order.
    fn keep(mut self) -> Vec<(Resources, Resources)> {
        let requests = std::mem::take(&mut self.requests);
        std::mem::forget(self);
        requests
    }
}

impl Drop for PodSlots<'_> {
    fn drop(&mut self) {
        for slot in &mut self.room[..self.filled] {
            // SAFETY: the first `filled` slots were written by `push` and not yet dropped.
            unsafe { slot.assume_init_drop() };
        }
    }
}

fn corrupt(cache: &str, message: &str) -> CacheError {
    CacheError::Corrupt {
        cache: cache.to_string(),
        message: message.to_string(),
    }
}

/// The cache file's header, read from its start; `rest` is how much of the file is left.
struct Header<'f> {
    file: std::io::BufReader<&'f std::fs::File>,
    rest: u64,
    cache: &'f str,
}

impl Header<'_> {
    fn corrupt(&self, message: &str) -> CacheError {
        corrupt(self.cache, message)
    }

    fn take(&mut self, len: usize) -> Result<Vec<u8>, CacheError> {
        use std::io::Read;
        if self.rest < len as u64 {
            return Err(self.corrupt("cut short"));
        }
        let mut taken = vec![0; len];
        self.file
            .read_exact(&mut taken)
            .map_err(|e| io_error(self.cache, &e))?;
        self.rest -= len as u64;
        Ok(taken)
    }

    fn array<const N: usize>(&mut self) -> Result<[u8; N], CacheError> {
        let mut array = [0; N];
        array.copy_from_slice(&self.take(N)?);
        Ok(array)
    }

    fn u32(&mut self) -> Result<u32, CacheError> {
        self.array().map(u32::from_le_bytes)
    }

    fn u64(&mut self) -> Result<u64, CacheError> {
        self.array().map(u64::from_le_bytes)
    }
}

/// An object as the cache holds it: `[apiVersion, kind, body]`, the body in the shape
/// [`Object::decode`] reads for that kind.
struct CachedItem<'o>(&'o Object);

/// The body of a kind the tool does not model: its metadata alone (unknown kinds only count
/// towards the state's warnings).
#[derive(Serialize)]
struct MetadataBody<'a> {
    metadata: &'a ObjectMeta,
}

/// The cache's writer of every row of the one table of kinds ([`df_model::object_kinds`]).
macro_rules! write_each_kind {
    ($($variant:ident($ty:ty) $(in $($list:ident).+)?;)*) => {
        impl Serialize for CachedItem<'_> {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                match self.0 {
                    $(Object::$variant(o) => (o.api_version(), o.kind_info().kind, o).serialize(s),)*
                    Object::Unknown {
                        type_meta,
                        metadata,
                    } => (
                        &type_meta.api_version,
                        &type_meta.kind,
                        MetadataBody { metadata },
                    )
                        .serialize(s),
                }
            }
        }
    };
}

df_model::object_kinds!(write_each_kind);

/// A chunk's objects: its pods go to their slots, the others are returned in order.
struct ObjectsVisitor<'s, 'r>(&'s mut PodSlots<'r>);

impl<'de> Visitor<'de> for ObjectsVisitor<'_, '_> {
    type Value = Vec<Object>;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a list of cached objects")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<Object>, A::Error> {
        let mut objects = Vec::new();
        while let Some(object) = seq.next_element_seed(ItemSeed(&mut *self.0))? {
            objects.extend(object);
        }
        Ok(objects)
    }
}

/// One `[apiVersion, kind, body]`: a pod goes straight to its slot (`None`), any other object
/// is returned.
struct ItemSeed<'s, 'r>(&'s mut PodSlots<'r>);

impl<'de> DeserializeSeed<'de> for ItemSeed<'_, '_> {
    type Value = Option<Object>;

    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Option<Object>, D::Error> {
        d.deserialize_tuple(3, self)
    }
}

impl<'de> Visitor<'de> for ItemSeed<'_, '_> {
    type Value = Option<Object>;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("[apiVersion, kind, body]")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Option<Object>, A::Error> {
        use serde::de::Error;
        let missing = || A::Error::custom("an item is cut short");
        let api_version: &str = seq.next_element()?.ok_or_else(missing)?;
        let kind: &str = seq.next_element()?.ok_or_else(missing)?;
        // Pods as `CachedItem` writes them, read without an object around them: most of a
        // state, each saved two small allocations and two moves of the whole pod.
        if (api_version, kind) == ("v1", "Pod") {
            let pod: Pod = seq.next_element()?.ok_or_else(missing)?;
            self.0.push(pod).map_err(A::Error::custom)?;
            return Ok(None);
        }
        let type_meta = TypeMeta {
            api_version: api_version.to_string(),
            kind: kind.to_string(),
        };
        seq.next_element_seed(BodySeed(type_meta))?
            .ok_or_else(missing)
            .map(Some)
    }
}

/// An object's body, decoded as its kind.
struct BodySeed(TypeMeta);

impl<'de> DeserializeSeed<'de> for BodySeed {
    type Value = Object;

    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Object, D::Error> {
        use serde::de::Error;
        Object::decode_untracked(self.0, d).map_err(|e| D::Error::custom(e.message))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ClusterState;
    use crate::recorded::{self, LoadOptions};
    use crate::snapshot::{self, Format};

    const WITH_CACHE: LoadOptions = LoadOptions {
        max_bytes: recorded::DEFAULT_MAX_STATE_BYTES,
        use_cache: true,
    };

    /// Everything a command sees of a state: the objects as `snapshot` writes them, the Fluid
    /// runtimes (which it does not write) and the warnings.
    fn seen(state: &ClusterState) -> (String, String, Vec<String>) {
        (
            snapshot::render(state, Format::Json, None).unwrap(),
            format!("{:?}", state.fluid_runtimes),
            state.warnings.clone(),
        )
    }

    /// Every shipped state and a generated realistic one: the state read back from the cache
    /// is the state read from the file, and the cache is what was read the second time.
    #[test]
    fn a_state_read_from_its_cache_is_the_state_read_from_its_file() {
        let dir = tempfile::tempdir().unwrap();
        let mut sources: Vec<PathBuf> = std::fs::read_dir(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../testdata/clusters"
        ))
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .collect();
        sources.sort();
        let realistic = dir.path().join("realistic.json");
        let spec = df_synth::SynthSpec {
            seed: 5,
            nodes: 40,
            // More objects than a chunk holds: several chunks, read and decoded apart.
            pods: 2_500,
            namespaces: 3,
        };
        let mut file = std::fs::File::create(&realistic).unwrap();
        df_synth::write_cluster_json(&spec, df_synth::Detail::Realistic, &mut file).unwrap();
        sources.push(realistic);
        // Kinds no shipped state holds: a Fluid runtime, a Deployment (counted, not kept) and
        // an unknown kind; a pod listed twice, the later one replacing the first; and a pod
        // the scheduler's preemption is terminating (its DisruptionTarget condition is kept).
        let others = dir.path().join("others.yaml");
        std::fs::write(
            &others,
            "apiVersion: data.fluid.io/v1alpha1\nkind: AlluxioRuntime\nmetadata: {name: imagenet, namespace: data}\nspec:\n  fuse: {nodeSelector: {fuse: \"true\"}}\nstatus:\n  cacheAffinity:\n    requiredDuringSchedulingIgnoredDuringExecution:\n      nodeSelectorTerms:\n      - matchExpressions: [{key: topology.kubernetes.io/zone, operator: In, values: [a]}]\n---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec: {replicas: 3}\n---\napiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\n---\napiVersion: v1\nkind: Node\nmetadata: {name: n1}\n---\napiVersion: v1\nkind: Node\nmetadata: {name: n2}\n---\napiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: data}\nspec: {nodeName: n1}\n---\napiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: data}\nspec: {nodeName: n2}\n---\napiVersion: v1\nkind: Pod\nmetadata: {name: leaving, namespace: data, deletionTimestamp: \"2024-05-01T10:00:00Z\"}\nspec: {nodeName: n1}\nstatus:\n  conditions:\n  - {type: Ready, status: \"False\", lastTransitionTime: \"2024-05-01T10:00:00Z\"}\n  - {type: DisruptionTarget, status: \"True\", reason: PreemptionByScheduler, message: preempted}\n",
        )
        .unwrap();
        sources.push(others);
        // A pod bound to a node the state lacks, which the state drops, before one it keeps:
        // the requests read with the pods stay aligned with them.
        let dangling = dir.path().join("dangling.yaml");
        std::fs::write(
            &dangling,
            "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\n---\napiVersion: v1\nkind: Pod\nmetadata: {name: a, namespace: data}\nspec: {nodeName: gone, containers: [{name: c, resources: {requests: {cpu: '1'}}}]}\n---\napiVersion: v1\nkind: Pod\nmetadata: {name: b, namespace: data}\nspec: {nodeName: n1, containers: [{name: c, resources: {requests: {cpu: '2'}}}]}\n",
        )
        .unwrap();
        sources.push(dangling);
        assert_eq!(sources.len(), 15);
        for shipped in sources {
            let source = dir.path().join(shipped.file_name().unwrap());
            if shipped != source {
                std::fs::copy(&shipped, &source).unwrap();
            }
            let path = [source.display().to_string()];
            let from_file = recorded::load_files(&path).unwrap();
            let written = recorded::load_files_with(&path, WITH_CACHE).unwrap();
            assert_eq!(seen(&written), seen(&from_file), "{shipped:?}");
            let cached = read(&source).unwrap();
            let decoded = recorded::parse_state("s", &std::fs::read(&source).unwrap()).unwrap();
            let in_run = |run: &Run| match run {
                Run::Objects(objects) => objects.len(),
                Run::Pods { pods, .. } => pods.len(),
            };
            let cached_count: usize = cached.runs.iter().map(in_run).sum();
            assert_eq!(cached_count, decoded.len(), "{shipped:?}");
            let from_cache = recorded::load_files_with(&path, WITH_CACHE).unwrap();
            assert_eq!(seen(&from_cache), seen(&from_file), "{shipped:?}");
            // The requests the cache computed as it read each pod are the state's own.
            let requests = |state: &ClusterState| {
                (0..state.pods.len())
                    .map(|i| state.pod_resources(i).clone())
                    .collect::<Vec<_>>()
            };
            assert_eq!(requests(&from_cache), requests(&from_file), "{shipped:?}");
            // The cache says whether its pods are distinct, which spares the state a search
            // for replaced ones.
            let distinct = cached.runs.iter().find_map(|run| match run {
                Run::Pods { distinct, .. } => Some(*distinct),
                Run::Objects(_) => None,
            });
            let replaced = source.ends_with("others.yaml");
            assert_eq!(distinct, Some(!replaced), "{shipped:?}");
            if source.ends_with("others.yaml") {
                let runtime = &from_cache.fluid_runtimes[0];
                assert_eq!(runtime.fuse_node_selector.len(), 1);
                assert!(runtime.cache_affinity.is_some());
                // A kind the tool does not model is said; a workload is kept (its selector
                // spreads its pods).
                let warnings = from_cache.warnings.join("\n");
                assert!(warnings.contains("Widget") && !warnings.contains("Deployment"));
                assert_eq!(from_cache.workloads.len(), 1);
                let pods: Vec<_> = from_cache.pods.iter().map(|p| &p.spec.node_name).collect();
                assert_eq!(pods, ["n2", "n1"]);
                assert!(from_cache.pods[1].terminating_by_preemption());
            }
            if source.ends_with("dangling.yaml") {
                assert_eq!(from_cache.pods.len(), 1);
                assert_eq!(from_cache.pod_resources(0).0.milli_cpu, 2000);
            }
        }
    }

    /// Quantities are thousandths in the cache (read back without parsing) and text in JSON.
    #[test]
    fn quantities_are_integers_in_the_cache_and_text_in_json() {
        use df_model::quantity::Quantity;
        let cases: [(&str, i64); 5] = [
            ("500m", 500),
            ("1Gi", 1_073_741_824_000),
            ("2", 2_000),
            ("1.5", 1_500),
            ("-3k", -3_000_000),
        ];
        for (text, milli) in cases {
            let quantity = Quantity::parse(text).unwrap();
            let cached = rmp_serde::to_vec(&quantity).unwrap();
            assert_eq!(cached, rmp_serde::to_vec(&milli).unwrap(), "{text}");
            let read: Quantity = rmp_serde::from_slice(&cached).unwrap();
            assert_eq!(read, quantity, "{text}");
        }
        assert_eq!(
            serde_json::to_string(&Quantity::parse("1Gi").unwrap()).unwrap(),
            "\"1073741824\""
        );
    }

    /// A cache is only read while its source is what it was written from, by this build; the
    /// state is then read from the file and the cache written anew.
    #[test]
    fn stale_foreign_and_broken_caches_are_refused_with_the_reason() {
        let dir = tempfile::tempdir().unwrap();
        let source = dir.path().join("s.yaml");
        let shown = source.display().to_string();
        let text = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../testdata/clusters/three-zone.yaml"
        ))
        .unwrap();
        let cache = cache_path(&source);
        let refusal = |change: &dyn Fn()| {
            std::fs::write(&source, &text).unwrap();
            let path = [shown.clone()];
            recorded::load_files_with(&path, WITH_CACHE).unwrap();
            change();
            let refused = read(&source).err().map(|e| e.to_string());
            // The next load reads the file and leaves a fresh cache.
            let state = recorded::load_files_with(&path, WITH_CACHE).unwrap();
            assert!(
                state
                    .warnings
                    .iter()
                    .any(|w| w.ends_with("and wrote the cache anew")),
                "{:?}",
                state.warnings
            );
            assert!(read(&source).is_ok());
            refused
        };
        let rewrite_cache = |edit: &dyn Fn(&mut Vec<u8>)| {
            let mut bytes = std::fs::read(&cache).unwrap();
            edit(&mut bytes);
            std::fs::write(&cache, bytes).unwrap();
        };
        let c = cache.display().to_string();
        let version = env!("CARGO_PKG_VERSION");
        // The pod count of the first chunk: after the magic, format, version, fingerprint,
        // the pods' distinctness, the (empty) server version's length, the chunk count and
        // the chunk's length.
        let set_pods = |bytes: &mut Vec<u8>, change: fn(u32) -> u32| {
            let at = MAGIC.len() + 4 + 4 + version.len() + 8 + 16 + 32 + 1 + 4 + 4 + 8;
            let pods = u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap());
            assert!(pods > 0);
            bytes[at..at + 4].copy_from_slice(&change(pods).to_le_bytes());
        };
        type Change<'c> = Box<dyn Fn() + 'c>;
        let cases: Vec<(&str, Change<'_>, String)> = vec![
            (
                "appended to",
                Box::new(|| std::fs::write(&source, format!("{text}# more\n")).unwrap()),
                format!(
                    "{c}: stale ({shown} changed since the cache was written: its size differs)"
                ),
            ),
            (
                "same size, other bytes",
                Box::new(|| {
                    let edited = text.replacen("node-a1", "node-z1", 1);
                    let mtime = std::fs::metadata(&source).unwrap().modified().unwrap();
                    std::fs::write(&source, edited).unwrap();
                    let file = std::fs::File::options().write(true).open(&source).unwrap();
                    file.set_modified(mtime).unwrap();
                }),
                format!(
                    "{c}: stale ({shown} changed since the cache was written: its content differs)"
                ),
            ),
            (
                "touched",
                Box::new(|| {
                    let file = std::fs::File::options().write(true).open(&source).unwrap();
                    let later = std::time::SystemTime::now() + std::time::Duration::from_secs(5);
                    file.set_modified(later).unwrap();
                }),
                format!(
                    "{c}: stale ({shown} changed since the cache was written: its modification time differs)"
                ),
            ),
            (
                "another version",
                Box::new(|| {
                    rewrite_cache(&|bytes| {
                        let at = MAGIC.len() + 8;
                        bytes[at..at + version.len()].fill(b'9');
                    })
                }),
                format!(
                    "{c}: written by kubectl-dataflow {} (cache format {FORMAT}); this is {version} (format {FORMAT})",
                    "9".repeat(version.len())
                ),
            ),
            (
                "another format",
                Box::new(|| rewrite_cache(&|bytes| bytes[MAGIC.len()] = FORMAT as u8 + 1)),
                format!(
                    "{c}: written by kubectl-dataflow {version} (cache format {}); this is {version} (format {FORMAT})",
                    FORMAT + 1
                ),
            ),
            (
                "cut short",
                Box::new(|| rewrite_cache(&|bytes| bytes.truncate(bytes.len() - 10))),
                format!("{c}: not a readable state cache (cut short)"),
            ),
            (
                "more pods listed than the chunk holds",
                Box::new(|| rewrite_cache(&|bytes| set_pods(bytes, |pods| pods + 1))),
                format!("{c}: not a readable state cache (fewer pods than its header says)"),
            ),
            (
                "fewer pods listed than the chunk holds",
                Box::new(|| rewrite_cache(&|bytes| set_pods(bytes, |pods| pods - 1))),
                format!("{c}: not a readable state cache (more pods than its header says)"),
            ),
            (
                "more pods listed than fit in the chunk",
                Box::new(|| rewrite_cache(&|bytes| set_pods(bytes, |_| u32::MAX))),
                format!("{c}: not a readable state cache (more pods than a chunk can hold)"),
            ),
            (
                "not a cache",
                Box::new(|| std::fs::write(&cache, "apiVersion: v1\n").unwrap()),
                format!("{c}: not a readable state cache (not a kubectl-dataflow state cache)"),
            ),
        ];
        for (name, change, expected) in &cases {
            assert_eq!(
                refusal(change.as_ref()).as_deref(),
                Some(expected.as_str()),
                "{name}"
            );
        }
        std::fs::remove_file(&cache).unwrap();
        assert_eq!(
            read(&source).err().map(|e| e.to_string()),
            Some(format!("{c}: no cache yet"))
        );
    }
}
