//! `PackedRow`, an owned packed row (its bytes in a 32-byte `RowBytes`: inline up to `INLINE`
//! bytes, else on the heap or in a batch's arena), and `PackedSlice`, a borrowed one (a row, or
//! an array's or record's elements inside one).
//!
//! Order is `Vec<Datum>`'s (`order.rs`); equality and hashing are of the bytes, which the
//! canonical encoding makes agree with it. Serde writes a row for people (JSON) as `Row`'s derived
//! implementation did (a newtype `Row` around a sequence of `Datum`s), and for machines (bincode:
//! commands and exchanges between the processes of a cluster) as its packed bytes.

use super::bytes::RowBytes;
pub use super::bytes::INLINE;
use super::datum_ref::{datum_len, read, DatumRef};
use super::order::{compare_rows, row_sort_key, row_sort_key_prefix};
use super::packer::RowPacker;
use crate::datum::Datum;
use serde::ser::SerializeSeq;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::cmp::Ordering;
use std::fmt;
use std::hash::{Hash, Hasher};

/// An owned packed row (32 bytes; its clones are always owned, wherever it lives).
#[derive(Default, Clone)]
pub struct PackedRow {
    data: RowBytes,
}

/// A borrowed packed row: datums one after another, as a `RowPacker` wrote them.
#[derive(Clone, Copy, Default)]
pub struct PackedSlice<'a> {
    data: &'a [u8],
}

impl PackedRow {
    /// The row of no columns.
    pub fn empty() -> PackedRow {
        PackedRow::default()
    }

    /// Packs owned datums.
    pub fn pack<'d>(datums: impl IntoIterator<Item = &'d Datum>) -> PackedRow {
        let mut p = RowPacker::new();
        p.extend(datums);
        p.finish()
    }

    /// Packs borrowed datums.
    pub fn pack_refs<'d>(datums: impl IntoIterator<Item = DatumRef<'d>>) -> PackedRow {
        let mut p = RowPacker::new();
        datums.into_iter().for_each(|d| p.push_ref(d));
        p.finish()
    }

    /// A row of bytes a packer wrote.
    pub(super) fn from_packed(bytes: &[u8]) -> PackedRow {
        PackedRow {
            data: RowBytes::from_slice(bytes),
        }
    }

    /// The datums of `self` then those of `other`, as one row (a join's pair).
    pub fn concat(&self, other: &PackedRow) -> PackedRow {
        PackedRow {
            data: RowBytes::from_slices(self.data.as_slice(), other.data.as_slice()),
        }
    }

    pub fn as_slice(&self) -> PackedSlice<'_> {
        PackedSlice {
            data: self.data.as_slice(),
        }
    }

    pub fn iter(&self) -> PackedIter<'_> {
        self.as_slice().iter()
    }

    /// The number of columns (counted by reading the row).
    pub fn len(&self) -> usize {
        self.as_slice().len()
    }

    pub fn is_empty(&self) -> bool {
        self.data.as_slice().is_empty()
    }

    /// Column `i` (found by reading the columns before it); panics past the last column.
    pub fn get(&self, i: usize) -> DatumRef<'_> {
        self.as_slice().get(i)
    }

    /// The owned datums.
    pub fn unpack(&self) -> Vec<Datum> {
        self.iter().map(|d| d.to_datum()).collect()
    }

    /// The encoded bytes.
    pub fn as_bytes(&self) -> &[u8] {
        self.data.as_slice()
    }

    /// Bytes this row owns on the heap (0 when it is inline, or its bytes are a batch's arena's).
    pub fn heap_size(&self) -> usize {
        self.data.heap_size()
    }
}

impl<'a> PackedSlice<'a> {
    pub(super) fn from_packed(data: &'a [u8]) -> PackedSlice<'a> {
        PackedSlice { data }
    }

    pub fn iter(&self) -> PackedIter<'a> {
        PackedIter { data: self.data }
    }

    pub fn len(&self) -> usize {
        self.iter().count()
    }

    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
    }

    pub fn get(&self, i: usize) -> DatumRef<'a> {
        match self.iter().nth(i) {
            Some(d) => d,
            None => panic!("column {i} of a packed row of {} columns", self.len()),
        }
    }

    pub fn as_bytes(&self) -> &'a [u8] {
        self.data
    }

    pub fn to_owned_row(&self) -> PackedRow {
        PackedRow::from_packed(self.data)
    }

    /// The row with the datums `f` replaces (`Some`) replaced and the others copied as bytes,
    /// or `None` when it replaces none (nothing is allocated then).
    pub fn replace_datums(
        &self,
        mut f: impl FnMut(DatumRef<'a>) -> Option<Datum>,
    ) -> Option<PackedRow> {
        let mut packer: Option<RowPacker> = None;
        let (mut at, mut copied) = (0, 0);
        while at < self.data.len() {
            let (d, next) = self.read_at(at);
            if let Some(new) = f(d) {
                let p = packer.get_or_insert_with(RowPacker::new);
                p.extend_packed(self.between(copied, at));
                p.push(&new);
                copied = next;
            }
            at = next;
        }
        packer.map(|mut p| {
            p.extend_packed(self.between(copied, self.data.len()));
            p.finish()
        })
    }

    /// The datum that starts at byte `offset` and the offset where the next one starts.
    /// `offset` must be a datum boundary: 0, or an offset an earlier `read_at` returned.
    #[inline]
    pub fn read_at(&self, offset: usize) -> (DatumRef<'a>, usize) {
        let (d, n) = read(&self.data[offset..]);
        (d, offset + n)
    }

    /// The day number (`Datelike::num_days_from_ce`) of the date that starts at byte `offset`
    /// (see `read_at`), read without making a `NaiveDate`: `Some(None)` for NULL, `None` for
    /// a datum that is neither.
    #[inline]
    pub fn date_days_at(&self, offset: usize) -> Option<Option<i32>> {
        match self.data[offset] {
            super::tag::DATE => Some(Some(i32::from_le_bytes(
                self.data[offset + 1..offset + 5]
                    .try_into()
                    .expect("a packed date's four bytes"),
            ))),
            super::tag::NULL => Some(None),
            _ => None,
        }
    }

    /// The bytes of the string that starts at byte `offset` (see `read_at`), not checked as
    /// UTF-8: `Some(None)` for NULL, `None` for a datum that is neither. Strings compare as
    /// their bytes.
    #[inline]
    pub fn string_bytes_at(&self, offset: usize) -> Option<Option<&'a [u8]>> {
        super::datum_ref::string_bytes(&self.data[offset..])
    }

    /// The offset where the datum that starts at byte `offset` ends (see `read_at`), found
    /// without decoding it.
    #[inline]
    pub fn skip_at(&self, offset: usize) -> usize {
        offset + datum_len(&self.data[offset..])
    }

    /// The datums whose bytes lie between `start` and `end`, both datum boundaries (see
    /// `read_at`): copied with `RowPacker::extend_packed`, columns move without decoding.
    #[inline]
    pub fn between(&self, start: usize, end: usize) -> PackedSlice<'a> {
        PackedSlice {
            data: &self.data[start..end],
        }
    }
}

/// The datums of a packed row, in order, borrowed.
#[derive(Clone)]
pub struct PackedIter<'a> {
    data: &'a [u8],
}

impl<'a> Iterator for PackedIter<'a> {
    type Item = DatumRef<'a>;

    #[inline]
    fn next(&mut self) -> Option<DatumRef<'a>> {
        if self.data.is_empty() {
            return None;
        }
        let (d, n) = read(self.data);
        self.data = &self.data[n..];
        Some(d)
    }
}

impl Ord for PackedSlice<'_> {
    fn cmp(&self, other: &Self) -> Ordering {
        compare_rows(self.data, other.data)
    }
}

impl PartialOrd for PackedSlice<'_> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl PartialEq for PackedSlice<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.data == other.data
    }
}

impl Eq for PackedSlice<'_> {}

impl Hash for PackedSlice<'_> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.data.hash(state)
    }
}

impl Ord for PackedRow {
    fn cmp(&self, other: &Self) -> Ordering {
        compare_rows(self.data.as_slice(), other.data.as_slice())
    }
}

/// The first datum's order-preserving prefix (`order.rs`), for the engine's sorts.
impl kpg_sortkey::SortKey for PackedRow {
    const HAS_KEY: bool = true;
    #[inline]
    fn sort_key(&self) -> u64 {
        row_sort_key(self.data.as_slice())
    }
    #[inline]
    fn sort_key_prefix(&self) -> (u64, Option<u32>) {
        row_sort_key_prefix(self.data.as_slice())
    }
}

impl PartialOrd for PackedRow {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl PartialEq for PackedRow {
    fn eq(&self, other: &Self) -> bool {
        self.data.as_slice() == other.data.as_slice()
    }
}

/// Spilled bytes go to the batch's arena (`bytes.rs`).
impl kpg_sortkey::ArenaCopy for PackedRow {
    const USES_ARENA: bool = true;
    #[inline]
    fn arena_len(&self) -> usize {
        self.data.arena_len()
    }
    #[inline]
    unsafe fn arena_copy(&self, arena: &mut kpg_sortkey::Arena) -> PackedRow {
        PackedRow {
            // SAFETY: the caller keeps the contract of `ArenaCopy::arena_copy`.
            data: unsafe { self.data.arena_copy(arena) },
        }
    }
}

impl Eq for PackedRow {}

impl Hash for PackedRow {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.as_slice().hash(state)
    }
}

impl fmt::Debug for PackedSlice<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // As the owned datums print, so that a row's debug text is what it was as a Vec<Datum>.
        f.debug_list()
            .entries(self.iter().map(|d| d.to_datum()))
            .finish()
    }
}

impl fmt::Debug for PackedRow {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.as_slice(), f)
    }
}

impl From<&[Datum]> for PackedRow {
    fn from(datums: &[Datum]) -> PackedRow {
        PackedRow::pack(datums)
    }
}

/// The datums as a sequence, each made owned in turn.
struct Datums<'a>(PackedSlice<'a>);

impl Serialize for Datums<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(Some(self.0.len()))?;
        for d in self.0.iter() {
            seq.serialize_element(&d.to_datum())?;
        }
        seq.end()
    }
}

/// For people (JSON): the datums, as `Row`'s derived implementation wrote them. For machines
/// (bincode, between the processes of a cluster, which all run one binary): the packed bytes,
/// checked as they are read back (`check_row`) — no datum is decoded, no numeric printed and
/// parsed again on the way.
impl Serialize for PackedRow {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match s.is_human_readable() {
            true => s.serialize_newtype_struct("Row", &Datums(self.as_slice())),
            false => s.serialize_bytes(self.as_bytes()),
        }
    }
}

#[derive(Deserialize)]
#[serde(rename = "Row")]
struct Wire(Vec<Datum>);

/// Reads a packed row's bytes, checked.
struct PackedBytes;

impl<'de> serde::de::Visitor<'de> for PackedBytes {
    type Value = PackedRow;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a packed row's bytes")
    }

    fn visit_bytes<E: serde::de::Error>(self, bytes: &[u8]) -> Result<PackedRow, E> {
        super::check_row(bytes).map_err(E::custom)
    }
}

impl<'de> Deserialize<'de> for PackedRow {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<PackedRow, D::Error> {
        match d.is_human_readable() {
            true => {
                let Wire(datums) = Wire::deserialize(d)?;
                Ok(PackedRow::pack(&datums))
            }
            false => d.deserialize_bytes(PackedBytes),
        }
    }
}
