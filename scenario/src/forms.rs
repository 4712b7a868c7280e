//! Fields that take one of several forms (a number or a range, a preset or a map), read with errors that say which forms are accepted.

use crate::file::{
    Entries, EntryDetail, EntryExpect, Indexes, UpdateFile, UpdatePreset, UpdateStrategyFile,
};
use serde::de::value::{MapAccessDeserializer, SeqAccessDeserializer, StrDeserializer};
use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use std::fmt;

/// `Deserialize` for a type read by its visitor from whatever form it has.
macro_rules! any_form {
    ($type:ty, $visitor:expr) => {
        impl<'de> Deserialize<'de> for $type {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                d.deserialize_any($visitor)
            }
        }
    };
}

const INDEXES: &str = "a slot index (like 3) or a range of slots (like \"0-4\")";

fn index<E: de::Error>(v: u64) -> Result<u32, E> {
    u32::try_from(v)
        .map_err(|_| E::custom(format!("{v} is not a slot index: at most {}", u32::MAX)))
}

fn negative<T, E: de::Error>(v: i64) -> Result<T, E> {
    Err(E::custom(format!(
        "{v} is negative; indexes and counts start at 0"
    )))
}

struct IndexesVisitor;

impl<'de> Visitor<'de> for IndexesVisitor {
    type Value = Indexes;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(INDEXES)
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Indexes, E> {
        index(v).map(Indexes::One)
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Indexes, E> {
        match u64::try_from(v) {
            Ok(v) => self.visit_u64(v),
            Err(_) => negative(v),
        }
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Indexes, E> {
        Ok(Indexes::Range(v.to_string()))
    }
}

any_form!(Indexes, IndexesVisitor);

struct UpdateVisitor;

impl<'de> Visitor<'de> for UpdateVisitor {
    type Value = UpdateFile;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(
            "an update preset (`canary` or `rolling`) or a strategy (a map with fields such as \
             `max-parallel` and `canary`)",
        )
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<UpdateFile, E> {
        UpdatePreset::deserialize(StrDeserializer::<E>::new(v)).map(UpdateFile::Preset)
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<UpdateFile, A::Error> {
        UpdateStrategyFile::deserialize(MapAccessDeserializer::new(map)).map(UpdateFile::Strategy)
    }
}

any_form!(UpdateFile, UpdateVisitor);

struct EntriesVisitor;

impl<'de> Visitor<'de> for EntriesVisitor {
    type Value = Entries;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("how many entries (like 3), or a list of them (slots, ranges or details)")
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Entries, E> {
        usize::try_from(v)
            .map(Entries::Count)
            .map_err(|_| E::custom(format!("{v} entries is more than a plan can hold")))
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Entries, E> {
        match u64::try_from(v) {
            Ok(v) => self.visit_u64(v),
            Err(_) => negative(v),
        }
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Entries, A::Error> {
        Vec::<EntryExpect>::deserialize(SeqAccessDeserializer::new(seq)).map(Entries::Listed)
    }
}

any_form!(Entries, EntriesVisitor);

struct EntryVisitor;

impl<'de> Visitor<'de> for EntryVisitor {
    type Value = EntryExpect;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(
            f,
            "{INDEXES}, or an entry's details (a map with fields such as `index` and `alloc`)"
        )
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<EntryExpect, E> {
        IndexesVisitor.visit_u64(v).map(EntryExpect::Slots)
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<EntryExpect, E> {
        IndexesVisitor.visit_i64(v).map(EntryExpect::Slots)
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<EntryExpect, E> {
        IndexesVisitor.visit_str(v).map(EntryExpect::Slots)
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<EntryExpect, A::Error> {
        EntryDetail::deserialize(MapAccessDeserializer::new(map)).map(EntryExpect::Detail)
    }
}

any_form!(EntryExpect, EntryVisitor);
