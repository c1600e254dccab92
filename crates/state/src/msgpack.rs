//! A MessagePack reader for the state cache: a serde `Deserializer` over one chunk in memory.
//!
//! The cache is written by `rmp_serde` (structs as maps keyed by field name) and read here.
//! Reading is most of the cost of a command that starts from the cache, and the general
//! reader spent it on byte-at-a-time markers and a UTF-8 check of every field name; this one
//! indexes the slice directly and hands field names to serde as bytes, which the derived
//! field matchers compare without any check. Every other string is checked as usual.

use serde::de::{self, DeserializeSeed, IntoDeserializer, MapAccess, SeqAccess, Visitor};

/// Why a chunk could not be read.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct Error(String);

impl de::Error for Error {
    fn custom<T: std::fmt::Display>(message: T) -> Self {
        Error(message.to_string())
    }
}

/// Items nested deeper than this are refused: a broken chunk must not overflow the stack.
const MAX_DEPTH: usize = 128;

/// The bytes of one chunk and how far they are read.
pub struct Reader<'de> {
    bytes: &'de [u8],
    at: usize,
    depth: usize,
}

impl<'de> Reader<'de> {
    pub fn new(bytes: &'de [u8]) -> Self {
        Reader {
            bytes,
            at: 0,
            depth: 0,
        }
    }

    fn cut_short() -> Error {
        Error("cut short".into())
    }

    #[inline]
    fn peek(&self) -> Result<u8, Error> {
        self.bytes.get(self.at).copied().ok_or_else(Self::cut_short)
    }

    #[inline]
    fn take(&mut self, len: usize) -> Result<&'de [u8], Error> {
        let end = self.at.checked_add(len).ok_or_else(Self::cut_short)?;
        let taken = self.bytes.get(self.at..end).ok_or_else(Self::cut_short)?;
        self.at = end;
        Ok(taken)
    }

    #[inline]
    fn array<const N: usize>(&mut self) -> Result<[u8; N], Error> {
        let mut array = [0; N];
        array.copy_from_slice(self.take(N)?);
        Ok(array)
    }

    /// A length that follows a marker, in `width` bytes.
    #[inline]
    fn length(&mut self, width: usize) -> Result<usize, Error> {
        let len = match width {
            1 => u64::from(self.array::<1>()?[0]),
            2 => u64::from(u16::from_be_bytes(self.array()?)),
            _ => u64::from(u32::from_be_bytes(self.array()?)),
        };
        usize::try_from(len).map_err(|_| Self::cut_short())
    }

    /// The next value's kind, its marker read (and its length, for strings and containers).
    #[inline]
    fn next(&mut self) -> Result<Value<'de>, Error> {
        let marker = self.take(1)?[0];
        Ok(match marker {
            0x00..=0x7f => Value::Unsigned(u64::from(marker)),
            0x80..=0x8f => Value::Map(usize::from(marker & 0x0f)),
            0x90..=0x9f => Value::Array(usize::from(marker & 0x0f)),
            0xa0..=0xbf => Value::Str(self.take(usize::from(marker & 0x1f))?),
            0xc0 => Value::Nil,
            0xc2 => Value::Bool(false),
            0xc3 => Value::Bool(true),
            0xc4..=0xc6 => {
                let len = self.length(1 << (marker - 0xc4))?;
                Value::Bytes(self.take(len)?)
            }
            0xca => Value::Float(f64::from(f32::from_be_bytes(self.array()?))),
            0xcb => Value::Float(f64::from_be_bytes(self.array()?)),
            0xcc => Value::Unsigned(u64::from(self.array::<1>()?[0])),
            0xcd => Value::Unsigned(u64::from(u16::from_be_bytes(self.array()?))),
            0xce => Value::Unsigned(u64::from(u32::from_be_bytes(self.array()?))),
            0xcf => Value::Unsigned(u64::from_be_bytes(self.array()?)),
            0xd0 => Value::Signed(i64::from(i8::from_be_bytes(self.array()?))),
            0xd1 => Value::Signed(i64::from(i16::from_be_bytes(self.array()?))),
            0xd2 => Value::Signed(i64::from(i32::from_be_bytes(self.array()?))),
            0xd3 => Value::Signed(i64::from_be_bytes(self.array()?)),
            0xd9..=0xdb => {
                let len = self.length(1 << (marker - 0xd9))?;
                Value::Str(self.take(len)?)
            }
            0xdc | 0xdd => Value::Array(self.length(2 << (marker - 0xdc))?),
            0xde | 0xdf => Value::Map(self.length(2 << (marker - 0xde))?),
            0xe0..=0xff => Value::Signed(i64::from(marker as i8)),
            _ => return Err(Error(format!("unexpected marker 0x{marker:02x}"))),
        })
    }

    /// Visit a container of `len` entries one level deeper.
    fn nested<V: Visitor<'de>>(
        &mut self,
        visitor: V,
        len: usize,
        map: bool,
    ) -> Result<V::Value, Error> {
        if self.depth >= MAX_DEPTH {
            return Err(Error("nested too deep".into()));
        }
        self.depth += 1;
        let visited = if map {
            visitor.visit_map(Entries {
                reader: self,
                left: len,
            })
        } else {
            visitor.visit_seq(Entries {
                reader: self,
                left: len,
            })
        };
        self.depth -= 1;
        visited
    }

    #[inline]
    fn visit<V: Visitor<'de>>(&mut self, value: Value<'de>, visitor: V) -> Result<V::Value, Error> {
        match value {
            Value::Nil => visitor.visit_unit(),
            Value::Bool(b) => visitor.visit_bool(b),
            Value::Unsigned(u) => visitor.visit_u64(u),
            Value::Signed(i) => visitor.visit_i64(i),
            Value::Float(f) => visitor.visit_f64(f),
            Value::Str(bytes) => visitor.visit_borrowed_str(utf8(bytes)?),
            Value::Bytes(bytes) => visitor.visit_borrowed_bytes(bytes),
            Value::Array(len) => self.nested(visitor, len, false),
            Value::Map(len) => self.nested(visitor, len, true),
        }
    }
}

fn utf8(bytes: &[u8]) -> Result<&str, Error> {
    std::str::from_utf8(bytes).map_err(|_| Error("a string is not UTF-8".into()))
}

/// One value's marker, read.
enum Value<'de> {
    Nil,
    Bool(bool),
    Unsigned(u64),
    Signed(i64),
    Float(f64),
    Str(&'de [u8]),
    Bytes(&'de [u8]),
    Array(usize),
    Map(usize),
}

impl<'de> de::Deserializer<'de> for &mut Reader<'de> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        let value = self.next()?;
        self.visit(value, visitor)
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        if self.peek()? == 0xc0 {
            self.at += 1;
            visitor.visit_none()
        } else {
            visitor.visit_some(self)
        }
    }

    /// Field names as bytes: the derived matchers compare them as they are, and a name that
    /// is not valid UTF-8 matches no field.
    fn deserialize_identifier<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.next()? {
            Value::Str(bytes) => visitor.visit_borrowed_bytes(bytes),
            other => self.visit(other, visitor),
        }
    }

    /// Unit variants, as `rmp_serde` writes them: the variant's name.
    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        match self.next()? {
            Value::Str(bytes) => visitor.visit_enum(utf8(bytes)?.into_deserializer()),
            _ => Err(Error("an enum other than a name".into())),
        }
    }

    fn is_human_readable(&self) -> bool {
        false
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf unit unit_struct newtype_struct seq tuple
        tuple_struct map struct ignored_any
    }
}

/// The entries of an array or a map, counted down.
struct Entries<'r, 'de> {
    reader: &'r mut Reader<'de>,
    left: usize,
}

impl<'de> Entries<'_, 'de> {
    /// The next element, or a map's next key; `None` past the last.
    fn next<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>, Error> {
        if self.left == 0 {
            return Ok(None);
        }
        self.left -= 1;
        seed.deserialize(&mut *self.reader).map(Some)
    }

    /// How many entries are left, not trusted for more room than the bytes left could hold.
    fn left(&self) -> Option<usize> {
        Some(self.left.min(self.reader.bytes.len() - self.reader.at))
    }
}

impl<'de> SeqAccess<'de> for Entries<'_, 'de> {
    type Error = Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, Error> {
        self.next(seed)
    }

    fn size_hint(&self) -> Option<usize> {
        self.left()
    }
}

impl<'de> MapAccess<'de> for Entries<'_, 'de> {
    type Error = Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, Error> {
        self.next(seed)
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, Error> {
        seed.deserialize(&mut *self.reader)
    }

    fn size_hint(&self) -> Option<usize> {
        self.left()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::{Deserialize, Serialize};
    use std::collections::BTreeMap;

    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    #[serde(rename_all = "camelCase")]
    enum Kind {
        DataLoad,
        DataProcess,
    }

    #[derive(Debug, Default, PartialEq, Serialize, Deserialize)]
    #[serde(rename_all = "camelCase", default)]
    struct Sample {
        name: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        maybe: Option<i64>,
        small: i8,
        wide: u64,
        negative: i64,
        ratio: f64,
        flag: bool,
        list: Vec<String>,
        labels: BTreeMap<String, String>,
        kinds: Vec<Kind>,
        nested: Option<Box<Sample>>,
    }

    fn read<T: for<'de> Deserialize<'de>>(bytes: &[u8]) -> Result<T, Error> {
        T::deserialize(&mut Reader::new(bytes))
    }

    /// What `rmp_serde` writes (structs by field name) reads back the same, at every width of
    /// integer, string, array and map.
    #[test]
    fn reads_back_what_rmp_serde_writes() {
        let long = "x".repeat(300);
        let samples = [
            Sample::default(),
            Sample {
                name: "pod-0".into(),
                maybe: Some(-3),
                small: -100,
                wide: u64::MAX,
                negative: i64::MIN,
                ratio: 0.25,
                flag: true,
                list: (0..20).map(|i| format!("item-{i}")).collect(),
                labels: (0..70_000)
                    .map(|i| (format!("k{i}"), long[..i % 300].to_string()))
                    .collect(),
                kinds: vec![Kind::DataLoad, Kind::DataProcess],
                nested: Some(Box::new(Sample {
                    name: long.clone(),
                    wide: 70_000,
                    negative: -40_000,
                    ..Sample::default()
                })),
            },
        ];
        for sample in samples {
            let bytes = rmp_serde::to_vec_named(&sample).unwrap();
            assert_eq!(read::<Sample>(&bytes).unwrap(), sample);
        }
        // Unknown fields are skipped, whatever they hold.
        let mut extra: BTreeMap<&str, rmpv_like::Any> = BTreeMap::new();
        extra.insert("unknown", rmpv_like::Any::List(vec![1, 2, 3]));
        extra.insert("name", rmpv_like::Any::Text("n".into()));
        let bytes = rmp_serde::to_vec_named(&extra).unwrap();
        assert_eq!(read::<Sample>(&bytes).unwrap().name, "n");
    }

    /// Broken bytes are errors, never a panic or a read past the end.
    #[test]
    fn broken_bytes_are_refused() {
        let bytes = rmp_serde::to_vec_named(&Sample {
            name: "pod".into(),
            list: vec!["a".into(), "b".into()],
            ..Sample::default()
        })
        .unwrap();
        for cut in 0..bytes.len() {
            assert!(read::<Sample>(&bytes[..cut]).is_err(), "cut at {cut}");
        }
        let cases: [(&str, Vec<u8>, &str); 4] = [
            ("a reserved marker", vec![0xc1], "unexpected marker 0xc1"),
            (
                "a string that is not UTF-8",
                vec![0xa2, 0xff, 0xfe],
                "a string is not UTF-8",
            ),
            (
                "a huge length",
                vec![0xdb, 0xff, 0xff, 0xff, 0xff],
                "cut short",
            ),
            (
                "nesting past the limit",
                vec![0x91; 1000],
                "nested too deep",
            ),
        ];
        for (name, bytes, message) in cases {
            let read = serde::de::IgnoredAny::deserialize(&mut Reader::new(&bytes));
            assert_eq!(
                read.err().map(|e| e.to_string()).as_deref(),
                Some(message),
                "{name}"
            );
        }
    }

    /// Values of other shapes than the fields expect, for the unknown-field test above.
    mod rmpv_like {
        #[derive(serde::Serialize)]
        #[serde(untagged)]
        pub enum Any {
            List(Vec<i32>),
            Text(String),
        }
    }
}
